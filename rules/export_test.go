package rules

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
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
