package celdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/warning"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/conformance/gen"
	"github.com/crdkit/crdkit/rules"
	"github.com/crdkit/crdkit/schema"
)

// updateOutcome is what one validator says about one update.
type updateOutcome struct {
	errs     []string // sorted Error() texts
	warnings []string // sorted
	budget   int64
}

func (o updateOutcome) equal(p updateOutcome) bool {
	return o.budget == p.budget && slices.Equal(o.errs, p.errs) && slices.Equal(o.warnings, p.warnings)
}

func (o updateOutcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "budget %d", o.budget)
	for _, e := range o.errs {
		b.WriteString("\n           error:   " + e)
	}
	for _, w := range o.warnings {
		b.WriteString("\n           warning: " + w)
	}
	return b.String()
}

// recorder is a warning.Recorder.
type recorder struct {
	mu    sync.Mutex
	texts []string
}

func (r *recorder) AddWarning(_, text string) {
	r.mu.Lock()
	r.texts = append(r.texts, text)
	r.mu.Unlock()
}

func sortedTexts(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = randomTypeName.ReplaceAllString(w, "selfType0")
	}
	sort.Strings(out)
	return out
}

// runUpstreamUpdate is the CEL step of the server's strategy ValidateUpdate:
// the validator with the correlated object of the new and old objects
// (ratcheting is on by default), warnings recorded from the context.
func runUpstreamUpdate(tg *target, obj, old any) (o updateOutcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream panicked: %v", r)
		}
	}()
	rec := &recorder{}
	ctx := warning.WithWarningRecorder(context.Background(), rec)
	corr := common.NewCorrelatedObject(obj, old, &model.Structural{Structural: tg.structural})
	errs, left := tg.upstream.Validate(ctx, nil, tg.structural, obj, old, celconfig.RuntimeCELCostBudget, cel.WithRatcheting(corr))
	return updateOutcome{texts(errs), sortedTexts(rec.texts), left}, nil
}

func runOursUpdate(tg *target, obj, old any, untracked bool) updateOutcome {
	if untracked {
		// crdkit's create and update: no budget left to compare.
		errs, warns := tg.ours.ValidateUntracked(context.Background(), obj, old, rules.RuntimeBudget)
		return updateOutcome{texts(errs), sortedTexts(warns), 0}
	}
	errs, warns, left := tg.ours.ValidateUpdate(obj, old, rules.RuntimeBudget)
	return updateOutcome{texts(errs), sortedTexts(warns), left}
}

type updateTally struct {
	n, agree, skipped          int
	failing, warned, exhausted int
	warnedAgree                int
	orderDependent             int
	differ                     []string

	untracked bool         // compares ValidateUntracked: errors and warnings only
	u         *updateTally // the same cases through ValidateUntracked
}

// equal compares outcomes, without the budget left for untracked ones.
func (tl *updateTally) equal(a, b updateOutcome) bool {
	if tl.untracked {
		a.budget, b.budget = 0, 0
	}
	return a.equal(b)
}

func (tl *updateTally) check(tg *target, name string, obj, old any) {
	inObj, _ := json.Marshal(obj)
	inOld, _ := json.Marshal(old)
	up, err := runUpstreamUpdate(tg, obj, old)
	if err != nil {
		tl.skipped++
		return
	}
	tl.n++
	if len(up.errs) > 0 {
		tl.failing++
	}
	if len(up.warnings) > 0 {
		tl.warned++
	}
	if up.budget < 0 {
		tl.exhausted++
	}
	if tl.u != nil {
		tl.u.n++
		tl.u.failing, tl.u.warned, tl.u.exhausted = tl.failing, tl.warned, tl.exhausted
		tl.u.compare(tg, name, obj, old, up, inObj, inOld)
	}
	tl.compare(tg, name, obj, old, up, inObj, inOld)
}

// compare checks crdkit's outcome (tracked or untracked, by tl.untracked)
// against up, upstream's.
func (tl *updateTally) compare(tg *target, name string, obj, old any, up updateOutcome, inObj, inOld []byte) {
	got := runOursUpdate(tg, obj, old, tl.untracked)
	if a, _ := json.Marshal(obj); string(a) != string(inObj) {
		tl.differ = append(tl.differ, fmt.Sprintf("%s %s: the new object was modified", tg.name, name))
		return
	}
	if a, _ := json.Marshal(old); string(a) != string(inOld) {
		tl.differ = append(tl.differ, fmt.Sprintf("%s %s: the old object was modified", tg.name, name))
		return
	}
	agreed := func(orderDependent bool) {
		tl.agree++
		if len(up.warnings) > 0 {
			tl.warnedAgree++
		}
		if orderDependent {
			tl.orderDependent++
		}
	}
	if tl.equal(up, got) {
		agreed(false)
		return
	}
	// Both sides walk Go maps where the order can decide the outcome: the
	// server iterates properties in map order (which rules run before the
	// budget runs out), and the server's value library, which crdkit uses
	// too, compares objects holding values CEL cannot convert in map order.
	// Such a case agrees when an outcome of one side is one of the other's.
	// 200 reruns make a false disagreement negligible when the budget ran
	// out (see tally.check); 24 otherwise (a comparison of two values
	// depends on the order of at most a few keys). After 20 disagreements
	// the rest are reported without reruns.
	reruns := 24
	if up.budget < 0 || got.budget < 0 {
		reruns = 200
	}
	if len(tl.differ) >= 20 {
		reruns = 0
	}
	seenUp := []updateOutcome{up}
	seenOurs := []updateOutcome{got}
	for range reruns {
		again, err := runUpstreamUpdate(tg, obj, old)
		if err != nil {
			break
		}
		mine := runOursUpdate(tg, obj, old, tl.untracked)
		for _, o := range seenOurs {
			if tl.equal(again, o) {
				agreed(true)
				return
			}
		}
		for _, o := range seenUp {
			if tl.equal(mine, o) {
				agreed(true)
				return
			}
		}
		if tl.equal(again, mine) {
			agreed(true)
			return
		}
		if len(seenUp) < 8 {
			seenUp = append(seenUp, again)
		}
		if len(seenOurs) < 8 {
			seenOurs = append(seenOurs, mine)
		}
	}
	tl.differ = append(tl.differ, fmt.Sprintf("%s %s:\n old:      %s\n new:      %s\n upstream: %s\n crdkit:   %s",
		tg.name, name, truncate(string(inOld)), truncate(string(inObj)), up, got))
}

// TestUpdateAgrees compares rules.Validator.ValidateUpdate with the server's
// CEL validator on an update (the old object, the strategy's correlated
// object for ratcheting, a warning recorder) over pairs built from
// generated objects: no change, one value changed at or below a node with
// rules (both ways: breaking and fixing), an invalid value left unchanged
// while another changes, items of list-type=map lists reordered, removed,
// added and changed, and lists of other types likewise.
func TestUpdateAgrees(t *testing.T) {
	tgs := targets(t)
	tl := &updateTally{u: &updateTally{untracked: true}}
	var pairs, transition, injected int
	for _, tg := range tgs {
		if hasTransitionRules(tg.schema) {
			transition++
		}
		g, err := gen.New(tg.crd, tg.version, gen.Options{OptionalRatio: 0.9, MaxItems: 3})
		if err != nil {
			t.Errorf("%s: %v", tg.name, err)
			continue
		}
		r := rand.New(rand.NewPCG(13, uint64(len(tg.name))))
		for seed := uint64(1); seed <= 3; seed++ {
			base := g.Object(seed, "update")
			check := func(name string, obj, old map[string]any) {
				pairs++
				tl.check(tg, fmt.Sprintf("seed %d %s", seed, name), obj, old)
			}
			check("unchanged", deepCopy(base).(map[string]any), base)

			var ss []site
			collectSites(tg.schema, base, nil, false, &ss)
			r.Shuffle(len(ss), func(i, j int) { ss[i], ss[j] = ss[j], ss[i] })
			if len(ss) > 16 {
				ss = ss[:16]
			}
			var lists []site
			collectAllLists(tg.schema, base, nil, &lists)
			if len(lists) > 12 {
				r.Shuffle(len(lists), func(i, j int) { lists[i], lists[j] = lists[j], lists[i] })
				lists = lists[:12]
			}
			updatePairs(base, ss, lists, check)
		}
		// The same CRD with rules added where the generated object has
		// values: a rule that always fails (ratcheted when unchanged), a
		// transition rule, an optionalOldSelf rule, and both in an allOf.
		base := g.Object(7, "update")
		var all []site
		collectValues(tg.schema, base, nil, &all)
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		if len(all) > 6 {
			all = all[:6]
		}
		props, err := injectRules(tg, all)
		if err != nil {
			continue
		}
		it, err := newTarget(tg.name+" injected", props)
		if err != nil || it.upstream == nil {
			t.Errorf("%s injected: %v", tg.name, err)
			continue
		}
		injected++
		check := func(name string, obj, old map[string]any) {
			pairs++
			tl.check(it, "injected "+name, obj, old)
		}
		check("unchanged", deepCopy(base).(map[string]any), base)
		var lists []site
		collectAllLists(tg.schema, base, nil, &lists)
		if len(lists) > 8 {
			lists = lists[:8]
		}
		updatePairs(base, all, lists, check)
	}
	diffreportFail(t, "update", tl.differ)
	if tl.n == 0 {
		t.Fatal("no cases")
	}
	extra := ""
	if tl.orderDependent > 0 {
		extra += fmt.Sprintf(", %d of them one of the map-order outcomes", tl.orderDependent)
	}
	if tl.skipped > 0 {
		extra += fmt.Sprintf(", %d where upstream panics skipped", tl.skipped)
	}
	fmt.Printf("conformance: cel-update %d/%d cases agree (errors, warnings and budget left; %d CRD versions with rules, %d with transition rules, %d with rules injected; %d with errors upstream, %d with ratcheted warnings, %d out of budget%s)\n",
		tl.agree, tl.n, len(tgs), transition, injected, tl.failing, tl.warned, tl.exhausted, extra)
	fmt.Printf("conformance: cel-update-warnings %d/%d cases with ratcheted warnings agree\n", tl.warnedAgree, tl.warned)
	diffreportFail(t, "update (untracked)", tl.u.differ)
	u := tl.u
	fmt.Printf("conformance: cel-update-untracked %d/%d cases agree (ValidateUntracked, as crdkit's update runs it: errors and warnings; %d with ratcheted warnings, %d of those agree; %d one of the map-order outcomes)\n",
		u.agree, u.n, u.warned, u.warnedAgree, u.orderDependent)
}

func diffreportFail(t *testing.T, label string, differ []string) {
	t.Helper()
	(&tally{differ: differ}).report(t, label)
}

// updatePairs checks pairs of updates of base: each variant of each site
// changed, fixed, kept, kept while another site changes; each list
// reordered, shortened, extended and changed, and back.
func updatePairs(base map[string]any, ss, lists []site, check func(name string, obj, old map[string]any)) {
	for si, s := range ss {
		for i, v := range variants(s) {
			mut, ok := withValue(base, s.path, v)
			if !ok {
				continue
			}
			name := fmt.Sprintf("%v #%d", s.path, i)
			check(name+" changed", mut, base)
			check(name+" fixed", deepCopy(base).(map[string]any), mut)
			if i%3 == 0 {
				check(name+" kept", deepCopy(mut).(map[string]any), mut)
			}
			// Keep the (possibly invalid) value, change another site.
			if i%2 == 0 && len(ss) > 1 {
				o := ss[(si+1+i)%len(ss)]
				if ovs := variants(o); len(ovs) > 1 && !isPrefix(o.path, s.path) && !isPrefix(s.path, o.path) {
					if both, ok := withValue(mut, o.path, ovs[1+i%(len(ovs)-1)]); ok {
						check(name+" kept, other changed", both, mut)
					}
				}
			}
		}
	}
	for _, l := range lists {
		for i, nl := range listChanges(l) {
			mut, ok := withValue(base, l.path, nl)
			if !ok {
				continue
			}
			name := fmt.Sprintf("%v list %s #%d", l.path, l.s.ListType(), i)
			check(name, mut, base)
			check(name+" reverse", deepCopy(base).(map[string]any), mut)
		}
	}
}

// collectValues collects every value of an object that has a schema,
// outside preserved unknown fields.
func collectValues(s *schema.Schema, v any, path []any, out *[]site) {
	if s == nil || v == nil {
		return
	}
	*out = append(*out, site{path: path, s: s, v: v})
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c := s.Property(k)
			if c == nil {
				c, _, _ = s.AdditionalProperties()
			}
			collectValues(c, x[k], append(slices.Clip(path), k), out)
		}
	case []any:
		for i, e := range x {
			collectValues(s.Items(), e, append(slices.Clip(path), i), out)
		}
	}
}

// injectRules returns the openAPIV3Schema of tg with rules added at the
// schema nodes of the sites.
func injectRules(tg *target, sites []site) (*apiextensionsv1.JSONSchemaProps, error) {
	var props *apiextensionsv1.JSONSchemaProps
	for i := range tg.crd.Spec.Versions {
		if tg.crd.Spec.Versions[i].Name == tg.version {
			props = tg.crd.Spec.Versions[i].Schema.OpenAPIV3Schema
		}
	}
	raw, err := json.Marshal(props)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	add := func(n map[string]any, key string, vs ...any) {
		old, _ := n[key].([]any)
		n[key] = append(old, vs...)
	}
	for si, st := range sites {
		n := doc
		for _, e := range st.path {
			switch k := e.(type) {
			case string:
				ps, _ := n["properties"].(map[string]any)
				if c, ok := ps[k].(map[string]any); ok {
					n = c
				} else if c, ok := n["additionalProperties"].(map[string]any); ok {
					n = c
				} else {
					return nil, fmt.Errorf("no schema at %v", st.path)
				}
			case int:
				c, ok := n["items"].(map[string]any)
				if !ok {
					return nil, fmt.Errorf("no schema at %v", st.path)
				}
				n = c
			}
		}
		msg := func(m string) string { return fmt.Sprintf("%s %d", m, si) }
		add(n, "x-kubernetes-validations",
			map[string]any{"rule": "false", "message": msg("always")},
			map[string]any{"rule": "self == oldSelf", "message": msg("immutable")},
			map[string]any{"rule": "!oldSelf.hasValue() || self == oldSelf.value()", "optionalOldSelf": true, "messageExpression": "'optional immutable " + fmt.Sprint(si) + "'"},
		)
		add(n, "allOf", map[string]any{"x-kubernetes-validations": []any{
			map[string]any{"rule": "false", "message": msg("allOf always")},
			map[string]any{"rule": "self == oldSelf", "message": msg("allOf immutable")},
		}})
	}
	raw, _ = json.Marshal(doc)
	out := new(apiextensionsv1.JSONSchemaProps)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, out); err != nil {
		return nil, err
	}
	return out, nil
}

// withValue returns a copy of obj with v at path (nil removes the value
// from an object, as a client leaving a field out does).
func withValue(obj map[string]any, path []any, v any) (map[string]any, bool) {
	c := deepCopy(obj).(map[string]any)
	if len(path) == 0 {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		return deepCopy(m).(map[string]any), true
	}
	var cur any = c
	for i, e := range path {
		last := i == len(path)-1
		switch x := cur.(type) {
		case map[string]any:
			k := e.(string)
			if last {
				if v == nil {
					delete(x, k)
				} else {
					x[k] = deepCopy(v)
				}
				return c, true
			}
			cur = x[k]
		case []any:
			j := e.(int)
			if j >= len(x) {
				return nil, false
			}
			if last {
				x[j] = deepCopy(v)
				return c, true
			}
			cur = x[j]
		default:
			return nil, false
		}
	}
	return nil, false
}

func isPrefix(p, q []any) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// collectAllLists collects the non-empty lists of an object, items of lists
// included, outside preserved unknown fields.
func collectAllLists(s *schema.Schema, v any, path []any, out *[]site) {
	if s == nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c := s.Property(k)
			if c == nil {
				c, _, _ = s.AdditionalProperties()
			}
			collectAllLists(c, x[k], append(slices.Clip(path), k), out)
		}
	case []any:
		if len(x) > 0 && s.Items() != nil {
			*out = append(*out, site{path: path, s: s, v: v})
		}
		for i, e := range x {
			collectAllLists(s.Items(), e, append(slices.Clip(path), i), out)
		}
	}
}

// listChanges returns new values for a list: reordered, first item removed,
// an item added (a copy of the last with its map keys changed when the list
// is a map), an item duplicated, and the first item's first non-key field
// changed.
func listChanges(l site) [][]any {
	x := l.v.([]any)
	var out [][]any
	if len(x) > 1 {
		rev := slices.Clone(x)
		slices.Reverse(rev)
		out = append(out, rev)
	}
	out = append(out, slices.Clone(x[1:]))
	added := deepCopy(x[len(x)-1])
	if m, ok := added.(map[string]any); ok {
		for _, k := range l.s.ListMapKeys() {
			switch kv := m[k].(type) {
			case string:
				m[k] = kv + "-added"
			case int64:
				m[k] = kv + 1000
			case bool:
				m[k] = !kv
			}
		}
	}
	out = append(out, append(slices.Clone(x), added))
	out = append(out, append(slices.Clone(x), deepCopy(x[0])))
	if m, ok := x[0].(map[string]any); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			if !slices.Contains(l.s.ListMapKeys(), k) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		if len(keys) > 0 {
			c := deepCopy(m).(map[string]any)
			switch v := c[keys[0]].(type) {
			case string:
				c[keys[0]] = v + "x"
			case int64:
				c[keys[0]] = v + 1
			case bool:
				c[keys[0]] = !v
			default:
				delete(c, keys[0])
			}
			changed := slices.Clone(x)
			changed[0] = c
			out = append(out, changed)
		}
	}
	return out
}

// hasTransitionRules says whether a rule of s mentions oldSelf.
func hasTransitionRules(s *schema.Schema) bool {
	if s == nil {
		return false
	}
	for _, r := range s.Rules() {
		if strings.Contains(r.Rule, "oldSelf") {
			return true
		}
	}
	if hasTransitionRules(s.Items()) {
		return true
	}
	if a, _, _ := s.AdditionalProperties(); hasTransitionRules(a) {
		return true
	}
	for _, c := range s.Properties() {
		if hasTransitionRules(c) {
			return true
		}
	}
	for _, a := range s.AllOf() {
		if hasTransitionRules(a) {
			return true
		}
	}
	return false
}
