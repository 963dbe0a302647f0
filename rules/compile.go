package rules

import (
	"errors"
	"math"
	"regexp/syntax"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"

	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"

	"github.com/crdkit/crdkit/schema"
)

// Limits the server applies (k8s.io/apiserver/pkg/apis/cel).
const (
	// PerCallLimit is the runtime cost limit of one evaluation of one
	// expression.
	PerCallLimit = celconfig.PerCallLimit
	// RuntimeBudget is the runtime cost budget of all the rules evaluated on
	// one object in one request.
	RuntimeBudget = celconfig.RuntimeCELCostBudget
	// MaxMessageExpressionBytes is the longest message a messageExpression
	// may produce.
	MaxMessageExpressionBytes = celconfig.MaxEvaluatedMessageExpressionSizeBytes
)

// Variable names the rules see.
const (
	selfVar    = "self"
	oldSelfVar = "oldSelf"
)

// selfTypeName names the object type of self. The server makes one up from
// the clock so that rules cannot depend on it; crdkit uses a fixed name so
// that its output is deterministic. No rule the server accepts can tell the
// difference.
const selfTypeName = "selfType0"

// Validator holds the compiled x-kubernetes-validations rules of one schema
// (a CRD version's openAPIV3Schema): one program per rule and per
// messageExpression, the variable declarations and the value adapters, all
// prepared by Compile. A Validator never changes afterwards and is safe for
// concurrent use by any number of goroutines.
type Validator struct {
	root   *vnode
	schema *node // the schema as the server's correlation sees it (not widened)

	usesOldSelf bool      // a rule reads oldSelf (untracked.go)
	boundsOnce  sync.Once // builds the vnodes' bounds
}

// vnode is one schema node on a path to a rule: its compiled rules and the
// children that hold more.
type vnode struct {
	typ         string // the schema's type, the value of the server's errors
	self        *node  // converts the value at this node (widened at resource roots)
	rules       []compiledRule
	usesOldSelf bool                   // a rule uses oldSelf: the activation binds it
	initErr     error                  // environment construction failed: every value here is refused
	decl        *apiservercel.DeclType // the CEL type of self, the rules' cost estimates assume its sizes
	bounds      *bnode                 // decl's sizes, for untracked evaluation (built on first use)
	ownSized    bool                   // a rule here has a bound that holds only for values of decl's sizes
	foreign     bool                   // decl is not part of the parent's type (a property name CEL cannot escape)

	items *vnode
	props []propVnode // sorted by name
	addl  *vnode
	allOf []*vnode
}

type propVnode struct {
	name string
	v    *vnode
}

// compiledRule is one rule as the server's Compile leaves it.
type compiledRule struct {
	rule        schema.ValidationRule
	prog        *plannedProg // nil: empty rule or error
	err         *apiservercel.Error
	usesOldSelf bool
	optional    bool // optionalOldSelf
	maxCost     uint64
	cardinality uint64

	msgProg    *plannedProg
	msgErr     *apiservercel.Error
	msgMaxCost uint64

	fieldPath string // normalized, "" when absent or invalid

	fast *lazyFast // the untracked programs, nil when prog is nil
}

// envKind chooses the environment a rule compiles in: stored expressions
// (objects, and CRD updates that keep an expression) or new expressions (a
// CRD create).
type envKind int

const (
	storedEnv envKind = iota
	newEnv
)

// envPicker chooses the environment of each expression: kind, except that
// the expressions the live CRD already has compile in the stored-expressions
// environment (a CRD update).
type envPicker struct {
	kind                        envKind
	storedRules, storedMessages map[string]bool
}

func (p envPicker) rule(expr string) envKind {
	if p.storedRules[expr] {
		return storedEnv
	}
	return p.kind
}

func (p envPicker) message(expr string) envKind {
	if p.storedMessages[expr] {
		return storedEnv
	}
	return p.kind
}

// Compile compiles every rule of s for evaluation, as the server does when it
// serves a CRD version: the base environment of the server's default
// compatibility version, the stored-expressions environment, self and oldSelf
// declared from s (with apiVersion, kind and metadata.name/generateName at the
// resource root and in embedded resources), the per-call cost limit and the
// static cost estimator. It returns nil when s holds no rule outside allOf,
// as the server builds no validator then; Validate on a nil *Validator
// accepts everything.
//
// Rules that do not compile are kept: Validate reports them on every value,
// as the server does for a CRD that Check would have refused.
func Compile(s *schema.Schema) (*Validator, error) {
	if s == nil || s.Summary()&schema.HasRules == 0 {
		return nil, nil
	}
	base, err := baseEnvSet()
	if err != nil {
		return nil, err
	}
	root := newNode(s)
	root.widened = root.widen()
	decl := common.SchemaDeclType(root, true)
	v := &Validator{root: build(nil, s, root, true, decl, base, storedEnv), schema: root}
	v.usesOldSelf = v.root.anyOldSelf()
	return v, nil
}

// CompileNode is Compile for the values of one schema node rather than a
// whole object, as the server compiles the rules that apply to a default
// value: resourceRoot says whether values there are a resource (the root,
// or an x-kubernetes-embedded-resource), whose self is widened with
// apiVersion, kind and metadata.
func CompileNode(s *schema.Schema, resourceRoot bool) (*Validator, error) {
	return compileNode(nil, s, resourceRoot)
}

func compileNode(c *Compiler, s *schema.Schema, resourceRoot bool) (*Validator, error) {
	if s == nil || s.Summary()&schema.HasRules == 0 {
		return nil, nil
	}
	base, err := baseEnvSet()
	if err != nil {
		return nil, err
	}
	n := newNode(s)
	if resourceRoot && n.widened == nil {
		n.widened = n.widen()
	}
	decl := common.SchemaDeclType(n, resourceRoot)
	return &Validator{root: build(c, s, n, resourceRoot, decl, base, storedEnv), schema: n}, nil
}

// baseEnvSet is the server's base environment. Building it can only fail on
// a broken dependency; the server's Must variant would panic.
func baseEnvSet() (es *environment.EnvSet, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("CEL base environment: initialization failed")
		}
	}()
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), nil
}

// build mirrors the server's validator tree: rules of validation compiled
// against n's type, then the children of validation that are also children
// of n, then allOf. It returns nil when the subtree holds nothing to run.
func build(c *Compiler, validation *schema.Schema, n *node, isRoot bool, decl *apiservercel.DeclType, base *environment.EnvSet, ek envKind) *vnode {
	v := &vnode{typ: n.typ, self: n, decl: decl}
	if isRoot {
		v.self = n.WithTypeAndObjectMeta().(*node)
	}
	if len(validation.Rules()) > 0 {
		v.rules, v.initErr = compileRules(c, validation.Rules(), n, decl, base, envPicker{kind: ek})
		for i := range v.rules {
			r := &v.rules[i]
			v.usesOldSelf = v.usesOldSelf || r.usesOldSelf
			if r.fast != nil {
				r.fast.self, r.fast.optional = v.self, r.optional
			}
		}
	}
	var elem *apiservercel.DeclType
	if decl != nil {
		elem = decl.ElemType
	}
	if vi := validation.Items(); vi != nil && n.items != nil {
		v.items = build(c, vi, n.items, n.items.IsXEmbeddedResource(), elem, base, ek)
	}
	for k, vp := range validation.Properties() { // sorted
		np, ok := n.props[k]
		if !ok {
			continue // rules apply only to the structural spine
		}
		pn := np.(*node)
		var ft *apiservercel.DeclType
		foreign := false
		if esc, ok := apiservercel.Escape(k); ok {
			if decl == nil {
				continue
			}
			f, ok := decl.Fields[esc]
			if !ok {
				continue // fields without a CEL type are not validated
			}
			ft = f.Type
		} else {
			if ft = common.SchemaDeclType(pn, pn.IsXEmbeddedResource()); ft == nil {
				continue
			}
			foreign = true
		}
		if cv := build(c, vp, pn, pn.IsXEmbeddedResource(), ft, base, ek); cv != nil {
			cv.foreign = foreign
			v.props = append(v.props, propVnode{k, cv})
		}
	}
	if va, _, _ := validation.AdditionalProperties(); va != nil && n.addl != nil && n.addl.schema != nil {
		v.addl = build(c, va, n.addl.schema, n.addl.schema.IsXEmbeddedResource(), elem, base, ek)
	}
	for _, a := range validation.AllOf() {
		if cv := build(c, a, n, isRoot, decl, base, ek); cv != nil {
			v.allOf = append(v.allOf, cv)
		}
	}
	if len(v.rules) == 0 && v.initErr == nil && v.items == nil && v.props == nil && v.addl == nil && v.allOf == nil {
		return nil
	}
	return v
}

// compileRules compiles the rules of one node as the server's Compile does.
// A nil decl is the server's "failed to convert to declType" error.
func compileRules(c *Compiler, rs []schema.ValidationRule, n *node, decl *apiservercel.DeclType, base *environment.EnvSet, pick envPicker) ([]compiledRule, error) {
	if decl == nil {
		return nil, errors.New("failed to convert to declType for CEL validation rules")
	}
	self := decl.MaybeAssignTypeName(selfTypeName)
	key, envShape := keysOf(self)
	// Each environment (stored or new expressions, with an optional oldSelf
	// or not) is built only when a rule asks for it: building one costs
	// about as much as compiling a rule. (The server builds the four;
	// extending the same environment with the same type cannot fail for
	// one and not another.)
	var built [2][2]*cel.Env
	var envErr error
	envFor := func(opt bool, ek envKind) *cel.Env {
		o := 0
		if opt {
			o = 1
		}
		if built[o][ek] == nil && envErr == nil {
			old := self.CelType()
			if opt {
				old = types.NewOptionalType(old)
			}
			built[o][ek], envErr = sharedEnv(envKey{envShape, opt, ek}, func() (*cel.Env, error) { return ruleEnv(base, ek, self, old) })
		}
		return built[o][ek]
	}
	if len(rs) > 0 {
		envFor(false, pick.rule(rs[0].Rule))
	}
	if envErr != nil {
		return nil, envErr
	}
	est := &library.CostEstimator{SizeEstimator: sizeEstimator{root: decl}}
	card := maxCardinality(decl.MinSerializedSize)
	out := make([]compiledRule, len(rs))
	for i, r := range rs {
		opt := r.OptionalOldSelf != nil && *r.OptionalOldSelf
		rk := ruleKey{decl: key, rule: r.Rule, msg: r.MessageExpression, optional: opt, ruleEnv: pick.rule(r.Rule), msgEnv: pick.message(r.MessageExpression)}
		if m, ok := c.lookup(rk); ok {
			out[i] = m.reuse(r, n, decl)
			continue
		}
		out[i] = compileRule(r, n, func(ek envKind) *cel.Env { return envFor(opt, ek) }, pick, est, card, decl)
		if envErr != nil {
			return nil, envErr
		}
		c.store(rk, out[i])
	}
	return out, nil
}

// ruleEnv is the environment of kind ek of base extended with self of type
// self and oldSelf of type old, as the server's EnvSet.Extend builds each
// of its two environments (self introduced at 1.0, oldSelf at 1.24, self's
// type declared with keywords recognized as field names from 1.31).
func ruleEnv(base *environment.EnvSet, ek envKind, self *apiservercel.DeclType, old *types.Type) (*cel.Env, error) {
	env := base.StoredExpressionsEnv()
	compat := version.MajorMinor(math.MaxUint, math.MaxUint)
	if ek == newEnv {
		env, compat = base.NewExpressionsEnv(), environment.DefaultCompatibilityVersion()
	}
	var opts []cel.EnvOption
	if compat.AtLeast(version.MajorMinor(1, 0)) {
		opts = append(opts, cel.Variable(selfVar, self.CelType()))
	}
	if compat.AtLeast(version.MajorMinor(1, 24)) {
		opts = append(opts, cel.Variable(oldSelfVar, old))
	}
	provider := apiservercel.NewDeclTypeProvider(self)
	if compat.AtLeast(version.MajorMinor(1, 31)) {
		provider.SetRecognizeKeywordAsFieldName(true)
	}
	popts, err := provider.EnvOptions(env.CELTypeProvider())
	if err != nil {
		return nil, err
	}
	return env.Extend(append(opts, popts...)...)
}

func invalidErr(detail string) *apiservercel.Error {
	return &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: detail}
}

func internalErr(detail string) *apiservercel.Error {
	return &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: detail}
}

// compileRule compiles one rule and its messageExpression with the server's
// texts for each failure.
func compileRule(r schema.ValidationRule, n *node, envOf func(envKind) *cel.Env, pick envPicker, est *library.CostEstimator, card uint64, decl *apiservercel.DeclType) (cr compiledRule) {
	cr.rule = r
	cr.optional = r.OptionalOldSelf != nil && *r.OptionalOldSelf
	if strings.TrimSpace(r.Rule) == "" {
		return cr
	}
	ek := pick.rule(r.Rule)
	env := envOf(ek)
	if env == nil {
		return cr // the environment could not be built: compileRules reports it
	}
	ast, iss := compileExpr(env, ek, r.Rule)
	if iss != nil {
		cr.err = invalidErr("compilation failed: " + iss.String())
		return cr
	}
	if ast.OutputType() != cel.BoolType {
		cr.err = invalidErr("cel expression must evaluate to a bool")
		return cr
	}
	// The server converts the checked expression to its protobuf form and
	// looks for oldSelf in the reference map there (a conversion that
	// cannot fail for an expression that type-checked: the server reports
	// it as "unexpected compilation error"); the reference map is the same
	// in cel-go's own form, without the conversion of the whole tree.
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == oldSelfVar {
			cr.usesOldSelf = true
			break
		}
	}
	prog := planLater(env, ast, est)
	if err := prog.check(); err != nil {
		cr.err = invalidErr("program instantiation failed: " + err.Error())
		return cr
	}
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		cr.err = internalErr("cost estimation failed: " + err.Error())
		return cr
	}
	cr.maxCost, cr.cardinality, cr.prog = cost.Max, card, prog
	cr.fast = &lazyFast{env: env, ast: ast, decl: decl}
	if r.MessageExpression != "" {
		mk := pick.message(r.MessageExpression)
		cr.msgProg, cr.msgMaxCost, cr.fast.msg, cr.msgErr = compileMessage(r.MessageExpression, envOf(mk), mk, est)
		if cr.msgErr != nil {
			return cr
		}
	}
	if r.FieldPath != "" {
		if p, _, err := resolveFieldPath(r.FieldPath, n); err == nil {
			cr.fieldPath = p.String()
		}
	}
	return cr
}

func compileMessage(expr string, env *cel.Env, ek envKind, est *library.CostEstimator) (*plannedProg, uint64, *cel.Ast, *apiservercel.Error) {
	if env == nil {
		return nil, 0, nil, internalErr("environment could not be built") // compileRules reports it
	}
	ast, iss := compileExpr(env, ek, expr)
	if iss != nil {
		return nil, 0, nil, invalidErr("messageExpression compilation failed: " + iss.String())
	}
	if ast.OutputType() != cel.StringType {
		return nil, 0, nil, invalidErr("messageExpression must evaluate to a string")
	}
	prog := planLater(env, ast, est)
	if err := prog.check(); err != nil {
		return nil, 0, nil, invalidErr("messageExpression instantiation failed: " + err.Error())
	}
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		return nil, 0, nil, internalErr("cost estimation failed for messageExpression: " + err.Error())
	}
	return prog, cost.Max, ast, nil
}

// sizeEstimator bounds the size of values reached from self by the schema's
// maxItems, maxProperties and maxLength (or the request size), as the
// server's estimator does.
type sizeEstimator struct{ root *apiservercel.DeclType }

func (e sizeEstimator) EstimateSize(el checker.AstNode) *checker.SizeEstimate {
	path := el.Path()
	if len(path) == 0 {
		return nil
	}
	t := e.root
	for _, name := range path[1:] { // path[0] is self
		switch name {
		case "@items", "@values":
			t = t.ElemType
		case "@keys":
			t = t.KeyType
		default:
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
	return &checker.SizeEstimate{Min: 0, Max: uint64(t.MaxElements)}
}

func (sizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// maxCardinality is how often a value of at least minSize serialized bytes
// can occur in one request.
func maxCardinality(minSize int64) uint64 {
	return uint64(celconfig.MaxRequestSizeBytes / (minSize + 1))
}

// plannedProg is the program of a compiled expression, planned (the
// server's env.Program, with its cost limit, cost tracking and interrupt
// checks) on first use: a CRD check never evaluates most rules, and
// planning costs about as much as compiling. Planning fails only where the
// planner evaluates constants (a type conversion of a constant, a
// constant regular expression of matches, find or findAll), and check
// plans those at once, so that a compilation reports the server's
// "program instantiation failed" as the server does. Safe for concurrent
// use.
type plannedProg struct {
	once sync.Once
	env  *cel.Env
	ast  *cel.Ast
	est  *library.CostEstimator
	prog cel.Program
	err  error
}

func planLater(env *cel.Env, ast *cel.Ast, est *library.CostEstimator) *plannedProg {
	return &plannedProg{env: env, ast: ast, est: est}
}

func (p *plannedProg) plan() (cel.Program, error) {
	p.once.Do(func() {
		p.prog, p.err = p.env.Program(p.ast,
			cel.CostLimit(PerCallLimit),
			cel.CostTracking(p.est),
			cel.InterruptCheckFrequency(celconfig.CheckFrequency),
		)
	})
	return p.prog, p.err
}

// program is the planned program, nil when planning failed (which check
// found out already where it can happen).
func (p *plannedProg) program() cel.Program {
	prog, err := p.plan()
	if err != nil {
		return nil
	}
	return prog
}

// check plans the program now when planning can fail, and returns the
// planner's error.
func (p *plannedProg) check() error {
	if !mayFailToPlan(p.ast) {
		return nil
	}
	_, err := p.plan()
	return err
}

// mayFailToPlan reports whether the planner may fail on the expression:
// where it evaluates a call on constants and the call can fail. cel-go's
// planner folds a type conversion of a constant (decOptimize; a constant
// is a literal, a list or map literal of constants, or a conversion of
// one, folded first) and compiles the constant pattern of matches, find
// and findAll (the regular-expression optimizations, Go's regexp.Compile,
// whose errors are all its parser's). A pattern written as a string
// literal is parsed here instead: only one that does not parse fails. Any
// other constant pattern, or conversion of a constant, is left to the
// planner.
func mayFailToPlan(a *cel.Ast) bool {
	found := false
	celast.PreOrderVisit(a.NativeRep().Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if found || e.Kind() != celast.CallKind {
			return
		}
		call := e.AsCall()
		args := call.Args()
		switch fn := call.FunctionName(); fn {
		case "matches", "find", "findAll":
			// The pattern is the planner's second argument: the first
			// argument of a receiver call, the second of a global one.
			i := 1
			if call.IsMemberFunction() {
				i = 0
			}
			if i >= len(args) {
				return
			}
			pat := args[i]
			if pat.Kind() == celast.LiteralKind {
				if str, ok := pat.AsLiteral().(types.String); ok {
					_, err := syntax.Parse(string(str), syntax.Perl)
					found = err != nil
					return
				}
			}
			found = foldsToConstant(pat)
		default:
			if overloads.IsTypeConversionFunction(fn) {
				for _, x := range args {
					if foldsToConstant(x) {
						found = true
					}
				}
			}
		}
	}))
	return found
}

// foldsToConstant reports whether the planner may turn e into a constant:
// a literal, a list or map literal of such, or a type conversion of such
// (an over-estimate is safe: the program is then planned at once).
func foldsToConstant(e celast.Expr) bool {
	switch e.Kind() {
	case celast.LiteralKind:
		return true
	case celast.ListKind:
		for _, x := range e.AsList().Elements() {
			if !foldsToConstant(x) {
				return false
			}
		}
		return true
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			if !foldsToConstant(me.Key()) || !foldsToConstant(me.Value()) {
				return false
			}
		}
		return true
	case celast.CallKind:
		c := e.AsCall()
		if c.IsMemberFunction() || !overloads.IsTypeConversionFunction(c.FunctionName()) {
			return false
		}
		for _, x := range c.Args() {
			if !foldsToConstant(x) {
				return false
			}
		}
		return true
	}
	return false
}
