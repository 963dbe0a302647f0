package celdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/conformance/gen"
	"github.com/crdkit/crdkit/conformance/internal/diffreport"
	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/rules"
	"github.com/crdkit/crdkit/schema"
)

func corpusDir(t testing.TB) string {
	d, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the directory holding crds/ and objects/ (default ../shared/corpus beside the repository)")
	}
	return d
}

// target is one CRD version with rules, compiled by both implementations.
type target struct {
	name       string
	apiVersion string
	kind       string
	crd        *apiextensionsv1.CustomResourceDefinition
	version    string
	structural *structuralschema.Structural
	upstream   *cel.Validator
	schema     *schema.Schema
	ours       *rules.Validator
}

// newTarget compiles one openAPIV3Schema as the server does for serving
// (NewStructural, then cel.NewValidator at the resource root) and as crdkit
// does.
func newTarget(name string, props *apiextensionsv1.JSONSchemaProps) (*target, error) {
	internal := new(apiextensions.JSONSchemaProps)
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(props, internal, nil); err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	ss, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, fmt.Errorf("NewStructural: %w", err)
	}
	js, err := json.Marshal(props)
	if err != nil {
		return nil, err
	}
	s, err := schema.CompileJSON(js)
	if err != nil {
		return nil, fmt.Errorf("crdkit schema: %w", err)
	}
	ours, err := rules.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("rules.Compile: %w", err)
	}
	up := cel.NewValidator(ss, true, celconfig.PerCallLimit)
	if (up == nil) != (ours == nil) {
		return nil, fmt.Errorf("upstream validator nil %v, crdkit nil %v", up == nil, ours == nil)
	}
	return &target{name: name, structural: ss, upstream: up, schema: s, ours: ours}, nil
}

// targets returns the corpus CRD versions with rules.
func targets(t testing.TB) []*target {
	versions, err := corpus.Versions(filepath.Join(corpusDir(t), "crds"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*target
	for _, v := range versions {
		crd := v.CustomResourceDefinition
		tg, err := newTarget(crd.Name+"/"+v.Name, v.Schema.OpenAPIV3Schema)
		if err != nil {
			t.Errorf("%s %s: %v", v.Doc, v.Name, err)
			continue
		}
		if tg.upstream == nil {
			continue
		}
		tg.apiVersion, tg.kind = crd.Spec.Group+"/"+v.Name, crd.Spec.Names.Kind
		tg.crd, tg.version = crd, v.Name
		out = append(out, tg)
	}
	if len(out) == 0 {
		t.Skip("no CRD versions with rules in the corpus")
	}
	return out
}

func decode(raw []byte) (any, error) {
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// outcome is what one validator says about one object.
type outcome struct {
	errs   []string // sorted Error() texts
	budget int64
}

func (o outcome) String() string {
	if len(o.errs) == 0 {
		return fmt.Sprintf("(no errors), budget %d", o.budget)
	}
	return fmt.Sprintf("budget %d\n           %s", o.budget, strings.Join(o.errs, "\n           "))
}

// randomTypeName is the server's clock-made name of self's type.
var randomTypeName = regexp.MustCompile(`selfType\d+`)

func texts(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = randomTypeName.ReplaceAllString(e.Error(), "selfType0")
	}
	sort.Strings(out)
	return out
}

func runUpstream(tg *target, obj any) (o outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream panicked: %v", r)
		}
	}()
	errs, left := tg.upstream.Validate(context.Background(), nil, tg.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return outcome{texts(errs), left}, nil
}

func runOurs(tg *target, obj any, repeat bool) outcome {
	errs, left := tg.ours.Validate(obj, rules.RuntimeBudget)
	if !repeat {
		return outcome{texts(errs), left}
	}
	// crdkit reports in a deterministic order: check it is stable.
	errs2, _ := tg.ours.Validate(obj, rules.RuntimeBudget)
	for i := range errs {
		if i >= len(errs2) || errs[i].Error() != errs2[i].Error() {
			return outcome{[]string{"nondeterministic order"}, left}
		}
	}
	return outcome{texts(errs), left}
}

type tally struct {
	n, agree, skipped, failing int
	exhausted, orderDependent  int
	expensive                  bool // cases cost a second each: evaluate once
	differ                     []string

	// ValidateUntracked (crdkit's create) against upstream's errors.
	uagree, uorder int
	udiffer        []string
}

// checkUntracked compares ValidateUntracked's errors with upstream's (up),
// or with one of upstream's outcomes in reruns when the budget ran out.
func (tl *tally) checkUntracked(tg *target, name string, obj any, up outcome) {
	errs, _ := tg.ours.ValidateUntracked(context.Background(), obj, nil, rules.RuntimeBudget)
	got := texts(errs)
	if slices.Equal(up.errs, got) {
		tl.uagree++
		return
	}
	if up.budget < 0 {
		for range 200 {
			again, err := runUpstream(tg, obj)
			if err == nil && slices.Equal(again.errs, got) {
				tl.uagree++
				tl.uorder++
				return
			}
		}
	}
	in, _ := json.Marshal(obj)
	tl.udiffer = append(tl.udiffer, fmt.Sprintf("%s %s (untracked):\n input:    %s\n upstream: %s\n crdkit:   %s",
		tg.name, name, truncate(string(in)), up, outcome{errs: got}))
}

func (tl *tally) check(tg *target, name string, obj any) {
	up, err := runUpstream(tg, obj)
	if err != nil {
		tl.skipped++
		return
	}
	tl.n++
	if len(up.errs) > 0 {
		tl.failing++
	}
	if up.budget < 0 {
		tl.exhausted++
	}
	tl.checkUntracked(tg, name, obj, up)
	got := runOurs(tg, obj, !tl.expensive)
	if slices.Equal(up.errs, got.errs) && up.budget == got.budget {
		tl.agree++
		return
	}
	// When the budget runs out, which rules ran first decides what is
	// reported, and the server walks properties in Go map order: crdkit
	// agrees when its (sorted-order) outcome is one the server produces. A
	// Go map of up to 8 entries iterates as a rotation of one order, so a
	// given pair of keys may come in crdkit's order in as few as 1 run in 8:
	// 200 runs make a false disagreement about 1 in 10^11 (10 runs failed
	// once in a clean-clone CI run).
	if up.budget < 0 && got.budget < 0 {
		for range 200 {
			again, err := runUpstream(tg, obj)
			if err == nil && slices.Equal(again.errs, got.errs) && again.budget == got.budget {
				tl.agree++
				tl.orderDependent++
				return
			}
		}
	}
	in, _ := json.Marshal(obj)
	tl.differ = append(tl.differ, fmt.Sprintf("%s %s:\n input:    %s\n upstream: %s\n crdkit:   %s",
		tg.name, name, truncate(string(in)), up, got))
}

func truncate(s string) string { return diffreport.Truncate(s) }

// report fails the test for the first disagreements.
func (tl *tally) report(t *testing.T, label string) {
	t.Helper()
	diffreport.Fail(t, label, tl.differ)
	diffreport.Fail(t, label+" (untracked)", tl.udiffer)
}

// TestValidateAgrees compares rules.Validator.Validate with the server's CEL
// validator on corpus objects, generated objects and rule-directed mutations.
func TestValidateAgrees(t *testing.T) {
	tgs := targets(t)
	sources := []struct {
		name string
		run  func(t *testing.T, tl *tally)
	}{
		{"corpus", func(t *testing.T, tl *tally) { corpusObjects(t, tgs, tl) }},
		{"generated", func(t *testing.T, tl *tally) { generated(t, tgs, tl) }},
		{"mutated", func(t *testing.T, tl *tally) { mutated(t, tgs, tl) }},
		{"cost", func(t *testing.T, tl *tally) { costBombs(t, tgs, tl) }},
	}
	var total, agree, failing, exhausted, uagree, uorder int
	var parts []string
	for _, src := range sources {
		tl := &tally{expensive: src.name == "cost"}
		t.Run(src.name, func(t *testing.T) {
			src.run(t, tl)
			tl.report(t, src.name)
		})
		total += tl.n
		uagree += tl.uagree
		uorder += tl.uorder
		agree += tl.agree
		failing += tl.failing
		exhausted += tl.exhausted
		part := fmt.Sprintf("%s %d/%d", src.name, tl.agree, tl.n)
		if tl.orderDependent > 0 {
			part += fmt.Sprintf(" (%d of them one of the server's map-order outcomes)", tl.orderDependent)
		}
		if tl.skipped > 0 {
			part += fmt.Sprintf(" (%d where upstream panics skipped)", tl.skipped)
		}
		parts = append(parts, part)
	}
	if total == 0 {
		t.Fatal("no cases")
	}
	fmt.Printf("conformance: cel-validate %d/%d cases agree (%s; %d CRD versions with rules; %d cases with rule errors upstream, %d out of budget)\n",
		agree, total, strings.Join(parts, ", "), len(tgs), failing, exhausted)
	fmt.Printf("conformance: cel-validate-untracked %d/%d cases agree (ValidateUntracked, as crdkit's create runs it: errors; %d of them one of the server's map-order outcomes)\n",
		uagree, total, uorder)
}

type metaHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

func corpusObjects(t *testing.T, tgs []*target, tl *tally) {
	docs, err := corpus.Walk(filepath.Join(corpusDir(t), "objects"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		var tm metaHeader
		if json.Unmarshal(d.JSON, &tm) != nil {
			continue
		}
		obj, err := decode(d.JSON)
		if err != nil {
			continue
		}
		for _, tg := range tgs {
			if tg.apiVersion == tm.APIVersion && tg.kind == tm.Kind {
				tl.check(tg, d.Name, obj)
			}
		}
	}
}

func generated(t *testing.T, tgs []*target, tl *tally) {
	for _, tg := range tgs {
		g, err := gen.New(tg.crd, tg.version, gen.Options{Cases: 100})
		if err != nil {
			t.Errorf("%s: %v", tg.name, err)
			continue
		}
		for _, c := range g.Cases() {
			obj, err := decode(c.Raw)
			if err != nil {
				continue
			}
			tl.check(tg, c.Name, obj)
		}
	}
}

// mutated replaces values at the nodes of generated objects that carry rules
// or sit right below one, with values meant to break the rules.
func mutated(t *testing.T, tgs []*target, tl *tally) {
	for _, tg := range tgs {
		g, err := gen.New(tg.crd, tg.version, gen.Options{OptionalRatio: 0.9, MaxItems: 3})
		if err != nil {
			t.Errorf("%s: %v", tg.name, err)
			continue
		}
		r := rand.New(rand.NewPCG(11, uint64(len(tg.name))))
		for seed := uint64(1); seed <= 4; seed++ {
			base := g.Object(seed, "mutated")
			var ss []site
			collectSites(tg.schema, base, nil, false, &ss)
			r.Shuffle(len(ss), func(i, j int) { ss[i], ss[j] = ss[j], ss[i] })
			if len(ss) > 30 {
				ss = ss[:30]
			}
			for _, s := range ss {
				for i, v := range variants(s) {
					obj := deepCopy(base).(map[string]any)
					if len(s.path) == 0 {
						m, ok := v.(map[string]any)
						if !ok {
							continue
						}
						obj = m
					} else {
						setAt(obj, s.path, v)
					}
					tl.check(tg, fmt.Sprintf("seed %d %v #%d", seed, s.path, i), obj)
				}
			}
		}
	}
}

// site is a value of an object with its schema.
type site struct {
	path []any
	s    *schema.Schema
	v    any
}

// collectSites collects the values at or directly below a schema node with
// rules.
func collectSites(s *schema.Schema, v any, path []any, parentRules bool, out *[]site) {
	if s == nil {
		return
	}
	has := len(s.Rules()) > 0
	if has || parentRules {
		*out = append(*out, site{path: path, s: s, v: v})
	}
	if s.Summary()&schema.HasRules == 0 && !has {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c := s.Property(k)
			if c == nil {
				c, _, _ = s.AdditionalProperties()
			}
			collectSites(c, x[k], append(slices.Clip(path), k), has, out)
		}
	case []any:
		for i, e := range x {
			collectSites(s.Items(), e, append(slices.Clip(path), i), has, out)
		}
	}
}

// variants returns values meant to break the rules at a site.
func variants(s site) []any {
	vs := []any{nil}
	switch x := s.v.(type) {
	case int64:
		vs = append(vs, int64(0), int64(-1), x+1, x-1, x*1000+7, int64(1)<<40, float64(x)+0.5, fmt.Sprint(x))
	case float64:
		vs = append(vs, float64(0), -x, x*1000, int64(x))
	case string:
		vs = append(vs, "", "a", x+x, strings.Repeat("x", 300), "not a url", "http://example.com/p?q=1",
			"1.2.3.4", "10.0.0.0/8", "::1", "10Mi", "-1", "5m", "1h30m", "bogus!", strings.ToUpper(x), "1.2.3",
			"v1", "2006-01-02T15:04:05Z", int64(80), "50%")
	case bool:
		vs = append(vs, !x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if i == 6 {
				break
			}
			m := deepCopy(x).(map[string]any)
			delete(m, k)
			vs = append(vs, m)
		}
		vs = append(vs, map[string]any{})
	case []any:
		vs = append(vs, []any{})
		if len(x) > 0 {
			vs = append(vs,
				append(slices.Clone(x), deepCopy(x[0])),
				append(slices.Clone(x), deepCopy(x[len(x)-1]), deepCopy(x[0])),
				x[:1])
			many := make([]any, 0, 64)
			for len(many) < 64 {
				many = append(many, deepCopy(x[len(many)%len(x)]))
			}
			vs = append(vs, many)
		}
	}
	if e := s.s.Enum(); len(e) > 1 {
		vs = append(vs, e[len(e)-1])
	}
	return vs
}

func deepCopy(v any) any { return schema.DeepCopyValue(v) }

func setAt(root map[string]any, path []any, v any) {
	var cur any = root
	for i, e := range path {
		last := i == len(path)-1
		switch c := cur.(type) {
		case map[string]any:
			k := e.(string)
			if last {
				c[k] = v
				return
			}
			cur = c[k]
		case []any:
			j := e.(int)
			if last {
				c[j] = v
				return
			}
			cur = c[j]
		default:
			return
		}
	}
}

// costBombs adds expensive rules to list nodes of each schema (copies of a
// quadratic rule, one cubic rule) and evaluates generated objects whose
// lists there hold hundreds of items: the per-call limit, the request
// budget, and both running out in the middle of a walk.
func costBombs(t *testing.T, tgs []*target, tl *tally) {
	quad := apiextensionsv1.ValidationRule{Rule: "self.all(x, self.all(y, true))"}
	cubic := apiextensionsv1.ValidationRule{Rule: "self.all(x, self.all(y, self.all(z, true)))", Message: "cubic"}
	for ti, tg := range tgs {
		if ti%10 != 0 {
			continue // a few versions are enough: each case costs about a second on purpose
		}
		g, err := gen.New(tg.crd, tg.version, gen.Options{OptionalRatio: 0.9, MaxItems: 2})
		if err != nil {
			t.Errorf("%s: %v", tg.name, err)
			continue
		}
		base := g.Object(1, "cost")
		var lists []site
		collectLists(tg.schema, base, nil, &lists)
		if len(lists) == 0 {
			continue
		}
		if len(lists) > 2 {
			lists = lists[:2]
		}
		variants := []struct {
			name  string
			rules []apiextensionsv1.ValidationRule
			sites int
			n     int
		}{
			{"per-call", []apiextensionsv1.ValidationRule{cubic, quad}, 1, 120},
			{"budget", slices.Repeat([]apiextensionsv1.ValidationRule{quad}, 16), 1, 600},
			{"budget-two-lists", slices.Repeat([]apiextensionsv1.ValidationRule{quad}, 9), 2, 600},
		}
		for _, vr := range variants {
			if vr.sites > len(lists) {
				continue
			}
			var props *apiextensionsv1.JSONSchemaProps
			for i := range tg.crd.Spec.Versions {
				if tg.crd.Spec.Versions[i].Name == tg.version {
					props = tg.crd.Spec.Versions[i].Schema.OpenAPIV3Schema
				}
			}
			obj := deepCopy(base).(map[string]any)
			var paths [][]any
			for _, st := range lists[:vr.sites] {
				paths = append(paths, st.path)
				l := st.v.([]any)
				many := make([]any, vr.n)
				for i := range many {
					many[i] = deepCopy(l[i%len(l)])
				}
				setAt(obj, st.path, many)
			}
			props, err := withRules(props, paths, vr.rules)
			if err != nil {
				continue // a list under a list: not a site for this test
			}
			bt, err := newTarget(tg.name+" "+vr.name, props)
			if err != nil {
				t.Errorf("%s %s: %v", tg.name, vr.name, err)
				continue
			}
			tl.check(bt, vr.name, obj)
		}
	}
}

// collectLists collects the non-empty lists of an object, outside
// preserved unknown fields.
func collectLists(s *schema.Schema, v any, path []any, out *[]site) {
	if s == nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if c := s.Property(k); c != nil {
				collectLists(c, x[k], append(slices.Clip(path), k), out)
			}
		}
	case []any:
		if len(x) > 0 && s.Items() != nil && s.Type() == "array" {
			*out = append(*out, site{path: path, s: s, v: v})
		}
	}
}

// withRules returns a copy of p with rules added at the schema nodes of
// the object paths (property names; lists are only at the ends).
func withRules(p *apiextensionsv1.JSONSchemaProps, paths [][]any, rules []apiextensionsv1.ValidationRule) (*apiextensionsv1.JSONSchemaProps, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	rraw, _ := json.Marshal(rules)
	var rs []any
	_ = json.Unmarshal(rraw, &rs)
	for _, path := range paths {
		n := doc
		for _, e := range path {
			k, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("list index in %v", path)
			}
			n, _ = n["properties"].(map[string]any)[k].(map[string]any)
			if n == nil {
				return nil, fmt.Errorf("no schema at %v", path)
			}
		}
		old, _ := n["x-kubernetes-validations"].([]any)
		n["x-kubernetes-validations"] = append(old, rs...)
	}
	raw, _ = json.Marshal(doc)
	out := new(apiextensionsv1.JSONSchemaProps)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, out); err != nil {
		return nil, err
	}
	return out, nil
}
