package box

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// boxed returns n values of every kind, boxed by a Slab, and the same
// values boxed by the runtime.
func boxed(n int) (got, want []any) {
	var b Slab
	for i := range n {
		s := strings.Repeat(strconv.Itoa(i), 1+i%3)
		ii := int64(i*7919) - 1000
		f := float64(i) * 1.5
		if i%5 == 0 {
			f = -f
		}
		sl := []any{s, ii}
		got = append(got, b.String(s), b.Int64(ii), b.Float64(f), b.Slice(sl))
		want = append(want, s, ii, f, sl)
	}
	got = append(got, b.String(""), b.Int64(0), b.Int64(255), b.Int64(-1), b.Int64(math.MinInt64), b.Float64(0),
		b.Float64(math.Copysign(0, -1)), b.Float64(math.Inf(1)), b.Slice(nil), b.Slice([]any{}))
	want = append(want, "", int64(0), int64(255), int64(-1), int64(math.MinInt64), float64(0),
		math.Copysign(0, -1), math.Inf(1), []any(nil), []any{})
	return got, want
}

// churn allocates and drops memory, so that freed chunks would be reused
// and overwritten.
func churn() {
	for range 4 {
		var keep [][]byte
		for range 2000 {
			keep = append(keep, []byte(strings.Repeat("x", 48)))
		}
		runtime.KeepAlive(keep)
		runtime.GC()
	}
}

// TestSlabValues checks that boxed values are the values, as type
// switches, assertions, fmt, reflect and DeepEqual see them, after the Slab
// is gone and the collector has run.
func TestSlabValues(t *testing.T) {
	got, want := boxed(3000)
	churn()
	if !reflect.DeepEqual(got, want) {
		t.Fatal("boxed values differ from the runtime's")
	}
	for i, v := range got {
		switch w := want[i].(type) {
		case string:
			if s, ok := v.(string); !ok || s != w {
				t.Fatalf("%d: %#v, want %#v", i, v, w)
			}
		case int64:
			if x, ok := v.(int64); !ok || x != w {
				t.Fatalf("%d: %#v, want %#v", i, v, w)
			}
		case float64:
			if x, ok := v.(float64); !ok || math.Float64bits(x) != math.Float64bits(w) {
				t.Fatalf("%d: %#v, want %#v", i, v, w)
			}
		case []any:
			if x, ok := v.([]any); !ok || (x == nil) != (w == nil) || len(x) != len(w) {
				t.Fatalf("%d: %#v, want %#v", i, v, w)
			}
		}
		if fmt.Sprint(v) != fmt.Sprint(want[i]) || reflect.TypeOf(v) != reflect.TypeOf(want[i]) {
			t.Fatalf("%d: %v (%T), want %v (%T)", i, v, v, want[i], want[i])
		}
		if _, ok := want[i].([]any); !ok && v != want[i] {
			t.Fatalf("%d: %v != %v", i, v, want[i])
		}
	}
	// Keys of a map compare and hash as the runtime's boxes do.
	m := map[any]int{}
	for i, v := range want {
		if _, ok := v.([]any); !ok {
			m[v] = i
		}
	}
	for i, v := range got {
		if _, ok := v.([]any); ok {
			continue
		}
		if j, ok := m[v]; !ok || want[j] != want[i] {
			t.Fatalf("%d: %v not found as a map key", i, v)
		}
	}
}

// TestSlabKeepsChunk checks that one value keeps its chunk alive.
func TestSlabKeepsChunk(t *testing.T) {
	var b Slab
	var last any
	for i := range 100 {
		last = b.String("v" + strconv.Itoa(i))
	}
	b = Slab{}
	churn()
	if last != "v99" {
		t.Fatalf("last value %v, want v99", last)
	}
}

// TestSlabSlice checks that the elements of a boxed slice stay the
// caller's: a write through the slice is seen through the interface.
func TestSlabSlice(t *testing.T) {
	var b Slab
	s := []any{1, 2}
	v := b.Slice(s)
	s[0] = "x"
	if got := v.([]any); got[0] != "x" || len(got) != 2 || &got[0] != &s[0] {
		t.Fatalf("boxed slice %v, want the same array as %v", got, s)
	}
}

func TestSlabAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(20, func() {
		var b Slab
		for i := range 1000 {
			_ = b.Int64(int64(1000 + i))
		}
	})
	// 4+8+...+512: 8 chunks up to 1,020 values.
	if allocs > 8 {
		t.Errorf("1,000 boxed int64s cost %v allocations, want at most 8", allocs)
	}
	// With a Hint, chunks follow the density of the input: 1,000 strings
	// evenly spread over 20,000 bytes take a chunk of 16, then one sized
	// for the rest (at most 512), and so on; without one, each chunk
	// doubles the last.
	for _, tc := range []struct {
		n, every, strings, want int
	}{
		{20000, 20, 1000, 4},    // 16, then chunks of 512 and the rest
		{20000, 200, 100, 2},    // 16, then one for the remaining 84 or so
		{100, 25, 4, 1},         // one chunk of 5
		{400000, 40, 10000, 22}, // 16, then chunks of 512
	} {
		hinted := testing.AllocsPerRun(10, func() {
			var b Slab
			b.Hint(tc.n)
			for i := range tc.strings {
				b.Pos = i * tc.every
				_ = b.String("s")
			}
		})
		if hinted > float64(tc.want) {
			t.Errorf("%d strings, one in %d of %d bytes, after Hint cost %v allocations, want at most %d", tc.strings, tc.every, tc.n, hinted, tc.want)
		}
		var b Slab
		b.Hint(tc.n)
		slots := 0
		for i := range tc.strings {
			b.Pos = i * tc.every
			_ = b.String("s")
			if len(b.strs) == 1 {
				slots += cap(b.strs)
			}
		}
		if slots > tc.strings+tc.strings/4+minChunk+firstMax {
			t.Errorf("%d strings, one in %d of %d bytes, took chunks of %d slots", tc.strings, tc.every, tc.n, slots)
		}
	}
	small := testing.AllocsPerRun(20, func() {
		var b Slab
		_, _, _ = b.String(""), b.Int64(7), b.Float64(0)
	})
	if small != 0 {
		t.Errorf("the empty string, a small int and zero cost %v allocations, want none", small)
	}
}

// TestSlabShared reads boxed values from many goroutines (for the race
// detector).
func TestSlabShared(t *testing.T) {
	got, want := boxed(200)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if !reflect.DeepEqual(got, want) {
					t.Error("boxed values differ")
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestSlabGODEBUG runs the tests above again with the collector's checks
// on (a second mark pass checking the first, freed memory clobbered) and a
// collection at every small allocation step.
func TestSlabGODEBUG(t *testing.T) {
	if os.Getenv("BOX_GODEBUG_CHILD") != "" {
		t.Skip("running inside TestSlabGODEBUG")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestSlab(Values|KeepsChunk|Slice|Shared)$", "-test.count", "1", "-test.v")
	cmd.Env = append(os.Environ(), "BOX_GODEBUG_CHILD=1", "GOGC=1", "GODEBUG=gccheckmark=1,clobberfree=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestSlabValues") {
		t.Fatalf("with GODEBUG: %v\n%s", err, out)
	}
}
