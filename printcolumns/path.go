package printcolumns

import (
	"k8s.io/client-go/util/jsonpath"
)

// A program is a column's JSONPath compiled for direct evaluation over the
// unstructured JSON model (map[string]any, []any, string, int64, float64,
// bool, nil). It covers the shapes printer columns use in practice: field
// chains, array indexes and slices ([0], [-1], [*], [1:3:2]) and filters that
// compare a field of the element with a literal or another field
// ([?(@.type=="Ready")]). Any other template is left to the upstream engine.
//
// Evaluation is depth first. It produces the same first result and the same
// success or failure as the upstream engine, which evaluates step by step
// over lists of values: depth-first visiting meets the inputs of every step in
// the same order, and the engine's one order-dependent rule (an array step
// that selects nothing stops at that input) is replayed with a per-step flag.
type program struct {
	steps []step
}

type stepKind uint8

const (
	stepField stepKind = iota
	stepArray
	stepFilter
)

type step struct {
	kind   stepKind
	field  string                  // stepField
	params [3]jsonpath.ParamsEntry // stepArray: start, end, step
	filter *filter                 // stepFilter
}

type filterOp uint8

const (
	opExists filterOp = iota
	opEqual
	opNotEqual
	opLess
	opLessEqual
	opGreater
	opGreaterEqual
	opUnknown // fails when it is reached, as upstream does
)

type filter struct {
	left  []string // field chain from the element
	op    filterOp
	right operand
}

// operand is the right-hand side of a filter: a literal, or a field chain
// from the element (possibly empty: the element itself).
type operand struct {
	literal bool
	value   any // string, int, float64 or bool
	path    []string
}

// maxSteps bounds the steps a program may have, so that the per-step flags
// fit in one word. Longer paths use the upstream engine.
const maxSteps = 64

// compileProgram returns the program for a column template ("{" + jsonPath +
// "}"), or nil when the template is outside what programs cover.
func compileProgram(text string) *program {
	parser, err := jsonpath.Parse("", text)
	if err != nil || parser == nil || parser.Root == nil || len(parser.Root.Nodes) != 1 {
		return nil
	}
	list, ok := parser.Root.Nodes[0].(*jsonpath.ListNode)
	if !ok || len(list.Nodes) > maxSteps {
		return nil
	}
	prog := &program{steps: make([]step, 0, len(list.Nodes))}
	for _, n := range list.Nodes {
		switch n := n.(type) {
		case *jsonpath.FieldNode:
			prog.steps = append(prog.steps, step{kind: stepField, field: n.Value})
		case *jsonpath.ArrayNode:
			prog.steps = append(prog.steps, step{kind: stepArray, params: n.Params})
		case *jsonpath.FilterNode:
			f := compileFilter(n)
			if f == nil {
				return nil
			}
			prog.steps = append(prog.steps, step{kind: stepFilter, filter: f})
		default:
			return nil
		}
	}
	return prog
}

func compileFilter(n *jsonpath.FilterNode) *filter {
	left, ok := fieldChain(n.Left)
	if !ok {
		return nil
	}
	f := &filter{left: left}
	switch n.Operator {
	case "exists":
		f.op = opExists
		return f
	case "==":
		f.op = opEqual
	case "!=":
		f.op = opNotEqual
	case "<":
		f.op = opLess
	case "<=":
		f.op = opLessEqual
	case ">":
		f.op = opGreater
	case ">=":
		f.op = opGreaterEqual
	default:
		f.op = opUnknown
	}
	if n.Right != nil && len(n.Right.Nodes) == 1 {
		switch r := n.Right.Nodes[0].(type) {
		case *jsonpath.TextNode:
			f.right = operand{literal: true, value: r.Text}
			return f
		case *jsonpath.IntNode:
			f.right = operand{literal: true, value: r.Value}
			return f
		case *jsonpath.FloatNode:
			f.right = operand{literal: true, value: r.Value}
			return f
		case *jsonpath.BoolNode:
			f.right = operand{literal: true, value: r.Value}
			return f
		}
	}
	right, ok := fieldChain(n.Right)
	if !ok {
		return nil
	}
	f.right = operand{path: right}
	return f
}

func fieldChain(l *jsonpath.ListNode) ([]string, bool) {
	if l == nil {
		return nil, false
	}
	chain := make([]string, 0, len(l.Nodes))
	for _, n := range l.Nodes {
		fn, ok := n.(*jsonpath.FieldNode)
		if !ok {
			return nil, false
		}
		chain = append(chain, fn.Value)
	}
	return chain, true
}

// evaluation is the state of one program run.
type evaluation struct {
	first       any
	found       bool
	failed      bool   // the upstream engine would return an error
	unsupported bool   // a value outside the JSON model; ask the upstream engine
	closed      uint64 // bit i: array step i stopped early
}

// run evaluates the program on obj. It returns the first result and whether
// there is one; ok is false when obj holds Go types outside the JSON model,
// in which case the caller must use the upstream engine.
func (p *program) run(obj map[string]any) (value any, found, ok bool) {
	// A field chain has at most one result and cannot fail: walk it in a loop.
	if p.onlyFields() {
		var v any = obj
		for i := range p.steps {
			m, isMap, supported := asMap(v)
			if !supported {
				return nil, false, false
			}
			if !isMap {
				return nil, false, true
			}
			if v, found = m[p.steps[i].field]; !found {
				return nil, false, true
			}
		}
		return v, true, true
	}
	var e evaluation
	p.walk(obj, 0, &e)
	switch {
	case e.unsupported:
		return nil, false, false
	case e.failed || !e.found:
		return nil, false, true
	}
	return e.first, true, true
}

func (p *program) onlyFields() bool {
	for i := range p.steps {
		if p.steps[i].kind != stepField {
			return false
		}
	}
	return true
}

// asMap classifies v for a field step: a map to look into, a JSON value with
// no fields (nil, scalars, arrays), or a Go type outside the JSON model.
func asMap(v any) (m map[string]any, isMap, supported bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true, true
	case nil, string, int64, float64, bool, []any:
		return nil, false, true
	}
	return nil, false, false
}

func (p *program) walk(v any, i int, e *evaluation) {
	if e.failed || e.unsupported {
		return
	}
	if i == len(p.steps) {
		if !e.found {
			e.first, e.found = v, true
		}
		return
	}
	s := &p.steps[i]
	switch s.kind {
	case stepField:
		m, isMap, supported := asMap(v)
		if !supported {
			e.unsupported = true
			return
		}
		if !isMap {
			return
		}
		if x, ok := m[s.field]; ok {
			p.walk(x, i+1, e)
		}
	case stepArray:
		p.array(v, i, s, e)
	case stepFilter:
		p.filter(v, i, s.filter, e)
	}
}

func (p *program) array(v any, i int, s *step, e *evaluation) {
	if e.closed&(1<<i) != 0 {
		return // upstream stopped this step before reaching this input
	}
	var a []any
	switch x := v.(type) {
	case []any:
		a = x
	case nil:
		return // a null is skipped
	case map[string]any, string, int64, float64, bool:
		e.failed = true // not an array
		return
	default:
		e.unsupported = true
		return
	}
	start, end, stride := s.params[0], s.params[1], s.params[2]
	n := len(a)
	if !start.Known {
		start.Value = 0
	}
	if start.Value < 0 {
		start.Value += n
	}
	if !end.Known {
		end.Value = n
	}
	if end.Value < 0 || (end.Value == 0 && end.Derived) {
		end.Value += n
	}
	if end.Value == start.Value {
		// Upstream returns what this step has gathered so far and ignores
		// the remaining inputs of the step.
		e.closed |= 1 << i
		return
	}
	if start.Value < 0 || start.Value >= n || end.Value < 0 || end.Value > n || start.Value > end.Value {
		e.failed = true
		return
	}
	by := 1
	if stride.Known {
		if stride.Value <= 0 {
			e.failed = true
			return
		}
		by = stride.Value
	}
	sub := a[start.Value:end.Value]
	for j := 0; j < len(sub); j += by {
		p.walk(sub[j], i+1, e)
		if e.failed || e.unsupported {
			return
		}
	}
}

func (p *program) filter(v any, i int, f *filter, e *evaluation) {
	var a []any
	switch x := v.(type) {
	case []any:
		a = x
	case nil, map[string]any, string, int64, float64, bool:
		e.failed = true // not an array; unlike an index, a filter fails on null
		return
	default:
		e.unsupported = true
		return
	}
	for _, elem := range a {
		left, found, supported := chain(elem, f.left)
		if !supported {
			e.unsupported = true
			return
		}
		if f.op == opExists {
			if found {
				p.walk(elem, i+1, e)
			}
		} else {
			if !found {
				continue
			}
			right := f.right.value
			if !f.right.literal {
				right, found, supported = chain(elem, f.right.path)
				if !supported {
					e.unsupported = true
					return
				}
				if !found {
					continue
				}
			}
			pass, err, supported := compare(f.op, left, right)
			switch {
			case !supported:
				e.unsupported = true
				return
			case err:
				e.failed = true
				return
			case pass:
				p.walk(elem, i+1, e)
			}
		}
		if e.failed || e.unsupported {
			return
		}
	}
}

// chain follows a field chain from v, as the upstream engine evaluates the
// operands of a filter: a missing key or a non-object on the way gives no
// result.
func chain(v any, fields []string) (value any, found, supported bool) {
	for _, name := range fields {
		m, isMap, ok := asMap(v)
		if !ok {
			return nil, false, false
		}
		if !isMap {
			return nil, false, true
		}
		if v, found = m[name]; !found {
			return nil, false, true
		}
	}
	return v, true, true
}

// basic kinds of the upstream comparison functions (text/template's rules).
type basicKind uint8

const (
	kindInvalid basicKind = iota
	kindBool
	kindInt
	kindFloat
	kindString
)

func kindOf(v any) (k basicKind, supported bool) {
	switch v.(type) {
	case bool:
		return kindBool, true
	case int64, int:
		return kindInt, true
	case float64:
		return kindFloat, true
	case string:
		return kindString, true
	case nil, map[string]any, []any:
		return kindInvalid, true
	}
	return kindInvalid, false
}

func asInt(v any) int64 {
	if i, ok := v.(int); ok {
		return int64(i)
	}
	return v.(int64)
}

// compare applies a filter operator the way the upstream engine does: both
// sides must have the same basic kind (no int/float mixing), null, objects
// and arrays are not comparable, and booleans are only equal or not equal.
// err reports a comparison the engine rejects, which fails the whole path.
func compare(op filterOp, l, r any) (pass, err, supported bool) {
	kl, okl := kindOf(l)
	kr, okr := kindOf(r)
	if !okl || !okr {
		return false, false, false
	}
	valid := kl != kindInvalid && kr != kindInvalid && kl == kr
	equal := func() bool {
		switch kl {
		case kindBool:
			return l.(bool) == r.(bool)
		case kindInt:
			return asInt(l) == asInt(r)
		case kindFloat:
			return l.(float64) == r.(float64)
		}
		return l.(string) == r.(string)
	}
	less := func() bool {
		switch kl {
		case kindInt:
			return asInt(l) < asInt(r)
		case kindFloat:
			return l.(float64) < r.(float64)
		}
		return l.(string) < r.(string)
	}
	switch op {
	case opEqual:
		if !valid {
			return false, true, true
		}
		return equal(), false, true
	case opNotEqual:
		if !valid {
			return false, true, true
		}
		return !equal(), false, true
	case opLess, opGreaterEqual:
		if !valid || kl == kindBool {
			return false, true, true
		}
		return less() == (op == opLess), false, true
	case opLessEqual, opGreater:
		if !valid || kl == kindBool {
			return false, true, true
		}
		le := less() || equal()
		return le == (op == opLessEqual), false, true
	}
	return false, true, true // unrecognised operator
}
