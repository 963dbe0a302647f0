package validatediff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/crdkit/crdkit/conformance/internal/diffreport"
	"github.com/crdkit/crdkit/internal/corpus"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/conformance/gen"
	"github.com/crdkit/crdkit/schema"
)

// corpusDir finds the shared corpus: $CRDKIT_CORPUS, or ../shared/corpus
// beside the repository.
func corpusDir(t testing.TB) string {
	d, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the directory holding crds/ and objects/ (default ../shared/corpus beside the repository)")
	}
	return d
}

// readDocuments reads every document of every .yaml, .yml and .json file
// under dir, in lexical order, named file#index.
func readDocuments(t testing.TB, dir string) []corpus.Doc {
	docs, err := corpus.Walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// target is one schema with both implementations' compiled forms.
type target struct {
	name       string // crd/version, or fixture file#index
	apiVersion string
	kind       string
	crd        *apiextensionsv1.CustomResourceDefinition
	version    string
	validator  apiservervalidation.SchemaValidator
	structural *structuralschema.Structural // nil when the server could not build one
	ours       *schema.Schema
	props      *apiextensionsv1.JSONSchemaProps
}

// newTarget builds both validators of one openAPIV3Schema, as the server
// builds its own in getOrCreateServingInfoFor.
func newTarget(name string, props *apiextensionsv1.JSONSchemaProps) (*target, error) {
	internal := new(apiextensions.JSONSchemaProps)
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(props, internal, nil); err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		return nil, fmt.Errorf("NewSchemaValidator: %w", err)
	}
	ss, err := structuralschema.NewStructural(internal)
	if err != nil {
		ss = nil
	}
	js, err := json.Marshal(props)
	if err != nil {
		return nil, err
	}
	ours, err := schema.CompileJSON(js)
	if err != nil {
		return nil, fmt.Errorf("crdkit compile: %w", err)
	}
	return &target{name: name, validator: validator, structural: ss, ours: ours, props: props}, nil
}

// corpusTargets returns one target per version with a schema of every
// corpus CRD.
func corpusTargets(t testing.TB) []*target {
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
		tg.apiVersion, tg.kind = crd.Spec.Group+"/"+v.Name, crd.Spec.Names.Kind
		tg.crd, tg.version = crd, v.Name
		out = append(out, tg)
	}
	if len(out) == 0 {
		t.Skip("no CRD versions with schemas in the corpus")
	}
	return out
}

type metaHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// decode decodes a request body as the server does: case-sensitive keys,
// integers as int64, other numbers as float64.
func decode(raw []byte) (any, error) {
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// cause is one error as a Status cause carries it.
type cause struct{ field, typ, body string }

func (c cause) String() string { return c.field + " [" + c.typ + "] " + c.body }

func sortCauses(cs []cause) []cause {
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.field != b.field {
			return a.field < b.field
		}
		if a.typ != b.typ {
			return a.typ < b.typ
		}
		return a.body < b.body
	})
	return cs
}

// upstream runs the server's OpenAPI validation and list-type checks, and
// returns the causes in the server's order.
func upstream(tg *target, obj any) (cs []cause, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream panicked: %v", r)
		}
	}()
	errs := apiservervalidation.ValidateCustomResource(nil, obj, tg.validator)
	if m, ok := obj.(map[string]any); ok && tg.structural != nil {
		errs = append(errs, listtype.ValidateListSetsAndMaps(nil, tg.structural, m)...)
	}
	return fieldCauses(errs), nil
}

func fieldCauses(errs field.ErrorList) []cause {
	cs := make([]cause, 0, len(errs))
	for _, e := range errs {
		cs = append(cs, cause{e.Field, string(e.Type), e.ErrorBody()})
	}
	return cs
}

// ours runs crdkit's validation and list-type checks, and checks that Valid
// agrees with Validate. The causes are in crdkit's order.
func ours(tg *target, obj any, listTypes bool) ([]cause, error) {
	errs := tg.ours.Validate(obj, nil, nil)
	if valid := tg.ours.Valid(obj); valid != (len(errs) == 0) {
		return nil, fmt.Errorf("Valid = %v with %d errors from Validate", valid, len(errs))
	}
	if m, ok := obj.(map[string]any); ok && listTypes {
		errs = tg.ours.ValidateListTypes(m, nil, errs)
	}
	cs := make([]cause, 0, len(errs))
	for _, e := range errs {
		cs = append(cs, cause{e.Field, string(e.Type), e.Body()})
	}
	return cs, nil
}

// Upstream's order of causes follows Go map iteration in places (the
// properties of an object), and a map of up to eight entries reverses two
// of them in as few as one iteration in eight. A case's order counts as
// stable when orderRuns runs of upstream give the same one; where crdkit's
// order then differs, up to confirmRuns more runs look for another order
// before the difference counts as a disagreement. (Some orders are rarer
// than one in eight: a CI run once saw 310 runs agree on one order of an
// update case's two causes while crdkit gave the other, which upstream
// gives too in other runs; 2,000 runs make such a miss about a thousand
// times less likely. They cost time only where crdkit differs.)
// CRDKIT_ORDER_RUNS overrides orderRuns.
const (
	orderRunsDefault = 10
	confirmRuns      = 2000
)

var orderRuns = orderRunsFromEnv()

func orderRunsFromEnv() int {
	if n, err := strconv.Atoi(os.Getenv("CRDKIT_ORDER_RUNS")); err == nil && n >= 2 {
		return n
	}
	return orderRunsDefault
}

// tally counts the cases of one source.
type tally struct {
	n, agree, skipped int
	invalid, causes   int            // cases upstream refuses, and their causes
	ratcheted         int            // updates whose plain validation reports more
	types             map[string]int // causes by type, for the report
	differ            []string

	// Cases with several causes that agree once sorted: those whose order
	// upstream keeps (ordered), those of them where crdkit's order is the
	// same (orderAgree), and those whose order upstream changes between
	// runs (unstable). With orderWorkers, checkOrder runs on other
	// goroutines and mu guards these counts and differ.
	ordered, orderAgree, unstable int
	orders                        chan orderJob
	wg                            sync.WaitGroup
	mu                            sync.Mutex
}

// orderJob is a case whose order of causes is to be checked.
type orderJob struct {
	tg      *target
	name    string
	obj     any // not modified afterwards
	up, got []cause
	// rerun runs upstream again on the case; nil: upstream(tg, obj).
	rerun func() ([]cause, error)
}

// orderWorkers makes checkOrder run on one goroutine per CPU, until
// waitOrders: running upstream again and again is most of the cost of the
// order comparison. The server's validator is safe for concurrent use.
func (tl *tally) orderWorkers() {
	tl.orders = make(chan orderJob)
	for range runtime.GOMAXPROCS(0) {
		tl.wg.Go(func() {
			for j := range tl.orders {
				tl.checkOrder(j)
			}
		})
	}
}

// waitOrders waits for the order checks sent so far.
func (tl *tally) waitOrders() {
	if tl.orders != nil {
		close(tl.orders)
		tl.wg.Wait()
		tl.orders = nil
	}
	slices.Sort(tl.differ)
}

// check compares both implementations on obj and records the verdict.
func (tl *tally) check(tg *target, name string, obj any) {
	up, err := upstream(tg, obj)
	if err != nil {
		tl.skipped++
		return
	}
	tl.n++
	if len(up) > 0 {
		tl.invalid++
		tl.causes += len(up)
		if tl.types == nil {
			tl.types = map[string]int{}
		}
		for _, c := range up {
			tl.types[c.typ]++
		}
	}
	got, err := ours(tg, obj, tg.structural != nil)
	if err == nil && slices.Equal(sortCauses(slices.Clone(up)), sortCauses(slices.Clone(got))) {
		tl.agree++
		if len(up) >= 2 {
			j := orderJob{tg: tg, name: name, obj: obj, up: up, got: got}
			if tl.orders != nil {
				tl.orders <- j
			} else {
				tl.checkOrder(j)
			}
		}
		return
	}
	in, _ := json.Marshal(obj)
	msg := fmt.Sprintf("%s %s:\n input:    %s\n", tg.name, name, truncate(string(in)))
	if err != nil {
		msg += " crdkit:   " + err.Error() + "\n"
	}
	msg += " upstream: " + joinCauses(sortCauses(up)) + "\n crdkit:   " + joinCauses(sortCauses(got))
	tl.differ = append(tl.differ, msg)
}

// checkOrder compares the order of the causes where upstream's is stable.
func (tl *tally) checkOrder(j orderJob) {
	rerun := j.rerun
	if rerun == nil {
		rerun = func() ([]cause, error) { return upstream(j.tg, j.obj) }
	}
	varies := func(runs int) bool {
		for range runs {
			again, err := rerun()
			if err != nil || !slices.Equal(again, j.up) {
				return true
			}
		}
		return false
	}
	unstable := varies(orderRuns - 1)
	same := slices.Equal(j.up, j.got)
	if !unstable && !same {
		unstable = varies(confirmRuns)
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	switch {
	case unstable:
		tl.unstable++
	case same:
		tl.ordered++
		tl.orderAgree++
	default:
		tl.ordered++
		in, _ := json.Marshal(j.obj)
		tl.differ = append(tl.differ, fmt.Sprintf("%s %s: order of causes\n input:    %s\n upstream: %s\n crdkit:   %s",
			j.tg.name, j.name, truncate(string(in)), joinCauses(j.up), joinCauses(j.got)))
	}
}

func joinCauses(cs []cause) string {
	if len(cs) == 0 {
		return "(none)"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, "\n           ")
}

func truncate(s string) string { return diffreport.Truncate(s) }

// report fails the test for the first disagreements.
func (tl *tally) report(t *testing.T, label string) {
	t.Helper()
	diffreport.Fail(t, label, tl.differ)
}

// TestValidateAgrees compares both implementations on the corpus objects,
// on generated cases, on targeted mutations and on the JSON-Schema-Test-Suite
// fixtures.
func TestValidateAgrees(t *testing.T) {
	targets := corpusTargets(t)
	sources := []struct {
		name string
		run  func(t *testing.T, tl *tally)
	}{
		{"corpus", func(t *testing.T, tl *tally) { corpusObjects(t, targets, tl) }},
		{"generated", func(t *testing.T, tl *tally) { generated(t, targets, tl) }},
		{"mutated", func(t *testing.T, tl *tally) { mutated(t, targets, tl) }},
		{"jsonschema-suite", func(t *testing.T, tl *tally) { suite(t, tl) }},
	}
	var total, agree, invalid, causes, ordered, orderAgree, unstable int
	types := map[string]int{}
	var parts []string
	for _, src := range sources {
		tl := &tally{}
		t.Run(src.name, func(t *testing.T) {
			tl.orderWorkers()
			func() {
				defer tl.waitOrders()
				src.run(t, tl)
			}()
			tl.report(t, src.name)
		})
		total += tl.n
		agree += tl.agree
		ordered += tl.ordered
		orderAgree += tl.orderAgree
		unstable += tl.unstable
		invalid += tl.invalid
		causes += tl.causes
		for k, n := range tl.types {
			types[k] += n
		}
		part := fmt.Sprintf("%s %d/%d", src.name, tl.agree, tl.n)
		if tl.skipped > 0 {
			part += fmt.Sprintf(" (%d where upstream panics skipped)", tl.skipped)
		}
		parts = append(parts, part)
	}
	fmt.Printf("conformance: validate %d/%d cases agree (%s; %d CRD versions; %d cases invalid upstream with %d causes)\n",
		agree, total, strings.Join(parts, ", "), len(targets), invalid, causes)
	fmt.Printf("conformance: validate-order-exact %d/%d (%d unstable)\n", orderAgree, ordered, unstable)
	names := make([]string, 0, len(types))
	for k := range types {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Logf("causes of type %s: %d", k, types[k])
	}
}

// corpusObjects checks each corpus object against every version serving
// its apiVersion and kind.
func corpusObjects(t *testing.T, targets []*target, tl *tally) {
	for _, d := range readDocuments(t, filepath.Join(corpusDir(t), "objects")) {
		var tm metaHeader
		if json.Unmarshal(d.JSON, &tm) != nil {
			continue
		}
		obj, err := decode(d.JSON)
		if err != nil {
			continue
		}
		for _, tg := range targets {
			if tg.apiVersion == tm.APIVersion && tg.kind == tm.Kind {
				tl.check(tg, d.Name, obj)
			}
		}
	}
}

// generated checks gen's cases: valid objects and each keyword broken in
// turn, wrong types, int-or-string values, list duplicates and more.
func generated(t *testing.T, targets []*target, tl *tally) {
	for _, tg := range targets {
		g, err := gen.New(tg.crd, tg.version, gen.Options{Cases: 150, MultiErrors: 60})
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

// mutated checks targeted replacements at sites of generated objects chosen
// at random: values of every JSON kind, int-or-string values, strings for
// formats and list-type duplicates.
func mutated(t *testing.T, targets []*target, tl *tally) {
	for _, tg := range targets {
		g, err := gen.New(tg.crd, tg.version, gen.Options{OptionalRatio: 0.9, MaxItems: 3})
		if err != nil {
			t.Errorf("%s: %v", tg.name, err)
			continue
		}
		r := rand.New(rand.NewPCG(7, uint64(len(tg.name))))
		for seed := uint64(1); seed <= 3; seed++ {
			base := g.Object(seed, "mutated")
			var ss []site
			collectSites(tg.ours, base, nil, &ss)
			r.Shuffle(len(ss), func(i, j int) { ss[i], ss[j] = ss[j], ss[i] })
			if len(ss) > 25 {
				ss = ss[:25]
			}
			for _, s := range ss {
				for i, v := range variants(s) {
					obj := deepCopy(base).(map[string]any)
					setAt(obj, s.path, v)
					tl.check(tg, fmt.Sprintf("seed %d %v #%d", seed, s.path, i), obj)
				}
			}
		}
	}
}

// site is a value of an object with its schema.
type site struct {
	path []any // keys and indexes; empty for the root
	s    *schema.Schema
	v    any
}

func collectSites(s *schema.Schema, v any, path []any, out *[]site) {
	if s == nil {
		return
	}
	*out = append(*out, site{path: path, s: s, v: v})
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
			collectSites(c, x[k], append(slices.Clip(path), k), out)
		}
	case []any:
		for i, e := range x {
			collectSites(s.Items(), e, append(slices.Clip(path), i), out)
		}
	}
}

// variants returns replacement values for a site.
func variants(s site) []any {
	vs := []any{nil, true, "text", int64(7), float64(2.5), float64(4), map[string]any{}, []any{},
		int64(1) << 60, float64(1e300), int64(-3)}
	if s.s.IntOrString() {
		vs = append(vs, "25%", int64(0), float64(1.0000000001), "")
	}
	if f := s.s.Format(); f != "" {
		vs = append(vs, "2006-01-02T15:04:05Z", "2006-01-02", "1.2.3.4", "::1", "aGVsbG8=", "not valid",
			int64(1)<<40, float64(3.5e38), "10s", "3 days")
	}
	if e := s.s.Enum(); len(e) > 0 {
		vs = append(vs, e[0], fmt.Sprint(e[0])+"x")
	}
	if min, _ := s.s.Minimum(); min != nil {
		vs = append(vs, *min, *min-1, int64(*min)-1, *min-0.5)
	}
	if max, _ := s.s.Maximum(); max != nil {
		vs = append(vs, *max, *max+1, int64(*max)+1, *max+0.5)
	}
	if a, ok := s.v.([]any); ok && len(a) > 0 {
		vs = append(vs,
			append(slices.Clone(a), deepCopy(a[0])),
			append(slices.Clone(a), nil, nil),
			append(slices.Clone(a), "scalar"),
			append(slices.Clone(a), a[0], a[0], deepCopy(a[len(a)-1])))
		if m, ok := a[0].(map[string]any); ok {
			trimmed := deepCopy(m).(map[string]any)
			for _, k := range s.s.Items().ListMapKeys() {
				delete(trimmed, k)
			}
			vs = append(vs, append(slices.Clone(a), trimmed, deepCopy(trimmed)))
		}
	}
	if m, ok := s.v.(map[string]any); ok {
		vs = append(vs, map[string]any{"crdkitUnknown": int64(1)})
		if len(m) > 0 {
			trimmed := deepCopy(m).(map[string]any)
			for _, r := range s.s.Required() {
				delete(trimmed, r)
			}
			vs = append(vs, trimmed)
		}
	}
	return vs
}

func setAt(root map[string]any, path []any, v any) {
	if len(path) == 0 {
		return
	}
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
		}
	}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}

// suiteDir is kube-openapi's copy of the JSON-Schema-Test-Suite.
func suiteDir(t testing.TB) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kube-openapi").Output()
	if err != nil {
		t.Skipf("cannot locate k8s.io/kube-openapi: %v", err)
	}
	d := filepath.Join(strings.TrimSpace(string(out)), "pkg", "validation", "validate", "fixtures", "jsonschema_suite")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("no JSON-Schema-Test-Suite fixtures: %v", err)
	}
	return d
}

// suiteGroup is one schema of a fixture file with its test values.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
	} `json:"tests"`
}

// suiteTargets returns the fixture schemas both implementations accept
// (CRD schemas cannot use $ref, definitions, patternProperties,
// dependencies, additionalItems, item tuples, uniqueItems or type lists),
// with their test values.
func suiteTargets(t testing.TB) (tgs []*target, data [][][]byte, skipped int) {
	dir := suiteDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	opt, _ := filepath.Glob(filepath.Join(dir, "optional", "*.json"))
	for _, f := range append(files, opt...) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(raw, &groups); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rel, _ := filepath.Rel(dir, f)
		for i, g := range groups {
			props := new(apiextensionsv1.JSONSchemaProps)
			if err := json.Unmarshal(g.Schema, props); err != nil || props.UniqueItems {
				skipped++
				continue
			}
			if _, err := schema.CompileJSON(g.Schema); err != nil {
				skipped++
				continue
			}
			tg, err := newTarget(fmt.Sprintf("%s#%d", rel, i), props)
			if err != nil {
				skipped++
				continue
			}
			var vals [][]byte
			for _, c := range g.Tests {
				vals = append(vals, c.Data)
			}
			tgs = append(tgs, tg)
			data = append(data, vals)
		}
	}
	return tgs, data, skipped
}

// suite runs the JSON-Schema-Test-Suite fixtures through both
// implementations.
func suite(t *testing.T, tl *tally) {
	tgs, data, skipped := suiteTargets(t)
	for i, tg := range tgs {
		for j, raw := range data[i] {
			v, err := decode(raw)
			if err != nil {
				continue
			}
			tl.check(tg, fmt.Sprintf("test %d", j), v)
		}
	}
	t.Logf("%d fixture schemas compared, %d skipped (not expressible as a CRD schema)", len(tgs), skipped)
}

// FuzzValidateAgrees compares both implementations on a schema and a value:
// the JSON-Schema-Test-Suite fixtures and small CRD-like schemas are the
// seeds. Schemas either implementation refuses are skipped.
func FuzzValidateAgrees(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	for _, s := range suiteSeeds() {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, schemaJSON, value []byte) {
		props := new(apiextensionsv1.JSONSchemaProps)
		if json.Unmarshal(schemaJSON, props) != nil || props.UniqueItems {
			return
		}
		if _, err := schema.CompileJSON(schemaJSON); err != nil {
			return
		}
		p, err := schema.ParseProps(schemaJSON)
		if err != nil || schema.BuildError(p) != nil {
			return
		}
		tg, err := newTarget("fuzz", props)
		if err != nil {
			return
		}
		v, err := decode(value)
		if err != nil {
			return
		}
		tl := &tally{}
		tl.check(tg, "fuzz", v)
		if len(tl.differ) > 0 {
			t.Fatal(tl.differ[0])
		}
	})
}

var fuzzSeeds = [][2]string{
	// Required names listed twice, or not declared: the walk's count of
	// required keys (schema's markRequired) must fall back to the lookups.
	{`{"type":"object","required":["a","a"],"properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`, `{"b":1}`},
	{`{"type":"object","required":["a","a"],"properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`, `{"a":1}`},
	{`{"type":"object","required":["a","z"],"properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`, `{"a":1,"b":2}`},
	{`{"type":"object","required":["b","a"],"properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{}}}`, `{"c":1,"a":"x"}`},
	{`{"type":"object","properties":{"spec":{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":0,"maximum":10}}}}}`, `{"spec":{"a":11}}`},
	{`{"type":"object","properties":{"p":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}}`, `{"p":true}`},
	{`{"type":"string","format":"date-time"}`, `"2020-01-01T00:00:00Z"`},
	{`{"type":"integer","format":"int32","multipleOf":3}`, `4294967296`},
	{`{"type":"number","format":"float","maximum":1.5}`, `3.5e38`},
	{`{"type":"array","x-kubernetes-list-type":"set","items":{"type":"integer"}}`, `[1,1.0,1]`},
	{`{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a","b"],"items":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}}`, `[{"a":"x"},{"a":"x"},{"b":1},{"b":1.0}]`},
	{`{"type":"string","enum":["A","b"],"maxLength":3,"pattern":"^[a-z]+$"}`, `65`},
	{`{"oneOf":[{"required":["a"]},{"required":["b"]}],"type":"object"}`, `{"a":1,"b":2}`},
	{`{"type":"object","additionalProperties":{"type":"string","minLength":2}}`, `{"k":"v","l":3}`},
	// The cases of schema's TestValidate, whose expected texts this checks
	// against the server.
	{`{"type":"object","properties":{"r":{"type":"number","minimum":0.5,"exclusiveMinimum":true}}}`, `{"r":0.5}`},
	{`{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992}}}`, `{"n":9007199254740993}`},
	{`{"type":"object"}`, `"x"`},
	{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":2.5}`},
	{`{"type":"object","properties":{"n":{"type":"integer","format":"int32"}}}`, `{"n":4294967296}`},
	{`{"type":"object","properties":{"p":{"x-kubernetes-int-or-string":true}}}`, `{"p":null}`},
	{`{"type":"object","properties":{"n":{"enum":[1,2.5,true,null,{"a":1}]}}}`, `{"n":3}`},
	{`{"type":"object","properties":{"s":{"type":"string","nullable":true,"enum":["a",null]}}}`, `{"s":null}`},
	{`{"type":"object","properties":{"s":{"enum":["A"]}}}`, `{"s":65}`},
	{`{"type":"object","properties":{"n":{"enum":[2]},"m":{"enum":[1.5]}}}`, `{"n":2.5,"m":1}`},
	{`{"type":"object","properties":{"s":{"type":"string","maxLength":2},"t":{"type":"string","minLength":3}}}`, `{"s":"été","t":"éé"}`},
	{`{"type":"object","required":["spec"],"properties":{"spec":{"type":"object","required":["image"]},"status":{"type":"object","required":["x"]}}}`, `{"status":{}}`},
	{`{"type":"object","properties":{"a":{"type":"array","minItems":2},"b":{"type":"array","maxItems":1},"c":{"type":"object","minProperties":1},"d":{"type":"object","maxProperties":1}}}`, `{"a":[1],"b":[1,2,3],"c":{},"d":{"x":1,"y":2}}`},
	{`{"type":"object","properties":{"i":{"type":"integer","multipleOf":3},"f":{"type":"number","multipleOf":0.5}}}`, `{"i":7,"f":1.25}`},
	{`{"type":"object","properties":{"n":{"type":"number","multipleOf":0.01}}}`, `{"n":5}`},
	{`{"type":"object","properties":{"o":{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}],"allOf":[{"required":["c"]}],"not":{"required":["d"]}}}}`, `{"o":{"a":1,"b":2,"d":3}}`},
	{`{"type":"object","properties":{"s":{"anyOf":[{"maxLength":1},{"type":"string","minLength":5}]}}}`, `{"s":"abc"}`},
	{`{"type":"object","properties":{"s":{"type":"string","maxLength":1,"allOf":[{"maxLength":1},{"maxLength":1}]}}}`, `{"s":"abc"}`},
	{`{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}},"closed":{"type":"object","properties":{"a":{}},"additionalProperties":false}}}`, `{"labels":{"app.kubernetes.io/name":1},"closed":{"a":1,"b":2}}`},
	{`{"type":"object","properties":{"t":{"type":"string","format":"date-time"},"u":{"type":"string","format":"date-time"},"v":{"type":"string","format":"date-time"},"w":{"type":"string","format":"no-such-format"}}}`, `{"t":"notadate","u":1,"v":["arrays pass"],"w":"x"}`},
	{`{"type":"object","properties":{"n":{"type":"integer","maxLength":1,"enum":[1]}}}`, `{"n":"abc"}`},
	{`{"type":"object","properties":{"tags":{"type":"array","x-kubernetes-list-type":"set","items":{}}}}`, `{"tags":[{"a":1},{"a":1.0},[1,"x"],[1,"x"],null,null,1,1.0]}`},
	{`{"type":"object","properties":{"byName":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object"}}}}`, `{"byName":[{"name":"x"},{"name":"x","v":1},{},null,{"name":null},{"name":null}]}`},
	{`{"type":"object","properties":{"byName":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object"}}}}`, `{"byName":[{"name":"x"},{"name":"x"},"s",3]}`},
	// The order of causes (schema's TestValidate).
	{`{"type":"object","properties":{"l":{"type":"array","maxItems":1,"items":{"type":"string","minLength":2}}}}`, `{"l":["a","bb",3]}`},
	{`{"type":"object","properties":{"s":{"type":"string","allOf":[{"minLength":3}]}}}`, `{"s":"ab"}`},
	{`{"type":"object","required":["z"],"properties":{"z":{},"m":{"type":"string"},"b":{"type":"string"},"k":{"type":"object","required":["x"]},"a":{"type":"integer","minimum":1},"q":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},"e":{"type":"string"}}}`, `{"q":1,"m":1,"k":{},"e":1,"b":1,"a":0,"d":1,"c":1}`},
	{`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{"z":1,"a":1,"b":2}`},
	{`{"type":"object","additionalProperties":{"type":"object","required":["v"],"properties":{"v":{"type":"string"}}}}`, `{"y":{"v":1},"x":{},"w":{"v":"ok"},"b":{"v":2}}`},
	{`{"type":"object","properties":{"k":{"type":"object","required":["x"],"properties":{"c":{"type":"object","required":["y"]}}}}}`, `{"k":{"c":{}}}`},
	{`{"type":"object","properties":{"tags":{"type":"array","x-kubernetes-list-type":"set","maxItems":2,"items":{"type":"string","maxLength":1}}}}`, `{"tags":["a","bb","a","a"]}`},
}

// suiteSeeds returns every (schema, value) pair of the JSON-Schema-Test-Suite
// fixtures, or nothing when they cannot be found.
func suiteSeeds() [][2][]byte {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kube-openapi").Output()
	if err != nil {
		return nil
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "pkg", "validation", "validate", "fixtures", "jsonschema_suite")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var seeds [][2][]byte
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		var groups []suiteGroup
		if json.Unmarshal(raw, &groups) != nil {
			continue
		}
		for _, g := range groups {
			for _, c := range g.Tests {
				seeds = append(seeds, [2][]byte{g.Schema, c.Data})
			}
		}
	}
	return seeds
}
