package par

import (
	"sync/atomic"
	"testing"
)

func TestEach(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 100} {
		var calls [100]atomic.Int32
		Each(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			want := int32(0)
			if i < n {
				want = 1
			}
			if got := calls[i].Load(); got != want {
				t.Fatalf("n=%d: f(%d) called %d times, want %d", n, i, got, want)
			}
		}
	}
}

func TestEachPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want boom", r)
		}
	}()
	Each(50, func(i int) {
		if i == 7 {
			panic("boom")
		}
	})
	t.Fatal("Each returned")
}
