package celdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/rules"
	"github.com/crdkit/crdkit/schema"
)

// staticRuleDetails are the rule errors of the server's CRD validation that
// are not about CEL (crdkit's schema lint reports them); rules.Check takes
// them as input.
var staticRuleDetails = []string{
	"rule is not specified",
	"must be non-empty if specified",
	"must not contain line breaks",
	"message must be specified if rule contains line breaks",
	"messageExpression must be non-empty if specified",
	"must be a valid path",
}

// isCELError tells the errors rules.Check is responsible for.
func isCELError(e *field.Error) bool {
	if strings.Contains(e.Detail, "x-kubernetes-validations estimated rule cost total") {
		return true
	}
	if !strings.Contains(e.Field, "x-kubernetes-validations") {
		return false
	}
	if e.Type == field.ErrorTypeNotSupported && strings.HasSuffix(e.Field, ".reason") {
		return false
	}
	return !slices.Contains(staticRuleDetails, e.Detail)
}

// upstreamCRD runs the server's CRD validation on a create.
func upstreamCRD(crd *apiextensionsv1.CustomResourceDefinition) (internal *apiextensions.CustomResourceDefinition, errs field.ErrorList, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream panicked: %v", r)
		}
	}()
	crd = crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	internal = new(apiextensions.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		return nil, nil, err
	}
	internal.Status = apiextensions.CustomResourceDefinitionStatus{}
	internal.Generation = 1
	for _, v := range internal.Spec.Versions {
		if v.Storage {
			internal.Status.StoredVersions = append(internal.Status.StoredVersions, v.Name)
			break
		}
	}
	return internal, validation.ValidateCustomResourceDefinition(context.Background(), internal), nil
}

// oursCRD runs rules.Check on every openAPIV3Schema as the server reports
// it: once at spec.validation when the versions share a schema, else per
// version. others are the server's non-CEL errors, as crdkit's lint would
// report them.
func oursCRD(crd *apiextensionsv1.CustomResourceDefinition, internal *apiextensions.CustomResourceDefinition, others field.ErrorList) (field.ErrorList, error) {
	check := func(props *apiextensionsv1.JSONSchemaProps, base *field.Path) (field.ErrorList, error) {
		js, err := json.Marshal(props)
		if err != nil {
			return nil, err
		}
		s, err := schema.CompileJSON(js)
		if err != nil {
			return nil, err
		}
		return rules.Check(s, base, others), nil
	}
	if internal.Spec.Validation != nil {
		for _, v := range crd.Spec.Versions {
			if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
				return check(v.Schema.OpenAPIV3Schema, field.NewPath("spec", "validation", "openAPIV3Schema"))
			}
		}
		return nil, nil
	}
	var out field.ErrorList
	for i, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		errs, err := check(v.Schema.OpenAPIV3Schema, field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema"))
		if err != nil {
			return nil, err
		}
		out = append(out, errs...)
	}
	return out, nil
}

type lintTally struct {
	n, agree, refused, skipped, ties int
	differ                           []string
}

func (tl *lintTally) check(name string, crd *apiextensionsv1.CustomResourceDefinition) {
	internal, all, err := upstreamCRD(crd)
	if err != nil {
		tl.skipped++
		return
	}
	var cel, others field.ErrorList
	for _, e := range all {
		if isCELError(e) {
			cel = append(cel, e)
		} else {
			others = append(others, e)
		}
	}
	tl.n++
	if len(cel) > 0 {
		tl.refused++
	}
	got, err := oursCRD(crd, internal, others)
	up := texts(cel)
	var ours []string
	if err != nil {
		ours = []string{"error: " + err.Error()}
	} else {
		ours = texts(got)
	}
	if slices.Equal(up, ours) {
		tl.agree++
		return
	}
	// The server keeps the four most expensive expressions of a schema over
	// its total limit; among expressions of equal cost, which ones depends
	// on the order it walks properties in (Go map order). When only those
	// errors differ, the case agrees if the server itself picks differently
	// from run to run and the rest is equal.
	if contributedOnly(up, ours) && serverTieOrder(crd, up) {
		tl.agree++
		tl.ties++
		return
	}
	onlyUp, onlyOurs := difference(up, ours), difference(ours, up)
	tl.differ = append(tl.differ, fmt.Sprintf("%s (%d errors upstream, %d crdkit):\n only upstream: %s\n only crdkit:   %s", name,
		len(up), len(ours), strings.Join(onlyUp, "\n                "), strings.Join(onlyOurs, "\n                ")))
}

// TestLintAgrees compares rules.Check with the x-kubernetes-validations
// errors of the server's CRD validation on the corpus CRDs and on mutations
// of their rules.
func TestLintAgrees(t *testing.T) {
	crds, err := corpus.CRDs(filepath.Join(corpusDir(t), "crds"))
	if err != nil {
		t.Fatal(err)
	}
	tl := &lintTally{}
	var withRules int
	for _, c := range crds {
		raw, err := json.Marshal(c.CustomResourceDefinition)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		sites := ruleSites(doc)
		if len(sites.rules) == 0 {
			continue
		}
		withRules++
		tl.check(c.Doc, c.CustomResourceDefinition)
		for _, m := range lintMutations(doc, sites, rand.New(rand.NewPCG(3, uint64(len(c.Doc))))) {
			crd := new(apiextensionsv1.CustomResourceDefinition)
			js, _ := json.Marshal(m.doc)
			if err := kjson.UnmarshalCaseSensitivePreserveInts(js, crd); err != nil {
				t.Fatalf("%s %s: %v", c.Doc, m.name, err)
			}
			tl.check(c.Doc+" "+m.name, crd)
		}
	}
	for i, d := range tl.differ {
		if i == 15 {
			t.Errorf("%d more disagreements", len(tl.differ)-15)
			break
		}
		t.Errorf("%s", d)
	}
	if tl.n == 0 {
		t.Fatal("no cases")
	}
	msg := fmt.Sprintf("conformance: cel-lint %d/%d cases agree (%d corpus CRDs with rules and mutations of their rules; %d cases with CEL errors upstream", tl.agree, tl.n, withRules, tl.refused)
	if tl.ties > 0 {
		msg += fmt.Sprintf("; %d of them agree up to the server's own run-to-run choice among equally expensive contributors to an exceeded total", tl.ties)
	}
	if tl.skipped > 0 {
		msg += fmt.Sprintf("; %d where upstream panics skipped", tl.skipped)
	}
	fmt.Println(msg + ")")
}

// sites are the schema nodes of a CRD document, as generic JSON.
type sites struct {
	rules []map[string]any // nodes with x-kubernetes-validations
	lists []map[string]any // array nodes
	all   []map[string]any
}

// ruleSites walks the first version's openAPIV3Schema.
func ruleSites(doc map[string]any) sites {
	var out sites
	vs, _ := doc["spec"].(map[string]any)["versions"].([]any)
	for _, v := range vs {
		sc, _ := v.(map[string]any)["schema"].(map[string]any)
		root, _ := sc["openAPIV3Schema"].(map[string]any)
		if root == nil {
			continue
		}
		var walk func(n map[string]any)
		walk = func(n map[string]any) {
			out.all = append(out.all, n)
			if _, ok := n["x-kubernetes-validations"]; ok {
				out.rules = append(out.rules, n)
			}
			if n["type"] == "array" {
				out.lists = append(out.lists, n)
			}
			if ps, ok := n["properties"].(map[string]any); ok {
				keys := make([]string, 0, len(ps))
				for k := range ps {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					if c, ok := ps[k].(map[string]any); ok {
						walk(c)
					}
				}
			}
			if c, ok := n["items"].(map[string]any); ok {
				walk(c)
			}
			if c, ok := n["additionalProperties"].(map[string]any); ok {
				walk(c)
			}
		}
		walk(root)
		break
	}
	return out
}

type lintMutation struct {
	name string
	doc  map[string]any
}

// lintMutations returns copies of doc with rules broken in turn.
func lintMutations(doc map[string]any, st sites, r *rand.Rand) []lintMutation {
	var out []lintMutation
	// mutate applies f to the site'th node of a fresh copy.
	mutate := func(name string, pick func(sites) []map[string]any, i int, f func(n map[string]any)) {
		cp := schema.DeepCopyValue(doc).(map[string]any)
		ns := pick(ruleSites(cp))
		if i >= len(ns) {
			return
		}
		f(ns[i])
		out = append(out, lintMutation{name, cp})
	}
	firstRule := func(n map[string]any) map[string]any {
		return n["x-kubernetes-validations"].([]any)[0].(map[string]any)
	}
	setRule := func(rule string) func(n map[string]any) {
		return func(n map[string]any) { firstRule(n)["rule"] = rule }
	}
	pickRules := func(s sites) []map[string]any { return s.rules }
	pickLists := func(s sites) []map[string]any { return s.lists }
	pickAll := func(s sites) []map[string]any { return s.all }

	order := r.Perm(len(st.rules))
	if len(order) > 3 {
		order = order[:3]
	}
	for _, i := range order {
		orig := firstRule(st.rules[i])["rule"].(string)
		p := fmt.Sprintf("rule-node %d", i)
		mutate(p+" syntax", pickRules, i, setRule(orig+" &&"))
		mutate(p+" non-bool", pickRules, i, setRule("1 + 1"))
		mutate(p+" self-type", pickRules, i, setRule("self == 1"))
		mutate(p+" undefined", pickRules, i, setRule("self.noSuchField == 1"))
		mutate(p+" transition", pickRules, i, setRule("self == oldSelf"))
		mutate(p+" optional-transition", pickRules, i, func(n map[string]any) {
			firstRule(n)["rule"] = "self == oldSelf"
			firstRule(n)["optionalOldSelf"] = true
		})
		mutate(p+" optional-unused", pickRules, i, func(n map[string]any) { firstRule(n)["optionalOldSelf"] = true })
		mutate(p+" optional-false", pickRules, i, func(n map[string]any) { firstRule(n)["optionalOldSelf"] = false })
		mutate(p+" message-int", pickRules, i, func(n map[string]any) { firstRule(n)["messageExpression"] = "1" })
		mutate(p+" message-syntax", pickRules, i, func(n map[string]any) { firstRule(n)["messageExpression"] = "'a' +" })
		mutate(p+" message-ok", pickRules, i, func(n map[string]any) { firstRule(n)["messageExpression"] = "'failed: ' + string(1)" })
		mutate(p+" message-bad-rule", pickRules, i, func(n map[string]any) {
			firstRule(n)["rule"] = orig + " ||"
			firstRule(n)["messageExpression"] = "1"
		})
		mutate(p+" fieldPath", pickRules, i, func(n map[string]any) { firstRule(n)["fieldPath"] = ".noSuchField" })
		mutate(p+" reason", pickRules, i, func(n map[string]any) { firstRule(n)["reason"] = "FieldValueUnknown" })
		mutate(p+" string-bomb", pickRules, i, setRule("string(self).matches('^(a|b)*$') && string(self).contains('x') && string(self).split('a').size() > 0"))
	}
	lorder := r.Perm(len(st.lists))
	if len(lorder) > 3 {
		lorder = lorder[:3]
	}
	bomb := map[string]any{"rule": "self.all(x, self.all(y, self.all(z, true)))"}
	quad := map[string]any{"rule": "self.all(x, self.exists(y, true))", "messageExpression": "'n=' + string(self.size())"}
	for _, i := range lorder {
		p := fmt.Sprintf("list-node %d", i)
		mutate(p+" cubic", pickLists, i, func(n map[string]any) {
			n["x-kubernetes-validations"] = append(asList(n["x-kubernetes-validations"]), schema.DeepCopyValue(bomb))
		})
		mutate(p+" quadratic", pickLists, i, func(n map[string]any) {
			n["x-kubernetes-validations"] = append(asList(n["x-kubernetes-validations"]), schema.DeepCopyValue(quad))
		})
		mutate(p+" message-bomb", pickLists, i, func(n map[string]any) {
			n["x-kubernetes-validations"] = append(asList(n["x-kubernetes-validations"]), map[string]any{
				"rule": "true", "messageExpression": "self.map(x, self.map(y, 'a').join('')).join('')"})
		})
	}
	// A moderate rule on every list: the per-schema total.
	if len(st.lists) > 0 {
		cp := schema.DeepCopyValue(doc).(map[string]any)
		for _, n := range ruleSites(cp).lists {
			n["x-kubernetes-validations"] = append(asList(n["x-kubernetes-validations"]), schema.DeepCopyValue(quad))
		}
		out = append(out, lintMutation{"every-list quadratic", cp})
	}
	// A cheap rule everywhere: type errors and unknown types on every node.
	aorder := r.Perm(len(st.all))
	if len(aorder) > 4 {
		aorder = aorder[:4]
	}
	for _, i := range aorder {
		p := fmt.Sprintf("node %d", i)
		mutate(p+" has", pickAll, i, func(n map[string]any) {
			n["x-kubernetes-validations"] = append(asList(n["x-kubernetes-validations"]), map[string]any{"rule": "self == self"})
		})
		mutate(p+" size", pickAll, i, func(n map[string]any) {
			n["x-kubernetes-validations"] = append(asList(n["x-kubernetes-validations"]), map[string]any{"rule": "size(self) >= 0", "fieldPath": ".x"})
		})
	}
	return out
}

// difference returns the elements of a not in b (both sorted).
func difference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if _, found := slices.BinarySearch(b, x); !found {
			out = append(out, x)
		}
	}
	return out
}

const contributed = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"

// contributedOnly reports whether a and b differ only in which expressions
// contributed to an exceeded total, and name as many.
func contributedOnly(a, b []string) bool {
	strip := func(l []string) ([]string, int) {
		var out []string
		n := 0
		for _, x := range l {
			if strings.HasSuffix(x, contributed) {
				n++
			} else {
				out = append(out, x)
			}
		}
		return out, n
	}
	ra, na := strip(a)
	rb, nb := strip(b)
	return na == nb && slices.Equal(ra, rb)
}

// serverTieOrder reports whether the server's CRD validation, run again,
// picks other contributors than it did the first time (first). The pick
// follows Go map order, which for small maps changes in as few as 1 run in
// 8: up to 64 runs, stopping at the first change.
func serverTieOrder(crd *apiextensionsv1.CustomResourceDefinition, first []string) bool {
	for range 64 {
		_, errs, err := upstreamCRD(crd)
		if err != nil {
			return false
		}
		var cel field.ErrorList
		for _, e := range errs {
			if isCELError(e) {
				cel = append(cel, e)
			}
		}
		if !slices.Equal(texts(cel), first) {
			return true
		}
	}
	return false
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
