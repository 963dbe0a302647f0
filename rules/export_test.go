package rules

import (
	"context"
	"sync"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
)

// Evaluation paths of ValidateUntrackedPath.
const (
	PathTracked  = pathTracked
	PathFast     = pathFast
	PathFellBack = pathFellBack
	PathSizes    = pathSizes
)

// ValidateUntrackedPath is ValidateUntracked that also says how it
// evaluated.
func ValidateUntrackedPath(v *Validator, ctx context.Context, obj, old any, budget int64) (field.ErrorList, []string, int) {
	return v.validateUntracked(ctx, obj, old, budget)
}

// Conforms reports whether obj (and old) meet the size assumptions of the
// untracked path.
func Conforms(v *Validator, obj any) bool {
	if v == nil || noCostTracking == nil {
		return false
	}
	v.boundsOnce.Do(func() { v.root.buildBounds(map[*apiservercel.DeclType]*bnode{}) })
	return v.root.conformsAll(obj)
}

// CostRecord is one tracked evaluation seen by the cost hook.
type CostRecord struct {
	Rule    string // the rule (or messageExpression) source
	Actual  uint64 // tracked cost
	Bound   uint64 // the untracked path's bound
	Bounded bool   // false: the rule has no bound (always tracked)
	Sized   bool   // the rule's bounds hold only on values of the declared sizes
}

var hookMu sync.Mutex

// RecordCosts calls f for every tracked evaluation until the returned
// function is called. Not for concurrent tests.
func RecordCosts(f func(CostRecord)) (stop func()) {
	hookMu.Lock()
	costHook = func(cr *compiledRule, msg bool, cost uint64) {
		r := CostRecord{Rule: cr.rule.Rule, Actual: cost}
		if cr.fast != nil {
			lf := cr.fast.get()
			r.Sized = lf.sized
			if msg {
				r.Rule, r.Bound, r.Bounded = cr.rule.MessageExpression, lf.msgCost, lf.msgProg != nil
			} else {
				r.Bound, r.Bounded = lf.cost, lf.prog != nil
			}
		}
		f(r)
	}
	return func() { costHook = nil; hookMu.Unlock() }
}

// conformsAll checks obj against the bounds of every node with rules that
// obj reaches (a superset of what the untracked path checks).
func (n *vnode) conformsAll(obj any) bool {
	if n == nil || obj == nil {
		return true
	}
	if len(n.rules) > 0 && !n.bounds.conforms(obj) {
		return false
	}
	for _, a := range n.allOf {
		if !a.conformsAll(obj) {
			return false
		}
	}
	switch x := obj.(type) {
	case []any:
		for _, e := range x {
			if !n.items.conformsAll(e) {
				return false
			}
		}
	case map[string]any:
		if n.addl != nil {
			for _, e := range x {
				if !n.addl.conformsAll(e) {
					return false
				}
			}
		}
		for _, c := range n.props {
			if !c.v.conformsAll(x[c.name]) {
				return false
			}
		}
	}
	return true
}

// NativeRecord is one rule evaluated both natively and by cel-go.
type NativeRecord struct {
	Rule    string
	Value   bool // the native program's result
	Sure    bool // the native program is sure of Value
	CelTrue bool // cel-go's result is true
	Err     error
}

// RecordNative makes every evaluation of a rule with a native program run
// both and shows f the results, until stop is called. Not concurrent-safe:
// only for tests that evaluate on one goroutine.
func RecordNative(f func(NativeRecord)) (stop func()) {
	nativeCheck = func(cr *compiledRule, value, sure bool, res ref.Val, err error) {
		f(NativeRecord{Rule: cr.rule.Rule, Value: value, Sure: sure, CelTrue: err == nil && res == types.True, Err: err})
	}
	return func() { nativeCheck = nil }
}

// NativeRules lists v's rules (those with an untracked program) and
// whether each has a native program.
func NativeRules(v *Validator) (rules []string, native []bool) {
	var walk func(n *vnode)
	walk = func(n *vnode) {
		if n == nil {
			return
		}
		for i := range n.rules {
			cr := &n.rules[i]
			if cr.fast == nil {
				continue
			}
			if f := cr.fast.get(); f.prog != nil {
				rules, native = append(rules, cr.rule.Rule), append(native, f.native != nil)
			}
		}
		walk(n.items)
		walk(n.addl)
		for _, c := range n.props {
			walk(c.v)
		}
		for _, a := range n.allOf {
			walk(a)
		}
	}
	if v != nil {
		walk(v.root)
	}
	return rules, native
}

// NativeDecided counts the rules the native program decided in one
// ValidateUntracked call.
func NativeDecided(v *Validator, obj, old any, budget int64) (field.ErrorList, []string, int) {
	out := result{fast: true, oldToo: v.usesOldSelf}
	v.boundsOnce.Do(func() { v.root.buildBounds(map[*apiservercel.DeclType]*bnode{}) })
	var r ratchet
	if old != nil {
		r.cur = common.NewCorrelatedObject(obj, old, v.schema)
	}
	v.root.validate(context.Background(), obj, old, r, budget, out.at(nil))
	return out.errs, out.warnings, out.native
}

// NativePanics is how many native evaluations panicked so far.
func NativePanics() int64 { return nativePanics.Load() }
