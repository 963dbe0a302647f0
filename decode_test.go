package crdkit

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/objectmeta"
	"github.com/crdkit/crdkit/prune"
	"github.com/crdkit/crdkit/schema"
)

// corpusBody is a corpus object as a request body, with the version that
// serves it.
type corpusBody struct {
	name string
	v    *Version
	raw  []byte
}

// corpusBodies returns every corpus object whose apiVersion and kind a
// corpus CRD serves, as is and with unknown fields added to every map
// ("+unknown").
func corpusBodies(t testing.TB) []corpusBody {
	byGVK := map[string]*Version{}
	for _, d := range corpusDocs(t) {
		crd, err := Load(d.JSON)
		if err != nil {
			continue
		}
		for _, v := range crd.Versions() {
			byGVK[crd.Group()+"/"+v.Name()+" "+crd.Kind()] = v
		}
	}
	docs, err := corpus.Walk(filepath.Join(corpusDir(t), "objects"))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusBody
	for _, d := range docs {
		var obj map[string]any
		if json.Unmarshal(d.JSON, &obj) != nil {
			continue
		}
		v := byGVK[fmt.Sprintf("%v %v", obj["apiVersion"], obj["kind"])]
		if v == nil {
			continue
		}
		out = append(out, corpusBody{d.Name, v, d.JSON})
		sprinkle(obj, 0)
		raw, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, corpusBody{d.Name + "+unknown", v, raw})
	}
	return out
}

// sprinkle adds unknown fields to every map below the root.
func sprinkle(x any, depth int) {
	switch x := x.(type) {
	case map[string]any:
		for _, e := range x {
			sprinkle(e, depth+1)
		}
		if depth > 0 {
			x["unknownField"] = "x"
			x["unknownObject"] = map[string]any{"a": []any{1, map[string]any{"b": "c", "d": 1.5}}}
		}
	case []any:
		for _, e := range x {
			sprinkle(e, depth+1)
		}
	}
}

// sameResult compares two answers: the object (a generated name aside),
// warnings, pruned paths and the Status.
func sameResult(a, b Result) error {
	ao, bo := a.Object, b.Object
	if ao != nil && bo != nil {
		an, _ := ao["metadata"].(map[string]any)
		bn, _ := bo["metadata"].(map[string]any)
		if an != nil && bn != nil && an["generateName"] != nil {
			an, bn = maps(an), maps(bn)
			delete(an, "name")
			delete(bn, "name")
			ao, bo = maps(ao), maps(bo)
			ao["metadata"], bo["metadata"] = an, bn
		}
	}
	if !reflect.DeepEqual(ao, bo) {
		return fmt.Errorf("object %s, want %s", toJSON(a.Object), toJSON(b.Object))
	}
	if !slices.Equal(a.Warnings, b.Warnings) || !slices.Equal(a.Pruned, b.Pruned) {
		return fmt.Errorf("warnings %q pruned %q, want %q %q", a.Warnings, a.Pruned, b.Warnings, b.Pruned)
	}
	if (a.Err == nil) != (b.Err == nil) {
		return fmt.Errorf("error %v, want %v", a.Err, b.Err)
	}
	if a.Err != nil {
		as, _ := a.Err.(apierrors.APIStatus)
		bs, _ := b.Err.(apierrors.APIStatus)
		if as == nil || bs == nil {
			return fmt.Errorf("error %v, want %v", a.Err, b.Err)
		}
		// A name generated from generateName (five random characters after
		// the same base) may differ between the two runs: compare with a's
		// name written as b's.
		if an, bn := generatedNames(as.Status(), bs.Status()); an != "" {
			at, _ := json.Marshal(as.Status())
			bt, _ := json.Marshal(bs.Status())
			if strings.ReplaceAll(a.Err.Error(), an, bn) != b.Err.Error() || strings.ReplaceAll(string(at), an, bn) != string(bt) {
				return fmt.Errorf("error %v, want %v", a.Err, b.Err)
			}
		} else if a.Err.Error() != b.Err.Error() || !reflect.DeepEqual(as.Status(), bs.Status()) {
			return fmt.Errorf("error %v, want %v", a.Err, b.Err)
		}
	}
	return nil
}

// generatedNames returns the names of a and b when both are names generated
// from the same base (the same length, the same bytes but the last five),
// else "" twice.
func generatedNames(a, b metav1.Status) (string, string) {
	if a.Details == nil || b.Details == nil {
		return "", ""
	}
	an, bn := a.Details.Name, b.Details.Name
	if an == bn || len(an) != len(bn) || len(an) < 5 || an[:len(an)-5] != bn[:len(bn)-5] {
		return "", ""
	}
	return an, bn
}

func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// checkDecodePruned checks the fast decode of raw against the server's
// decoder followed by prune.Object, and the whole create pipeline through it
// against the pipeline without it, in every field-validation mode. It
// reports whether the fast decode was taken.
func checkDecodePruned(t *testing.T, v *Version, raw []byte) bool {
	t.Helper()
	r := &request{v: v, raw: raw, fast: true}
	fast := r.decodePruned()
	if fast {
		obj, _, strictErrs, err := v.decode(raw, true)
		if err != nil || len(strictErrs) > 0 {
			t.Fatalf("decodePruned(%s) took the fast path; the server's decoder gives %v %q", raw, err, strictErrs)
		}
		pruned := prune.Object(obj, v.schema, prune.Options{Root: true}, nil)
		if !reflect.DeepEqual(r.obj, obj) || !slices.Equal(r.prePruned, pruned) {
			t.Fatalf("decodePruned(%s) = %s %q, want %s %q", raw, toJSON(r.obj), r.prePruned, toJSON(obj), pruned)
		}
	}
	for _, m := range []FieldValidation{Ignore, Warn, Strict} {
		for _, mf := range []ManagedFields{fixedTime, {Omit: true}} {
			opts := CreateOptions{FieldValidation: m, ManagedFields: mf}
			if err := sameResult(v.createWith(raw, nil, opts, true), v.createWith(raw, nil, opts, false)); err != nil {
				t.Fatalf("CreateJSON(%s, %s, omit %v) with the fast decode: %v", raw, m, mf.Omit, err)
			}
		}
	}
	return fast
}

// TestDecodePrunedCorpus runs every corpus object, as is and with unknown
// fields, through the fast decode: it must be taken, and give what the
// server's decoder and pruning give.
func TestDecodePrunedCorpus(t *testing.T) {
	bodies := corpusBodies(t)
	if len(bodies) < 60 {
		t.Fatalf("%d corpus bodies, want at least 60", len(bodies))
	}
	canonical, statusKept, statusDefaulted := 0, 0, 0
	for _, b := range bodies {
		t.Run(b.name, func(t *testing.T) {
			if !checkDecodePruned(t, b.v, b.raw) {
				t.Errorf("CreateJSON(%s) did not take the fast decode", b.name)
			}
		})
		var obj map[string]any
		if json.Unmarshal(b.raw, &obj) == nil {
			if md, ok := obj["metadata"].(map[string]any); ok && objectmeta.Canonical(md) {
				canonical++
			}
		}
		if b.v.statusDefaults && b.v.crd.StorageVersion() == b.v.name && b.v.crd.readIsIdentity {
			switch {
			case !b.v.statusOwnDefault:
				statusKept++
			case !b.v.statusEmbedded:
				statusDefaulted++
			}
		}
	}
	// The shortcuts the fast pipeline takes beside the decode must be
	// exercised, or the comparison above checks nothing about them.
	t.Logf("%d bodies, %d with canonical metadata; read back of status defaults skipped in %d, only defaults in %d", len(bodies), canonical, statusKept, statusDefaulted)
	if canonical < len(bodies)/3 || statusKept == 0 || statusDefaulted == 0 {
		t.Errorf("canonical metadata in %d of %d bodies, read back skipped in %d, only defaults in %d: the shortcuts are not exercised", canonical, len(bodies), statusKept, statusDefaulted)
	}
}

func TestDecodePrunedFallsBack(t *testing.T) {
	v := loadExample(t).Version("v1")
	for _, raw := range []string{
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"},"spec":{"replicas":1,"replicas":2}}`,
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"},"Kind":"CronTab"}`,
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"},"APIVERSION":"a/b/c"}`,
		`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"x"}}`,
		`{"apiVersion":"stable.example.com/v1","kind":"Other","metadata":{"name":"x"}}`,
		`{"apiVersion":"v1","kind":"CronTab","metadata":{"name":"x"}}`,
		`{"kind":"CronTab","metadata":{"name":"x"}}`,
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"},"spec":{"x":1e400}}`,
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"},"spec":"\ud800"}`,
		"{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"CronTab\",\"metadata\":{\"name\":\"\xff\"}}",
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"}} x`,
	} {
		if checkDecodePruned(t, v, []byte(raw)) {
			t.Errorf("CreateJSON(%s) took the fast decode", raw)
		}
	}
	if !checkDecodePruned(t, v, []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","unknown":1},"spec":{"cronSpec":"* * * * */5","replicas":3,"x":null,"y":{"z":[1]}},"status":{}}`)) {
		t.Error("CreateJSON of a plain CronTab did not take the fast decode")
	}
}

// FuzzDecodePruned compares the fast decode with the server's decoder and
// pruning, and the create pipeline with it with the one without it, on
// arbitrary bodies for the example CRD and the corpus CRDs (seeded with the
// corpus objects).
func FuzzDecodePruned(f *testing.F) {
	versions := []*Version{loadExample(f).Version("v1"), loadExample(f).Version("v1beta1")}
	f.Add(uint8(0), []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","labels":{"a":"b"}},"spec":{"cronSpec":"* * * * */5","replicas":3,"x":null}}`))
	f.Add(uint8(1), []byte(`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"generateName":"g-"},"spec":{"a":[1,{"b":null}]}}`))
	if _, ok := corpus.Root(); ok {
		index := map[*Version]uint8{}
		for _, b := range corpusBodies(f) {
			i, ok := index[b.v]
			if !ok {
				i = uint8(len(versions))
				index[b.v] = i
				versions = append(versions, b.v)
			}
			f.Add(i, b.raw)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		checkDecodePruned(t, versions[int(which)%len(versions)], raw)
	})
}

// TestRootKeysFold checks which root schemas make decodePruned look at the
// root keys it kept.
func TestRootKeysFold(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   bool
	}{
		{`{"type":"object","properties":{"spec":{"type":"object"},"status":{"type":"object"}}}`, false},
		{`{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"}}}`, false},
		{`{"type":"object","properties":{"Kind":{"type":"string"}}}`, true},
		{`{"type":"object","properties":{"apiversion":{"type":"string"}}}`, true},
		{`{"type":"object","properties":{"\u212aind":{"type":"string"}}}`, true}, // the Kelvin sign folds to k
		{`{"type":"object","x-kubernetes-preserve-unknown-fields":true}`, true},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, true},
		{`{"type":"object","additionalProperties":false}`, true},
	} {
		s, err := schema.CompileJSON([]byte(tc.schema))
		if err != nil {
			t.Fatal(err)
		}
		if got := rootKeysFold(s); got != tc.want {
			t.Errorf("rootKeysFold(%s) = %v, want %v", tc.schema, got, tc.want)
		}
	}
	if !rootKeysFold(nil) {
		t.Error("rootKeysFold(nil) = false")
	}
}
