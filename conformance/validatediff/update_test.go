package validatediff

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/crdkit/crdkit/conformance/gen"
	"github.com/crdkit/crdkit/schema"
)

// The ratcheted update differential: crdkit's Schema.ValidateUpdate with
// schema.Correlate against the server's ValidateCustomResourceUpdate with
// the correlated object its strategies build (customresource strategy.go
// and status_strategy.go, CRDValidationRatcheting being GA and locked on in
// v0.37), on pairs of an old object and a new one made from it by one to
// three generated changes, and on pairs whose old object is already invalid
// and whose changes are elsewhere, so that ratcheting drops its errors.

// updatePair is the new and old object of an update.
type updatePair struct {
	name     string
	new, old map[string]any // not modified once made
}

// upstreamUpdate validates new over old as the strategy's ValidateUpdate
// does: a correlated object of the root (a fresh one: it caches) given to
// ValidateCustomResourceUpdate with WithRatcheting.
func upstreamUpdate(tg *target, nw, old map[string]any) (cs []cause, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream panicked: %v", r)
		}
	}()
	co := common.NewCorrelatedObject(nw, old, &model.Structural{Structural: tg.structural})
	errs := apiservervalidation.ValidateCustomResourceUpdate(nil, nw, old, tg.validator, apiservervalidation.WithRatcheting(co))
	return fieldCauses(errs), nil
}

// upstreamStatusUpdate validates the status of new over old's as the status
// strategy does: the status schema's own validator, the field path status,
// and the root's correlated object's child "status".
func upstreamStatusUpdate(tg *target, sv apiservervalidation.SchemaValidator, nw, old map[string]any) (cs []cause, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream panicked: %v", r)
		}
	}()
	status, ok := nw["status"]
	if !ok {
		return nil, nil
	}
	co := common.NewCorrelatedObject(nw, old, &model.Structural{Structural: tg.structural})
	errs := apiservervalidation.ValidateCustomResourceUpdate(field.NewPath("status"), status, old["status"], sv, apiservervalidation.WithRatcheting(co.Key("status")))
	return fieldCauses(errs), nil
}

func schemaCauses(errs schema.ErrorList) []cause {
	cs := make([]cause, 0, len(errs))
	for _, e := range errs {
		cs = append(cs, cause{e.Field, string(e.Type), e.Body()})
	}
	return cs
}

// oursUpdate is crdkit's ratcheted validation of the root.
func oursUpdate(tg *target, nw, old map[string]any) []cause {
	return schemaCauses(tg.ours.ValidateUpdate(nw, schema.Correlate(tg.ours, nw, old), nil, nil))
}

// oursStatusUpdate is crdkit's ratcheted validation of the status alone.
func oursStatusUpdate(st *schema.Schema, nw, old map[string]any) []cause {
	status, ok := nw["status"]
	if !ok {
		return nil
	}
	return schemaCauses(st.ValidateUpdate(status, schema.Correlate(st, status, old["status"]), schema.NewPath("status"), nil))
}

// checkUpdate compares the ratcheted causes of both implementations, and
// counts the case as ratcheted when upstream's plain validation of the new
// object (plain) reports more.
func (tl *tally) checkUpdate(tg *target, p updatePair, up, got []cause, plain int, rerun func() ([]cause, error)) {
	tl.n++
	if len(up) > 0 {
		tl.invalid++
		tl.causes += len(up)
	}
	if plain > len(up) {
		tl.ratcheted++
	}
	obj := map[string]any{"new": p.new, "old": p.old}
	if slices.Equal(sortCauses(slices.Clone(up)), sortCauses(slices.Clone(got))) {
		tl.agree++
		if len(up) >= 2 {
			j := orderJob{tg: tg, name: p.name, obj: obj, up: up, got: got, rerun: rerun}
			if tl.orders != nil {
				tl.orders <- j
			} else {
				tl.checkOrder(j)
			}
		}
		return
	}
	in, _ := json.Marshal(obj)
	tl.differ = append(tl.differ, fmt.Sprintf("%s %s:\n input:    %s\n upstream: %s\n crdkit:   %s",
		tg.name, p.name, truncate(string(in)), joinCauses(sortCauses(up)), joinCauses(sortCauses(got))))
}

// TestValidateUpdateAgrees compares ratcheted validation of updates, of the
// whole object (PUT) and of the status alone (PUT to /status), on the
// corpus CRD versions and on synthetic ones whose schemas have what the
// corpus lacks: properties inside anyOf, oneOf, allOf and not, map lists
// with composite keys, atomic and set lists of constrained items, the
// root's and the status's kind and apiVersion constrained.
func TestValidateUpdateAgrees(t *testing.T) {
	sets := []struct {
		name    string
		targets []*target
	}{{"corpus", corpusTargets(t)}, {"synthetic", syntheticTargets(t)}}
	var lines []string
	t.Run("update", func(t *testing.T) {
		tl := &tally{}
		var parts []string
		for _, set := range sets {
			n, agree := tl.n, tl.agree
			t.Run(set.name, func(t *testing.T) {
				tl.orderWorkers()
				defer tl.waitOrders()
				for _, tg := range set.targets {
					checkUpdates(t, tl, tg)
				}
			})
			parts = append(parts, fmt.Sprintf("%s %d/%d", set.name, tl.agree-agree, tl.n-n))
		}
		tl.report(t, "update")
		lines = append(lines,
			fmt.Sprintf("conformance: validate-update-ratcheting %d/%d (%d with errors ratcheted; %s; %d invalid upstream with %d causes)",
				tl.agree, tl.n, tl.ratcheted, strings.Join(parts, ", "), tl.invalid, tl.causes),
			fmt.Sprintf("conformance: validate-update-order-exact %d/%d (%d unstable)", tl.orderAgree, tl.ordered, tl.unstable))
		if tl.skipped > 0 {
			t.Errorf("upstream panicked on %d updates", tl.skipped)
		}
	})
	t.Run("status", func(t *testing.T) {
		tl := &tally{}
		versions := 0
		var parts []string
		for _, set := range sets {
			n, agree := tl.n, tl.agree
			t.Run(set.name, func(t *testing.T) {
				tl.orderWorkers()
				defer tl.waitOrders()
				for _, tg := range set.targets {
					if checkStatusUpdates(t, tl, tg) {
						versions++
					}
				}
			})
			parts = append(parts, fmt.Sprintf("%s %d/%d", set.name, tl.agree-agree, tl.n-n))
		}
		tl.report(t, "status")
		lines = append(lines,
			fmt.Sprintf("conformance: validate-status-update-ratcheting %d/%d (%d with errors ratcheted; %s; %d CRD versions with a status schema)",
				tl.agree, tl.n, tl.ratcheted, strings.Join(parts, ", "), versions),
			fmt.Sprintf("conformance: validate-status-update-order-exact %d/%d (%d unstable)", tl.orderAgree, tl.ordered, tl.unstable))
		if tl.skipped > 0 {
			t.Errorf("upstream panicked on %d status updates", tl.skipped)
		}
	})
	for _, l := range lines {
		fmt.Println(l)
	}
}

// checkUpdates compares both implementations on a target's update pairs.
func checkUpdates(t *testing.T, tl *tally, tg *target) {
	if tg.structural == nil {
		return
	}
	for _, p := range updatePairs(t, tg, nil) {
		up, err := upstreamUpdate(tg, p.new, p.old)
		if err != nil {
			tl.skipped++
			continue
		}
		plain := len(apiservervalidation.ValidateCustomResource(nil, p.new, tg.validator))
		tl.checkUpdate(tg, p, up, oursUpdate(tg, p.new, p.old), plain, func() ([]cause, error) {
			return upstreamUpdate(tg, p.new, p.old)
		})
	}
}

// checkStatusUpdates compares both implementations on a target's update
// pairs whose changes are in the status, validating the status alone as
// the status strategy does; false when the target has no status schema.
func checkStatusUpdates(t *testing.T, tl *tally, tg *target) bool {
	st := tg.ours.Property("status")
	sp, ok := tg.props.Properties["status"]
	if tg.structural == nil || st == nil || !ok {
		return false
	}
	// The server's statusSchemaValidator (getOrCreateServingInfoFor).
	internal := new(apiextensions.JSONSchemaProps)
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&sp, internal, nil); err != nil {
		t.Fatal(err)
	}
	sv, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		t.Errorf("%s: status validator: %v", tg.name, err)
		return false
	}
	underStatus := func(path []any) bool { return len(path) > 0 && path[0] == "status" }
	pairs := updatePairs(t, tg, underStatus)
	// A status of null over none or null: the status strategy's
	// Key("status") finds no pair over none, and the validator then pairs
	// the new status with a nil old one, which is Equal.
	if g, err := gen.New(tg.crd, tg.version, gen.Options{}); err == nil {
		base := g.Object(1, "status")
		without := deepCopy(base).(map[string]any)
		delete(without, "status")
		null := deepCopy(base).(map[string]any)
		null["status"] = nil
		pairs = append(pairs,
			updatePair{"null status over none", null, without},
			updatePair{"null status over null", null, deepCopy(null).(map[string]any)},
			updatePair{"status over none", base, without},
			updatePair{"status over null", base, null})
	}
	for _, p := range pairs {
		status, ok := p.new["status"]
		if !ok {
			continue
		}
		up, err := upstreamStatusUpdate(tg, sv, p.new, p.old)
		if err != nil {
			tl.skipped++
			continue
		}
		plain := len(apiservervalidation.ValidateCustomResource(field.NewPath("status"), status, sv))
		tl.checkUpdate(tg, p, up, oursStatusUpdate(st, p.new, p.old), plain, func() ([]cause, error) {
			return upstreamStatusUpdate(tg, sv, p.new, p.old)
		})
	}
	return true
}

// syntheticSchema has what ratcheting treats specially and the corpus
// lacks; KIND is replaced by the root kind's schema.
const syntheticSchema = `{"type":"object","properties":{
  "apiVersion":{"type":"string","maxLength":40},
  "kind":KIND,
  "metadata":{"type":"object"},
  "spec":{"type":"object",
    "properties":{
      "x":{"type":"string"},"y":{"type":"integer"},"z":{"type":"string"},
      "obj":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}},
      "list":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
        "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"v":{"type":"string"},"n":{"type":"integer","maximum":3}}}},
      "multi":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k1","k2"],
        "items":{"type":"object","required":["k1","k2"],"properties":{"k1":{"type":"string"},"k2":{"type":"integer"},"v":{"type":"string","maxLength":2}}}},
      "atomic":{"type":"array","maxItems":3,"items":{"type":"object","properties":{"v":{"type":"string","maxLength":2}}}},
      "set":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string","maxLength":2}},
      "labels":{"type":"object","maxProperties":3,"additionalProperties":{"type":"string","maxLength":2}},
      "nested":{"type":"object","additionalProperties":{"type":"object","properties":{"deep":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["id"],
        "items":{"type":"object","required":["id"],"properties":{"id":{"type":"integer"},"w":{"type":"string","enum":["a","b"]}}}}}}},
      "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"maxProperties":2},
      "ios":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}],"maxLength":3}
    },
    "anyOf":[{"properties":{"x":{"maxLength":2}}},{"required":["y"]}],
    "oneOf":[{"properties":{"obj":{"properties":{"a":{"maxLength":2}}}}},{"required":["z"]}],
    "allOf":[{"properties":{"y":{"maximum":5}}},{"properties":{"list":{"items":{"properties":{"v":{"maxLength":2}}}}}}],
    "not":{"required":["x"],"properties":{"x":{"enum":["bad"]}}}
  },
  "status":{"type":"object","properties":{
    "kind":{"type":"string","maxLength":2},"apiVersion":{"type":"string","maxLength":2},
    "phase":{"type":"string","maxLength":2},
    "conds":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["type"],
      "items":{"type":"object","required":["type"],"properties":{"type":{"type":"string"},"msg":{"type":"string","maxLength":2}}}}},
    "anyOf":[{"properties":{"phase":{"minLength":1}}}]}
}}`

// syntheticInvalid are values of the synthetic schema with one invalid
// part beside valid ones.
var syntheticInvalid = []struct {
	path  []any
	value string
}{
	{[]any{"spec", "atomic"}, `[{"v":"long"},{"v":"ok"}]`},
	{[]any{"spec", "set"}, `["long","ok"]`},
	{[]any{"spec", "list"}, `[{"name":"a","n":9},{"name":"b","n":1}]`},
	// Repeated keys: an item pairs with the first old item of its keys.
	{[]any{"spec", "list"}, `[{"name":"a","n":9},{"name":"a","n":1},{"name":"b","n":8}]`},
	{[]any{"spec", "multi"}, `[{"k1":"a","k2":1,"v":"ok"},{"k1":"a","k2":1,"v":"long"}]`},
	{[]any{"spec", "multi"}, `[{"k1":"a","k2":1,"v":"long"},{"k1":"a","k2":2,"v":"ok"},{"k1":"b","k2":1,"v":"ok"}]`},
	{[]any{"spec", "nested"}, `{"x":{"deep":[{"id":1,"w":"c"},{"id":2,"w":"a"}]},"y":{"deep":[]}}`},
	{[]any{"spec", "labels"}, `{"a":"long","b":"ok"}`},
	{[]any{"spec", "obj"}, `{"a":"long","b":1}`},
	{[]any{"spec", "free"}, `{"a":1,"b":2,"c":3}`},
	{[]any{"status", "conds"}, `[{"type":"A","msg":"long"},{"type":"B","msg":"ok"}]`},
	{[]any{"status", "phase"}, `"long"`},
}

func decodeJSON(t *testing.T, s string) any {
	v, err := decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// syntheticTargets returns targets of synthetic CRDs: the schema with the
// root kind unconstrained, and constrained so that every object breaks it.
func syntheticTargets(t *testing.T) []*target {
	var out []*target
	for i, kind := range []string{`{"type":"string"}`, `{"type":"string","maxLength":4}`} {
		props := new(apiextensionsv1.JSONSchemaProps)
		if err := json.Unmarshal([]byte(strings.Replace(syntheticSchema, "KIND", kind, 1)), props); err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "synths.synthetic.crdkit.dev"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "synthetic.crdkit.dev",
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "synths", Singular: "synth", Kind: "Synth", ListKind: "SynthList"},
				Scope: apiextensionsv1.NamespaceScoped,
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: "v1", Served: true, Storage: true,
					Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props},
					Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				}},
			},
		}
		tg, err := newTarget(fmt.Sprintf("synthetic-%d/v1", i), props)
		if err != nil {
			t.Fatal(err)
		}
		if tg.structural == nil {
			t.Fatalf("%s: not structural", tg.name)
		}
		if errs := structuralschema.ValidateStructural(nil, tg.structural); len(errs) > 0 {
			t.Fatalf("%s: %v", tg.name, errs)
		}
		tg.apiVersion, tg.kind, tg.crd, tg.version = "synthetic.crdkit.dev/v1", "Synth", crd, "v1"
		out = append(out, tg)
	}
	return out
}

// updatePairs returns the update pairs of one target: old objects from the
// corpus, generated valid objects, generated invalid cases (the server
// refuses them as creates) and generated objects broken at random sites, each paired with itself unchanged and with
// six copies changed (twelve, and 40 generated objects, for the synthetic
// targets) at one to three random sites. Changes to an
// invalid old object avoid the values of its errors (they may change what
// holds them: reorder the list, add a property beside), so that the
// invalid values are kept and ratcheting has something to drop. allow, when not
// nil, limits the sites changed (the status variant changes the status).
func updatePairs(t *testing.T, tg *target, allow func(path []any) bool) []updatePair {
	seeds, changes := uint64(3), 6
	if strings.HasPrefix(tg.name, "synthetic") {
		seeds, changes = 40, 12
	}
	g, err := gen.New(tg.crd, tg.version, gen.Options{OptionalRatio: 0.9, MaxItems: 3})
	if err != nil {
		t.Errorf("%s: %v", tg.name, err)
		return nil
	}
	type oldObj struct {
		name   string
		obj    map[string]any
		fields []string // the fields of its errors as a create
	}
	var olds []oldObj
	add := func(name string, obj map[string]any) {
		var fields []string
		for _, e := range apiservervalidation.ValidateCustomResource(nil, obj, tg.validator) {
			fields = append(fields, e.Field)
		}
		olds = append(olds, oldObj{name, obj, fields})
	}
	for _, d := range corpusKind(t, tg) {
		add(d.name, d.obj)
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		add(fmt.Sprintf("generated %d", seed), g.Object(seed, "update"))
	}
	cg, err := gen.New(tg.crd, tg.version, gen.Options{Cases: 150, MultiErrors: 30})
	if err != nil {
		t.Errorf("%s: %v", tg.name, err)
		return nil
	}
	invalid := 0
	for _, c := range cg.Cases() {
		if c.Mutation == "valid" || invalid == 40 {
			continue
		}
		v, err := decode(c.Raw)
		obj, ok := v.(map[string]any)
		if err != nil || !ok {
			continue
		}
		if len(apiservervalidation.ValidateCustomResource(nil, obj, tg.validator)) == 0 {
			continue
		}
		invalid++
		add("case "+c.Name, obj)
	}

	// The synthetic schema's lists and maps holding an invalid value beside
	// a valid one, in generated objects: changes then reorder, add to or
	// change the rest of what holds the invalid value.
	if strings.HasPrefix(tg.name, "synthetic") {
		for seed := uint64(1); seed <= 10; seed++ {
			for _, iv := range syntheticInvalid {
				obj := g.Object(seed, "update")
				parent, _ := getAt(obj, iv.path[:len(iv.path)-1]).(map[string]any)
				if parent == nil {
					parent = map[string]any{}
					setAt(obj, iv.path[:len(iv.path)-1], parent)
				}
				parent[iv.path[len(iv.path)-1].(string)] = decodeJSON(t, iv.value)
				if len(apiservervalidation.ValidateCustomResource(nil, obj, tg.validator)) > 0 {
					add(fmt.Sprintf("generated %d with %s", seed, fieldOf(iv.path)), obj)
				}
			}
		}
	}

	// Generated objects broken at random sites with values of other kinds
	// and out of bounds (those of TestValidateAgrees's mutations).
	r := rand.New(rand.NewPCG(14, uint64(len(tg.name))))
	for seed := uint64(1); seed <= seeds; seed++ {
		base := g.Object(seed, "update")
		var ss []site
		collectSites(tg.ours, base, nil, &ss)
		ss = slices.DeleteFunc(ss, func(x site) bool { return len(x.path) == 0 || (allow != nil && !allow(x.path)) })
		for range min(len(ss), 4) {
			x := ss[r.IntN(len(ss))]
			vs := variants(x)
			obj := deepCopy(base).(map[string]any)
			setAt(obj, x.path, vs[r.IntN(len(vs))])
			if len(apiservervalidation.ValidateCustomResource(nil, obj, tg.validator)) > 0 {
				add(fmt.Sprintf("generated %d broken at %s", seed, fieldOf(x.path)), obj)
			}
		}
	}

	var out []updatePair
	for i, o := range olds {
		donor := g.Object(uint64(100+i), "update")
		out = append(out, updatePair{o.name + " unchanged", deepCopy(o.obj).(map[string]any), o.obj})
		avoid := func(path []any) bool {
			if allow != nil && !allow(path) {
				return true
			}
			f := fieldOf(path)
			for _, e := range o.fields {
				if within(f, e) {
					return true
				}
			}
			return false
		}
		// Values that hold an error's value: changing them (reordering a
		// list, changing another item) keeps the invalid value or not, as
		// the pairing decides.
		holds := func(path []any) bool {
			f := fieldOf(path)
			for _, e := range o.fields {
				if f != e && within(e, f) {
					return true
				}
			}
			return false
		}
		for k := range changes {
			nw := deepCopy(o.obj).(map[string]any)
			var did []string
			for range 1 + r.IntN(3) {
				if d := change(r, tg.ours, nw, donor, avoid, holds); d != "" {
					did = append(did, d)
				}
			}
			if len(did) == 0 {
				continue
			}
			out = append(out, updatePair{fmt.Sprintf("%s #%d %s", o.name, k, strings.Join(did, ", ")), nw, o.obj})
		}
	}
	return out
}

type namedObj struct {
	name string
	obj  map[string]any
}

// corpusKind returns the corpus objects of a target's apiVersion and kind.
func corpusKind(t *testing.T, tg *target) []namedObj {
	var out []namedObj
	for _, d := range readDocumentsOnce(t) {
		var tm metaHeader
		if json.Unmarshal(d.JSON, &tm) != nil || tm.APIVersion != tg.apiVersion || tm.Kind != tg.kind {
			continue
		}
		v, err := decode(d.JSON)
		if m, ok := v.(map[string]any); err == nil && ok {
			out = append(out, namedObj{d.Name, m})
		}
	}
	return out
}

var corpusObjectDocs []corpusDoc

type corpusDoc struct {
	Name string
	JSON []byte
}

func readDocumentsOnce(t *testing.T) []corpusDoc {
	if corpusObjectDocs == nil {
		for _, d := range readDocuments(t, filepath.Join(corpusDir(t), "objects")) {
			corpusObjectDocs = append(corpusObjectDocs, corpusDoc{d.Name, d.JSON})
		}
	}
	return corpusObjectDocs
}

// fieldOf renders a site's path as kube-openapi names fields: keys joined
// by dots, indexes in brackets.
func fieldOf(path []any) string {
	var b strings.Builder
	for _, e := range path {
		switch e := e.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e)
		case int:
			b.WriteString("[" + strconv.Itoa(e) + "]")
		}
	}
	return b.String()
}

// within reports whether field a is field b or inside it. Nothing is
// within an error of the root ("<nil>"): the root is never unchanged once
// something changes.
func within(a, b string) bool {
	if b == "<nil>" || b == "" {
		return false
	}
	return strings.HasPrefix(a, b) && (len(a) == len(b) || a[len(b)] == '.' || a[len(b)] == '[')
}

// change makes one change to obj at a random site that avoid does not
// refuse, one that prefer accepts half of the time, and describes it; "" when there was none to make. The kinds:
// a scalar changed, a value kept (set again to an equal copy), replaced by
// a value of another kind, or removed; a list-type=map list reordered, an
// item added with new keys, removed or duplicated; an item of another list
// changed, or one appended; a property added (from the donor, a generated
// object of the same schema) or an unknown one added.
func change(r *rand.Rand, s *schema.Schema, obj map[string]any, donor map[string]any, avoid, prefer func([]any) bool) string {
	var ss []site
	collectSites(s, obj, nil, &ss)
	ss = slices.DeleteFunc(ss, func(x site) bool { return len(x.path) == 0 || avoid(x.path) })
	if preferred := slices.DeleteFunc(slices.Clone(ss), func(x site) bool { return !prefer(x.path) }); len(preferred) > 0 && r.IntN(2) == 0 {
		ss = preferred
	}
	// Properties of the donor missing from obj, whose object is in obj.
	var adds []site
	var ds []site
	collectSites(s, donor, nil, &ds)
	for _, d := range ds {
		if len(d.path) == 0 || avoid(d.path) {
			continue
		}
		k, ok := d.path[len(d.path)-1].(string)
		if !ok {
			continue
		}
		if parent, ok := getAt(obj, d.path[:len(d.path)-1]).(map[string]any); ok {
			if _, has := parent[k]; !has {
				adds = append(adds, d)
			}
		}
	}
	if len(ss) == 0 && len(adds) == 0 {
		return ""
	}
	if len(adds) > 0 && (len(ss) == 0 || r.IntN(5) == 0) {
		d := adds[r.IntN(len(adds))]
		setAt(obj, d.path, deepCopy(d.v))
		return "add " + fieldOf(d.path)
	}
	x := ss[r.IntN(len(ss))]
	f := fieldOf(x.path)
	switch v := x.v.(type) {
	case []any:
		if len(v) == 0 {
			break
		}
		l := slices.Clone(v)
		if x.s.ListType() == "map" {
			switch r.IntN(4) {
			case 0:
				r.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
				setAt(obj, x.path, l)
				return "reorder " + f
			case 1:
				item := deepCopy(l[r.IntN(len(l))])
				if m, ok := item.(map[string]any); ok {
					for _, k := range x.s.ListMapKeys() {
						if kv, ok := m[k]; ok {
							m[k] = tweak(kv)
						}
					}
				}
				setAt(obj, x.path, append(l, item))
				return "add item " + f
			case 2:
				i := r.IntN(len(l))
				setAt(obj, x.path, slices.Delete(l, i, i+1))
				return fmt.Sprintf("remove item %s[%d]", f, i)
			default:
				setAt(obj, x.path, append(l, deepCopy(l[r.IntN(len(l))])))
				return "duplicate item " + f
			}
		}
		if r.IntN(2) == 0 {
			i := r.IntN(len(l))
			l[i] = tweak(l[i])
			setAt(obj, x.path, l)
			return fmt.Sprintf("change item %s[%d]", f, i)
		}
		setAt(obj, x.path, append(l, deepCopy(l[len(l)-1])))
		return "append item " + f
	case map[string]any:
		if r.IntN(3) == 0 {
			m := deepCopy(v).(map[string]any)
			m["crdkitUnknown"] = "x"
			setAt(obj, x.path, m)
			return "add unknown " + f
		}
	}
	switch r.IntN(6) {
	case 0:
		setAt(obj, x.path, deepCopy(x.v))
		return "keep " + f
	case 1:
		vs := variants(x)
		setAt(obj, x.path, vs[r.IntN(len(vs))])
		return "replace " + f
	case 2:
		removeAt(obj, x.path)
		return "remove " + f
	}
	setAt(obj, x.path, tweak(x.v))
	return "change " + f
}

// tweak returns a value of the same kind as v that differs from it.
func tweak(v any) any {
	switch x := v.(type) {
	case string:
		return x + "x"
	case int64:
		return x + 1
	case float64:
		return x + 0.5
	case bool:
		return !x
	case map[string]any:
		m := deepCopy(x).(map[string]any)
		if len(m) == 0 {
			m["crdkitUnknown"] = int64(1)
			return m
		}
		k := slices.Min(slices.Collect(maps.Keys(m)))
		m[k] = tweak(m[k])
		return m
	case []any:
		if len(x) == 0 {
			return []any{"x"}
		}
		return append(slices.Clone(x), deepCopy(x[0]))
	}
	return "x"
}

func getAt(root map[string]any, path []any) any {
	var cur any = root
	for _, e := range path {
		switch c := cur.(type) {
		case map[string]any:
			k, _ := e.(string)
			cur = c[k]
		case []any:
			i, _ := e.(int)
			if i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// removeAt deletes the property, or the list item, at path.
func removeAt(root map[string]any, path []any) {
	parent := getAt(root, path[:len(path)-1])
	switch p := parent.(type) {
	case map[string]any:
		k, _ := path[len(path)-1].(string)
		delete(p, k)
	case []any:
		i, _ := path[len(path)-1].(int)
		if len(path) == 1 {
			return
		}
		setAt(root, path[:len(path)-1], slices.Delete(slices.Clone(p), i, i+1))
	}
}
