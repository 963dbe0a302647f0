package prune

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/schema"
)

// serverDecode decodes data as the server's decoder does (sigs.k8s.io/json,
// case-sensitive, integers kept), reporting whether it decoded without
// error and without duplicate keys.
func serverDecode(data []byte) (map[string]any, bool) {
	var m map[string]any
	strict, err := kjson.UnmarshalStrict(data, &m, kjson.DisallowDuplicateFields)
	if err != nil || len(strict) > 0 || m == nil {
		return nil, false
	}
	return m, true
}

// checkJSON checks JSON on data against the server's decoder followed by
// Object: the same value and paths, or a give-up. It reports whether JSON
// decoded data.
func checkJSON(t *testing.T, data []byte, s *schema.Schema, opts Options) bool {
	t.Helper()
	// What JSON returns must not share the caller's bytes: they are
	// overwritten before the results are compared.
	in := bytes.Clone(data)
	obj, paths, nulls, ok := JSONNulls(in, s, opts, nil)
	for i := range in {
		in[i] = '#'
	}
	ref, refOK := serverDecode(data)
	if !ok {
		if obj != nil || paths != nil || nulls {
			t.Fatalf("JSON(%s) gave up with results %s %q", data, toJSON(obj), paths)
		}
		return false
	}
	if !refOK {
		t.Fatalf("JSON(%s) = %s, the server's decoder refuses it", data, toJSON(obj))
	}
	refPaths := Object(ref, s, opts, nil)
	if !reflect.DeepEqual(obj, ref) || !samePaths(paths, refPaths) {
		t.Fatalf("JSON(%s) = %s %q, want %s %q", data, toJSON(obj), paths, toJSON(ref), refPaths)
	}
	if opts.NoPaths && len(paths) > 0 {
		t.Fatalf("JSON(%s) with NoPaths recorded %q", data, paths)
	}
	if want := holdsNil(obj); nulls != want {
		t.Fatalf("JSONNulls(%s) reports nulls %v, the value holding a nil is %v", data, nulls, want)
	}
	if o, p, ok := JSON(data, s, opts, nil); !ok || !reflect.DeepEqual(o, obj) || !samePaths(p, paths) {
		t.Fatalf("JSON(%s) = %s %q %v, JSONNulls gives %s %q", data, toJSON(o), p, ok, toJSON(obj), paths)
	}
	return true
}

// holdsNil reports whether v is nil or holds a nil in a map or slice.
func holdsNil(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range v {
			if holdsNil(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if holdsNil(e) {
				return true
			}
		}
	}
	return false
}

func TestJSONTable(t *testing.T) {
	for _, tc := range loadCases(t) {
		t.Run(tc.Name, func(t *testing.T) {
			s := mustCompile(t, tc.Schema)
			if !bytes.HasPrefix(bytes.TrimSpace(tc.Object), []byte("{")) {
				if _, _, ok := JSON(tc.Object, s, Options{Root: tc.Root}, nil); ok {
					t.Fatalf("JSON(%s) decoded a value that is not an object", tc.Object)
				}
				return
			}
			if !checkJSON(t, tc.Object, s, Options{Root: tc.Root}) {
				t.Fatalf("JSON(%s) gave up", tc.Object)
			}
		})
	}
}

func TestJSONGivesUp(t *testing.T) {
	s := mustCompile(t, []byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{}}}}}`))
	for _, in := range []string{
		``, ` `, `[]`, `"x"`, `1`, `null`,
		`{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a":1}x`, `{"a":1}{}`, `{"a" 1}`,
		`{"a":[1,]}`, `{"a":[1 2]}`, `{"a":tru}`, `{"a":nul}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":.5}`, `{"a":+1}`,
		`{"a":1e400}`, `{"a":-1e400}`, `{"spec":{"b":1e999}}`,
		`{"a":1,"a":2}`, `{"spec":{"a":1,"a":1}}`, `{"spec":{"x":1,"x":1}}`, `{"spec":{"x":{"y":1,"y":2}}}`, `{"metadata":{"name":"a","name":"b"}}`,
		`{"spec":{"x":"\ud800"}}`, `{"a":"\udc00"}`, `{"a":"\ud800\u0041"}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`,
		"{\"a\":\"\xff\"}", "{\"spec\":{\"x\":\"\xed\xa0\x80\"}}", "{\"a\xff\":1}", "{\"a\":\"\x01\"}", "{\"a\":\"\t\"}",
		"\xef\xbb\xbf{}",
		strings.Repeat(`{"a":`, 600) + "1" + strings.Repeat("}", 600),
		`{"spec":{"x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}}`,
	} {
		if obj, paths, ok := JSON([]byte(in), s, Options{Root: true}, nil); ok {
			t.Errorf("JSON(%q) = %s %q, want a give-up", in, toJSON(obj), paths)
		}
	}
}

func TestJSONValues(t *testing.T) {
	s := mustCompile(t, []byte(`{"type":"object","properties":{
		"spec":{"type":"object","properties":{"a":{},"list":{"type":"array","items":{"type":"object","properties":{"n":{}}}}}},
		"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
		"emb":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object"}}}}}`))
	for _, in := range []string{
		`{}`, ` { } `, "\t{\n}\r\n",
		`{"apiVersion":"a/v1","kind":"K","metadata":{"name":"x","labels":{"a":"b"},"unknown":[1,{"b":null}]}}`,
		`{"spec":{"a":[0,-0,1,-1,9223372036854775807,-9223372036854775808,9223372036854775808,-9223372036854775809,123456789012345678,1234567890123456789]}}`,
		`{"spec":{"a":[1.0,1e2,1E2,-1e-2,0.5,1e308,5e-324,1e-400,12345678901234567890123]}}`,
		`{"spec":{"a":["","\"\\\/\b\f\n\r\t","\u0041\u00e9\u20ac\ud83d\ude00\u0000","é€😀","<\u003c>"]}}`,
		`{"spec":{"a":true,"b":false,"c":null,"list":[{"n":1,"m":2},[],{},null,"x",[{"z":1}]]}}`,
		`{"spec":{"b":{"c":[{"d":1e10,"e":"\ud83d\ude00"}],"k\u0061":1}},"status":{"x":[[[]]]},"extra":1}`,
		`{"apiVersion":{},"kind":[],"metadata":"x"}`,
		`{"free":{"anything":{"goes":[1,{"x":2}]}},"emb":{"apiVersion":"v1","kind":"K","metadata":{"q":1},"spec":{"z":1},"other":2}}`,
		`{"spec":[{"a":1}],"free":[1,{"a":2}],"emb":"x"}`,
		`{"k\u00e9y":1,"key\n":2,"":3}`,
	} {
		for _, opts := range []Options{{Root: true}, {}, {Root: true, NoPaths: true}} {
			if !checkJSON(t, []byte(in), s, opts) {
				t.Errorf("JSON(%s) gave up", in)
			}
			if !checkJSON(t, []byte(in), nil, opts) {
				t.Errorf("JSON(%s) without a schema gave up", in)
			}
		}
	}
}

func TestJSONKeepsDst(t *testing.T) {
	s := mustCompile(t, []byte(`{"type":"object","properties":{"a":{}}}`))
	dst := []string{"z", "earlier"}
	_, paths, ok := JSON([]byte(`{"c":1,"b":2,"a":3}`), s, Options{}, dst)
	if !ok || !reflect.DeepEqual(paths, []string{"z", "earlier", "b", "c"}) {
		t.Fatalf("JSON = %q, %v; want the earlier paths kept and b, c appended", paths, ok)
	}
}

// TestJSONAllocs checks that a clean object costs the values it builds and
// the copy of the input, and nothing for its keys and strings.
func TestJSONAllocs(t *testing.T) {
	skipUnlessPoolsReuse(t)
	s := mustCompile(t, []byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{},"b":{},"c":{}}}}}`))
	data := []byte(`{"apiVersion":"a/v1","kind":"K","spec":{"a":"x","b":"y","c":"z"},"status":{"big":{"x":[1,2,3,{"y":"z"}],"w":"v"}}}`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, ok := JSON(data, s, Options{Root: true, NoPaths: true}, nil); !ok {
			t.Fatal("gave up")
		}
	})
	// One chunk of text for the kept strings and the root's apiVersion and
	// kind keys, two for each of the root map and the spec map, and one
	// chunk for the five strings put in an interface; the stacks (the path,
	// the keys of the pruned objects) are reused from earlier calls.
	if allocs > 6 {
		t.Errorf("JSON allocates %v times, want at most 6", allocs)
	}
}

// TestJSONDeclaredKeysAllocs checks that the keys of declared properties are the
// schema's strings, not copies: an object of declared keys and small
// numbers costs its map and nothing else.
func TestJSONDeclaredKeysAllocs(t *testing.T) {
	s := mustCompile(t, []byte(`{"type":"object","properties":{"alpha":{},"beta":{},"gamma":{}}}`))
	data := []byte(`{"alpha":1,"beta":2,"gamma":3}`)
	obj, _, _ := JSON(data, s, Options{}, nil)
	for k := range obj {
		name, _ := s.PropertyName(k)
		if name == "" || unsafe.StringData(k) != unsafe.StringData(name) {
			t.Errorf("key %q is not the schema's string", k)
		}
	}
	skipUnlessPoolsReuse(t)
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, ok := JSON(data, s, Options{NoPaths: true}, nil); !ok {
			t.Fatal("gave up")
		}
	})
	if allocs > 2 {
		t.Errorf("JSON allocates %v times, want at most 2 (the map)", allocs)
	}
}

// TestJSONTextChunks decodes strings and keys of many lengths, kept and
// pruned, so that the chunks of text fill and new ones are made, and
// checks them against the server's decoder with the input overwritten
// after the call (checkJSON).
func TestJSONTextChunks(t *testing.T) {
	s := mustCompile(t, []byte(`{"type":"object","properties":{
		"spec":{"type":"object","properties":{"s":{},"list":{"type":"array","items":{}}}},
		"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`))
	var b strings.Builder
	b.WriteString(`{"spec":{"s":"` + strings.Repeat("S", 700) + `","list":[`)
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", strings.Repeat(string(rune('a'+i%26)), i*37%1100))
	}
	b.WriteString(`],"unknown":"` + strings.Repeat("u", 3000) + `"},"free":{`)
	for i := range 150 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%q", fmt.Sprintf("k%03d%s", i, strings.Repeat("k", i*13%300)), strings.Repeat("v", i*53%2500))
	}
	b.WriteString(`},"pruned":"` + strings.Repeat("p", 5000) + `"}`)
	for _, opts := range []Options{{Root: true}, {NoPaths: true}} {
		if !checkJSON(t, []byte(b.String()), s, opts) {
			t.Fatal("JSON gave up")
		}
	}
}

// FuzzJSON checks JSON against the server's decoder followed by Object on
// arbitrary bytes and the schemas of the table tests: the same value and
// pruned paths, or a give-up; and that it gives up on nothing the server
// decodes cleanly that is plain ASCII
// without escapes and shallow.
func FuzzJSON(f *testing.F) {
	cases := loadCases(f)
	schemas := []*schema.Schema{nil}
	for _, tc := range cases {
		if s := mustCompile(f, tc.Schema); s != nil {
			schemas = append(schemas, s)
		}
	}
	gs, gobj := generated(f)
	schemas = append(schemas, gs)
	for i, tc := range cases {
		f.Add(uint8(i+1), tc.Root, []byte(tc.Object))
	}
	f.Add(uint8(len(schemas)-1), true, []byte(toJSON(gobj)))
	f.Add(uint8(0), true, []byte(`{"a":1,"a":2}`))
	f.Add(uint8(1), false, []byte(`{"a":"\ud83d\ude00","b":1e400}`))
	f.Fuzz(func(t *testing.T, which uint8, root bool, data []byte) {
		s := schemas[int(which)%len(schemas)]
		for _, opts := range []Options{{Root: root}, {Root: root, NoPaths: true}} {
			if !checkJSON(t, data, s, opts) && plain(data) {
				if _, ok := serverDecode(data); ok {
					t.Fatalf("JSON(%s) gave up on a plain object the server decodes", data)
				}
			}
		}
	})
}

// plain reports whether data is ASCII without backslashes and shallow,
// where JSON must not give up.
func plain(data []byte) bool {
	depth := 0
	for _, c := range data {
		switch {
		case c >= 0x80 || c == '\\':
			return false
		case c == '{' || c == '[':
			depth++
		}
	}
	return depth < 100
}

// TestJSONManyPaths checks many pruned paths, long and empty ones among
// them, cut from the one string they are rendered in (and its buffer,
// grown several times and reused by the next call).
func TestJSONManyPaths(t *testing.T) {
	s := mustCompile(t, []byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"list":{"type":"array","items":{"type":"object","properties":{"a":{}}}}}}}}`))
	var b strings.Builder
	b.WriteString(`{"":0,"spec":{"list":[`)
	for i := range 600 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"a":%d,"k%d":1,"%s":2,"":3}`, i, i, strings.Repeat("x", 1+i*13))
	}
	b.WriteString(`]},"z":1}`)
	for _, opts := range []Options{{Root: true}, {}} {
		if !checkJSON(t, []byte(b.String()), s, opts) {
			t.Fatal("gave up")
		}
	}
	_, paths, _ := JSON([]byte(b.String()), s, Options{Root: true}, []string{"before"})
	if len(paths) != 1+2+600*3 || paths[0] != "before" {
		t.Fatalf("%d paths, first %q; want 1,803, the first kept", len(paths), paths[0])
	}
}

// TestJSONScratchReuse checks that the stacks and buffers JSON reuses
// between calls leak nothing from one call into another: values and paths
// returned earlier stay the same while other calls run, on several
// goroutines at once, and a call after one that gave up half-way (leaving
// its stacks full) answers as a first call does.
func TestJSONScratchReuse(t *testing.T) {
	gs, gobj := generated(t)
	s := mustCompile(t, []byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"list":{"type":"array","items":{"type":"object","properties":{"a":{},"b":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}}}}`))
	good := [][]byte{
		[]byte(`{"spec":{"list":[{"a":"x","b":{"p":[1,"q",{"r":null}]},"c":1},{"a":[true,false],"z":{"y":"\u00e9"}}]},"zz":[1,2]}`),
		[]byte(`{"spec":{"list":[]},"k":{"a":{"b":{"c":"d"}}}}`),
		[]byte(`{"spec":{"list":[{"b":{"big":[` + strings.Repeat(`"s",`, 300) + `"t"]}}]}}`),
	}
	bad := [][]byte{
		[]byte(`{"spec":{"list":[{"a":"x","b":{"p":[1,"q",{"r":nul`),
		[]byte(`{"spec":{"list":[{"b":{"x":1,"x":2}}]}}`),
		[]byte(`{"spec":{"list":[{"c":{"x":1,"x":2}}]}}`),
		[]byte(`{"spec":{"list":[{"b":{"x":"\ud800"}}]}}`),
	}
	type kept struct {
		data  []byte
		s     *schema.Schema
		obj   map[string]any
		paths []string
	}
	var keep []kept
	for _, data := range append(good, []byte(toJSON(gobj))) {
		sc := s
		if len(keep) == len(good) {
			sc = gs
		}
		for _, b := range bad {
			if _, _, ok := JSON(b, sc, Options{}, nil); ok {
				t.Fatalf("JSON(%s) decoded", b)
			}
		}
		if !checkJSON(t, data, sc, Options{}) {
			t.Fatalf("JSON(%s) gave up", data)
		}
		obj, paths, _ := JSON(data, sc, Options{}, nil)
		keep = append(keep, kept{data, sc, obj, paths})
	}
	done := make(chan bool)
	for g := range 4 {
		go func() {
			defer func() { done <- true }()
			for i := range 200 {
				k := keep[(g+i)%len(keep)]
				JSON(bad[i%len(bad)], k.s, Options{}, nil)
				if obj, paths, ok := JSON(k.data, k.s, Options{}, nil); !ok || !reflect.DeepEqual(obj, k.obj) || !slices.Equal(paths, k.paths) {
					t.Errorf("JSON(%s) = %v %q %v, want %v %q", k.data, obj, paths, ok, k.obj, k.paths)
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	for _, k := range keep {
		ref, _ := serverDecode(k.data)
		refPaths := Object(ref, k.s, Options{}, nil)
		if !reflect.DeepEqual(k.obj, ref) || !samePaths(k.paths, refPaths) {
			t.Fatalf("JSON(%s) changed to %s %q after other calls, want %s %q", k.data, toJSON(k.obj), k.paths, toJSON(ref), refPaths)
		}
	}
}

// TestJSONPathOrder checks the sorting of the pruned paths where the input
// gives them in an order that differs from the sorted one only after a
// long common prefix, or only in a byte that sorts before the dot, in a
// few sorted runs (indexes of one, two and three digits) or in many, and
// where it gives them sorted.
func TestJSONPathOrder(t *testing.T) {
	s := mustCompile(t, []byte(`{"type":"object","properties":{"spec":{"type":"object","additionalProperties":{
		"type":"array","items":{"type":"object","properties":{"k":{}}}}}}}`))
	elems := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"k":1,"x%d":2}`, i%3)
		}
		return b.String()
	}
	for _, body := range []string{
		`{"spec":{"b":[{"x":1}],"b-c":[{"x":1}],"b.c":[{"x":1}]}}`,
		`{"spec":{"b-c":[{"x":1}],"b":[{"x":1}]}}`,
		`{"spec":{"a":[` + elems(12) + `]}}`,
		`{"spec":{"a":[` + elems(25) + `],"a-":[` + elems(11) + `],"a+":[` + elems(3) + `]}}`,
		`{"spec":{"a":[` + elems(120) + `]},"z":1,"y":2,"x":3,"w":4,"v":5}`,
		`{"spec":{"a":[` + elems(3) + `],"a!":[` + elems(2) + `]},"z":1,"y":2,"spec2":3}`,
		`{"spec":{"":[{"":1,"x":2}],"a":[{"":1}]},"":1}`,
		`{"a":1,"b":2,"c":3,"spec":{"q":[{"a":1,"b":2}]},"z":{"y":1}}`,
		`{"z":1,"spec":{"q":[{"b":1,"a":2}]},"a":1}`,
	} {
		for _, opts := range []Options{{Root: true}, {}} {
			if !checkJSON(t, []byte(body), s, opts) {
				t.Fatalf("JSON(%s) gave up", body)
			}
		}
	}
}

// TestJSONScratchEmptied checks that a call leaves its scratch holding no
// value: every element of the stacks, up to their capacities, is zero
// after calls that decode, that give up half-way and that decode less than
// the call before, so that the pool keeps nothing alive.
func TestJSONScratchEmptied(t *testing.T) {
	s := mustCompile(t, []byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"list":{"type":"array","items":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{}}}}}}}}`))
	var wide strings.Builder
	wide.WriteString(`{"spec":{"list":[{"m":{`)
	for i := range 40 {
		fmt.Fprintf(&wide, `"k%d":[%d,"v",{"x":{"y":1}}],`, i, i)
	}
	wide.WriteString(`"z":1}},{"a":{"u":[1,2]},"b":2}]},"gone":{"p":{"q":1,"r":2}}}`)
	calls := []string{
		wide.String(),
		`{"spec":{"list":[{"a":1}]}}`,
		wide.String()[:len(wide.String())/2],
		`{"spec":{"list":[{"m":{"x":1,"x":2}}]}}`,
		`{"gone":{"a":1,"b":{"c":1,"c":2}}}`,
		`{"z":1,"y":2,"x":3,"a":4}`,
		`{}`,
	}
	sc := new(scratch)
	for _, c := range calls {
		decodeWith(sc, []byte(c), s, Options{Root: true}, nil)
		zero := func(name string, n int, isZero func(i int) bool) {
			for i := range n {
				if !isZero(i) {
					t.Fatalf("after JSON(%.40s...) the scratch's %s[%d] is not zero", c, name, i)
				}
			}
		}
		zero("path", cap(sc.path), func(i int) bool { return sc.path[:cap(sc.path)][i] == seg{} })
		zero("members", cap(sc.members), func(i int) bool { return sc.members[:cap(sc.members)][i] == member{} })
		zero("elems", cap(sc.elems), func(i int) bool { return sc.elems[:cap(sc.elems)][i] == nil })
		zero("keys", cap(sc.keys), func(i int) bool { return sc.keys[:cap(sc.keys)][i] == "" })
		zero("sorted", cap(sc.sorted), func(i int) bool { return sc.sorted[:cap(sc.sorted)][i] == "" })
		if len(sc.path)+len(sc.members)+len(sc.elems)+len(sc.keys) != 0 {
			t.Fatalf("after JSON(%.40s...) the scratch's stacks are not empty", c)
		}
	}
	if cap(sc.members) == 0 || cap(sc.elems) == 0 || cap(sc.keys) == 0 || cap(sc.path) == 0 || cap(sc.sorted) == 0 {
		t.Fatal("the calls did not use every stack")
	}
}
