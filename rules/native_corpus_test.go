package rules_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/generate"
	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/rules"
)

// nativeStats counts what the native differential saw.
type nativeStats struct {
	evals, sure, sureFalse, celTrue, celErr int
	bad                                     map[string]string // rule -> first object where native was sure and cel-go was not true
}

func (st *nativeStats) record(name string) func(rules.NativeRecord) {
	return func(r rules.NativeRecord) {
		st.evals++
		if r.CelTrue {
			st.celTrue++
		}
		if r.Err != nil {
			st.celErr++
		}
		if !r.Sure {
			return
		}
		// Sure of true: cel-go must say true (what the hook relies on).
		// Sure of false: cel-go must say false, without an error (not
		// needed by the hook, but a native program that is wrong there
		// is wrong under a negation).
		if r.Value {
			st.sure++
		} else {
			st.sureFalse++
		}
		if r.Value != r.CelTrue || r.Err != nil {
			if _, ok := st.bad[r.Rule]; !ok {
				st.bad[r.Rule] = fmt.Sprintf("%s (native %v, cel-go err %v)", name, r.Value, r.Err)
			}
		}
	}
}

// mutate returns a copy of obj with n random changes at random places:
// fields removed or set to null, to the empty string, to a long unicode
// string, to an integer at the edges, to another type, lists emptied or an
// item repeated.
func mutate(obj any, n int, rnd *rand.Rand) any {
	out := deepCopy(obj)
	for range n {
		type slot struct {
			m map[string]any
			l []any
			k string
			i int
		}
		var slots []slot
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				keys := make([]string, 0, len(x))
				for k := range x {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					slots = append(slots, slot{m: x, k: k})
					walk(x[k])
				}
			case []any:
				for i, e := range x {
					slots = append(slots, slot{l: x, i: i})
					walk(e)
				}
			}
		}
		walk(out)
		if len(slots) == 0 {
			return out
		}
		s := slots[rnd.IntN(len(slots))]
		var cur any
		if s.m != nil {
			cur = s.m[s.k]
		} else {
			cur = s.l[s.i]
		}
		var nv any
		del := false
		switch rnd.IntN(12) {
		case 0:
			del = true
		case 1:
			nv = nil
		case 2:
			nv = ""
		case 3:
			nv = strings.Repeat("ü日", 1+rnd.IntN(40))
		case 4:
			nv = []int64{math.MaxInt64, math.MinInt64, 0, -1, 65535, 65536}[rnd.IntN(6)]
		case 5:
			nv = 1.5
		case 6:
			nv = true
		case 7:
			nv = []any{}
		case 8:
			nv = map[string]any{}
		case 9:
			if l, ok := cur.([]any); ok && len(l) > 0 {
				nv = append(slices.Clone(l), l[rnd.IntN(len(l))])
			} else {
				nv = cur
			}
		case 10:
			if str, ok := cur.(string); ok {
				nv = []string{"*", "/", "unix://", "unix:///x/", "a.b/c", "-x-", "HTTPRoute", "Exact", "PathPrefix", "RequestRedirect", "URLRewrite", "/a//b", "1ms", "0s", "-1s", "1h"}[rnd.IntN(16)]
				if rnd.IntN(3) == 0 {
					nv = str + "/"
				}
			} else {
				nv = "x"
			}
		case 11:
			if m, ok := cur.(map[string]any); ok {
				m2 := maps.Clone(m)
				m2[[]string{"-bad-", "*", "a/b", "", "x.y/" + strings.Repeat("z", 70), "ünï"}[rnd.IntN(6)]] = "v"
				nv = m2
			} else {
				nv = map[string]any{"a": "b", "": int64(1)}
			}
		}
		if s.m != nil {
			if del {
				delete(s.m, s.k)
			} else {
				s.m[s.k] = nv
			}
		} else {
			s.l[s.i] = nv
		}
	}
	return out
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

// corpusObjects returns the corpus objects of ver, decoded.
func corpusObjects(t *testing.T, ver *crdkit.Version) []any {
	root, _ := corpus.Root()
	docs, err := corpus.Walk(filepath.Join(root, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	def := ver.CRD().Definition()
	var out []any
	for _, d := range docs {
		var head struct{ APIVersion, Kind string }
		if json.Unmarshal(d.JSON, &head) != nil || head.APIVersion != def.Spec.Group+"/"+ver.Name() || head.Kind != def.Spec.Names.Kind {
			continue
		}
		if o, ok := decodeJSON(d.JSON); ok {
			out = append(out, o)
		}
	}
	return out
}

// TestNativeCorpus is the native programs' differential over the corpus:
// every served corpus CRD version with rules, its corpus objects, the
// generator's valid objects and cases (keyword and rule breaks, several
// errors), as decoded and as the create's decoder leaves them, all of these
// defaulted too, random mutations of all of them, and updates between them. Wherever a rule with
// a native program is evaluated, cel-go evaluates it too: the native
// program may only be sure the rule holds where cel-go's result is true.
// It also reports the share of corpus rules with a native program.
func TestNativeCorpus(t *testing.T) {
	st := &nativeStats{bad: map[string]string{}}
	cases, mutations := 60, 6
	if testing.Short() {
		cases, mutations = 15, 2
	}
	var nRules, nNative int
	var unsupported []string
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, ver := range rulesVersions(t) {
		v := ver.Rules()
		name := ver.CRD().Definition().Name + "/" + ver.Name()
		rs, nat := rules.NativeRules(v)
		for i, r := range rs {
			nRules++
			if nat[i] {
				nNative++
			} else {
				unsupported = append(unsupported, r)
			}
		}
		g, err := generate.ForVersion(ver, generate.Options{Cases: cases, RuleBreaks: cases / 3, MultiErrors: cases / 6})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		objs := corpusObjects(t, ver)
		for _, c := range g.Cases() {
			if o, ok := decodeJSON(c.Raw); ok {
				objs = append(objs, o)
			}
			if res := ver.DecodeJSON(c.Raw, crdkit.CreateOptions{}); res.Err == nil && res.Object != nil {
				objs = append(objs, res.Object)
			}
		}
		for seed := uint64(1); seed <= 6; seed++ {
			o, _ := g.Valid(seed, "x")
			objs = append(objs, o)
		}
		// Defaulted, as the create pipeline evaluates them.
		for i, n := 0, len(objs); i < n; i++ {
			if m, ok := objs[i].(map[string]any); ok {
				d := deepCopy(m).(map[string]any)
				ver.Default(d)
				objs = append(objs, d)
			}
		}
		base := len(objs)
		for i := range base {
			for range mutations {
				objs = append(objs, mutate(objs[i], 1+rnd.IntN(3), rnd))
			}
		}
		stop := rules.RecordNative(st.record(name))
		for i, o := range objs {
			rules.ValidateUntrackedPath(v, t.Context(), o, nil, rules.RuntimeBudget)
			if i+1 < len(objs) {
				rules.ValidateUntrackedPath(v, t.Context(), o, objs[i+1], rules.RuntimeBudget)
			}
		}
		stop()
	}
	var bad []string
	for r, where := range st.bad {
		bad = append(bad, fmt.Sprintf("%q: %s", r, where))
	}
	sort.Strings(bad)
	t.Logf("native: %d of %d corpus rules with an untracked program have a native program (%.1f%%); %d evaluations, cel-go true on %d, error on %d; native sure of true on %d (%.1f%% of cel-go's true), of false on %d",
		nNative, nRules, 100*float64(nNative)/float64(max(nRules, 1)), st.evals, st.celTrue, st.celErr, st.sure, 100*float64(st.sure)/float64(max(st.celTrue, 1)), st.sureFalse)
	if testing.Verbose() {
		counts := map[string]int{}
		for _, r := range unsupported {
			counts[strings.Join(strings.Fields(r), " ")]++
		}
		var lines []string
		for r, n := range counts {
			lines = append(lines, fmt.Sprintf("%4d %s", n, r))
		}
		sort.Strings(lines)
		t.Logf("rules without a native program:\n%s", strings.Join(lines, "\n"))
	}
	if len(bad) > 0 {
		t.Errorf("native sure where cel-go is not true:\n%s", strings.Join(bad, "\n"))
	}
	if n := rules.NativePanics(); n != 0 {
		t.Errorf("%d native evaluations panicked", n)
	}
	if st.sure == 0 || nNative == 0 {
		t.Errorf("the differential does not exercise native programs: %+v", *st)
	}
}
