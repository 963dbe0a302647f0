package rules

import (
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

func fieldErrTexts(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = string(e.Type) + "|" + e.Error()
	}
	return out
}

// agreeUntracked checks ValidateUntracked against Validate (old nil) or
// ValidateUpdate and returns how it evaluated.
func agreeUntracked(t *testing.T, name string, v *Validator, obj, old any, budget int64) int {
	t.Helper()
	var want field.ErrorList
	var wantWarn []string
	if old == nil {
		want, _ = v.Validate(obj, budget)
	} else {
		want, wantWarn, _ = v.ValidateUpdate(obj, old, budget)
	}
	got, gotWarn, how := v.validateUntracked(context.Background(), obj, old, budget)
	if w, g := fieldErrTexts(want), fieldErrTexts(got); !slices.Equal(w, g) || !slices.Equal(wantWarn, gotWarn) {
		t.Errorf("%s (budget %d, path %d):\n tracked   %q %q\n untracked %q %q", name, budget, how, w, wantWarn, g, gotWarn)
	}
	return how
}

// TestNoCostTracking checks that the option really turns the tracker off:
// an untracked program reports no cost (cel-go then has no observer at
// all), the tracked one does, and both give the same value.
func TestNoCostTracking(t *testing.T) {
	if noCostTracking == nil {
		t.Fatal("noCostTracking is nil: cel-go's program configuration changed, nothing is evaluated untracked")
	}
	v := mustCompile(t, spec(`[{"rule":"self.s.size() < 3"}]`, `{"s":{"type":"string","maxLength":10}}`))
	cr := &v.root.props[0].v.rules[0]
	f := cr.fast.get()
	if f.prog == nil || f.cost == 0 || f.cost > PerCallLimit {
		t.Fatalf("untracked program %v, bound %d", f.prog, f.cost)
	}
	act := &activation{self: toVal(decode(t, `{"s":"abcd"}`), v.root.props[0].v.self)}
	res, det, err := f.prog.Eval(act)
	if err != nil || det != nil {
		t.Errorf("untracked Eval = %v, details %v, %v; want no details", res, det, err)
	}
	tres, tdet, err := cr.prog.program().Eval(act)
	if err != nil || tdet == nil || tdet.ActualCost() == nil || tres != res {
		t.Fatalf("tracked Eval = %v, %v, %v", tres, tdet, err)
	}
	if *tdet.ActualCost() > f.cost {
		t.Errorf("tracked cost %d above the bound %d", *tdet.ActualCost(), f.cost)
	}
}

// TestUntrackedTables runs the create and update tables both ways.
func TestUntrackedTables(t *testing.T) {
	for _, tc := range validateTests {
		v := mustCompile(t, tc.schema)
		budget := tc.budget
		if budget == 0 {
			budget = RuntimeBudget
		}
		agreeUntracked(t, tc.name, v, decode(t, tc.obj), nil, budget)
	}
	for _, tc := range updateTests {
		v := mustCompile(t, tc.schema)
		agreeUntracked(t, tc.name, v, decode(t, tc.obj), decode(t, tc.old), RuntimeBudget)
	}
}

// TestUntrackedPaths checks the cases where the bounds decide: a budget
// that the bounds cross before the tracked costs do (and one both cross),
// a rule whose bound exceeds PerCallLimit (always tracked, beside untracked
// ones), a messageExpression, values larger than the schema declares, an
// update whose old value is too large, and a cancelled context.
func TestUntrackedPaths(t *testing.T) {
	items := `{"l":{"type":"array","maxItems":100,"items":{"type":"string","maxLength":64,
	  "x-kubernetes-validations":[{"rule":"self.matches('^[a-z]+$')","messageExpression":"'bad: ' + self"}]}}}`
	v := mustCompile(t, spec(`[{"rule":"self.l.size() >= 0"}]`, items))
	var l []string
	for range 50 {
		l = append(l, `"abc"`)
	}
	obj := decode(t, `{"spec":{"l":[`+strings.Join(l, ",")+`]}}`)
	_, left := v.Validate(obj, RuntimeBudget)
	actual := RuntimeBudget - left
	f := v.root.props[0].v.props[0].v.items.rules[0].fast.get()
	if f.prog == nil || f.msgProg == nil {
		t.Fatal("bounded rule has no untracked program")
	}
	bounds := int64(50*f.cost) + int64(v.root.props[0].v.rules[0].fast.get().cost)
	if bounds <= actual {
		t.Fatalf("bounds %d not above the actual cost %d", bounds, actual)
	}
	if how := agreeUntracked(t, "full budget", v, obj, nil, RuntimeBudget); how != pathFast {
		t.Errorf("full budget: path %d, want fast", how)
	}
	if how := agreeUntracked(t, "between", v, obj, nil, (actual+bounds)/2); how != pathFellBack {
		t.Errorf("budget between actual %d and bounds %d: path %d, want fell back", actual, bounds, how)
	}
	if how := agreeUntracked(t, "below", v, obj, nil, actual/2); how != pathFellBack {
		t.Errorf("budget below the actual cost: path %d, want fell back", how)
	}
	// A failing item: its messageExpression runs untracked, or crosses the
	// budget (bounds crossing mid-way, at the message).
	bad := decode(t, `{"spec":{"l":["abc","A-B","abc"]}}`)
	agreeUntracked(t, "message", v, bad, nil, RuntimeBudget)
	for b := int64(1); b < bounds; b += 7 {
		agreeUntracked(t, "message budget", v, bad, nil, b)
	}
	// Larger than declared.
	long := decode(t, `{"spec":{"l":["`+strings.Repeat("a", 4*64+1)+`"]}}`)
	if how := agreeUntracked(t, "too long", v, long, nil, RuntimeBudget); how != pathSizes {
		t.Errorf("string over maxLength: path %d, want sizes", how)
	}
	// Over maxItems: the item rule's bound is per item, and the rule on
	// spec costs the same on any list, so nothing depends on the count...
	tooMany := decode(t, `{"spec":{"l":[`+strings.Repeat(`"a",`, 100)+`"a"]}}`)
	if how := agreeUntracked(t, "too many", v, tooMany, nil, RuntimeBudget); how != pathFast {
		t.Errorf("list over maxItems, no rule over the list: path %d, want fast", how)
	}
	// ... unless a rule iterates over the list.
	all := mustCompile(t, spec(`[{"rule":"self.l.all(x, x != 'q')"}]`, items))
	if !all.root.props[0].v.rules[0].fast.get().sized {
		t.Error("a rule over a list with maxItems does not depend on the sizes")
	}
	if v.root.props[0].v.rules[0].fast.get().sized {
		t.Error("self.l.size() >= 0 depends on the sizes")
	}
	if how := agreeUntracked(t, "too many, iterated", all, tooMany, nil, RuntimeBudget); how != pathSizes {
		t.Errorf("list over maxItems iterated by a rule: path %d, want sizes", how)
	}
	if how := agreeUntracked(t, "wrong type", v, decode(t, `{"spec":{"l":[1]}}`), nil, RuntimeBudget); how != pathSizes {
		t.Errorf("int in a string list: path %d, want sizes", how)
	}

	// Unbounded: no maxItems, no maxLength, a quadratic rule: its bound is
	// above PerCallLimit, so it runs tracked, beside an untracked rule.
	u := mustCompile(t, spec(`[{"rule":"self.l.all(x, self.l.all(y, x.contains(y) || true))"},{"rule":"self.n < 10"}]`,
		`{"l":{"type":"array","items":{"type":"string"}},"n":{"type":"integer"}}`))
	if u.root.props[0].v.rules[0].fast.get().prog != nil {
		t.Error("quadratic rule over unbounded values has an untracked program")
	}
	if u.root.props[0].v.rules[1].fast.get().prog == nil {
		t.Error("scalar rule has no untracked program")
	}
	uo := decode(t, `{"spec":{"l":["a","b","c"],"n":12}}`)
	if how := agreeUntracked(t, "unbounded", u, uo, nil, RuntimeBudget); how != pathFast {
		t.Errorf("unbounded rule beside a bounded one: path %d, want fast (mixed)", how)
	}
	var out result
	out.fast = true
	u.boundsOnce.Do(func() { u.root.buildBounds(map[*apiservercel.DeclType]*bnode{}) })
	u.root.validate(context.Background(), uo, nil, ratchet{}, RuntimeBudget, out.at(nil))
	if out.tracked != 1 || out.untracked != 1 || out.abort {
		t.Errorf("mixed evaluation: %d tracked, %d untracked, abort %v; want 1, 1, false", out.tracked, out.untracked, out.abort)
	}
	for _, b := range []int64{1, 2, 5, 20} {
		agreeUntracked(t, "unbounded, small budget", u, uo, nil, b)
	}

	// Updates: a transition rule reads the old value, which must conform
	// too.
	tr := mustCompile(t, spec(`[{"rule":"self.s == oldSelf.s || oldSelf.s.size() < 3"}]`, `{"s":{"type":"string","maxLength":8}}`))
	if how := agreeUntracked(t, "transition", tr, decode(t, `{"spec":{"s":"abc"}}`), decode(t, `{"spec":{"s":"abcd"}}`), RuntimeBudget); how != pathFast {
		t.Errorf("transition rule: path %d, want fast", how)
	}
	if how := agreeUntracked(t, "old too long", tr, decode(t, `{"spec":{"s":"abc"}}`), decode(t, `{"spec":{"s":"`+strings.Repeat("x", 4*8+1)+`"}}`), RuntimeBudget); how != pathSizes {
		t.Errorf("old value over maxLength: path %d, want sizes", how)
	}

	// A cancelled context gives the same errors both ways.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	want, _ := v.ValidateContext(ctx, bad, RuntimeBudget)
	got, _ := v.ValidateUntracked(ctx, bad, nil, RuntimeBudget)
	if !slices.Equal(fieldErrTexts(want), fieldErrTexts(got)) {
		t.Errorf("cancelled: tracked %q, untracked %q", fieldErrTexts(want), fieldErrTexts(got))
	}
}

// TestUntrackedForeignType checks the sizes under a property whose name CEL
// cannot escape: its rules compile against a type of their own, which the
// parent's check does not cover.
func TestUntrackedForeignType(t *testing.T) {
	v := mustCompile(t, spec(`[{"rule":"self.s.matches('^a*$')"}]`,
		`{"s":{"type":"string","maxLength":10},"x y":{"type":"object","properties":{"t":{"type":"string","maxLength":5}},
		  "x-kubernetes-validations":[{"rule":"self.t.matches('^b*$')"}]}}`))
	v.boundsOnce.Do(func() { v.root.buildBounds(map[*apiservercel.DeclType]*bnode{}) })
	x := v.root.props[0].v
	if len(x.props) != 1 || !x.props[0].v.foreign || !x.ownSized || !x.props[0].v.ownSized {
		t.Fatalf("unexpected validator tree: %d children, foreign %v", len(x.props), len(x.props) == 1 && x.props[0].v.foreign)
	}
	ok := decode(t, `{"spec":{"s":"aa","x y":{"t":"bbb"}}}`)
	if how := agreeUntracked(t, "foreign ok", v, ok, nil, RuntimeBudget); how != pathFast {
		t.Errorf("conforming: path %d, want fast", how)
	}
	long := decode(t, `{"spec":{"s":"aa","x y":{"t":"`+strings.Repeat("b", 21)+`"}}}`)
	if how := agreeUntracked(t, "foreign too long", v, long, nil, RuntimeBudget); how != pathSizes {
		t.Errorf("string over maxLength under an unescapable name: path %d, want sizes", how)
	}
}
