package rules

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/crdkit/crdkit/schema"
)

// CRD-time cost limits (the server's ValidateCustomResourceDefinition).
const (
	// ExpressionCostLimit is the highest estimated cost of one rule, scaled
	// by how often the schema lets its value occur, or of one
	// messageExpression.
	ExpressionCostLimit = 10_000_000
	// SchemaCostLimit is the highest estimated cost of all the rules of one
	// openAPIV3Schema.
	SchemaCostLimit = 100_000_000
)

// Check reports what the server's CRD validation reports about the CEL side
// of the x-kubernetes-validations rules of s when a CRD is created: rules and
// messageExpressions that do not compile (in the new-expressions
// environment) or do not return bool or string, estimated costs over
// ExpressionCostLimit (a rule's scaled by the cardinality its schema allows)
// or over SchemaCostLimit in total, oldSelf used where values cannot be
// correlated, and optionalOldSelf set on rules that do not use oldSelf.
//
// base is the path of the openAPIV3Schema as the server reports it:
// spec.validation.openAPIV3Schema when every version shares one schema (the
// server then validates it once, at the top level), otherwise
// spec.versions[i].schema.openAPIV3Schema. Errors on a node are
// base.properties[name]…x-kubernetes-validations[i].rule (or .messageExpression,
// .optionalOldSelf); the total's error is on base itself.
//
// The server checks rules only on a schema that is structural and whose
// defaults are valid: call Check only then. It also skips the rules of a node
// when its other checks found an error at or below that node: schemaErrs are
// those errors (crdkit's other lint errors for this schema, any order), and
// Check skips the nodes they concern. Rules under allOf, anyOf, oneOf and
// not are not checked, as the server does not check them.
//
// Errors come out children first, properties in name order; the server's
// order follows Go map iteration and differs from run to run.
//
// On a CRD update, expressions the live CRD already has compile in the
// stored-expressions environment; opts (at most one) name them. (The
// server also skips the per-expression cost limits for a version whose
// schema an update keeps: drop those errors then.)
func Check(s *schema.Schema, base *field.Path, schemaErrs field.ErrorList, opts ...CheckOptions) field.ErrorList {
	return check(nil, s, base, schemaErrs, opts...)
}

func check(memo *Compiler, s *schema.Schema, base *field.Path, schemaErrs field.ErrorList, opts ...CheckOptions) field.ErrorList {
	if s == nil || s.Summary()&schema.HasRules == 0 {
		return nil
	}
	es, err := baseEnvSet()
	if err != nil {
		return field.ErrorList{field.InternalError(base.Child("x-kubernetes-validations"), err)}
	}
	c := &crdChecker{memo: memo, base: es, blocked: make([]string, 0, len(schemaErrs)), pick: envPicker{kind: newEnv}}
	for _, o := range opts {
		c.pick.storedRules, c.pick.storedMessages = o.StoredRules, o.StoredMessageExpressions
	}
	for _, e := range schemaErrs {
		c.blocked = append(c.blocked, e.Field)
	}
	one := uint64(1)
	c.walk(s, nil, base, nil, true, false, &one, nil)
	if c.total > SchemaCostLimit {
		for _, x := range c.mostExpensive {
			c.errs = append(c.errs, field.Forbidden(x.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		c.errs = append(c.errs, field.Forbidden(base, costMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", c.total, SchemaCostLimit)))
	}
	return c.errs
}

// CheckOptions are the relaxations of a CRD update (the server's
// ValidateCustomResourceDefinitionUpdate).
type CheckOptions struct {
	// StoredRules and StoredMessageExpressions are the rules and
	// messageExpressions the live CRD already has, anywhere in its schemas:
	// they compile in the stored-expressions environment, which knows the
	// libraries of the server's own version, where new expressions compile
	// in the environment of the version it stays compatible with.
	StoredRules, StoredMessageExpressions map[string]bool
}

type crdChecker struct {
	memo          *Compiler
	pick          envPicker
	base          *environment.EnvSet
	blocked       []string // paths of other errors
	errs          field.ErrorList
	total         uint64
	mostExpensive []ruleCost
}

type ruleCost struct {
	path *field.Path
	cost uint64
}

// typeInfo is the server's CEL type information of a node: its declaration,
// or why there is none. A nil *typeInfo is a node outside any rule's scope.
type typeInfo struct {
	decl *apiservercel.DeclType
	err  error
}

var errNoDecl = fmt.Errorf("unable to convert structural schema to CEL declarations")

// walk visits the node of schema s at path p as the server's schema
// validation does (additional properties, then properties, then items,
// then the node's own rules). n is s's adapter node when s is in a rule's
// scope (built, with everything below it, at the first node with rules
// on the way down: nodes above it need no adapter), nil otherwise.
// parent is the parent's type information when the parent is in a rule's
// scope; access derives n's from it (nil: n's comes from n's own schema).
// card is the cardinality of n's values (nil: unbounded); forbid is the
// nearest ancestor whose children cannot be correlated with old values.
func (c *crdChecker) walk(s *schema.Schema, n *node, p *field.Path, parent *typeInfo, isRoot, inScope bool, card *uint64, forbid *field.Path) {
	if s == nil || s.Summary()&schema.HasRules == 0 {
		return // no rule here or below (the summary covers the children walked)
	}
	if len(s.Rules()) > 0 {
		inScope = true
	}
	if inScope && n == nil {
		n = newNode(s)
	}
	var ti *typeInfo
	if inScope {
		ti = c.typeInfo(n, parent, isRoot)
	}
	childCard := func() *uint64 {
		if card == nil {
			return nil
		}
		var max uint64 = 1
		switch s.Type() {
		case "object":
			if _, _, set := s.AdditionalProperties(); set {
				_, mp := s.PropertyCounts()
				if mp == nil {
					return nil
				}
				max = uint64(max0(*mp))
			}
		case "array":
			_, mi := s.ItemCounts()
			if mi == nil {
				return nil
			}
			max = uint64(max0(*mi))
		}
		v := multiplyGuarded(*card, max)
		return &v
	}
	// A child without a rule in its subtree is not visited (walk would
	// return at once): its path, type and cardinality are not worked out.
	if as, _, set := s.AdditionalProperties(); set && hasRules(as) {
		var cti *typeInfo
		var cn *node
		if ti != nil {
			cti, cn = accessElem(ti), n.addl.schema
		}
		c.walk(as, cn, p.Child("additionalProperties"), cti, false, inScope, childCard(), forbid)
	}
	for k, ps := range s.Properties() {
		if !hasRules(ps) {
			continue
		}
		f := forbid
		if f == nil && !mapCorrelatable(s.MapType()) {
			f = p
		}
		var cti *typeInfo
		var cn *node
		if ti != nil {
			cti, cn = accessProp(ti, n, k), n.props[k].(*node)
		}
		c.walk(ps, cn, p.Child("properties").Key(k), cti, false, inScope, childCard(), f)
	}
	if it := s.Items(); hasRules(it) {
		f := forbid
		if f == nil && s.ListType() != "map" {
			f = p
		}
		var cti *typeInfo
		var cn *node
		if ti != nil {
			cti, cn = accessElem(ti), n.items
		}
		c.walk(it, cn, p.Child("items"), cti, false, inScope, childCard(), f)
	}
	if len(s.Rules()) == 0 || c.isBlocked(p) {
		return
	}
	c.checkRules(n, p, ti, card, forbid)
}

// hasRules reports whether s or a schema below it has a rule (walk's test
// for a child worth visiting).
func hasRules(s *schema.Schema) bool {
	return s != nil && s.Summary()&schema.HasRules != 0
}

// typeInfo returns n's type information: derived from the parent's when
// there is one that has it, from n's own schema otherwise.
func (c *crdChecker) typeInfo(n *node, parent *typeInfo, isRoot bool) *typeInfo {
	if parent != nil && parent.decl != nilDecl {
		// An error, a declaration, or none at all (the items or additional
		// properties of a type without elements): the server uses what its
		// accessor gives and then fails to compile the rules.
		return parent
	}
	d := common.SchemaDeclType(n, isRoot || n.IsXEmbeddedResource())
	if d == nil {
		return &typeInfo{err: errNoDecl}
	}
	return &typeInfo{decl: d}
}

// nilDecl marks a derived type information that came out empty (the server's
// property accessor returned nothing): the child falls back to its own
// schema.
var nilDecl = &apiservercel.DeclType{}

// accessElem is the type information of the items or additional
// properties of a node with type information ti. The node's structural
// schema has them, so the server takes its declaration's element type,
// even when there is none (an int-or-string object, for example).
func accessElem(ti *typeInfo) *typeInfo {
	if ti.err != nil || ti.decl == nil {
		return ti // the server dereferences the missing declaration (a 500)
	}
	return &typeInfo{decl: ti.decl.ElemType}
}

func accessProp(ti *typeInfo, n *node, name string) *typeInfo {
	if ti.err != nil || ti.decl == nil {
		return ti
	}
	if n.props != nil {
		if esc, ok := apiservercel.Escape(name); ok {
			if f, ok := ti.decl.Fields[esc]; ok {
				return &typeInfo{decl: f.Type}
			}
		}
	}
	return &typeInfo{decl: nilDecl}
}

// isBlocked reports whether another error concerns p or a node below it.
func (c *crdChecker) isBlocked(p *field.Path) bool {
	ps := p.String()
	for _, b := range c.blocked {
		if strings.HasPrefix(b, ps) && (len(b) == len(ps) || b[len(ps)] == '.' || b[len(ps)] == '[') {
			return true
		}
	}
	return false
}

func (c *crdChecker) checkRules(n *node, p *field.Path, ti *typeInfo, card *uint64, forbid *field.Path) {
	xv := p.Child("x-kubernetes-validations")
	if ti.err != nil {
		c.errs = append(c.errs, field.InternalError(xv, fmt.Errorf("internal error: failed to construct type information for x-kubernetes-validations rules: %s", ti.err)))
		return
	}
	rs := n.s.Rules()
	crs, err := compileRules(c.memo, rs, n, ti.decl, c.base, c.pick)
	if err != nil {
		c.errs = append(c.errs, field.InternalError(xv, err))
		return
	}
	for i := range crs {
		cr := &crs[i]
		rp := xv.Index(i).Child("rule")
		cost := cr.maxCost
		if card != nil {
			cost = multiplyGuarded(cost, *card)
		} else {
			cost = multiplyGuarded(cost, cr.cardinality)
		}
		if cost > ExpressionCostLimit {
			c.errs = append(c.errs, field.Forbidden(rp, costMessage("estimated rule cost", cost, ExpressionCostLimit)))
		}
		c.observe(rp, cost)
		if cr.err != nil {
			if cr.err.Type == apiservercel.ErrorTypeRequired {
				c.errs = append(c.errs, field.Required(rp, cr.err.Detail))
			} else {
				c.errs = append(c.errs, field.Invalid(rp, serverRule(&rs[i]), cr.err.Detail))
			}
		}
		if cr.msgErr != nil {
			c.errs = append(c.errs, field.Invalid(xv.Index(i).Child("messageExpression"), serverRule(&rs[i]), cr.msgErr.Detail))
		} else if cr.msgProg != nil {
			mp := xv.Index(i).Child("messageExpression")
			if cr.msgMaxCost > ExpressionCostLimit {
				c.errs = append(c.errs, field.Forbidden(mp, costMessage("estimated messageExpression cost", cr.msgMaxCost, ExpressionCostLimit)))
			}
			c.observe(mp, cr.msgMaxCost)
		}
		if cr.usesOldSelf {
			if forbid != nil {
				c.errs = append(c.errs, field.Invalid(rp, rs[i].Rule, fmt.Sprintf("oldSelf cannot be used on the uncorrelatable portion of the schema within %v", forbid)))
			}
		} else if rs[i].OptionalOldSelf != nil {
			c.errs = append(c.errs, field.Invalid(xv.Index(i).Child("optionalOldSelf"), *rs[i].OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		}
	}
}

// observe adds a cost to the total and keeps the four most expensive
// expressions above 1% of the limit, as the server does.
func (c *crdChecker) observe(p *field.Path, cost uint64) {
	if math.MaxUint64-c.total < cost {
		c.total = math.MaxUint64
	} else {
		c.total += cost
	}
	if cost < SchemaCostLimit/100 {
		return
	}
	c.mostExpensive = append(c.mostExpensive, ruleCost{p, cost})
	sort.Slice(c.mostExpensive, func(i, j int) bool { return c.mostExpensive[i].cost > c.mostExpensive[j].cost })
	if len(c.mostExpensive) > 4 {
		c.mostExpensive = c.mostExpensive[:4]
	}
}

// serverRule is the rule as the server's errors print it (its internal
// type, marshalled to JSON).
func serverRule(r *schema.ValidationRule) apiextensions.ValidationRule {
	out := apiextensions.ValidationRule{
		Rule:              r.Rule,
		Message:           r.Message,
		MessageExpression: r.MessageExpression,
		FieldPath:         r.FieldPath,
		OptionalOldSelf:   r.OptionalOldSelf,
	}
	if r.Reason != nil {
		reason := apiextensions.FieldValueErrorReason(*r.Reason)
		out.Reason = &reason
	}
	return out
}

func costMessage(name string, cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	var factor string
	switch {
	case f > 100:
		factor = "more than 100x"
	case f < 1.5:
		factor = fmt.Sprintf("%fx", f)
	default:
		factor = fmt.Sprintf("%.1fx", f)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", name, factor)
}

func multiplyGuarded(a, b uint64) uint64 {
	if a == 0 {
		return 0
	}
	if math.MaxUint64/a < b {
		return math.MaxUint64
	}
	return a * b
}

func max0(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}

func mapCorrelatable(mapType string) bool {
	return mapType == "" || mapType == "granular" || mapType == "atomic"
}

func sortedKeys(m map[string]common.Schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
