package rules_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/generate"
	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/rules"
)

// rulesVersions returns the served corpus CRD versions with rules.
func rulesVersions(t testing.TB) []*crdkit.Version {
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
			if v.Served() && v.Rules() != nil {
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no corpus CRD version with rules loads")
	}
	return out
}

// decodeJSON decodes as the server's decoder types numbers: int64 when
// integral, else float64.
func decodeJSON(raw []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	return numbers(v), true
}

func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

func errTexts(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = string(e.Type) + "|" + e.Error()
	}
	return out
}

// untrackedStats counts what the differential saw.
type untrackedStats struct {
	calls, fast, fellBack, sizes, tracked int
	conforming                            int
	withErrs, withWarnings                int
	evals, unsound                        int
	mapOrder                              int
	unsoundRules                          map[string]string
}

// compareUntracked checks ValidateUntracked against the tracked path on obj
// (an update of old when old is not nil) with budget, and, when both
// conform, that no tracked evaluation cost more than its bound.
func compareUntracked(t *testing.T, name string, v *rules.Validator, obj, old any, budget int64, st *untrackedStats) {
	t.Helper()
	conf := rules.Conforms(v, obj) && (old == nil || rules.Conforms(v, old))
	stop := rules.RecordCosts(func(r rules.CostRecord) {
		st.evals++
		if (conf || !r.Sized) && r.Bounded && r.Actual > r.Bound {
			st.unsound++
			if _, ok := st.unsoundRules[r.Rule]; !ok {
				st.unsoundRules[r.Rule] = fmt.Sprintf("%s: actual %d > bound %d", name, r.Actual, r.Bound)
			}
		}
	})
	var wantErrs field.ErrorList
	var wantWarn []string
	if old == nil {
		wantErrs, _ = v.Validate(obj, budget)
	} else {
		wantErrs, wantWarn, _ = v.ValidateUpdate(obj, old, budget)
	}
	stop()
	gotErrs, gotWarn, path := rules.ValidateUntrackedPath(v, context.Background(), obj, old, budget)
	st.calls++
	if conf {
		st.conforming++
	}
	switch path {
	case rules.PathFast:
		st.fast++
	case rules.PathFellBack:
		st.fellBack++
	case rules.PathSizes:
		st.sizes++
	default:
		st.tracked++
	}
	if len(wantErrs) > 0 {
		st.withErrs++
	}
	if len(wantWarn) > 0 {
		st.withWarnings++
	}
	same := func(we field.ErrorList, ww []string) bool {
		return slices.Equal(errTexts(we), errTexts(gotErrs)) && slices.Equal(ww, gotWarn)
	}
	if same(wantErrs, wantWarn) {
		return
	}
	// Where a rule compares values the server walks in Go map order (an
	// object's fields), which error comes first can change from one run to
	// the next, tracked or not: the untracked result must be one of the
	// tracked outcomes.
	for range 50 {
		var e field.ErrorList
		var w []string
		if old == nil {
			e, _ = v.Validate(obj, budget)
		} else {
			e, w, _ = v.ValidateUpdate(obj, old, budget)
		}
		if same(e, w) {
			st.mapOrder++
			return
		}
	}
	t.Errorf("%s (budget %d, path %d): results differ\n tracked:   %q %q\n untracked: %q %q", name, budget, path, errTexts(wantErrs), wantWarn, errTexts(gotErrs), gotWarn)
}

// TestUntrackedCorpus compares untracked and tracked evaluation on every
// corpus CRD version with rules: the generator's cases (valid objects,
// keyword breaks, rule breaks, several errors at once) as decoded and as
// the create's decoding leaves them, updates between them (transition
// rules, ratcheting), the full budget and budgets that run out on the way;
// and checks that the tracked cost of every evaluation of a conforming
// object is within the bound the untracked path charges.
func TestUntrackedCorpus(t *testing.T) {
	st := &untrackedStats{unsoundRules: map[string]string{}}
	cases := 60
	if testing.Short() {
		cases = 15
	}
	for _, ver := range rulesVersions(t) {
		v := ver.Rules()
		name := ver.CRD().Definition().Name + "/" + ver.Name()
		g, err := generate.ForVersion(ver, generate.Options{Cases: cases, RuleBreaks: cases / 3, MultiErrors: cases / 6})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var objs []any
		var names []string
		for _, c := range g.Cases() {
			if o, ok := decodeJSON(c.Raw); ok {
				objs, names = append(objs, o), append(names, name+" "+c.Name)
			}
			if res := ver.DecodeJSON(c.Raw, crdkit.CreateOptions{}); res.Err == nil && res.Object != nil {
				objs, names = append(objs, res.Object), append(names, name+" "+c.Name+" (decoded)")
			}
		}
		for seed := uint64(1); seed <= 4; seed++ {
			o, _ := g.Valid(seed, "x")
			objs, names = append(objs, o), append(names, fmt.Sprintf("%s valid-%d", name, seed))
		}
		for i, o := range objs {
			compareUntracked(t, names[i], v, o, nil, rules.RuntimeBudget, st)
		}
		// Budgets that run out somewhere: the bounds cross them before the
		// tracked costs do, or both do.
		for i := 0; i < len(objs); i += 7 {
			for _, b := range []int64{1, 10, 100, 1000, 10000} {
				compareUntracked(t, names[i], v, objs[i], nil, b, st)
			}
		}
		// Updates: each object as an update of a neighbour and of itself
		// (everything ratchets).
		for i := 0; i+1 < len(objs); i += 2 {
			compareUntracked(t, names[i]+" <- "+names[i+1], v, objs[i], objs[i+1], rules.RuntimeBudget, st)
			compareUntracked(t, names[i]+" <- itself", v, objs[i], objs[i], rules.RuntimeBudget, st)
		}
		for i := 0; i+1 < len(objs); i += 11 {
			compareUntracked(t, names[i]+" <- "+names[i+1], v, objs[i], objs[i+1], 300, st)
		}
	}
	var unsound []string
	for r, where := range st.unsoundRules {
		unsound = append(unsound, fmt.Sprintf("%q (%s)", r, where))
	}
	sort.Strings(unsound)
	t.Logf("untracked: %d calls (%d conforming), %d fast, %d fell back on the budget, %d on sizes, %d tracked; %d with errors, %d with warnings, %d one of several map-order outcomes; %d tracked evaluations checked against their bound, %d over it",
		st.calls, st.conforming, st.fast, st.fellBack, st.sizes, st.tracked, st.withErrs, st.withWarnings, st.mapOrder, st.evals, st.unsound)
	if len(unsound) > 0 {
		t.Errorf("rules whose tracked cost exceeded their bound on a conforming object:\n%s", strings.Join(unsound, "\n"))
	}
	if st.fast == 0 || st.fellBack == 0 || st.sizes == 0 || st.withWarnings == 0 {
		t.Errorf("the differential does not exercise every path: %+v", *st)
	}
}
