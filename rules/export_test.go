package rules

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Evaluation paths of ValidateUntrackedPath.
const (
	PathTracked  = pathTracked
	PathFast     = pathFast
	PathFellBack = pathFellBack
)

// ValidateUntrackedPath is ValidateUntracked that also says how it
// evaluated.
func ValidateUntrackedPath(v *Validator, ctx context.Context, obj, old any, budget int64) (field.ErrorList, []string, int) {
	return v.validateUntracked(ctx, obj, old, budget)
}

// Conforms reports whether obj (and old) meet the size assumptions of the
// untracked path.
func Conforms(v *Validator, obj any) bool { return v != nil && v.fast && conforms(v.decl, obj) }

// CostRecord is one tracked evaluation seen by the cost hook.
type CostRecord struct {
	Rule    string // the rule (or messageExpression) source
	Actual  uint64 // tracked cost
	Bound   uint64 // the untracked path's bound
	Bounded bool   // false: the rule has no bound (always tracked)
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
