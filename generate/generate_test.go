package generate

import (
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/corpus"
)

// corpusVersions loads every served version of every corpus CRD that
// crdkit accepts; the test is skipped without the corpus.
func corpusVersions(t testing.TB) []*crdkit.Version {
	t.Helper()
	root, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found (set CRDKIT_CORPUS to the corpus root)")
	}
	crds, err := corpus.CRDs(filepath.Join(root, "crds"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*crdkit.Version
	for _, c := range crds {
		crd, err := crdkit.New(c.CustomResourceDefinition)
		if err != nil {
			continue
		}
		for _, v := range crd.Versions() {
			if v.Served() {
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no corpus CRD loads")
	}
	return out
}

// holds reports whether res is what e states.
func holds(e Expectation, st *metav1.Status) bool {
	switch e.Outcome {
	case Accepted:
		return st == nil
	case Refused:
		if st == nil || st.Code != 422 || st.Details == nil {
			return false
		}
		for _, c := range st.Details.Causes {
			if c.Field == e.Field && string(c.Type) == string(e.Type) {
				return true
			}
		}
	}
	return false
}

// TestExpectationsHold checks every stated case of every corpus CRD
// version against crdkit's create (which the conformance module checks
// against the real server); accepted cases with CEL rules are left out.
func TestExpectationsHold(t *testing.T) {
	stated, ok, withRules := 0, 0, 0
	for _, v := range corpusVersions(t) {
		g, err := ForVersion(v, Options{Cases: 60})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range g.Cases() {
			if c.Expect.Outcome == Unstated {
				continue
			}
			if c.Expect.Outcome == Accepted && len(c.Rules) > 0 {
				withRules++
				continue
			}
			stated++
			res := v.CreateJSON(c.Raw, crdkit.CreateOptions{})
			if holds(c.Expect, res.Status()) {
				ok++
				continue
			}
			t.Errorf("%s/%s Case(%s) = %v, want %s\n%s", v.CRD().Name(), v.Name(), c.Name, res.Err, c.Expect, c.Raw)
		}
	}
	t.Logf("expectations: %d/%d hold (%d accepted cases with CEL rules left out)", ok, stated, withRules)
}

// TestValidAccepted checks that Valid objects of every corpus CRD version
// are accepted by crdkit's create, and that the ones that are not name the
// rules they could not satisfy.
func TestValidAccepted(t *testing.T) {
	total, acc := 0, 0
	for _, v := range corpusVersions(t) {
		g, err := ForVersion(v, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 3; seed++ {
			total++
			obj, unsat := g.Valid(seed, "x")
			res := v.Create(obj, crdkit.CreateOptions{})
			switch {
			case res.Err == nil && unsat == nil:
				acc++
			case res.Err == nil:
				t.Errorf("%s/%s Valid(%d) is accepted but names unsatisfied rules %v", v.CRD().Name(), v.Name(), seed, unsat)
			case len(unsat) == 0:
				t.Errorf("%s/%s Valid(%d) = %v, refused without unsatisfied rules", v.CRD().Name(), v.Name(), seed, res.Err)
			default:
				t.Logf("%s/%s Valid(%d): %d rules not satisfied: %v", v.CRD().Name(), v.Name(), seed, len(unsat), res.Err)
			}
		}
	}
	t.Logf("valid objects: %d/%d accepted", acc, total)
	if acc*10 < total*8 {
		t.Errorf("only %d of %d valid objects accepted", acc, total)
	}
}

func loadExample(t testing.TB) *crdkit.Version {
	t.Helper()
	crd, err := crdkit.Load([]byte(crontabCRDTest))
	if err != nil {
		t.Fatal(err)
	}
	return crd.Version("v1")
}

const crontabCRDTest = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [mode]
            x-kubernetes-validations:
            - rule: "self.mode != 'Slow' || self.replicas <= 3"
            properties:
              mode: {type: string, enum: [Fast, Slow]}
              replicas: {type: integer, minimum: 1, maximum: 10, default: 1}
              name: {type: string, pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$', maxLength: 20}
              tags: {type: array, items: {type: string}, x-kubernetes-list-type: set, maxItems: 4}
              labels: {type: object, additionalProperties: {type: string}, maxProperties: 3}
          status:
            type: object
            properties:
              phase: {type: string, enum: [Ready]}
`

// FuzzFromBytes checks that every input gives the same object twice, and
// one the version's create accepts (the CRD's one rule is satisfiable).
func FuzzFromBytes(f *testing.F) {
	v := loadExample(f)
	g, err := ForVersion(v, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(nil))
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := g.FromBytes(data)
		b := g.FromBytes(data)
		x, err1 := Marshal(a)
		y, err2 := Marshal(b)
		if err1 != nil || err2 != nil || string(x) != string(y) {
			t.Fatalf("FromBytes(%q) = %s then %s (%v %v)", data, x, y, err1, err2)
		}
		if res := v.Create(a, crdkit.CreateOptions{FieldValidation: crdkit.Strict}); res.Err != nil {
			t.Fatalf("FromBytes(%q) = %s, refused: %v", data, x, res.Err)
		}
	})
}

// TestFromBytesVaries checks that different inputs reach different objects.
func TestFromBytesVaries(t *testing.T) {
	g, err := ForVersion(loadExample(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := 0; i < 64; i++ {
		b, _ := Marshal(g.FromBytes([]byte{byte(i), byte(i * 7), byte(i * 13), 1, 2, 3, 4, 5, byte(i)}))
		seen[string(b)] = true
	}
	if len(seen) < 32 {
		t.Errorf("FromBytes gave %d distinct objects for 64 inputs, want at least 32", len(seen))
	}
}

// TestRulesAndValid checks Rules and Valid on a CRD with one rule, and the
// generator made by New (no version to check with).
func TestRulesAndValid(t *testing.T) {
	v := loadExample(t)
	gv, _ := ForVersion(v, Options{})
	gn, err := New(v.CRD().Definition(), "v1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	obj := gn.Object(1, "x")
	if r := gn.Rules(obj); len(r) != 1 || r[0].Field != "spec" {
		t.Errorf("Rules(%v) = %v, want the rule at spec", obj, r)
	}
	if _, unsat := gn.Valid(1, "x"); len(unsat) != 1 {
		t.Errorf("New(...).Valid(1) unsatisfied = %v, want the one rule (nothing checks it)", unsat)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		obj, unsat := gv.Valid(seed, "x")
		if res := v.Create(obj, crdkit.CreateOptions{}); res.Err != nil || unsat != nil {
			t.Errorf("Valid(%d) = %v, %v (unsatisfied %v)", seed, obj, res.Err, unsat)
		}
	}
	if _, err := ForVersion(nil, Options{}); err == nil {
		t.Error("ForVersion(nil) succeeded")
	}
	if _, err := New(v.CRD().Definition(), "v9", Options{}); err == nil {
		t.Error("New(v9) succeeded")
	}
}

// TestRuleBreaks checks that break-rule cases appear for corpus CRDs with
// rules, are refused as stated by crdkit's create, and that without
// RuleBreaks the cases do not change.
func TestRuleBreaks(t *testing.T) {
	n := 0
	for _, v := range corpusVersions(t) {
		if n >= 10 {
			break // enough, and the search is the expensive part
		}
		plain, _ := ForVersion(v, Options{Cases: 30})
		g, err := ForVersion(v, Options{Cases: 30, RuleBreaks: 5})
		if err != nil {
			t.Fatal(err)
		}
		a, b := plain.Cases(), g.Cases()
		if len(b) < len(a) || len(b) > len(a)+5 {
			t.Fatalf("%s: %d cases with RuleBreaks 5, %d without", v.CRD().Name(), len(b), len(a))
		}
		for i := range a {
			if a[i].Name != b[i].Name || string(a[i].Raw) != string(b[i].Raw) {
				t.Fatalf("%s: case %d changed with RuleBreaks", v.CRD().Name(), i)
			}
		}
		for _, c := range b[len(a):] {
			n++
			if c.Mutation != "break-rule" || c.Expect.Outcome != Refused {
				t.Errorf("%s: appended case %s %s", v.CRD().Name(), c.Name, c.Expect)
			}
			res := v.CreateJSON(c.Raw, crdkit.CreateOptions{})
			if !holds(c.Expect, res.Status()) {
				t.Errorf("%s Case(%s) = %v, want %s", v.CRD().Name(), c.Name, res.Err, c.Expect)
			}
		}
	}
	t.Logf("%d break-rule cases", n)
	if n == 0 {
		t.Error("no break-rule case for the corpus")
	}
}
