package rules

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/crdkit/crdkit/schema"
)

// Native evaluation (see doc.go, "# Native evaluation").
//
// A rule made only of the common shapes (field selections, has(), literals,
// comparisons of strings, integers and booleans, the logical operators,
// size(), in, the string functions (lowerAscii and substring too),
// duration() of a string, integer
// arithmetic, list indexes and the comprehension macros) is also compiled
// to a tree of Go closures that evaluates directly on crdkit's value model
// (map[string]any, []any, string, int64, bool), typed by the schema nodes
// cel-go's values are converted with (toVal). It only has to be sound on
// true: every subexpression evaluates to a value it is sure cel-go's
// evaluation gives too, or to "not sure" (an absent field, a null, a Go
// value of another type than the schema predicts, an overflow, an index out
// of range, anything unexpected). validateRules takes a rule as passed when
// its native program is sure the rule is true, and evaluates it with cel-go
// in every other case, so failures, their messages and every error text
// stay cel-go's.

// selectKey reads key k of the map op evaluates to, as a value of type ct:
// an absent key or a null is not sure.
func selectKey(op *nexpr, k string, ct *ntype) *nexpr {
	return &nexpr{t: ct, f: func(e *nenv) (nval, bool) {
		o, ok := op.f(e)
		if !ok {
			return nval{}, false
		}
		v, ok := o.x.(map[string]any)[k]
		if !ok || v == nil {
			return nval{}, false
		}
		return conv(v, ct)
	}}
}

// tkind is the static kind of a native value.
type tkind uint8

const (
	tBool     tkind = iota + 1
	tInt            // int64
	tString         // string
	tDuration       // time.Duration in i
	tList           // a schema list: x is []any, elements of n.items
	tBuilt          // a list the rule builds (literals, filter, map): l, elements of type elem
	tObject         // an object with properties: x is map[string]any, fields of n.props
	tMap            // an object with additionalProperties: x is map[string]any of n.addl.schema
)

// ntype is a native value's static type.
type ntype struct {
	k    tkind
	n    *node  // tList, tObject, tMap: the schema node
	elem *ntype // tList, tBuilt, tMap: the elements' (values') type; nil for an empty literal
}

func sameType(a, b *ntype) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.k != b.k {
		return false
	}
	switch a.k {
	case tList, tObject, tMap:
		return a.n == b.n
	case tBuilt:
		return sameType(a.elem, b.elem)
	}
	return true
}

func scalar(t *ntype) bool {
	return t != nil && (t.k == tBool || t.k == tInt || t.k == tString || t.k == tDuration)
}

var (
	typeBool     = &ntype{k: tBool}
	typeInt      = &ntype{k: tInt}
	typeString   = &ntype{k: tString}
	typeDuration = &ntype{k: tDuration}
)

// typeOf is the native type of values of schema n, as toVal converts them,
// or nil where native evaluation does not model them (int-or-string,
// embedded resources, numbers, strings of a format with their own CEL type,
// preserved unknown values, objects without properties or a schema for
// additional ones). memo holds the types of nodes seen, so that recursive
// schemas (none here, the schema compiler unrolls) and shared nodes map to
// the same *ntype.
func typeOf(n *node, memo map[*node]*ntype) *ntype {
	if n == nil || n.IsXIntOrString() || n.IsXEmbeddedResource() {
		return nil
	}
	if t, ok := memo[n]; ok {
		return t
	}
	var t *ntype
	switch n.typ {
	case "object":
		if n.props != nil {
			t = &ntype{k: tObject, n: n}
		} else if n.addl != nil && n.addl.schema != nil {
			t = &ntype{k: tMap, n: n}
			memo[n] = t
			t.elem = typeOf(n.addl.schema, memo)
		}
	case "array":
		if n.items != nil {
			switch n.XListType() {
			case "", "atomic", "set", "map":
				t = &ntype{k: tList, n: n}
				memo[n] = t
				t.elem = typeOf(n.items, memo)
			}
		}
	case "string":
		switch n.Format() {
		case "duration", "date", "date-time", "byte":
		default:
			t = typeString
		}
	case "integer":
		t = typeInt
	case "boolean":
		t = typeBool
	}
	memo[n] = t
	return t
}

// nval is a native value; its type says which field holds it. It is kept
// to three words: the compiler keeps a struct of at most four words in
// registers (five words went through the stack at every closure return,
// with stalls on the copies), and a string from an object is its value
// as the object holds it, without boxing it again.
type nval struct {
	i int64 // tInt, tDuration; tBool: 1 or 0
	x any   // string (tString), []any (tList), map[string]any (tObject, tMap), []nval (tBuilt)
}

// str is a tString value's string.
func (v nval) str() string { s, _ := v.x.(string); return s }

// sval is the tString value s.
func sval(s string) nval { return nval{x: s} }

func nb(b bool) nval {
	if b {
		return nval{i: 1}
	}
	return nval{}
}

func (v nval) b() bool { return v.i != 0 }

func (v nval) l() []nval { l, _ := v.x.([]nval); return l }

// conv is toVal for the values typeOf models: the Go value must be of the
// type toVal expects (else toVal makes an error value, or a null: not sure).
func conv(v any, t *ntype) (nval, bool) {
	switch t.k {
	case tString:
		if _, ok := v.(string); ok {
			return nval{x: v}, true // v itself: boxing the string again would allocate
		}
		return nval{}, false
	case tInt:
		switch x := v.(type) {
		case int64:
			return nval{i: x}, true
		case int:
			return nval{i: int64(x)}, true
		case int32:
			return nval{i: int64(x)}, true
		}
	case tBool:
		b, ok := v.(bool)
		return nb(b), ok
	case tList:
		_, ok := v.([]any)
		return nval{x: v}, ok // v itself: boxing the slice again would allocate
	case tObject, tMap:
		_, ok := v.(map[string]any)
		return nval{x: v}, ok
	}
	return nval{}, false
}

// convertible says whether toVal(v, n) is sure not to be an error value, for
// has(): the server's presence test fails on one. v is not nil; t is
// typeOf(n), worked out when the program is compiled (programs are shared
// by goroutines: evaluating one writes nothing they share).
func convertible(v any, n *node, t *ntype) bool {
	if t != nil {
		_, ok := conv(v, t)
		return ok
	}
	if n.IsXIntOrString() {
		switch v.(type) {
		case string, int64, int, int32:
			return true
		}
		return false
	}
	switch n.typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "number":
		switch v.(type) {
		case float64, int64, int, int32, float32:
			return true
		}
	}
	return false
}

// nenv is one native evaluation's state.
type nenv struct {
	self, old any
	slots     []nval // comprehension variables
	running   bool   // a native program is being evaluated (see fastWalk)
}

type nfn func(e *nenv) (nval, bool)

// nativeProg is a rule's native program.
type nativeProg struct {
	f     nfn
	self  *ntype
	slots int
}

// run evaluates the rule on self (and old, for oldSelf) in e (reused by
// the rules of one call: every slot is written before it is read) and
// reports whether it is sure the rule holds. It does not recover from a
// panic (a bug here, never expected): the walk that calls it does, once
// per call rather than once per rule (Validator.fastWalk), and sees from
// e.running that the panic is the native program's.
func (p *nativeProg) run(e *nenv, self, old any) bool {
	if len(e.slots) < p.slots {
		e.slots = make([]nval, p.slots)
	}
	e.self, e.old = self, old
	e.running = true
	r, ok := p.f(e)
	e.running = false
	return ok && r.b()
}

// eval evaluates the rule as run does, for the nativeCheck hook: ok says
// whether the native program is sure cel-go gives v (and no error). A
// panic is "not sure".
func (p *nativeProg) eval(e *nenv, self, old any) (v, ok bool) {
	if len(e.slots) < p.slots {
		e.slots = make([]nval, p.slots)
	}
	defer func() {
		if recover() != nil {
			nativePanics.Add(1)
			v, ok = false, false
		}
	}()
	e.self, e.old = self, old
	r, ok := p.f(e)
	return r.b(), ok
}

// nativePanics counts native evaluations that panicked (tests require 0).
var nativePanics atomic.Int64

// ncomp compiles one checked AST.
type ncomp struct {
	a        *celast.AST
	self     *ntype
	optional bool // oldSelf is an optional: not compiled
	memo     map[*node]*ntype
	scopes   []nscope
	slots    int
}

type nscope struct {
	name string
	slot int
	t    *ntype
}

type nexpr struct {
	t    *ntype
	f    nfn
	lit  *nval // a constant
	self bool  // the self variable (fused into field selections)
	slot int   // a comprehension variable: its slot + 1 (fused into field selections); 0 otherwise
}

// newNativeProg compiles the checked AST a of a rule on values of self, or
// returns nil when any part of it is outside what native evaluation
// supports.
func newNativeProg(a *celast.AST, self *node, optional bool) *nativeProg {
	if a == nil || !a.IsChecked() || self == nil {
		return nil
	}
	c := &ncomp{a: a, optional: optional, memo: map[*node]*ntype{}}
	if c.self = typeOf(self, c.memo); c.self == nil {
		return nil
	}
	x := c.expr(a.Expr())
	if x == nil || x.t.k != tBool {
		return nil
	}
	return &nativeProg{f: x.f, self: c.self, slots: c.slots}
}

// checked says whether the checker's type of e is t's kind.
func (c *ncomp) checked(e celast.Expr, t *ntype) bool {
	ct := c.a.GetType(e.ID())
	if ct == nil || t == nil {
		return false
	}
	switch t.k {
	case tBool:
		return ct.Kind() == types.BoolKind
	case tInt:
		return ct.Kind() == types.IntKind
	case tString:
		return ct.Kind() == types.StringKind
	case tDuration:
		return ct.Kind() == types.DurationKind
	case tList, tBuilt:
		return ct.Kind() == types.ListKind
	case tObject:
		return ct.Kind() == types.StructKind
	case tMap:
		return ct.Kind() == types.MapKind
	}
	return false
}

func (c *ncomp) expr(e celast.Expr) *nexpr {
	x := c.expr1(e)
	if x == nil || !c.checked(e, x.t) {
		return nil
	}
	return x
}

func constant(t *ntype, v nval) *nexpr {
	return &nexpr{t: t, lit: &v, f: func(*nenv) (nval, bool) { return v, true }}
}

func (c *ncomp) expr1(e celast.Expr) *nexpr {
	switch e.Kind() {
	case celast.LiteralKind:
		switch v := e.AsLiteral().(type) {
		case types.Bool:
			return constant(typeBool, nb(bool(v)))
		case types.Int:
			return constant(typeInt, nval{i: int64(v)})
		case types.String:
			return constant(typeString, sval(string(v)))
		}
		return nil
	case celast.IdentKind:
		return c.ident(e.AsIdent())
	case celast.SelectKind:
		return c.sel(e.AsSelect())
	case celast.ListKind:
		return c.list(e.AsList())
	case celast.CallKind:
		return c.call(e)
	case celast.ComprehensionKind:
		return c.comprehension(e.AsComprehension())
	}
	return nil
}

func (c *ncomp) ident(name string) *nexpr {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if s := c.scopes[i]; s.name == name {
			if s.t == nil {
				return nil // an empty literal's elements, or items native does not model
			}
			slot := s.slot
			return &nexpr{t: s.t, slot: slot + 1, f: func(e *nenv) (nval, bool) { return e.slots[slot], true }}
		}
	}
	t := c.self
	switch name {
	case selfVar:
		return &nexpr{t: t, self: true, f: func(e *nenv) (nval, bool) { return conv(e.self, t) }}
	case oldSelfVar:
		if c.optional {
			return nil
		}
		return &nexpr{t: t, f: func(e *nenv) (nval, bool) {
			if e.old == nil {
				return nval{}, false
			}
			return conv(e.old, t)
		}}
	}
	return nil
}

func (c *ncomp) sel(s celast.SelectExpr) *nexpr {
	op := c.expr(s.Operand())
	if op == nil {
		return nil
	}
	test := s.IsTestOnly()
	switch op.t.k {
	case tObject:
		// The server's Find: the name unescaped, a null field absent, a key
		// without a property schema absent.
		k, ok := apiservercel.Unescape(s.FieldName())
		if !ok {
			return nil
		}
		cs, ok := op.t.n.props[k]
		if !ok {
			return nil
		}
		child := cs.(*node)
		ct := typeOf(child, c.memo)
		if test && op.self {
			return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
				m, ok := e.self.(map[string]any)
				if !ok {
					return nval{}, false
				}
				v, ok := m[k]
				if !ok || v == nil {
					return nb(false), true
				}
				return nb(true), convertible(v, child, ct)
			}}
		}
		if test && op.slot > 0 {
			// A variable's value was converted (conv) when it was set: an
			// object's is a map.
			slot := op.slot - 1
			return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
				v, ok := e.slots[slot].x.(map[string]any)[k]
				if !ok || v == nil {
					return nb(false), true
				}
				return nb(true), convertible(v, child, ct)
			}}
		}
		if test {
			return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
				o, ok := op.f(e)
				if !ok {
					return nval{}, false
				}
				v, ok := o.x.(map[string]any)[k]
				if !ok || v == nil {
					return nb(false), true
				}
				return nb(true), convertible(v, child, ct)
			}}
		}
		if ct == nil {
			return nil
		}
		if op.self {
			return &nexpr{t: ct, f: func(e *nenv) (nval, bool) {
				m, ok := e.self.(map[string]any)
				if !ok {
					return nval{}, false
				}
				v, ok := m[k]
				if !ok || v == nil {
					return nval{}, false
				}
				return conv(v, ct)
			}}
		}
		if op.slot > 0 {
			slot := op.slot - 1
			return &nexpr{t: ct, f: func(e *nenv) (nval, bool) {
				v, ok := e.slots[slot].x.(map[string]any)[k]
				if !ok || v == nil {
					return nval{}, false
				}
				return conv(v, ct)
			}}
		}
		return selectKey(op, k, ct)
	case tMap:
		// The key as written (no unescaping); a null value is a null or an
		// error: not sure.
		k := s.FieldName()
		child := op.t.n.addl.schema
		elem := op.t.elem // typeOf(child)
		if test {
			return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
				o, ok := op.f(e)
				if !ok {
					return nval{}, false
				}
				v, ok := o.x.(map[string]any)[k]
				if !ok {
					return nb(false), true
				}
				return nb(true), v != nil && convertible(v, child, elem)
			}}
		}
		ct := op.t.elem
		if ct == nil {
			return nil
		}
		return selectKey(op, k, ct)
	}
	return nil
}

func (c *ncomp) list(l celast.ListExpr) *nexpr {
	if len(l.OptionalIndices()) > 0 {
		return nil
	}
	elems := l.Elements()
	var et *ntype
	xs := make([]*nexpr, len(elems))
	allLit := true
	for i, el := range elems {
		x := c.expr(el)
		if x == nil || !scalar(x.t) && x.t.k != tObject {
			return nil
		}
		if et == nil {
			et = x.t
		} else if !sameType(et, x.t) {
			return nil
		}
		xs[i] = x
		allLit = allLit && x.lit != nil
	}
	t := &ntype{k: tBuilt, elem: et}
	if allLit {
		vs := make([]nval, len(xs))
		for i, x := range xs {
			vs[i] = *x.lit
		}
		if len(vs) == 0 {
			vs = nil
		}
		return constant(t, nval{x: vs})
	}
	return &nexpr{t: t, f: func(e *nenv) (nval, bool) {
		vs := make([]nval, len(xs))
		for i, x := range xs {
			v, ok := x.f(e)
			if !ok {
				return nval{}, false
			}
			vs[i] = v
		}
		return nval{x: vs}, true
	}}
}

// elemAt returns element i of list value v of type t.
func elemAt(v nval, t *ntype, i int) (nval, bool) {
	if t.k == tBuilt {
		return v.l()[i], true
	}
	if t.elem == nil {
		return nval{}, false
	}
	return conv(v.x.([]any)[i], t.elem)
}

func listLen(v nval, t *ntype) int {
	if t.k == tBuilt {
		return len(v.l())
	}
	return len(v.x.([]any))
}

func eqVal(k tkind, a, b nval) bool {
	switch k {
	case tBool:
		return a.i == b.i
	case tString:
		return a.str() == b.str()
	}
	return a.i == b.i
}

func cmpVal(k tkind, a, b nval) int {
	if k == tString {
		return strings.Compare(a.str(), b.str())
	}
	switch {
	case a.i < b.i:
		return -1
	case a.i > b.i:
		return 1
	}
	return 0
}

func (c *ncomp) call(ex celast.Expr) *nexpr {
	cl := ex.AsCall()
	ids := c.a.GetOverloadIDs(ex.ID())
	if len(ids) != 1 {
		return nil
	}
	var argx []celast.Expr
	if cl.IsMemberFunction() {
		argx = append(argx, cl.Target())
	}
	argx = append(argx, cl.Args()...)
	args := make([]*nexpr, len(argx))
	id := ids[0]
	for i, a := range argx {
		if (id == "matches_string" || id == "matches") && i == 1 {
			continue // compiled below, as a constant pattern
		}
		if args[i] = c.expr(a); args[i] == nil {
			return nil
		}
	}
	want := func(n int, ks ...tkind) bool {
		if len(args) != n {
			return false
		}
		for i, k := range ks {
			if args[i] == nil || args[i].t.k != k {
				return false
			}
		}
		return true
	}
	switch id {
	case "logical_and", "logical_or":
		if !want(2, tBool, tBool) {
			return nil
		}
		l, r := args[0].f, args[1].f
		short := id == "logical_or" // the value that decides
		return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
			a, aok := l(e)
			if aok && a.b() == short {
				return a, true
			}
			b, bok := r(e)
			if bok && b.b() == short {
				return b, true
			}
			return nb(!short), aok && bok
		}}
	case "logical_not":
		if !want(1, tBool) {
			return nil
		}
		f := args[0].f
		return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
			v, ok := f(e)
			return nb(!v.b()), ok
		}}
	case "not_strictly_false":
		if !want(1, tBool) {
			return nil
		}
		return &nexpr{t: typeBool, f: args[0].f}
	case "conditional":
		if len(args) == 3 {
			// An empty list literal in one branch and a schema list in the
			// other: the literal as an empty schema list.
			for _, ij := range [2][2]int{{1, 2}, {2, 1}} {
				i, j := ij[0], ij[1]
				if x := args[i]; x.lit != nil && x.t.k == tBuilt && len(x.lit.l()) == 0 && args[j].t.k == tList {
					args[i] = constant(args[j].t, nval{x: []any(nil)})
				}
			}
		}
		if len(args) != 3 || args[0].t.k != tBool || !sameType(args[1].t, args[2].t) {
			return nil
		}
		cf, tf, ff := args[0].f, args[1].f, args[2].f
		return &nexpr{t: args[1].t, f: func(e *nenv) (nval, bool) {
			v, ok := cf(e)
			if !ok {
				return nval{}, false
			}
			if v.b() {
				return tf(e)
			}
			return ff(e)
		}}
	case "equals", "not_equals":
		if len(args) != 2 || !scalar(args[0].t) || !sameType(args[0].t, args[1].t) {
			return nil
		}
		k, l, r := args[0].t.k, args[0].f, args[1].f
		neg := id == "not_equals"
		if args[0].lit != nil {
			args[0], args[1] = args[1], args[0]
			l, r = r, l
		}
		if x := args[1].lit; x != nil {
			if k == tString {
				cs := x.str()
				return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
					a, ok := l(e)
					return nb((a.str() == cs) != neg), ok
				}}
			}
			ci := x.i
			return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
				a, ok := l(e)
				return nb((a.i == ci) != neg), ok
			}}
		}
		return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
			a, ok := l(e)
			if !ok {
				return nval{}, false
			}
			b, ok := r(e)
			if !ok {
				return nval{}, false
			}
			return nb(eqVal(k, a, b) != neg), true
		}}
	case "less_int64", "less_equals_int64", "greater_int64", "greater_equals_int64",
		"less_string", "less_equals_string", "greater_string", "greater_equals_string",
		"less_duration", "less_equals_duration", "greater_duration", "greater_equals_duration":
		var k tkind
		switch {
		case strings.HasSuffix(id, "_int64"):
			k = tInt
		case strings.HasSuffix(id, "_string"):
			k = tString
		default:
			k = tDuration
		}
		if !want(2, k, k) {
			return nil
		}
		var test func(int) bool
		switch strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(id, "_int64"), "_string"), "_duration") {
		case "less":
			test = func(c int) bool { return c < 0 }
		case "less_equals":
			test = func(c int) bool { return c <= 0 }
		case "greater":
			test = func(c int) bool { return c > 0 }
		default:
			test = func(c int) bool { return c >= 0 }
		}
		l, r := args[0].f, args[1].f
		if x := args[1].lit; x != nil && k != tString {
			// An integer or a duration against a constant.
			ci := x.i
			return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
				a, ok := l(e)
				if !ok {
					return nval{}, false
				}
				return nb(test(cmpVal(k, a, nval{i: ci}))), true
			}}
		}
		return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
			a, ok := l(e)
			if !ok {
				return nval{}, false
			}
			b, ok := r(e)
			if !ok {
				return nval{}, false
			}
			return nb(test(cmpVal(k, a, b))), true
		}}
	case "add_int64", "subtract_int64":
		if !want(2, tInt, tInt) {
			return nil
		}
		l, r := args[0].f, args[1].f
		sub := id == "subtract_int64"
		return &nexpr{t: typeInt, f: func(e *nenv) (nval, bool) {
			a, ok := l(e)
			if !ok {
				return nval{}, false
			}
			b, ok := r(e)
			if !ok {
				return nval{}, false
			}
			x, y := a.i, b.i
			if sub {
				// cel-go's subtractInt64Checked: an overflow is an error.
				if (y < 0 && x > math.MaxInt64+y) || (y > 0 && x < math.MinInt64+y) {
					return nval{}, false
				}
				return nval{i: x - y}, true
			}
			if (y > 0 && x > math.MaxInt64-y) || (y < 0 && x < math.MinInt64-y) {
				return nval{}, false
			}
			return nval{i: x + y}, true
		}}
	case "add_list":
		if !want(2, tBuilt, tBuilt) {
			return nil
		}
		t := args[0].t
		switch {
		case t.elem == nil:
			t = args[1].t
		case args[1].t.elem != nil && !sameType(t, args[1].t):
			return nil
		}
		l, r := args[0].f, args[1].f
		return &nexpr{t: t, f: func(e *nenv) (nval, bool) {
			a, ok := l(e)
			if !ok {
				return nval{}, false
			}
			b, ok := r(e)
			if !ok {
				return nval{}, false
			}
			// Always a new array: a's may be shared (a constant, an
			// earlier accumulator).
			out := make([]nval, 0, len(a.l())+len(b.l()))
			return nval{x: append(append(out, a.l()...), b.l()...)}, true
		}}
	case "in_list":
		if len(args) != 2 || !scalar(args[0].t) || (args[1].t.k != tList && args[1].t.k != tBuilt) || !sameType(args[0].t, args[1].t.elem) {
			return nil
		}
		k, l, r, lt := args[0].t.k, args[0].f, args[1].f, args[1].t
		if x := args[1].lit; x != nil && k == tString {
			var cs []string
			for _, v := range x.l() {
				cs = append(cs, v.str())
			}
			return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
				a, ok := l(e)
				return nb(ok && slices.Contains(cs, a.str())), ok
			}}
		}
		return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
			a, ok := l(e)
			if !ok {
				return nval{}, false
			}
			lv, ok := r(e)
			if !ok {
				return nval{}, false
			}
			// The server's Contains: true on the first equal element,
			// whatever came before; an element that is not a value of the
			// element type makes "false" unsure.
			sure := true
			for i, n := 0, listLen(lv, lt); i < n; i++ {
				v, ok := elemAt(lv, lt, i)
				if !ok {
					sure = false
					continue
				}
				if eqVal(k, a, v) {
					return nb(true), true
				}
			}
			return nb(false), sure
		}}
	case "in_map":
		if !want(2, tString, tMap) {
			return nil
		}
		l, r := args[0].f, args[1].f
		child, elem := args[1].t.n.addl.schema, args[1].t.elem // typeOf(child)
		return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
			a, ok := l(e)
			if !ok {
				return nval{}, false
			}
			m, ok := r(e)
			if !ok {
				return nval{}, false
			}
			v, ok := m.x.(map[string]any)[a.str()]
			if !ok {
				return nb(false), true
			}
			return nb(true), v != nil && convertible(v, child, elem)
		}}
	case "size_string", "string_size":
		if !want(1, tString) {
			return nil
		}
		f := args[0].f
		return &nexpr{t: typeInt, f: func(e *nenv) (nval, bool) {
			v, ok := f(e)
			return nval{i: int64(utf8.RuneCountInString(v.str()))}, ok
		}}
	case "size_list", "list_size":
		if len(args) != 1 || (args[0].t.k != tList && args[0].t.k != tBuilt) {
			return nil
		}
		if n := c.filterCount(argx[0]); n != nil {
			return n
		}
		f, t := args[0].f, args[0].t
		return &nexpr{t: typeInt, f: func(e *nenv) (nval, bool) {
			v, ok := f(e)
			if !ok {
				return nval{}, false
			}
			return nval{i: int64(listLen(v, t))}, true
		}}
	case "size_map", "map_size":
		if !want(1, tMap) {
			return nil
		}
		f := args[0].f
		return &nexpr{t: typeInt, f: func(e *nenv) (nval, bool) {
			v, ok := f(e)
			if !ok {
				return nval{}, false
			}
			return nval{i: int64(len(v.x.(map[string]any)))}, true
		}}
	case "contains_string", "starts_with_string", "ends_with_string":
		if !want(2, tString, tString) {
			return nil
		}
		var test func(s, sub string) bool
		switch id {
		case "contains_string":
			test = strings.Contains
		case "starts_with_string":
			test = strings.HasPrefix
		default:
			test = strings.HasSuffix
		}
		l, r := args[0].f, args[1].f
		if x := args[1].lit; x != nil {
			cs := x.str()
			return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
				a, ok := l(e)
				return nb(ok && test(a.str(), cs)), ok
			}}
		}
		return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
			a, ok := l(e)
			if !ok {
				return nval{}, false
			}
			b, ok := r(e)
			if !ok {
				return nval{}, false
			}
			return nb(test(a.str(), b.str())), true
		}}
	case "matches_string", "matches":
		if len(argx) != 2 || args[0] == nil || args[0].t.k != tString || argx[1].Kind() != celast.LiteralKind {
			return nil
		}
		pat, ok := argx[1].AsLiteral().(types.String)
		if !ok {
			return nil
		}
		re, err := regexp.Compile(string(pat))
		if err != nil {
			return nil
		}
		// cel-go's matches is Go's regexp.MatchString; schema's automaton
		// answers it exactly, faster.
		match, f := schema.Matcher(re), args[0].f
		return &nexpr{t: typeBool, f: func(e *nenv) (nval, bool) {
			v, ok := f(e)
			if !ok {
				return nval{}, false
			}
			return nb(match(v.str())), true
		}}
	case "string_to_duration":
		if !want(1, tString) {
			return nil
		}
		if x := args[0]; x.lit != nil {
			d, err := time.ParseDuration(x.lit.str())
			if err != nil {
				return nil
			}
			return constant(typeDuration, nval{i: int64(d)})
		}
		f := args[0].f
		return &nexpr{t: typeDuration, f: func(e *nenv) (nval, bool) {
			v, ok := f(e)
			if !ok {
				return nval{}, false
			}
			d, err := time.ParseDuration(v.str())
			if err != nil {
				return nval{}, false
			}
			return nval{i: int64(d)}, true
		}}
	case "index_list":
		if len(args) != 2 || (args[0].t.k != tList && args[0].t.k != tBuilt) || args[1].t.k != tInt || args[0].t.elem == nil {
			return nil
		}
		l, r, lt := args[0].f, args[1].f, args[0].t
		return &nexpr{t: lt.elem, f: func(e *nenv) (nval, bool) {
			lv, ok := l(e)
			if !ok {
				return nval{}, false
			}
			iv, ok := r(e)
			if !ok || iv.i < 0 || iv.i >= int64(listLen(lv, lt)) {
				return nval{}, false
			}
			return elemAt(lv, lt, int(iv.i))
		}}
	case "string_lower_ascii":
		if !want(1, tString) {
			return nil
		}
		f := args[0].f
		return &nexpr{t: typeString, f: func(e *nenv) (nval, bool) {
			v, ok := f(e)
			if !ok {
				return nval{}, false
			}
			s, ok := lowerASCII(v.str())
			return sval(s), ok
		}}
	case "string_substring_int", "string_substring_int_int":
		if len(args) < 2 || args[0].t.k != tString || args[1].t.k != tInt || len(args) == 3 && args[2].t.k != tInt {
			return nil
		}
		sf, af := args[0].f, args[1].f
		var bf nfn
		if len(args) == 3 {
			bf = args[2].f
		}
		return &nexpr{t: typeString, f: func(e *nenv) (nval, bool) {
			v, ok := sf(e)
			if !ok {
				return nval{}, false
			}
			a, ok := af(e)
			if !ok {
				return nval{}, false
			}
			end := int64(-1) // to the end
			if bf != nil {
				b, ok := bf(e)
				if !ok {
					return nval{}, false
				}
				end = b.i
			}
			s, ok := substring(v.str(), a.i, end, bf != nil)
			return sval(s), ok
		}}
	case "index_map":
		if !want(2, tMap, tString) || args[0].t.elem == nil {
			return nil
		}
		l, r, et := args[0].f, args[1].f, args[0].t.elem
		return &nexpr{t: et, f: func(e *nenv) (nval, bool) {
			m, ok := l(e)
			if !ok {
				return nval{}, false
			}
			k, ok := r(e)
			if !ok {
				return nval{}, false
			}
			v, ok := m.x.(map[string]any)[k.str()]
			if !ok || v == nil {
				return nval{}, false
			}
			return conv(v, et)
		}}
	}
	return nil
}

// comprehension is cel-go's fold: the accumulator initialized, then for
// each element (list items in order, map keys) the loop condition checked
// (stop unless true) and the step evaluated into the accumulator, then the
// result. Anything not sure on the way makes the whole not sure. Over a map
// (Go's order, in cel-go and here) only a bool or int accumulator is
// allowed: the macros that build them (all, exists, exists_one) give the
// same result in any order.
func (c *ncomp) comprehension(cx celast.ComprehensionExpr) *nexpr {
	if cx.HasIterVar2() {
		return nil
	}
	rng := c.expr(cx.IterRange())
	if rng == nil {
		return nil
	}
	var et *ntype
	switch rng.t.k {
	case tList, tBuilt:
		et = rng.t.elem
	case tMap:
		et = typeString
	default:
		return nil
	}
	init := c.expr(cx.AccuInit())
	if init == nil {
		return nil
	}
	if rng.t.k == tMap && init.t.k != tBool && init.t.k != tInt {
		return nil
	}
	iterSlot, accuSlot := c.slots, c.slots+1
	c.slots += 2
	compileBody := func(at *ntype) (cond, step, res *nexpr) {
		depth := len(c.scopes)
		defer func() { c.scopes = c.scopes[:depth] }()
		c.scopes = append(c.scopes, nscope{cx.AccuVar(), accuSlot, at})
		if cond = c.expr(cx.LoopCondition()); cond == nil || cond.t.k != tBool {
			return nil, nil, nil
		}
		c.scopes = append(c.scopes, nscope{cx.IterVar(), iterSlot, et})
		step = c.expr(cx.LoopStep())
		c.scopes = c.scopes[:depth+1]
		if step == nil {
			return nil, nil, nil
		}
		if res = c.expr(cx.Result()); res == nil {
			return nil, nil, nil
		}
		return cond, step, res
	}
	// filter and map start from an empty list: the accumulator's type is a
	// list of the elements (filter) or of what the step adds (map).
	empty := init.t.k == tBuilt && init.t.elem == nil
	cands := []*ntype{init.t}
	if empty && et != nil {
		cands = []*ntype{{k: tBuilt, elem: et}, init.t}
	}
	var cond, step, res *nexpr
	for _, at := range cands {
		cond, step, res = compileBody(at)
		if step != nil && !sameType(step.t, at) && empty && step.t.k == tBuilt {
			at = step.t
			cond, step, res = compileBody(at)
		}
		if step != nil && sameType(step.t, at) {
			break
		}
		step = nil
	}
	if step == nil {
		return nil
	}
	fd := &fold{cond: cond.f, step: step.f, iter: iterSlot, accu: accuSlot}
	rf, inf, resf, rt := rng.f, init.f, res.f, rng.t
	return &nexpr{t: res.t, f: func(e *nenv) (nval, bool) {
		r, ok := rf(e)
		if !ok {
			return nval{}, false
		}
		accu, ok := inf(e)
		if !ok {
			return nval{}, false
		}
		if rt.k == tMap {
			for k := range r.x.(map[string]any) {
				more, ok := fd.next(e, sval(k), &accu)
				if !ok {
					return nval{}, false
				}
				if !more {
					break
				}
			}
		} else {
			for i, n := 0, listLen(r, rt); i < n; i++ {
				elem, ok := elemAt(r, rt, i)
				if !ok {
					return nval{}, false
				}
				more, ok := fd.next(e, elem, &accu)
				if !ok {
					return nval{}, false
				}
				if !more {
					break
				}
			}
		}
		e.slots[fd.accu] = accu
		return resf(e)
	}}
}

// filterCount compiles x, when it is a filter() over a list, to the number
// of elements it keeps (an int) without building the list: what size()
// of it is. The filter macro's comprehension starts from an empty list,
// never stops early and adds the element when the predicate is true;
// what is not sure here is what is not sure in comprehension (an element
// not of its type, a predicate not sure).
func (c *ncomp) filterCount(x celast.Expr) *nexpr {
	if x.Kind() != celast.ComprehensionKind {
		return nil
	}
	cx := x.AsComprehension()
	if cx.HasIterVar2() || !isLit(cx.LoopCondition(), true) || !isEmptyList(cx.AccuInit()) || !isIdent(cx.Result(), cx.AccuVar()) {
		return nil
	}
	// The step: pred ? accu + [iter] : accu.
	st := cx.LoopStep()
	if st.Kind() != celast.CallKind || st.AsCall().FunctionName() != "_?_:_" || len(st.AsCall().Args()) != 3 {
		return nil
	}
	sa := st.AsCall().Args()
	if !isIdent(sa[2], cx.AccuVar()) || sa[1].Kind() != celast.CallKind {
		return nil
	}
	add := sa[1].AsCall()
	if add.FunctionName() != "_+_" || len(add.Args()) != 2 || !isIdent(add.Args()[0], cx.AccuVar()) {
		return nil
	}
	if l := add.Args()[1]; l.Kind() != celast.ListKind || len(l.AsList().Elements()) != 1 || len(l.AsList().OptionalIndices()) > 0 || !isIdent(l.AsList().Elements()[0], cx.IterVar()) {
		return nil
	}
	rng := c.expr(cx.IterRange())
	if rng == nil || (rng.t.k != tList && rng.t.k != tBuilt) || rng.t.elem == nil {
		return nil
	}
	iterSlot := c.slots
	c.slots++
	depth := len(c.scopes)
	c.scopes = append(c.scopes, nscope{cx.IterVar(), iterSlot, rng.t.elem})
	pred := c.expr(sa[0])
	c.scopes = c.scopes[:depth]
	if pred == nil || pred.t.k != tBool {
		return nil
	}
	rf, pf, rt := rng.f, pred.f, rng.t
	return &nexpr{t: typeInt, f: func(e *nenv) (nval, bool) {
		r, ok := rf(e)
		if !ok {
			return nval{}, false
		}
		var n int64
		for i, l := 0, listLen(r, rt); i < l; i++ {
			elem, ok := elemAt(r, rt, i)
			if !ok {
				return nval{}, false
			}
			e.slots[iterSlot] = elem
			p, ok := pf(e)
			if !ok {
				return nval{}, false
			}
			if p.b() {
				n++
			}
		}
		return nval{i: n}, true
	}}
}

func isLit(x celast.Expr, b bool) bool {
	if x.Kind() != celast.LiteralKind {
		return false
	}
	v, ok := x.AsLiteral().(types.Bool)
	return ok && bool(v) == b
}

func isEmptyList(x celast.Expr) bool {
	return x.Kind() == celast.ListKind && len(x.AsList().Elements()) == 0
}

func isIdent(x celast.Expr, name string) bool {
	return x.Kind() == celast.IdentKind && x.AsIdent() == name
}

// fold is one comprehension's loop.
type fold struct {
	cond, step nfn
	iter, accu int
}

// next runs one iteration on elem: more is false when the loop condition
// stops the loop.
func (fd *fold) next(e *nenv, elem nval, accu *nval) (more, ok bool) {
	e.slots[fd.iter], e.slots[fd.accu] = elem, *accu
	cv, ok := fd.cond(e)
	if !ok {
		return false, false
	}
	if !cv.b() {
		return false, true
	}
	if *accu, ok = fd.step(e); !ok {
		return false, false
	}
	return true, true
}

// nativeCheck, when set (by tests), makes validateRules evaluate every rule
// with a native program by cel-go too and shows it both results: the native
// program's value and whether it is sure of it.
var nativeCheck func(cr *compiledRule, value, sure bool, res ref.Val, err error)

// lowerASCII is cel-go's lowerAscii (ext strings) on valid UTF-8: ASCII
// letters lowered, nothing else changed. On invalid UTF-8 (which cel-go's
// rune conversion would rewrite) it is not sure.
func lowerASCII(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	i := strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' })
	if i < 0 {
		return s, true
	}
	b := []byte(s)
	for j := i; j < len(b); j++ {
		if 'A' <= b[j] && b[j] <= 'Z' {
			b[j] += 'a' - 'A'
		}
	}
	return string(b), true
}

// substring is cel-go's substring (ext strings) on valid UTF-8: code points
// start to end (to the end of s without hasEnd); an index out of range or
// start > end is cel-go's error, here not sure.
func substring(s string, start, end int64, hasEnd bool) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	l := int64(utf8.RuneCountInString(s))
	if !hasEnd {
		end = l
	}
	if start > end || start < 0 || start > l || end < 0 || end > l {
		return "", false
	}
	// Byte offsets of code points start and end.
	var from, to int
	n := int64(0)
	for i := range s {
		if n == start {
			from = i
		}
		if n == end {
			to = i
			return s[from:to], true
		}
		n++
	}
	if start == l {
		from = len(s)
	}
	return s[from:], true
}
