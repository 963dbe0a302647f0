package crdkit

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/internal/handlers"
)

// libraryJSONPatch is the server's path of a JSON patch over live's
// encoding, without the request around it: the patched document decoded
// as the server decodes it, or the library's error, or its panic.
func libraryJSONPatch(live map[string]any, patch []byte) (out map[string]any, decodeErr, applyErr error, panicked any) {
	limitJSONPatchCopies()
	current, err := json.Marshal(live)
	if err != nil {
		return nil, err, nil, nil
	}
	defer func() {
		if p := recover(); p != nil {
			out, panicked = nil, p
		}
	}()
	ops, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, err, nil, nil
	}
	patched, err := ops.Apply(current)
	if err != nil {
		return nil, nil, err, nil
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(patched, &out); err != nil {
		return nil, err, nil, nil
	}
	return out, nil, nil, nil
}

// checkJSONPatchFast compares applyJSONPatch with the library on live and
// reports what the fast path answered, and the library's panic (where the
// fast path must answer opUnsure).
func checkJSONPatchFast(t *testing.T, live map[string]any, patch []byte) (opResult, any) {
	t.Helper()
	before, _ := json.Marshal(live)
	fast, res := applyJSONPatch(live, patch)
	if after, _ := json.Marshal(live); string(after) != string(before) {
		t.Fatalf("applyJSONPatch(%s) modified live:\n%s\n%s", patch, before, after)
	}
	want, decodeErr, applyErr, panicked := libraryJSONPatch(live, patch)
	if res == opUnsure {
		return res, panicked
	}
	if panicked != nil {
		t.Fatalf("JSON patch %s over %s: fast path answered %v, the library panics: %v", patch, before, res, panicked)
	}
	if decodeErr != nil {
		t.Fatalf("JSON patch %s over %s: fast path answered %v, the library: %v", patch, before, res, decodeErr)
	}
	if errs, err := handlers.StrictJSONPatch(patch); err != nil || len(errs) > 0 {
		t.Fatalf("JSON patch %s: fast path answered %v, the strict decoder says %v %v", patch, res, err, errs)
	}
	switch res {
	case opFailed:
		if applyErr == nil {
			t.Fatalf("JSON patch %s over %s: fast path failed, the library gives %s", patch, before, toJSON(want))
		}
	case opApplied:
		if applyErr != nil {
			t.Fatalf("JSON patch %s over %s: fast path gives %s, the library fails: %v", patch, before, toJSON(fast), applyErr)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("JSON patch %s over %s:\nfast    %#v\nlibrary %#v", patch, before, fast, want)
		}
	}
	return res, nil
}

// jsonPatchLive is a live object with the values the library treats
// apart: arrays (with a null element), nulls, HTML characters, numbers
// whose text differs from their value's, nested objects.
const jsonPatchLive = `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","namespace":"default","resourceVersion":"2","uid":"u","generation":1,"labels":{"a":"b"}},` +
	`"spec":{"cronSpec":"* * * * */5","replicas":3,"image":"<img>","list":[1,{"a":2},"s",[3]],"nulls":[null,1],"n":null,"f":1.5,"g":2.0,"big":1.152921504606847232e18,"o":{"a~b":1,"c/d":2,"":3}},"status":{"n":1}}`

// jsonPatchSeeds are tricky JSON patches for jsonPatchLive.
var jsonPatchSeeds = []string{
	`[{"op":"replace","path":"/spec/replicas","value":5}]`,
	`[{"op":"add","path":"/spec/zz","value":{"a":[1,null,{"b":null}]}},{"op":"remove","path":"/spec/zz/a/1"}]`,
	`[{"op":"replace","path":"/spec/missing","value":1}]`,
	`[{"op":"copy","from":"/spec/missing","path":"/spec/c"}]`,
	`[{"op":"copy","from":"/spec/n","path":"/spec/c"},{"op":"test","path":"/spec/c"}]`,
	`[{"op":"move","from":"/spec","path":"/spec/x"}]`,
	`[{"op":"move","from":"/spec/list/0","path":"/spec/list/-"}]`,
	`[{"op":"move","from":"/spec/list/3","path":"/spec/list/3/0"}]`,
	`[{"op":"replace","path":"spec/replicas","value":5}]`,
	`[{"op":"replace","path":"x/spec","value":5}]`,
	`[{"op":"add","path":"replicas","value":5}]`,
	`[{"op":"add","path":"/","value":5},{"op":"remove","path":"/spec/o/a~0b"},{"op":"remove","path":"/spec/o/c~1d"},{"op":"replace","path":"/spec/o/","value":4}]`,
	`[{"op":"add","path":"/spec/o/~01","value":1},{"op":"test","path":"/spec/o/~01","value":1}]`,
	`[{"op":"add","path":"/spec/list/-1","value":9},{"op":"add","path":"/spec/list/-5","value":8},{"op":"add","path":"/spec/list/+0","value":7},{"op":"add","path":"/spec/list/01","value":6}]`,
	`[{"op":"add","path":"/spec/list/5","value":9}]`,
	`[{"op":"add","path":"/spec/list/-6","value":9}]`,
	`[{"op":"remove","path":"/spec/list/-1"},{"op":"remove","path":"/spec/list/-3"},{"op":"replace","path":"/spec/list/-1","value":0}]`,
	`[{"op":"remove","path":"/spec/list/-"}]`,
	`[{"op":"replace","path":"/spec/list/4","value":0}]`,
	`[{"op":"add","path":"/spec/list/1/b","value":1},{"op":"add","path":"/spec/list/-3/c","value":2},{"op":"add","path":"/spec/list/3/-","value":4}]`,
	`[{"op":"test","path":"/spec/replicas","value":3},{"op":"test","path":"/spec/f","value":1.5}]`,
	`[{"op":"test","path":"/spec/g","value":2}]`,
	`[{"op":"test","path":"/spec/replicas","value":3.0}]`,
	`[{"op":"test","path":"/spec/image","value":"<img>"}]`,
	`[{"op":"test","path":"/spec/image","value":"\u003cimg\u003e"}]`,
	`[{"op":"test","path":"/spec/cronSpec","value":"\u002a * * * */5"}]`,
	`[{"op":"test","path":"/spec/list","value":[1,{"a":2},"s",[3]]}]`,
	`[{"op":"test","path":"/spec/list","value":[1,{"a":2},"s",[4]]}]`,
	`[{"op":"test","path":"/spec/nulls","value":[null,1]}]`,
	`[{"op":"test","path":"/spec/nulls","value":[2,1]}]`,
	`[{"op":"test","path":"/spec/list","value":[null,{"a":2},"s",[3]]}]`,
	`[{"op":"test","path":"/spec","value":{"a":1}}]`,
	`[{"op":"test","path":"/spec/o","value":{"":3,"a~b":1,"c/d":2}}]`,
	`[{"op":"test","path":"/spec/o","value":{"a~b":1,"c/d":2,"":3}}]`,
	`[{"op":"test","path":"/spec/missing"},{"op":"test","path":"/spec/n"}]`,
	`[{"op":"test","path":"/spec/replicas"}]`,
	`[{"op":"test","path":"/spec/n","value":null}]`,
	`[{"op":"test","path":"","value":{}}]`,
	`[{"op":"replace","path":"","value":{"a":1}}]`,
	`[{"op":"add","path":"","value":{"a":1}}]`,
	`[{"op":"add","path":"/spec/a","value":null},{"op":"copy","from":"/spec/a","path":"/spec/b"},{"op":"add","path":"/spec/b/x","value":1}]`,
	`[{"op":"add","path":"/spec/a","value":1,"value":2}]`,
	`[{"op":"add","path":"/spec/a","value":{"b":1,"b":2}}]`,
	`[{"op":"add","path":"/spec/a","value":1,"extra":true}]`,
	`[{"op":5,"path":"/spec/a"}]`,
	`[{"op":"add","path":null,"value":1}]`,
	`[{"op":"add","value":1}]`,
	`[{"path":"/spec/a","value":1}]`,
	`[{"op":"bogus","path":"/spec/a"}]`,
	`[{"op":"copy","from":"/spec","path":"/spec/c"},{"op":"copy","from":"/spec","path":"/spec/d"},{"op":"test","path":"/spec/d/c/f","value":1.5}]`,
	`[{"op":"copy","from":"/spec/f","path":"/spec/list/0"},{"op":"copy","from":"/spec/list","path":"/spec/l2"},{"op":"test","path":"/spec/l2/0","value":1.5}]`,
	`[{"op":"add","path":"/spec/a","value":1.0},{"op":"test","path":"/spec/a","value":1.0}]`,
	`[{"op":"add","path":"/spec/a","value":1e2}]`,
	`[{"op":"add","path":"/spec/a","value":12345678901234567890}]`,
	`[{"op":"add","path":"/kind","value":5}]`,
	`[{"op":"remove","path":"/apiVersion"}]`,
	`[{"op":"add","path":"/metadata/labels/b","value":"c"},{"op":"replace","path":"/metadata/name","value":"y"}]`,
	`[{"op":"add","path":"/status/x","value":1},{"op":"add","path":"/spec/zz","value":1}]`,
	`[{"op":"add","path":"/spec/list/0/x","value":1}]`,
	`[{"op":"add","path":"/spec/n/x","value":1}]`,
	`[{"op":"add","path":"/spec/image/x","value":1}]`,
	`[]`, `null`, `{}`, `[null]`, `[5]`, `[{}]`,
}

func TestJSONPatchFastSeeds(t *testing.T) {
	var live map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(jsonPatchLive), &live); err != nil {
		t.Fatal(err)
	}
	counts := map[opResult]int{}
	for _, patch := range jsonPatchSeeds {
		res, _ := checkJSONPatchFast(t, live, []byte(patch))
		counts[res]++
	}
	t.Logf("applied %d, failed %d, unsure %d", counts[opApplied], counts[opFailed], counts[opUnsure])
	if counts[opApplied] < 25 || counts[opFailed] < 10 {
		t.Errorf("the fast path answered too few seeds (%v): the test checks too little", counts)
	}
}

// FuzzJSONPatchFast compares the fast JSON patch (applyJSONPatch, and
// through it patchFastJSON) with the server's path: the json-patch
// library on live's encoding, the patched document decoded. Where the fast
// path answers, the library must give the same success or failure and the
// same object; and the whole patch request must answer the same on both
// paths, in every mode, on both endpoints and both versions (v1beta1
// keeps unknown fields, which v1 prunes).
func FuzzJSONPatchFast(f *testing.F) {
	for _, p := range jsonPatchSeeds {
		f.Add([]byte(p), []byte(jsonPatchLive))
	}
	f.Add([]byte(`[{"op":"test","path":"/spec/z","value":0}]`), []byte(`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"x","resourceVersion":"2"},"spec":{"z":-0.0}}`))
	f.Add([]byte(`[{"op":"replace","path":"/spec/z","value":1}]`), []byte(`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"x","resourceVersion":"2","managedFields":[{"manager":"a","operation":"Update","apiVersion":"stable.example.com/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:z":{}}}}]},"spec":{"z":-0.0}}`))
	f.Add([]byte(`[{"op":"add","path":"/metadata/managedFields/0/manager","value":"a\u0007"}]`), []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","namespace":"default","resourceVersion":"2","managedFields":[{"manager":"a","operation":"Update","apiVersion":"stable.example.com/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},"spec":{"replicas":3}}`))
	r := rand.New(rand.NewPCG(13, 14))
	for range 50 {
		f.Add(randomJSONPatch(r), []byte(jsonPatchLive))
	}
	crd := loadExample(f)
	f.Fuzz(func(t *testing.T, patch, liveJSON []byte) {
		var live map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(liveJSON, &live); err != nil || live == nil {
			return
		}
		checkJSONPatchFast(t, live, patch)
		if !json.Valid(patch) {
			return
		}
		for _, name := range []string{"v1", "v1beta1"} {
			for _, m := range []FieldValidation{Ignore, Warn, Strict} {
				for _, sub := range []string{"", "status"} {
					for _, mf := range []ManagedFields{fixedTime, {Omit: true}} {
						opts := PatchOptions{FieldValidation: m, Subresource: sub, ManagedFields: mf}
						fast := crd.Version(name).patchWith(JSONPatch, patch, live, opts, true)
						slow := crd.Version(name).patchWith(JSONPatch, patch, live, opts, false)
						cutTypeErrors(&fast)
						cutTypeErrors(&slow)
						if !reflect.DeepEqual(fast, slow) {
							t.Fatalf("%s %s %q omit=%v: JSON patch %s over %s:\nfast %v\nslow %v", name, m, sub, mf.Omit, patch, liveJSON, fast, slow)
						}
					}
				}
			}
		}
	})
}

// TestJSONPatchFastTaken: the fast path answers the patches clients send
// (kubectl patch --type json, a controller's test-and-set), and leaves
// others to the library.
func TestJSONPatchFastTaken(t *testing.T) {
	var live map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(jsonPatchLive), &live); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		patch string
		want  opResult
	}{
		{`[{"op":"replace","path":"/spec/replicas","value":5},{"op":"add","path":"/metadata/labels/x","value":"y"},{"op":"remove","path":"/spec/f"}]`, opApplied},
		{`[{"op":"test","path":"/metadata/resourceVersion","value":"2"},{"op":"replace","path":"/spec/replicas","value":5}]`, opApplied},
		{`[{"op":"test","path":"/metadata/resourceVersion","value":"3"},{"op":"replace","path":"/spec/replicas","value":5}]`, opFailed},
		{`[{"op":"remove","path":"/spec/absent"}]`, opFailed},
		{`[{"op":"test","path":"/spec/nulls","value":[null,1]}]`, opUnsure},
		{`[{"op":"add","path":"/spec/a","value":null}]`, opUnsure},
		{`[{"op":"test","path":"/spec/a","value":{"b":1,"a":2}}]`, opUnsure},
	} {
		if _, res := applyJSONPatch(live, []byte(tc.patch)); res != tc.want {
			t.Errorf("applyJSONPatch(%s) = %v, want %v", tc.patch, res, tc.want)
		}
	}
}

func (r opResult) String() string {
	switch r {
	case opApplied:
		return "applied"
	case opFailed:
		return "failed"
	case opUnsure:
		return "unsure"
	}
	return fmt.Sprintf("opResult(%d)", int(r))
}

// randomJSONPatch is a JSON patch of one or two operations drawn from the
// forms the library reads in its own way: paths with and without a
// leading "/", escapes, array indexes of every form, values written as
// encoding/json writes them or not, missing and null fields.
func randomJSONPatch(r *rand.Rand) []byte {
	segments := []string{"spec", "metadata", "status", "list", "nulls", "o", "n", "f", "g", "replicas", "image", "a~0b", "c~1d", "",
		"0", "1", "3", "-", "-1", "-2", "-9", "+0", "01", "9", "x", "labels", "a", "missing", "~01", "~2", "~"}
	path := func() string {
		if r.IntN(20) == 0 {
			return []string{"", "spec", "x/spec", "/"}[r.IntN(4)]
		}
		var b strings.Builder
		if r.IntN(15) == 0 {
			b.WriteString("x")
		}
		if r.IntN(4) > 0 {
			// A container live has, then one segment.
			b.WriteString([]string{"", "/spec", "/spec/list", "/spec/list/1", "/spec/list/-1", "/spec/o", "/metadata/labels", "/status", "/spec/nulls", "/spec/z"}[r.IntN(10)])
			b.WriteString("/" + segments[r.IntN(len(segments))])
			return b.String()
		}
		for range 1 + r.IntN(4) {
			b.WriteString("/" + segments[r.IntN(len(segments))])
		}
		return b.String()
	}
	values := []string{`1`, `1.0`, `1.5`, `2`, `-0`, `0`, `1e2`, `100`, `"s"`, `"<img>"`, `"\u003cimg\u003e"`, `"\u0073"`, `true`, `null`,
		`[]`, `{}`, `[1,{"a":2},"s",[3]]`, `[null,1]`, `{"a":1}`, `{"b":1,"a":2}`, `{"a":2,"b":1}`, `{"a":{"b":[1]}}`, `[ 1 ]`,
		`12345678901234567890`, `"* * * * */5"`, `3`, `{"a~b":1,"c/d":2,"":3}`, `{"":3,"a~b":1,"c/d":2}`}
	ops := []string{"add", "remove", "replace", "move", "copy", "test", "bogus"}
	var out []string
	for range 1 + r.IntN(2) {
		var fields []string
		if r.IntN(30) > 0 {
			fields = append(fields, `"op":"`+ops[r.IntN(len(ops))]+`"`)
		}
		if r.IntN(20) > 0 {
			p, _ := json.Marshal(path())
			fields = append(fields, `"path":`+string(p))
		}
		if r.IntN(2) == 0 {
			p, _ := json.Marshal(path())
			fields = append(fields, `"from":`+string(p))
		}
		if r.IntN(4) > 0 {
			fields = append(fields, `"value":`+values[r.IntN(len(values))])
		}
		r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		out = append(out, "{"+strings.Join(fields, ",")+"}")
	}
	return []byte("[" + strings.Join(out, ",") + "]")
}

// TestJSONPatchFastRandom runs random patches (randomJSONPatch) over
// jsonPatchLive and a variant without -0.0 or a null array element, on
// the fast path and the library; some of them through the whole request
// on both paths.
func TestJSONPatchFastRandom(t *testing.T) {
	crd := loadExample(t)
	var lives []map[string]any
	for _, js := range []string{jsonPatchLive, strings.Replace(strings.Replace(jsonPatchLive, `"nulls":[null,1]`, `"nulls":[0,1]`, 1), `"apiVersion":"stable.example.com/v1"`, `"apiVersion":"stable.example.com/v1beta1"`, 1)} {
		var live map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(js), &live); err != nil {
			t.Fatal(err)
		}
		lives = append(lives, live)
	}
	r := rand.New(rand.NewPCG(11, 12))
	counts := map[opResult]int{}
	n := 30000
	if raceDetector {
		n = 3000
	}
	for i := range n {
		live := lives[i%len(lives)]
		patch := randomJSONPatch(r)
		res, _ := checkJSONPatchFast(t, live, patch)
		counts[res]++
		if i%20 != 0 {
			continue
		}
		for _, m := range []FieldValidation{Ignore, Strict} {
			opts := PatchOptions{FieldValidation: m, ManagedFields: fixedTime}
			fast := crd.Version("v1beta1").patchWith(JSONPatch, patch, live, opts, true)
			slow := crd.Version("v1beta1").patchWith(JSONPatch, patch, live, opts, false)
			cutTypeErrors(&fast)
			cutTypeErrors(&slow)
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%s: JSON patch %s:\nfast %v\nslow %v", m, patch, fast, slow)
			}
		}
	}
	t.Logf("applied %d, failed %d, unsure %d", counts[opApplied], counts[opFailed], counts[opUnsure])
	if counts[opApplied] < n/20 || counts[opFailed] < n/10 {
		t.Errorf("the fast path answered too few patches (%v): the test checks too little", counts)
	}
}
