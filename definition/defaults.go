package definition

import (
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/objectmeta"
	"github.com/crdkit/crdkit/prune"
	"github.com/crdkit/crdkit/rules"
	"github.com/crdkit/crdkit/schema"
)

// validateDefaults makes the server's CRD-time checks of every default in a
// structural schema (defaulting.ValidateDefaults with pruned defaults
// required): walking properties and items (never additionalProperties), a
// default must survive pruning, coerce and validate as embedded-resource
// metadata where it applies, and pass OpenAPI validation against its own
// node. Defaults inside the metadata, apiVersion or kind of a resource are
// checked inside a surrounding object. A default that passes all that is
// checked against the x-kubernetes-validations rules of its node, with one
// CEL budget for the whole walk, which stops when it runs out. An update of
// a live CRD that already has unpruned defaults does not require pruned
// ones (requirePruned false).
//
// Like the server, it coerces the metadata of embedded resources in a
// default that is not inside metadata in place: in p's default values (p is
// what s was compiled from), which are the CRD's own. The error about
// unknown fields, built before, shows the coerced value, and the CRD is
// stored with it.
//
// On an update (live not nil), pruned defaults are required first and the
// live CRD is consulted only when a default is not pruned: the errors for
// that are dropped afterwards when the live CRD has unpruned defaults too
// (nothing else in the walk depends on them).
func validateDefaults(s *schema.Schema, p *schema.Props, pth *field.Path, requirePruned bool, live *liveFacts, c *rules.Compiler) field.ErrorList {
	w := defaultsWalker{budget: rules.RuntimeBudget, requirePruned: requirePruned, compiler: c}
	w.walk(pth, s, p, s, true, nil, false, 0)
	if len(w.unpruned) > 0 && live != nil && !live.prunedDefaults() {
		drop := map[*field.Error]bool{}
		for _, e := range w.unpruned {
			drop[e] = true
		}
		return slices.DeleteFunc(w.errs, func(e *field.Error) bool { return drop[e] })
	}
	return w.errs
}

// step is one step from a resource root down to a node: a property name, or
// an array element (index true).
type step struct {
	key   string
	index bool
}

type defaultsWalker struct {
	errs          field.ErrorList
	budget        int64 // CEL cost left; the walk stops below zero
	requirePruned bool
	unpruned      []*field.Error // the errors of unpruned defaults
	compiler      *rules.Compiler
}

// walk visits s and p, the props it was compiled from (nil when unknown).
// A subtree without defaults (its summary says so) is not visited: the walk
// acts on defaults only.
func (w *defaultsWalker) walk(pth *field.Path, s *schema.Schema, p *schema.Props, root *schema.Schema, top bool, steps []step, insideMeta bool, depth int) {
	if s == nil || s.Summary()&schema.HasDefaults == 0 || depth > maxWalkDepth || w.budget < 0 {
		return
	}
	embedded := top || s.EmbeddedResource()
	if embedded {
		insideMeta, steps, root = false, nil, s
	}
	if def, ok := s.Default(); ok {
		dp := pth.Child("default")
		if insideMeta {
			w.metaDefault(dp, def, s, root, steps)
		} else {
			if p != nil && p.Default != nil {
				def = p.Default.V // the CRD's own value, coerced in place
			}
			w.plainDefault(dp, def, s, embedded)
		}
	}
	// A child without a default in its subtree is not visited (walk would
	// return at once): no path or steps are built for it.
	if it := s.Items(); it != nil && it.Summary()&schema.HasDefaults != 0 {
		var ip *schema.Props
		if p != nil {
			ip = p.Items
		}
		w.walk(pth.Child("items"), it, ip, root, false, append(steps[:len(steps):len(steps)], step{index: true}), insideMeta, depth+1)
	}
	for k, c := range s.Properties() {
		if c == nil || c.Summary()&schema.HasDefaults == 0 {
			continue
		}
		var cp *schema.Props
		if p != nil {
			cp = p.Properties[k]
		}
		sub := insideMeta || (embedded && (k == "metadata" || k == "apiVersion" || k == "kind"))
		w.walk(pth.Child("properties").Key(k), c, cp, root, false, append(steps[:len(steps):len(steps)], step{key: k}), sub, depth+1)
	}
}

func (w *defaultsWalker) plainDefault(dp *field.Path, def any, s *schema.Schema, embedded bool) {
	if w.requirePruned {
		pruned := schema.DeepCopyValue(def)
		prune.Object(pruned, s, prune.Options{Root: embedded}, nil)
		if !reflect.DeepEqual(pruned, def) {
			e := field.Invalid(dp, def, "must not have unknown fields")
			w.errs = append(w.errs, e)
			w.unpruned = append(w.unpruned, e)
		}
	}
	// The server coerces the default itself, after the error above was
	// built over it, and validates what the coercion leaves.
	if err, _ := objectmeta.Coerce(dp, def, s, objectmeta.CoerceOptions{ResourceRoot: embedded}); err != nil {
		w.errs = append(w.errs, err)
		return
	}
	if errs := objectmeta.Validate(dp, def, s, objectmeta.ValidateOptions{ResourceRoot: embedded}); len(errs) > 0 {
		w.errs = append(w.errs, errs...)
		return
	}
	w.valuesAndRules(dp, def, s, embedded)
}

// valuesAndRules checks a default against its node's OpenAPI schema, then,
// when that passes, against the node's x-kubernetes-validations rules
// (resourceRoot: the node is the root or an embedded resource).
func (w *defaultsWalker) valuesAndRules(dp *field.Path, def any, s *schema.Schema, resourceRoot bool) {
	if errs := toFieldErrors(s.Validate(def, schema.NewPath(dp.String()), nil)); len(errs) > 0 {
		w.errs = append(w.errs, errs...)
		return
	}
	if s.Summary()&schema.HasRules == 0 {
		return
	}
	v, err := w.compiler.CompileNode(s, resourceRoot)
	if err != nil {
		w.errs = append(w.errs, field.InternalError(dp, err))
		return
	}
	errs, left := v.ValidateDefault(dp, def, w.budget)
	w.errs = append(w.errs, errs...)
	w.budget = left
}

// metaDefault checks a default under a resource's metadata, apiVersion or
// kind inside an object built around it, as the server does.
func (w *defaultsWalker) metaDefault(dp *field.Path, def any, s, root *schema.Schema, steps []step) {
	// The surrounding object has the type meta of a made-up kind; the
	// default is placed over it, so a default for apiVersion or kind wins.
	if len(steps) == 0 || steps[0].index {
		return
	}
	var v any = schema.DeepCopyValue(def)
	for i := len(steps) - 1; i >= 1; i-- {
		if steps[i].index {
			v = []any{v}
		} else {
			v = map[string]any{steps[i].key: v}
		}
	}
	obj := map[string]any{"apiVersion": "validation/v1", "kind": "Validation"}
	obj[steps[0].key] = v
	if err, _ := objectmeta.Coerce(nil, obj, root, objectmeta.CoerceOptions{ResourceRoot: true}); err != nil {
		w.errs = append(w.errs, field.Invalid(dp, def, fmt.Sprintf("must result in valid metadata: %v", err)))
		return
	}
	if errs := objectmeta.Validate(nil, obj, root, objectmeta.ValidateOptions{ResourceRoot: true}); len(errs) > 0 {
		w.errs = append(w.errs, field.Invalid(dp, def, fmt.Sprintf("must result in valid metadata: %v", errs.ToAggregate())))
		return
	}
	w.valuesAndRules(dp, def, s, s == root)
}
