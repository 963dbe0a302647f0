package rules

import (
	"context"
	"math"
	"reflect"
	"sync"
	"unsafe"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"

	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/library"
)

// Untracked evaluation (see doc.go, "# Evaluation without cost tracking").
//
// The server evaluates every program with cel-go's cost tracker and stops
// it at PerCallLimit, and charges the tracked cost to the request's budget.
// Tracking is about half of the time of a typical rule. Where no limit can
// be reached, the tracker changes nothing but the budget left, which the
// create, update and admission steps do not report: there crdkit runs a
// second program per rule, planned by the same environment with the same
// options but without the cost observer, and charges each evaluation a
// static upper bound of its cost instead (boundCost). When the bounds would
// exceed a limit, the whole call is evaluated again tracked.

// bigSize bounds the sizes the bound estimator cannot take from the schema
// (map keys, objects): no larger value is evaluated untracked.
const bigSize = int(apiservercel.DefaultMaxRequestSizeBytes)

// noCostTracking is a program option that turns cost tracking and the cost
// limit off again after the environment's options (the server's base
// environment turns them on for every program, and cel-go offers no option
// that clears them). It writes two fields of cel-go's program configuration
// and is nil when those fields are not what this code was written for (another
// cel-go version): then nothing is evaluated untracked.
var noCostTracking = makeNoCostTracking()

func makeNoCostTracking() cel.ProgramOption {
	t := reflect.TypeOf(cel.ProgramOption(nil))
	if t.NumIn() != 1 || t.NumOut() != 2 || t.In(0).Kind() != reflect.Pointer || t.In(0) != t.Out(0) {
		return nil
	}
	st := t.In(0).Elem()
	opts, ok := st.FieldByName("evalOpts")
	if !ok || opts.Type != reflect.TypeOf(cel.EvalOption(0)) {
		return nil
	}
	limit, ok := st.FieldByName("costLimit")
	if !ok || limit.Type != reflect.TypeOf((*uint64)(nil)) {
		return nil
	}
	fn := reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		p := args[0].UnsafePointer()
		*(*cel.EvalOption)(unsafe.Add(p, opts.Offset)) &^= cel.OptTrackCost
		*(**uint64)(unsafe.Add(p, limit.Offset)) = nil
		return []reflect.Value{args[0], reflect.Zero(t.Out(1))}
	})
	return fn.Interface().(cel.ProgramOption)
}

// costHook, when set (by tests), sees the actual cost of every tracked
// evaluation of a rule (msg: of its messageExpression).
var costHook func(cr *compiledRule, msg bool, cost uint64)

// lazyFast holds what untracked evaluation of one rule needs, built on
// first use: compiling every CRD would otherwise plan each program twice.
type lazyFast struct {
	once sync.Once
	env  *cel.Env
	ast  *cel.Ast
	msg  *cel.Ast // the messageExpression's, nil without one
	decl *apiservercel.DeclType

	self     *node // the values' schema (the vnode's self), for the native program
	optional bool  // the rule's oldSelf is an optional

	prog, msgProg cel.Program // nil: evaluate tracked
	native        *nativeProg // nil: the rule is not native (native.go)
	cost, msgCost uint64      // bounds of one evaluation's tracked cost
	sized         bool        // a bound holds only for values of decl's sizes
}

// get builds the untracked programs and their cost bounds. A program whose
// bound exceeds PerCallLimit (or that fails to build) is left nil.
func (l *lazyFast) get() *lazyFast {
	l.once.Do(func() {
		if noCostTracking == nil {
			return
		}
		var sized, msgSized bool
		l.prog, l.cost, sized = untrackedProgram(l.env, l.ast, l.decl)
		if l.msg != nil {
			l.msgProg, l.msgCost, msgSized = untrackedProgram(l.env, l.msg, l.decl)
		}
		l.sized = l.prog != nil && sized || l.msgProg != nil && msgSized
		if l.prog != nil {
			l.native = newNativeProg(l.ast.NativeRep(), l.self, l.optional)
		}
		l.env, l.ast, l.msg, l.self = nil, nil, nil, nil
	})
	return l
}

// untrackedProgram returns the program without cost tracking and the bound
// of its cost: the estimate over values of any size when that is within
// PerCallLimit (the cost does not grow with the values), else the estimate
// over values of decl's sizes (sized) when that is.
func untrackedProgram(env *cel.Env, ast *cel.Ast, decl *apiservercel.DeclType) (prog cel.Program, bound uint64, sized bool) {
	cost, err := env.EstimateCost(ast, &library.CostEstimator{SizeEstimator: boundSizes{root: decl, any: true}})
	if err != nil {
		return nil, 0, false
	}
	if cost.Max > PerCallLimit {
		sized = true
		if cost, err = env.EstimateCost(ast, &library.CostEstimator{SizeEstimator: boundSizes{root: decl}}); err != nil || cost.Max > PerCallLimit {
			return nil, 0, false
		}
	}
	prog, err = env.Program(ast, cel.InterruptCheckFrequency(celconfig.CheckFrequency), noCostTracking)
	if err != nil {
		return nil, 0, false
	}
	return prog, cost.Max, sized
}

// boundSizes is sizeEstimator made an upper bound of the sizes of the values
// a conforming object holds (see conforms): the server's estimator takes 0 for
// map keys, objects and scalars, whose runtime size is at least 1; here map
// keys and objects are bigSize, everything else at least 1.
//
// With any, every value reached from self is taken to be of any size up to
// anySize (far beyond anything in memory: a bound that stays within
// PerCallLimit with it does not depend on sizes).
type boundSizes struct {
	root *apiservercel.DeclType
	any  bool
}

const anySize = 1 << 53

func (e boundSizes) EstimateSize(el checker.AstNode) *checker.SizeEstimate {
	path := el.Path()
	if len(path) == 0 {
		return nil
	}
	if e.any {
		return &checker.SizeEstimate{Min: 0, Max: anySize}
	}
	t := e.root
	keys := false
	for _, name := range path[1:] { // path[0] is self (or oldSelf, of the same type)
		keys = false
		switch name {
		case "@items", "@values":
			t = t.ElemType
		case "@keys":
			t, keys = t.KeyType, true
		default:
			if t.Fields == nil {
				return nil
			}
			f, ok := t.Fields[name]
			if !ok {
				return nil
			}
			t = f.Type
		}
		if t == nil {
			return nil
		}
	}
	if keys || t.IsObject() {
		return &checker.SizeEstimate{Min: 0, Max: uint64(bigSize)}
	}
	return &checker.SizeEstimate{Min: 0, Max: max(uint64(max(t.MaxElements, 0)), 1)}
}

func (boundSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// bnode is a DeclType's sizes as conforms checks them.
type bnode struct {
	kind   uint8 // bScalar, bString, bList, bMap, bObject
	limit  int   // most bytes (strings) or entries (lists, maps)
	elem   *bnode
	fields map[string]*bnode // by property name (unescaped); nil values: nothing to check
}

const (
	bScalar = iota // numbers, booleans, durations, timestamps: size 1, any value
	bString        // strings, base64 bytes
	bDyn           // int-or-string
	bList
	bMap
	bObject
)

// newBounds returns the sizes of t, memoized in seen.
func newBounds(t *apiservercel.DeclType, seen map[*apiservercel.DeclType]*bnode) *bnode {
	if t == nil {
		return nil
	}
	if b, ok := seen[t]; ok {
		return b
	}
	b := &bnode{limit: int(min(max(t.MaxElements, 1), math.MaxInt32))}
	seen[t] = b
	switch {
	case t.IsList():
		b.kind, b.elem = bList, newBounds(t.ElemType, seen)
	case t.IsMap():
		b.kind, b.elem = bMap, newBounds(t.ElemType, seen)
	case t.IsObject():
		b.kind, b.limit = bObject, bigSize
		b.fields = make(map[string]*bnode, len(t.Fields))
		for esc, f := range t.Fields {
			if name, ok := apiservercel.Unescape(esc); ok {
				b.fields[name] = newBounds(f.Type, seen)
			}
		}
	default:
		switch t.CelType().Kind() {
		case types.StringKind, types.BytesKind:
			b.kind = bString
		case types.DynKind:
			b.kind = bDyn
		}
	}
	return b
}

// conforms reports whether every value of v that a rule can reach has at
// most the size boundSizes assumes: strings (and int-or-string values, and
// base64 byte strings) at most MaxElements bytes (the server's estimate
// for a maxLength is 4 bytes per code point; a string's CEL size counts code
// points, never more than its bytes; decoded bytes are shorter than their
// base64), lists and maps at most MaxElements entries, objects and map
// keys at most bigSize. These are the schema's maxLength, maxItems and
// maxProperties (or the longest enum value), or the server's estimate of how
// many fit in a request where the schema says nothing. A value of another
// type than b's (which the server's validation refuses before the rules run)
// does not conform.
func (b *bnode) conforms(v any) bool {
	if b == nil || v == nil {
		return true
	}
	switch x := v.(type) {
	case string:
		if b.kind == bString || b.kind == bDyn {
			return len(x) <= b.limit
		}
		return b.kind == bScalar // durations, timestamps
	case []any:
		if b.kind != bList || len(x) > b.limit {
			return false
		}
		if b.elem.trivial() {
			return true
		}
		for _, e := range x {
			if !b.elem.conforms(e) {
				return false
			}
		}
		return true
	case map[string]any:
		switch b.kind {
		case bMap:
			if len(x) > b.limit {
				return false
			}
			for k, e := range x {
				if len(k) > bigSize || !b.elem.conforms(e) {
					return false
				}
			}
			return true
		case bObject:
			if len(x) > bigSize {
				return false
			}
			for k, e := range x {
				if f := b.fields[k]; f != nil && !f.conforms(e) {
					return false
				}
			}
			return true
		}
		return false
	case bool, int64, float64:
		return b.kind == bScalar || b.kind == bDyn // an int-or-string's int: size 1
	}
	return false
}

// trivial says whether every value of b's type conforms when it has the
// right type: a scalar (numbers, booleans).
func (b *bnode) trivial() bool { return b == nil }

// buildBounds finds the nodes with a rule whose bound holds only for values
// of the sizes the node's type declares, and sets their sizes. It builds
// every rule's untracked programs.
func (n *vnode) buildBounds(seen map[*apiservercel.DeclType]*bnode) {
	if n == nil {
		return
	}
	for i := range n.rules {
		if f := n.rules[i].fast; f != nil && f.get().sized {
			n.ownSized = true
		}
	}
	if n.ownSized {
		n.bounds = newBounds(n.decl, seen)
	}
	n.items.buildBounds(seen)
	n.addl.buildBounds(seen)
	for _, c := range n.props {
		c.v.buildBounds(seen)
	}
	for _, a := range n.allOf {
		a.buildBounds(seen)
	}
}

// untrackedRule returns the untracked programs of cr when out is in fast
// mode and the bound of one evaluation fits in budget, else nil (evaluate
// tracked).
func (out *result) untrackedRule(cr *compiledRule, budget int64) *lazyFast {
	if !out.fast {
		return nil
	}
	if cr.fast != nil {
		if f := cr.fast.get(); f.prog != nil && f.cost <= math.MaxInt64 && int64(f.cost) <= budget {
			out.untracked++
			return f
		}
	}
	out.tracked++
	return nil
}

// untrackedMessage is untrackedRule for cr's messageExpression.
func (out *result) untrackedMessage(cr *compiledRule, budget int64) *lazyFast {
	if !out.fast {
		return nil
	}
	if cr.fast != nil {
		if f := cr.fast.get(); f.msgProg != nil && f.msgCost <= math.MaxInt64 && int64(f.msgCost) <= budget {
			out.untracked++
			return f
		}
	}
	out.tracked++
	return nil
}

// anyOldSelf reports whether a rule at n or below reads oldSelf.
func (n *vnode) anyOldSelf() bool {
	if n == nil {
		return false
	}
	if n.usesOldSelf || n.items.anyOldSelf() || n.addl.anyOldSelf() {
		return true
	}
	for _, c := range n.props {
		if c.v.anyOldSelf() {
			return true
		}
	}
	for _, a := range n.allOf {
		if a.anyOldSelf() {
			return true
		}
	}
	return false
}

// ValidateUntracked is ValidateUpdateContext (Validate's semantics when old
// is nil) without the budget left: the errors and warnings are the same,
// but evaluation skips cel-go's cost tracking where that cannot change
// them. The server's limits can only be reached where a runtime cost can:
// when obj (and old, if a rule reads oldSelf) conform to the sizes the
// schema declares (maxLength, maxItems, maxProperties, enum values, or
// what fits in a request where the schema says nothing; see doc.go), each
// rule's static cost estimate bounds the cost of its evaluations. Rules
// (and messageExpressions) whose bound fits in the budget left are then
// evaluated without tracking and charged their bound; the others are
// evaluated tracked. Where the charged total would run out of budget, the
// results are thrown away and the whole call is evaluated again tracked,
// as is an object that does not conform. Use Validate or ValidateUpdate
// where the budget left matters.
func (v *Validator) ValidateUntracked(ctx context.Context, obj, old any, budget int64) (field.ErrorList, []string) {
	errs, warnings, _ := v.validateUntracked(ctx, obj, old, budget)
	return errs, warnings
}

// How validateUntracked evaluated.
const (
	pathTracked  = iota // not eligible: all tracked
	pathFast            // untracked where bounded, the result kept
	pathFellBack        // a bound reached a limit: evaluated again tracked
	pathSizes           // a value is larger than the bounds assume: evaluated again tracked
)

// fastWalk is the walk of the fast path. It reports false when a native
// program panicked (a bug, never expected; counted in nativePanics): what
// the walk found is then thrown away and the caller evaluates everything
// on the tracked path, with cel-go alone. A panic anywhere else is not
// recovered.
func (v *Validator) fastWalk(ctx context.Context, obj, old any, r ratchet, budget int64, out *result) (ok bool) {
	defer func() {
		if out.nenv != nil && out.nenv.running {
			if recover() != nil {
				nativePanics.Add(1)
				out.nenv.running, ok = false, false
			}
		}
	}()
	v.root.validate(ctx, obj, old, r, budget, out.at(nil))
	return true
}

func (v *Validator) validateUntracked(ctx context.Context, obj, old any, budget int64) (field.ErrorList, []string, int) {
	if v == nil || v.root == nil {
		return nil, nil, pathTracked
	}
	how := pathTracked
	if noCostTracking != nil {
		v.boundsOnce.Do(func() { v.root.buildBounds(map[*apiservercel.DeclType]*bnode{}) })
		var r ratchet
		if old != nil {
			r.cur = common.NewCorrelatedObject(obj, old, v.schema)
		}
		out := result{fast: true, oldToo: v.usesOldSelf}
		if v.fastWalk(ctx, obj, old, r, budget, &out) && !out.abort {
			return out.errs, out.warnings, pathFast
		}
		how = pathFellBack
		if out.sizes {
			how = pathSizes
		}
	}
	if old == nil {
		errs, _ := v.ValidateContext(ctx, obj, budget)
		return errs, nil, how
	}
	errs, warnings, _ := v.ValidateUpdateContext(ctx, obj, old, budget)
	return errs, warnings, how
}
