package rules

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/crdkit/crdkit/schema"
)

type ruleT = schema.ValidationRule

// Validate evaluates the rules on obj, a decoded object (maps, slices,
// strings, bools, int64 and float64) on create (there is no old object), with
// the server's semantics: null values are never validated, rules that use
// oldSelf run only when they set optionalOldSelf (oldSelf is then an empty
// optional), each evaluation is limited to PerCallLimit and all of them
// share budget (the server passes RuntimeBudget). It returns the errors and
// the budget left, negative when evaluation stopped because a limit was
// reached.
//
// Errors carry the server's field paths, types and texts. Where the server
// walks a Go map (the properties and additionalProperties of an object),
// crdkit walks the keys in sorted order, so errors come out in a
// deterministic order; the set of errors is the server's except when the
// budget runs out, where which rules ran first decides what is reported.
//
// Validate is safe for concurrent use and does not modify obj.
func (v *Validator) Validate(obj any, budget int64) (field.ErrorList, int64) {
	return v.ValidateContext(context.Background(), obj, budget)
}

// ValidateContext is Validate with a context: evaluation stops with the
// server's cancellation errors when ctx is done.
func (v *Validator) ValidateContext(ctx context.Context, obj any, budget int64) (field.ErrorList, int64) {
	if v == nil || v.root == nil {
		return nil, budget
	}
	var out result
	budget = v.root.validate(ctx, obj, nil, ratchet{}, budget, out.at(nil))
	return out.errs, budget
}

// ValidateUpdate evaluates the rules on obj as an update of old, the object
// as stored before the update, with the server's ratcheting (CRD validation
// ratcheting is on by default in v0.37): obj and old are correlated as the
// server's CorrelatedObject does (object properties and additionalProperties
// by key, items of x-kubernetes-list-type=map lists by their keys, other
// lists only as a whole).
//
//   - A rule that uses oldSelf (a transition rule) runs only where an old
//     value correlates with the new one, or, when it sets optionalOldSelf,
//     everywhere (oldSelf is then optional.none() where nothing correlates).
//     Old values correlate for rules as in the server's CEL validator:
//     properties and additionalProperties by key, list-type=map items by
//     their keys, never the items of other lists.
//   - A failing rule that does not use oldSelf, at a value equal to the one it
//     correlates with (or, where the value itself does not correlate, whose
//     nearest correlating ancestor is unchanged), is ratcheted: its error
//     (and the error of its messageExpression) becomes a warning, the error's
//     text as the server writes it with warning.AddWarning. As in the server,
//     rules reached through allOf ratchet only by the node's parent, the
//     resource's apiVersion and kind never ratchet, and runtime, compile and
//     budget errors are never ratcheted.
//
// It returns the errors, the warnings in the order the rules produced them,
// and the budget left (negative when a limit was reached). A nil old is a
// create: ValidateUpdate(obj, nil, b) is Validate(obj, b) with no warnings.
// ValidateUpdate is safe for concurrent use and modifies neither obj nor old.
func (v *Validator) ValidateUpdate(obj, old any, budget int64) (errs field.ErrorList, warnings []string, left int64) {
	return v.ValidateUpdateContext(context.Background(), obj, old, budget)
}

// ValidateUpdateContext is ValidateUpdate with a context: evaluation stops
// with the server's cancellation errors when ctx is done.
func (v *Validator) ValidateUpdateContext(ctx context.Context, obj, old any, budget int64) (errs field.ErrorList, warnings []string, left int64) {
	if v == nil || v.root == nil {
		return nil, nil, budget
	}
	var r ratchet
	if old != nil {
		r.cur = common.NewCorrelatedObject(obj, old, v.schema)
	}
	var out result
	budget = v.root.validate(ctx, obj, old, r, budget, out.at(nil))
	return out.errs, out.warnings, budget
}

// result collects what one evaluation reports.
type result struct {
	errs     field.ErrorList
	warnings []string

	// fast: evaluate untracked where the bound allows it, budget then
	// counting bounds (untracked.go); abort: a bound would have reached a
	// limit, what was found must be thrown away.
	fast, abort        bool
	untracked, tracked int   // evaluations of each kind in fast mode
	native             int   // untracked evaluations the native program decided
	nenv               *nenv // the native programs' state, for all rules of the call
	// checked: the values being evaluated have the sizes the bounds
	// assume; oldToo: old values are read too.
	// sizes: abort because a value is larger than its bound assumes.
	checked, oldToo, sizes bool

	// The path of the value being validated: root, then steps. It is made
	// a *field.Path only when an error needs it (path): most walks report
	// nothing, and a field.Path per node would be an allocation each.
	root  *field.Path
	depth int       // steps: buf[:depth], then more
	buf   [16]pstep // inline (a slice of it would make out escape)
	more  []pstep
}

// pstep is one step of the path from the root.
type pstep struct {
	kind uint8 // stepChild, stepKey, stepIndex
	name string
	i    int
}

const (
	stepChild = iota // .name
	stepKey          // [name]
	stepIndex        // [i]
)

// at starts a walk of out from the root path p.
func (out *result) at(p *field.Path) *result {
	out.root, out.depth, out.more = p, 0, out.more[:0]
	return out
}

// enter pushes a step and returns what leave takes to pop it.
func (out *result) enter(st pstep) int {
	n := out.depth
	if n < len(out.buf) {
		out.buf[n] = st
	} else {
		out.more = append(out.more[:n-len(out.buf)], st)
	}
	out.depth++
	return n
}

func (out *result) leave(n int) { out.depth = n }

// path returns the path of the value being validated.
func (out *result) path() *field.Path {
	p := out.root
	for i := range out.depth {
		st := &out.buf[min(i, len(out.buf)-1)]
		if i >= len(out.buf) {
			st = &out.more[i-len(out.buf)]
		}
		switch st.kind {
		case stepChild:
			p = p.Child(st.name)
		case stepKey:
			p = p.Key(st.name)
		default:
			p = p.Index(st.i)
		}
	}
	return p
}

// add reports e: as a warning when the rule's failure is ratcheted.
func (o *result) add(e *field.Error, ratcheted bool) {
	if ratcheted {
		o.warnings = append(o.warnings, e.Error())
		return
	}
	o.errs = append(o.errs, e)
}

// ratchet is the server's ratchetingOptions: the correlation of the
// current value with its old value (nil where it does not correlate), and
// the nearest ancestor that correlates.
type ratchet struct {
	cur, parent *common.CorrelatedObject
}

// ratcheted says whether a failure at the current value is ratcheted: the
// value (or, when it does not correlate, its nearest correlating ancestor)
// is unchanged.
func (r ratchet) ratcheted() bool {
	if r.cur != nil {
		return r.cur.CachedDeepEqual()
	}
	return r.parent.CachedDeepEqual() // false on nil
}

func (r ratchet) key(k string) ratchet {
	switch {
	case r.cur == nil:
		return r
	case r.parent == nil && (k == "apiVersion" || k == "kind"):
		// The server never ratchets the resource's apiVersion and kind.
		return ratchet{}
	}
	return ratchet{cur: r.cur.Key(k), parent: r.cur}
}

func (r ratchet) index(i int) ratchet {
	if r.cur == nil {
		return r
	}
	return ratchet{cur: r.cur.Index(i), parent: r.cur}
}

// nilIfEmpty turns a nil map or slice into nil, as the server's guard
// against non-nil interfaces holding nil values does.
func nilIfEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return nil
		}
	case []any:
		if x == nil {
			return nil
		}
	}
	return v
}

// ValidateDefault checks a default value as the server's CRD validation
// does, with a Validator from CompileNode for the schema node that declares
// the default: the rules run as an update of the default to itself (so
// transition rules run, oldSelf being the default), then, if that reports
// nothing, as a create (oldSelf absent; optionalOldSelf rules see an empty
// optional). p is the default's path (the schema node's path, then
// "default"). It returns the errors and the smaller of the two budgets left.
func (v *Validator) ValidateDefault(p *field.Path, def any, budget int64) (field.ErrorList, int64) {
	if v == nil || v.root == nil {
		return nil, budget
	}
	ctx := context.Background()
	var out result
	left := v.root.validate(ctx, def, def, ratchet{}, budget, out.at(p))
	if len(out.errs) == 0 {
		left2 := v.root.validate(ctx, def, nil, ratchet{}, budget, out.at(p))
		left = min(left, left2)
	}
	return out.errs, left
}

// validate runs the rules at n and below on obj, reporting to out, and
// returns the budget left. old is the old value that correlates with obj for
// rules (nil on create and where none does), r the ratcheting correlation.
func (n *vnode) validate(ctx context.Context, obj, old any, r ratchet, budget int64, out *result) int64 {
	if n == nil || obj == nil {
		return budget
	}
	if out.fast {
		// Some rules' cost bounds hold only for values of the sizes their
		// type declares: check the value (and the old value, which rules
		// here or below may read) once, at the topmost node with such a
		// rule, for the whole subtree (but a type that is not part of the
		// parent's is checked on its own).
		was := out.checked
		checked := was && !n.foreign
		if !checked && n.ownSized {
			if !n.bounds.conforms(obj) || out.oldToo && !n.bounds.conforms(old) {
				out.abort, out.sizes = true, true
				return -1
			}
			checked = true
		}
		if checked != was {
			out.checked = checked
			budget = n.validateNode(ctx, obj, old, r, budget, out)
			out.checked = was
			return budget
		}
	}
	return n.validateNode(ctx, obj, old, r, budget, out)
}

// validateNode is validate without the size checks of fast mode.
func (n *vnode) validateNode(ctx context.Context, obj, old any, r ratchet, budget int64, out *result) int64 {
	if budget = n.validateRules(ctx, obj, old, r, budget, out); budget < 0 {
		return budget
	}
	// As the server does (mirroring OpenAPI ratcheting, which does not
	// ratchet allOf), allOf rules ratchet only by the nearest parent.
	ar := ratchet{parent: r.parent}
	for _, a := range n.allOf {
		if budget = a.validate(ctx, obj, old, ar, budget, out); budget < 0 {
			return budget
		}
	}
	switch x := obj.(type) {
	case []any:
		if n.items == nil {
			return budget
		}
		// Only list-type=map items correlate with old items (by key).
		var oldItems common.MapList
		if ol, ok := old.([]any); ok {
			oldItems = common.MakeMapList(n.self, ol)
		}
		for i, e := range x {
			var oe any
			if oldItems != nil {
				oe = oldItems.Get(e)
			}
			at := out.enter(pstep{kind: stepIndex, i: i})
			budget = n.items.validate(ctx, e, oe, r.index(i), budget, out)
			out.leave(at)
			if budget < 0 {
				return budget
			}
		}
	case map[string]any:
		om, _ := old.(map[string]any)
		if om != nil && n.self.s != nil && !mapCorrelatable(n.self.s.MapType()) {
			om = nil
		}
		if n.addl != nil && len(x) > 0 {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				at := out.enter(pstep{kind: stepKey, name: k})
				budget = n.addl.validate(ctx, x[k], om[k], r.key(k), budget, out)
				out.leave(at)
				if budget < 0 {
					return budget
				}
			}
		}
		for _, c := range n.props {
			e, ok := x[c.name]
			if !ok {
				continue
			}
			at := out.enter(pstep{kind: stepChild, name: c.name})
			budget = c.v.validate(ctx, e, om[c.name], r.key(c.name), budget, out)
			out.leave(at)
			if budget < 0 {
				return budget
			}
		}
	}
	return budget
}

// activations returns the activation of the rules of n and the one of its
// optionalOldSelf rules. As the server does, oldSelf is bound only when a
// rule of the node uses it.
func (n *vnode) activations(obj, old any) (act, opt *activation) {
	act = &activation{self: toVal(obj, n.self)}
	if !n.usesOldSelf {
		return act, act
	}
	opt = &activation{self: act.self, oldSelf: types.OptionalNone, hasOldSelf: true}
	if old != nil {
		act.oldSelf, act.hasOldSelf = toVal(old, n.self), true
		opt.oldSelf = types.OptionalOf(act.oldSelf)
	}
	return act, opt
}

// activation resolves self and oldSelf.
type activation struct {
	self, oldSelf ref.Val
	hasOldSelf    bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case selfVar:
		return a.self, true
	case oldSelfVar:
		return a.oldSelf, a.hasOldSelf
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

const budgetExhausted = "validation failed due to running out of cost budget, no further validation rules will be run"

// validateRules evaluates the rules of one node, in order, as the server's
// validateExpressions does.
func (n *vnode) validateRules(ctx context.Context, obj, old any, r ratchet, budget int64, out *result) int64 {
	if n.initErr != nil {
		out.errs = append(out.errs, field.Invalid(out.path(), n.typ, fmt.Sprintf("rule compiler initialization error: %v", n.initErr)))
		return budget
	}
	if len(n.rules) == 0 {
		return budget
	}
	old = nilIfEmpty(old)
	if budget <= 0 {
		if out.fast {
			out.abort = true
			return -1
		}
		out.errs = append(out.errs, field.Invalid(out.path(), n.typ, budgetExhausted))
		return -1
	}
	var act, optAct *activation // built on first use
	for i := range n.rules {
		cr := &n.rules[i]
		if cr.err != nil {
			out.errs = append(out.errs, field.Invalid(out.path(), n.typ, fmt.Sprintf("rule compile error: %v", cr.err)))
			continue
		}
		if cr.prog == nil {
			continue // empty rule
		}
		if cr.usesOldSelf && old == nil && !cr.optional {
			continue // transition rules need an old value
		}
		var res ref.Val
		var err error
		if f := out.untrackedRule(cr, budget); f != nil {
			budget -= int64(f.cost)
			// The native program, when it is sure the rule holds (native.go);
			// cel-go in every other case.
			native := f.native != nil && (ctx.Done() == nil || ctx.Err() == nil)
			if native && out.nenv == nil {
				out.nenv = &nenv{}
			}
			if native && nativeCheck == nil && f.native.run(out.nenv, obj, old) {
				out.native++
				continue
			}
			if act == nil {
				act, optAct = n.activations(obj, old)
			}
			ra := act
			if cr.optional {
				ra = optAct
			}
			res, _, err = eval(ctx, f.prog, ra)
			if native && nativeCheck != nil {
				nv, sure := f.native.eval(out.nenv, obj, old)
				nativeCheck(cr, nv, sure, res, err)
			}
		} else {
			if act == nil {
				act, optAct = n.activations(obj, old)
			}
			ra := act
			if cr.optional {
				ra = optAct
			}
			var det *cel.EvalDetails
			res, det, err = eval(ctx, cr.prog.program(), ra)
			if det == nil {
				out.errs = append(out.errs, field.InternalError(out.path(), fmt.Errorf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleErrorString(&cr.rule))))
				return -1
			}
			cost := det.ActualCost()
			if cost == nil {
				out.errs = append(out.errs, field.Invalid(out.path(), n.typ, fmt.Sprintf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleErrorString(&cr.rule))))
				return -1
			}
			if costHook != nil {
				costHook(cr, false, *cost)
			}
			if *cost > math.MaxInt64 || int64(*cost) > budget {
				if out.fast {
					out.abort = true
					return -1
				}
				out.errs = append(out.errs, field.Invalid(out.path(), n.typ, budgetExhausted))
				return -1
			}
			budget -= int64(*cost)
		}
		if err != nil {
			msg := err.Error()
			switch {
			case strings.HasPrefix(msg, "no such overload"):
				out.errs = append(out.errs, field.Invalid(out.path(), n.typ, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, ruleErrorString(&cr.rule))))
			case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
				out.errs = append(out.errs, field.Invalid(out.path(), n.typ, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, ruleErrorString(&cr.rule))))
				return -1
			default:
				out.errs = append(out.errs, field.Invalid(out.path(), n.typ, fmt.Sprintf("%v evaluating rule: %v", err, ruleErrorString(&cr.rule))))
			}
			continue
		}
		if res == types.True {
			continue
		}
		fp := out.path()
		if cr.fieldPath != "" {
			fp = fp.Child(cr.fieldPath)
		}
		// A failure of a rule without oldSelf on an unchanged value is
		// ratcheted (decided on first failure: it compares values).
		ratchetable := !cr.usesOldSelf && (r.cur != nil || r.parent != nil)
		detail, ok := "", false
		if cr.msgProg != nil {
			msg, left, merr := out.evalMessage(ctx, cr, act, budget)
			if out.abort {
				return -1
			}
			switch {
			case merr == nil:
				detail, ok, budget = msg, true, left
			case merr.Type == apiservercel.ErrorTypeInternal:
				out.add(field.InternalError(fp, merr), ratchetable && r.ratcheted())
				return -1
			case merr.Type == apiservercel.ErrorTypeInvalid:
				out.add(field.Invalid(fp, n.typ, merr.Error()), ratchetable && r.ratcheted())
				return -1
			default:
				budget = left // the server logs the failure and falls back to message
			}
		}
		if !ok {
			detail = ruleMessageOrDefault(&cr.rule)
		}
		var value any = obj
		if n.typ == "object" || n.typ == "array" {
			value = field.OmitValueType{}
		}
		out.add(errorForReason(fp, value, detail, cr.rule.Reason), ratchetable && r.ratcheted())
	}
	return budget
}

// eval evaluates prog. A context that is never done cannot interrupt an
// evaluation: then the program runs without one, which spares cel-go's
// per-evaluation cancellable context and gives the same result.
func eval(ctx context.Context, prog cel.Program, act *activation) (ref.Val, *cel.EvalDetails, error) {
	if prog == nil {
		return nil, nil, errors.New("program instantiation failed")
	}
	if ctx.Done() == nil {
		return prog.Eval(act)
	}
	return prog.ContextEval(ctx, act)
}

func errorForReason(p *field.Path, value any, detail string, reason *string) *field.Error {
	if reason == nil {
		return field.Invalid(p, value, detail)
	}
	switch *reason {
	case "FieldValueForbidden":
		return field.Forbidden(p, detail)
	case "FieldValueRequired":
		return field.Required(p, detail)
	case "FieldValueDuplicate":
		return field.Duplicate(p, value)
	}
	return field.Invalid(p, value, detail)
}

// evalMessage evaluates a messageExpression with the server's checks on its
// cost and result.
// In fast mode it evaluates untracked when the bound allows it, and sets
// out.abort where the tracked path would report the budget exhausted.
func (out *result) evalMessage(ctx context.Context, cr *compiledRule, act *activation, budget int64) (string, int64, *apiservercel.Error) {
	src := cr.rule.MessageExpression
	var res ref.Val
	var err error
	var left int64
	if f := out.untrackedMessage(cr, budget); f != nil {
		res, _, err = eval(ctx, f.msgProg, act)
		left = budget - int64(f.msgCost)
	} else {
		var det *cel.EvalDetails
		res, det, err = eval(ctx, cr.msgProg.program(), act)
		if det == nil || det.ActualCost() == nil {
			return "", -1, internalErr(fmt.Sprintf("runtime cost could not be calculated for messageExpression: %q", src))
		}
		cost := *det.ActualCost()
		if costHook != nil {
			costHook(cr, true, cost)
		}
		if cost > math.MaxInt64 || int64(cost) > budget {
			if out.fast {
				out.abort = true
				return "", -1, nil
			}
			return "", -1, invalidErr("messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run")
		}
		left = budget - int64(cost)
	}
	return finishMessage(res, err, src, left)
}

// finishMessage is the server's checks of a messageExpression's result.
func finishMessage(res ref.Val, err error, src string, left int64) (string, int64, *apiservercel.Error) {
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			return "", -1, invalidErr(fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", src))
		}
		return "", left, &apiservercel.Error{Detail: "messageExpression evaluation failed due to: " + err.Error()}
	}
	s, ok := res.Value().(string)
	if !ok {
		return "", left, &apiservercel.Error{Detail: "messageExpression failed to convert to string"}
	}
	s = strings.TrimSpace(s)
	switch {
	case len(s) > MaxMessageExpressionBytes:
		return "", left, &apiservercel.Error{Detail: fmt.Sprintf("messageExpression beyond allowable length of %d", MaxMessageExpressionBytes)}
	case strings.Contains(s, "\n"):
		return "", left, &apiservercel.Error{Detail: "messageExpression should not contain line breaks"}
	case s == "":
		return "", left, &apiservercel.Error{Detail: "messageExpression should evaluate to a non-empty string"}
	}
	return s, left, nil
}

func ruleMessageOrDefault(r *ruleT) string {
	if r.Message == "" {
		return "failed rule: " + ruleErrorString(r)
	}
	return strings.TrimSpace(r.Message)
}

func ruleErrorString(r *ruleT) string {
	if r.Message != "" {
		return strings.TrimSpace(r.Message)
	}
	return strings.TrimSpace(r.Rule)
}
