package generate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Case is one request body to send to the server, with what it targets.
type Case struct {
	// Name is unique within the generator's cases: "<mutation>/<path>",
	// with "#n" appended when a name repeats.
	Name string
	// Mutation names what was done to a valid object (see Mutations); "valid"
	// for the unchanged objects.
	Mutation string
	// Path is the field path the mutation targets, in the server's notation
	// (spec.ports[0].name, spec.labels[key]); "" for the whole object.
	Path string
	// APIVersion, Kind, Namespace and ObjectName identify the object as
	// sent; Namespace is "" for cluster-scoped CRDs. The body may disagree
	// (typemeta and metadata mutations): these are the values to address.
	APIVersion string
	Kind       string
	Namespace  string
	ObjectName string
	// Raw is the exact JSON body.
	Raw []byte
	// Expect is what the server is expected to answer for a create of Raw
	// with field validation Warn: see Outcome.
	Expect Expectation
	// Rules are the CEL rules at the values of the object, which the
	// generator does not try to satisfy.
	Rules []Rule
}

// Mutations lists the mutation names Cases uses, in the order selection
// visits them.
var Mutations = []string{
	"valid", "minimal", "rich",
	"unknown-field", "null", "null-absent", "default-missing", "defaults-all-missing",
	"break-enum", "break-pattern", "break-minimum", "break-maximum", "break-multipleOf",
	"break-minLength", "break-maxLength", "break-minItems", "break-maxItems",
	"break-minProperties", "break-maxProperties", "break-required", "break-type", "break-format",
	"int-or-string", "list-duplicate", "embedded", "duplicate-key", "number",
	"metadata", "typemeta", "status", "json", "multi",
}

// site is a value in a base object with its schema.
type site struct {
	path     []any // string keys and int indices from the root
	field    string
	n        *node
	v        any
	absent   bool // a property of a present object, not set in the base
	required bool // required by its parent object
	parent   *node
}

// candidate is a case before it is materialised.
type candidate struct {
	mutation string
	path     string
	base     int
	apply    func(obj map[string]any) any // on a deep copy of the base
	raw      func(base []byte) []byte     // for byte-level cases
	name     string                       // object name override
	breaks   bool                         // a single-keyword break, usable by multi
	sitePath []any
	expect   Expectation
}

// numBases is the number of valid base objects mutations start from.
const numBases = 3

// Cases generates up to Options.Cases cases: valid objects, then mutations
// chosen round-robin over Mutations so that each kind is represented, each
// picked among all applicable sites with the seeded random source.
func (g *Generator) Cases() []Case {
	r := g.rand(0xcafe)
	bases := make([]map[string]any, numBases)
	sites := make([][]site, numBases)
	for i := range bases {
		bases[i] = g.Object(uint64(1000+i), "base")
		sites[i] = g.sites(bases[i])
	}
	byMut := map[string][]candidate{}
	add := func(c candidate) { byMut[c.mutation] = append(byMut[c.mutation], c) }

	nValid := max(3, g.opts.Cases/15)
	for i := 0; i < nValid; i++ {
		seed := uint64(i + 1)
		add(candidate{mutation: "valid", path: "seed-" + strconv.FormatUint(seed, 10), expect: accepted, apply: func(map[string]any) any {
			return g.Object(seed, "x")
		}})
	}
	add(candidate{mutation: "minimal", expect: accepted, apply: func(map[string]any) any { return g.object(7, "x", 1e-9) }})
	add(candidate{mutation: "rich", expect: accepted, apply: func(map[string]any) any { return g.object(8, "x", 1) }})

	st := &state{r: r, opts: g.opts, ratio: g.opts.OptionalRatio}
	for b := range bases {
		for _, s := range sites[b] {
			g.siteCandidates(st, bases[b], b, s, add)
		}
		g.objectCandidates(b, bases[b], sites[b], add)
	}

	// Multi: several single-keyword breaks at unrelated paths.
	var breaks []candidate
	for _, m := range Mutations {
		for _, c := range byMut[m] {
			if c.breaks && c.base == 0 {
				breaks = append(breaks, c)
			}
		}
	}
	for i := 0; i < 6 && len(breaks) >= 2; i++ {
		k := 2 + r.IntN(3)
		var picked []candidate
		for _, j := range r.Perm(len(breaks)) {
			c := breaks[j]
			if slices.ContainsFunc(picked, func(p candidate) bool {
				return isPrefix(p.sitePath, c.sitePath) || isPrefix(c.sitePath, p.sitePath)
			}) {
				continue
			}
			picked = append(picked, c)
			if len(picked) == k {
				break
			}
		}
		if len(picked) < 2 {
			break
		}
		var paths []string
		for _, p := range picked {
			paths = append(paths, p.mutation+"@"+p.path)
		}
		add(candidate{mutation: "multi", path: strings.Join(paths, "+"), apply: func(obj map[string]any) any {
			var out any = obj
			for _, p := range picked {
				o, ok := out.(map[string]any)
				if !ok {
					break
				}
				out = p.apply(o)
			}
			return out
		}})
	}

	// Select round-robin over mutation kinds.
	for _, m := range Mutations[1:] {
		cs := byMut[m]
		r.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	}
	var chosen []candidate
	chosen = append(chosen, byMut["valid"]...)
	if len(chosen) > g.opts.Cases {
		chosen = chosen[:g.opts.Cases]
	}
	next := map[string]int{}
	for len(chosen) < g.opts.Cases {
		progress := false
		for _, m := range Mutations[1:] {
			if len(chosen) >= g.opts.Cases {
				break
			}
			if i := next[m]; i < len(byMut[m]) {
				chosen = append(chosen, byMut[m][i])
				next[m] = i + 1
				progress = true
			}
		}
		if !progress {
			break
		}
	}

	if g.opts.MultiErrors > 0 {
		chosen = append(chosen, g.multiChosen(bases, sites)...)
	}
	if g.opts.RuleBreaks > 0 && g.v != nil {
		chosen = append(chosen, g.ruleBreaks(bases[0], sites[0])...)
	}

	baseRaw := make([][]byte, numBases)
	for i, b := range bases {
		baseRaw[i], _ = Marshal(b)
	}
	seen := map[string]int{}
	out := make([]Case, 0, len(chosen))
	for i, c := range chosen {
		objName := fmt.Sprintf("case-%d", i)
		if c.name != "" {
			objName = c.name
		}
		var raw []byte
		var rules []Rule
		if c.raw != nil {
			b := deepCopy(bases[c.base]).(map[string]any)
			setName(b, objName)
			enc, _ := Marshal(b)
			raw = c.raw(enc)
		} else {
			b := deepCopy(bases[c.base]).(map[string]any)
			setName(b, objName)
			v := c.apply(b)
			if m, ok := v.(map[string]any); ok && c.mutation != "metadata" {
				setName(m, objName)
			}
			if m, ok := v.(map[string]any); ok {
				rules = g.rulesIn(m)
			}
			var err error
			if raw, err = Marshal(v); err != nil {
				continue
			}
		}
		name := c.mutation
		if c.path != "" {
			name += "/" + c.path
		}
		if c.base > 0 {
			name += fmt.Sprintf("@base%d", c.base)
		}
		if n := seen[name]; n > 0 {
			seen[name] = n + 1
			name += fmt.Sprintf("#%d", n)
		} else {
			seen[name] = 1
		}
		cs := Case{Name: name, Mutation: c.mutation, Path: c.path, APIVersion: g.APIVersion(), Kind: g.kind, ObjectName: objName, Raw: raw, Expect: c.expect, Rules: rules}
		if g.namespaced {
			cs.Namespace = g.opts.Namespace
		}
		out = append(out, cs)
	}
	return out
}

// multiChosen picks Options.MultiErrors candidates of MultiErrorMutations,
// round-robin over the kinds, with a random source of their own.
func (g *Generator) multiChosen(bases []map[string]any, sites [][]site) []candidate {
	byMut := map[string][]candidate{}
	g.multiCandidates(bases, sites, func(c candidate) { byMut[c.mutation] = append(byMut[c.mutation], c) })
	r := g.rand(0x5eed0de8)
	for _, m := range MultiErrorMutations {
		cs := byMut[m]
		r.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	}
	var chosen []candidate
	for i := 0; len(chosen) < g.opts.MultiErrors; i++ {
		progress := false
		for _, m := range MultiErrorMutations {
			if len(chosen) < g.opts.MultiErrors && i < len(byMut[m]) {
				chosen = append(chosen, byMut[m][i])
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	return chosen
}

func setName(obj map[string]any, name string) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		if _, has := md["name"]; has {
			md["name"] = name
		}
	}
}

func isPrefix(p, q []any) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// sites walks a base object with its schema, in sorted order.
func (g *Generator) sites(obj map[string]any) []site {
	var out []site
	root := g.rootForObjects()
	out = append(out, site{n: root, v: obj})
	g.walk(root, obj, nil, "", &out, 0)
	return out
}

func (g *Generator) walk(n *node, v any, path []any, field string, out *[]site, depth int) {
	if depth > 32 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range n.names {
			if depth == 0 && (k == "apiVersion" || k == "kind" || k == "metadata") {
				continue
			}
			if n.embedded && k == "metadata" {
				continue
			}
			c := n.props[k]
			p := appendPath(path, k)
			f := joinField(field, k)
			cv, ok := x[k]
			*out = append(*out, site{path: p, field: f, n: c, v: cv, absent: !ok, required: n.required[k], parent: n})
			if ok {
				g.walk(c, cv, p, f, out, depth+1)
			}
		}
		if n.addl != nil {
			for _, k := range sortedKeys(x) {
				if n.props[k] != nil {
					continue
				}
				p := appendPath(path, k)
				f := field + "[" + k + "]"
				*out = append(*out, site{path: p, field: f, n: n.addl, v: x[k]})
				g.walk(n.addl, x[k], p, f, out, depth+1)
			}
		}
	case []any:
		if n.items == nil {
			return
		}
		for i, e := range x {
			p := appendPath(path, i)
			f := field + "[" + strconv.Itoa(i) + "]"
			*out = append(*out, site{path: p, field: f, n: n.items, v: e})
			g.walk(n.items, e, p, f, out, depth+1)
		}
	}
}

func appendPath(p []any, e any) []any {
	q := make([]any, len(p), len(p)+1)
	copy(q, p)
	return append(q, e)
}

func joinField(field, k string) string {
	if field == "" {
		return k
	}
	return field + "." + k
}

// set replaces the value at path (the root when path is empty is not
// replaceable); absent map keys are created. It reports success.
func set(root map[string]any, path []any, v any) bool {
	if len(path) == 0 {
		return false
	}
	var cur any = root
	for _, e := range path[:len(path)-1] {
		cur = step(cur, e)
		if cur == nil {
			return false
		}
	}
	switch c := cur.(type) {
	case map[string]any:
		k, ok := path[len(path)-1].(string)
		if !ok {
			return false
		}
		c[k] = v
		return true
	case []any:
		i, ok := path[len(path)-1].(int)
		if !ok || i >= len(c) {
			return false
		}
		c[i] = v
		return true
	}
	return false
}

// del removes the map key at path.
func del(root map[string]any, path []any) bool {
	if len(path) == 0 {
		return false
	}
	var cur any = root
	for _, e := range path[:len(path)-1] {
		cur = step(cur, e)
	}
	c, ok := cur.(map[string]any)
	k, isKey := path[len(path)-1].(string)
	if !ok || !isKey {
		return false
	}
	delete(c, k)
	return true
}

func get(root map[string]any, path []any) any {
	var cur any = root
	for _, e := range path {
		cur = step(cur, e)
	}
	return cur
}

func step(cur any, e any) any {
	switch c := cur.(type) {
	case map[string]any:
		if k, ok := e.(string); ok {
			return c[k]
		}
	case []any:
		if i, ok := e.(int); ok && i < len(c) {
			return c[i]
		}
	}
	return nil
}

// setter returns an apply function that sets path to v (a fresh copy each
// time; the root itself is replaced when path is empty).
func setter(path []any, v any) func(map[string]any) any {
	return func(obj map[string]any) any {
		if len(path) == 0 {
			return deepCopy(v)
		}
		set(obj, path, deepCopy(v))
		return obj
	}
}

func (g *Generator) siteCandidates(st *state, base map[string]any, b int, s site, add func(candidate)) {
	n := s.n
	if n == nil {
		return
	}
	brk := func(m string, v any) {
		add(candidate{mutation: m, path: s.field, base: b, apply: setter(s.path, v), breaks: true, sitePath: s.path, expect: g.breakExpect(s, m, v)})
	}
	if s.absent {
		if len(s.path) == 0 {
			return
		}
		add(candidate{mutation: "null-absent", path: s.field, base: b, apply: setter(s.path, nil)})
		if s.required {
			return
		}
		// Give the absent optional property a valid value, then mutate it
		// like a present one: keyword breaks reach fields the base left out.
		st.nodes = 0
		v, ok := st.value(n, 4)
		if !ok {
			return
		}
		if s.parent != nil && s.parent.validator != nil {
			// Skip when adding the property breaks the parent's oneOf,
			// anyOf, allOf or not: the case would not target the property.
			pv, isMap := deepCopy(get(base, s.path[:len(s.path)-1])).(map[string]any)
			if !isMap {
				return
			}
			pv[s.path[len(s.path)-1].(string)] = v
			if !s.parent.valid(pv) {
				return
			}
		}
		path := s.path
		inner := add
		add = func(c candidate) {
			if c.apply != nil {
				apply := c.apply
				c.apply = func(o map[string]any) any {
					set(o, path, deepCopy(v))
					return apply(o)
				}
			}
			inner(c)
		}
		s.absent, s.v = false, v
	}
	if len(s.path) > 0 {
		add(candidate{mutation: "null", path: s.field, base: b, apply: setter(s.path, nil)})
		if n.hasDef {
			p := s.path
			add(candidate{mutation: "default-missing", path: s.field, base: b, expect: accepted, apply: func(o map[string]any) any { del(o, p); return o }})
		}
	}
	typ := n.effectiveType()
	if len(s.path) > 0 {
		if w, ok := wrongType(typ); ok {
			brk("break-type", w)
		}
	}
	if len(n.enum) > 0 {
		brk("break-enum", notInEnum(n.enum, typ))
	}
	_, isStr := s.v.(string)
	if n.re != nil && (typ == "string" || typ == "int-or-string") {
		if bad, ok := nonMatching(n); ok {
			brk("break-pattern", bad)
		}
	}
	if f := formatName(n.s.Format); invalidFormats[f] != "" && isStr {
		brk("break-format", invalidFormats[f])
	}
	if typ == "integer" || typ == "number" || (typ == "int-or-string" && !isStr) {
		if n.s.Minimum != nil {
			v := *n.s.Minimum
			if !n.s.ExclusiveMinimum {
				v = below(v, typ)
			}
			brk("break-minimum", num(v, typ))
		}
		if n.s.Maximum != nil {
			v := *n.s.Maximum
			if !n.s.ExclusiveMaximum {
				v = above(v, typ)
			}
			brk("break-maximum", num(v, typ))
		}
		if m := n.s.MultipleOf; m != nil && *m > 0 {
			lo, _ := n.bounds()
			v := math.Ceil(lo / *m) * *m
			if *m == 1 {
				v += 0.5
			} else if *m == math.Trunc(*m) {
				v++
			} else {
				v += *m / 2
			}
			brk("break-multipleOf", num(v, typ))
		}
		if typ == "integer" {
			if i, ok := s.v.(int64); ok {
				add(candidate{mutation: "number", path: s.field + "=float-literal", base: b, apply: setter(s.path, Number(strconv.FormatInt(i, 10)+".0"))})
				add(candidate{mutation: "number", path: s.field + "=exponent", base: b, apply: setter(s.path, Number(strconv.FormatInt(i, 10)+"e0"))})
				add(candidate{mutation: "number", path: s.field + "=fraction", base: b, apply: setter(s.path, float64(i)+0.5)})
			}
			add(candidate{mutation: "number", path: s.field + "=huge", base: b, apply: setter(s.path, Number("99999999999999999999"))})
			add(candidate{mutation: "number", path: s.field + "=string", base: b, apply: setter(s.path, "1")})
		}
	}
	if isStr || typ == "string" {
		if n.s.MinLength != nil && *n.s.MinLength > 0 && *n.s.MinLength < 1<<16 {
			brk("break-minLength", strings.Repeat("a", int(*n.s.MinLength)-1))
		}
		if n.s.MaxLength != nil && *n.s.MaxLength < 1<<16 {
			brk("break-maxLength", strings.Repeat("a", int(*n.s.MaxLength)+1))
		}
	}
	if n.intOrString {
		for _, v := range []any{int64(42), "42%", "text", 1.5, true, Number("3.0")} {
			add(candidate{mutation: "int-or-string", path: fmt.Sprintf("%s=%v", s.field, v), base: b, apply: setter(s.path, v)})
		}
	}
	if arr, ok := s.v.([]any); ok {
		if n.s.MinItems != nil && *n.s.MinItems > 0 && int(*n.s.MinItems) <= len(arr)+1 {
			short := deepCopy(arr).([]any)
			if k := int(*n.s.MinItems) - 1; k < len(short) {
				short = short[:k]
			}
			brk("break-minItems", short)
		}
		if n.s.MaxItems != nil && *n.s.MaxItems < 64 && n.items != nil {
			long := deepCopy(arr).([]any)
			for i := 0; len(long) <= int(*n.s.MaxItems) && i < 200; i++ {
				v, _ := st.value(n.items, 4)
				long = append(long, v)
			}
			brk("break-maxItems", long)
		}
		if len(arr) > 0 && (n.listType == "set" || n.listType == "map") {
			dup := append(deepCopy(arr).([]any), deepCopy(arr[0]))
			add(candidate{mutation: "list-duplicate", path: s.field, base: b, apply: setter(s.path, dup), breaks: true, sitePath: s.path,
				expect: g.statusExpect(s.path, refused(appendPath(s.path, len(arr)), field.ErrorTypeDuplicate))})
		}
	}
	if obj, ok := s.v.(map[string]any); ok {
		k := "crdkitUnknown"
		p := appendPath(s.path, k)
		var expect Expectation
		if owner := n; len(s.path) > 0 || !g.root.preserve {
			if owner.addl == nil && !owner.preserve {
				expect = accepted
			}
		}
		add(candidate{mutation: "unknown-field", path: joinField(s.field, k), base: b, apply: setter(p, "x"), expect: expect})
		for _, k := range sortedKeys(obj) {
			if n.required[k] && !(len(s.path) == 0 && (k == "apiVersion" || k == "kind" || k == "metadata")) {
				p := appendPath(s.path, k)
				expect := refused(p, field.ErrorTypeRequired)
				if c := n.props[k]; c != nil && c.hasDef {
					expect = accepted // defaulting puts it back
				}
				add(candidate{mutation: "break-required", path: joinField(s.field, k), base: b, breaks: true, sitePath: p, expect: g.statusExpect(p, expect),
					apply: func(o map[string]any) any { del(o, p); return o }})
			}
		}
		if n.s.MinProperties != nil && *n.s.MinProperties > 0 && len(s.path) > 0 {
			small := map[string]any{}
			for _, k := range sortedKeys(obj) {
				if len(small) >= int(*n.s.MinProperties)-1 {
					break
				}
				small[k] = deepCopy(obj[k])
			}
			brk("break-minProperties", small)
		}
		if n.s.MaxProperties != nil && *n.s.MaxProperties < 64 && len(s.path) > 0 {
			big := deepCopy(obj).(map[string]any)
			for i := 0; len(big) <= int(*n.s.MaxProperties) && i < 100; i++ {
				if n.addl != nil {
					v, _ := st.value(n.addl, 4)
					big[fmt.Sprintf("extra-%d", i)] = v
				} else {
					big[fmt.Sprintf("extra%d", i)] = "x"
				}
			}
			brk("break-maxProperties", big)
		}
		if len(obj) > 0 {
			keys := sortedKeys(obj)
			k := keys[st.r.IntN(len(keys))]
			path := s.path
			add(candidate{mutation: "duplicate-key", path: joinField(s.field, k), base: b, apply: func(o map[string]any) any {
				cur, _ := get(o, path).(map[string]any)
				dup := duplicated(cur, k)
				if len(path) == 0 {
					return dup
				}
				set(o, path, dup)
				return o
			}})
		}
		if n.embedded {
			g.embeddedCandidates(b, s, add)
		}
	}
}

// duplicated returns obj as an OrderedObject with key k written twice: first a
// different value, then the original (the last one wins on the server).
func duplicated(obj map[string]any, k string) OrderedObject {
	var out OrderedObject
	for _, kk := range sortedKeys(obj) {
		if kk == k {
			out = append(out, Member{kk, decoy(obj[kk])})
		}
		out = append(out, Member{kk, obj[kk]})
	}
	return out
}

func decoy(v any) any {
	switch x := v.(type) {
	case string:
		return x + "-first"
	case int64:
		return x + 1
	case bool:
		return !x
	}
	return "first"
}

func wrongType(typ string) (any, bool) {
	switch typ {
	case "string":
		return int64(12345), true
	case "integer", "number":
		return "not-a-number", true
	case "boolean":
		return "true", true
	case "object":
		return "not-an-object", true
	case "array":
		return map[string]any{"not": "an-array"}, true
	case "int-or-string":
		return true, true
	}
	return nil, false
}

func notInEnum(enum []any, typ string) any {
	var cands []any
	switch typ {
	case "integer", "number":
		cands = []any{int64(987654321), int64(-1), int64(0)}
	case "boolean":
		cands = []any{true, false}
	default:
		cands = []any{"crdkit-not-in-enum", "Crdkit", ""}
	}
	for _, c := range cands {
		if !slices.ContainsFunc(enum, func(e any) bool { return jsonEqual(e, c) }) {
			return c
		}
	}
	return "crdkit-not-in-enum-2"
}

// nonMatching returns a string n's pattern rejects, preferring one that
// satisfies the length bounds so that only the pattern breaks.
func nonMatching(n *node) (string, bool) {
	cands := []string{"crdkit invalid !", "!", "", "0", "-", "A", "a", "..", "a/b", strings.Repeat("z", 300)}
	var fallback string
	found := false
	for _, c := range cands {
		if n.re.MatchString(c) {
			continue
		}
		l := int64(len(c))
		if (n.s.MinLength == nil || l >= *n.s.MinLength) && (n.s.MaxLength == nil || l <= *n.s.MaxLength) {
			return c, true
		}
		if !found {
			fallback, found = c, true
		}
	}
	return fallback, found
}

func below(v float64, typ string) float64 {
	if typ == "number" {
		return v - 0.5
	}
	return math.Ceil(v) - 1
}

func above(v float64, typ string) float64 {
	if typ == "number" {
		return v + 0.5
	}
	return math.Floor(v) + 1
}

func num(v float64, typ string) any {
	if typ != "number" && v == math.Trunc(v) && math.Abs(v) < 1e18 {
		return int64(v)
	}
	return v
}

func (g *Generator) embeddedCandidates(b int, s site, add func(candidate)) {
	md := appendPath(s.path, "metadata")
	e := func(what string, path []any, v any) {
		add(candidate{mutation: "embedded", path: s.field + "=" + what, base: b, apply: setter(path, v)})
	}
	rm := func(what string, path []any) {
		add(candidate{mutation: "embedded", path: s.field + "=" + what, base: b, apply: func(o map[string]any) any { del(o, path); return o }})
	}
	e("name-invalid", appendPath(md, "name"), "Invalid_Name!")
	e("name-int", appendPath(md, "name"), int64(1))
	e("metadata-string", md, "x")
	e("labels-int", appendPath(md, "labels"), map[string]any{"a": int64(1)})
	e("label-key-invalid", appendPath(md, "labels"), map[string]any{"bad key!": "v"})
	e("unknown-metadata-field", appendPath(md, "crdkitUnknown"), "x")
	e("namespace-invalid", appendPath(md, "namespace"), "Bad_NS")
	e("generateName", md, map[string]any{"generateName": "gen-"})
	e("kind-int", appendPath(s.path, "kind"), int64(1))
	e("apiVersion-invalid", appendPath(s.path, "apiVersion"), "a/b/c")
	e("unknown-field", appendPath(s.path, "crdkitUnknown"), "x")
	rm("kind-missing", appendPath(s.path, "kind"))
	rm("apiVersion-missing", appendPath(s.path, "apiVersion"))
	rm("metadata-missing", md)
}

// objectCandidates adds the whole-object mutations of base b.
func (g *Generator) objectCandidates(b int, base map[string]any, sites []site, add func(candidate)) {
	if b != 0 {
		// Whole-object mutations do not depend on the base much.
		var withDefaults [][]any
		for _, s := range sites {
			if !s.absent && s.n != nil && s.n.hasDef && len(s.path) > 0 {
				withDefaults = append(withDefaults, s.path)
			}
		}
		if len(withDefaults) > 0 {
			add(candidate{mutation: "defaults-all-missing", base: b, expect: accepted, apply: func(o map[string]any) any {
				for i := len(withDefaults) - 1; i >= 0; i-- {
					del(o, withDefaults[i])
				}
				return o
			}})
		}
		return
	}
	var withDefaults [][]any
	for _, s := range sites {
		if !s.absent && s.n != nil && s.n.hasDef && len(s.path) > 0 {
			withDefaults = append(withDefaults, s.path)
		}
	}
	if len(withDefaults) > 0 {
		add(candidate{mutation: "defaults-all-missing", expect: accepted, apply: func(o map[string]any) any {
			for i := len(withDefaults) - 1; i >= 0; i-- {
				del(o, withDefaults[i])
			}
			return o
		}})
	}
	md := []any{"metadata"}
	meta := func(what string, path []any, v any) {
		add(candidate{mutation: "metadata", path: what, apply: setter(path, v)})
	}
	meta("labels-int", appendPath(md, "labels"), map[string]any{"a": int64(1)})
	meta("annotations-bool", appendPath(md, "annotations"), map[string]any{"a": true})
	meta("name-int", appendPath(md, "name"), int64(123))
	meta("name-invalid", appendPath(md, "name"), "Invalid_Name")
	meta("name-too-long", appendPath(md, "name"), strings.Repeat("a", 254))
	meta("string", md, "x")
	meta("null", md, nil)
	meta("unknown-field", appendPath(md, "crdkitUnknown"), "x")
	meta("finalizers-invalid", appendPath(md, "finalizers"), []any{"bad finalizer"})
	meta("finalizers-unqualified", appendPath(md, "finalizers"), []any{"unqualified"})
	meta("label-key-invalid", appendPath(md, "labels"), map[string]any{"bad key!": "v"})
	meta("label-value-too-long", appendPath(md, "labels"), map[string]any{"a": strings.Repeat("v", 64)})
	meta("ownerReferences-incomplete", appendPath(md, "ownerReferences"), []any{map[string]any{"apiVersion": "v1"}})
	meta("uid-set", appendPath(md, "uid"), "0b2c4f57-2ed1-4a0c-9f3c-6d2e8a1b7c11")
	meta("creationTimestamp-set", appendPath(md, "creationTimestamp"), "2020-01-01T00:00:00Z")
	meta("resourceVersion-set", appendPath(md, "resourceVersion"), "5")
	meta("generation-set", appendPath(md, "generation"), int64(5))
	meta("managedFields-garbage", appendPath(md, "managedFields"), []any{map[string]any{"manager": int64(1)}})
	add(candidate{mutation: "metadata", path: "name-missing", apply: func(o map[string]any) any { del(o, []any{"metadata", "name"}); return o }})
	add(candidate{mutation: "metadata", path: "generateName", name: "", apply: func(o map[string]any) any {
		del(o, []any{"metadata", "name"})
		set(o, []any{"metadata", "generateName"}, "gen-")
		return o
	}})
	if g.namespaced {
		meta("namespace-mismatch", appendPath(md, "namespace"), "other-namespace")
	}

	tm := func(what string, key string, v any) {
		add(candidate{mutation: "typemeta", path: what, apply: setter([]any{key}, v)})
	}
	tm("kind-wrong", "kind", "Wrong"+g.kind)
	tm("kind-lowercase", "kind", strings.ToLower(g.kind))
	tm("kind-int", "kind", int64(1))
	tm("apiVersion-wrong-group", "apiVersion", "wrong.example.com/"+g.version)
	tm("apiVersion-unknown-version", "apiVersion", g.group+"/v0crdkit")
	tm("apiVersion-int", "apiVersion", int64(1))
	for _, o := range g.others {
		tm("apiVersion-other-version-"+o, "apiVersion", g.group+"/"+o)
	}
	add(candidate{mutation: "typemeta", path: "kind-missing", apply: func(o map[string]any) any { delete(o, "kind"); return o }})
	add(candidate{mutation: "typemeta", path: "apiVersion-missing", apply: func(o map[string]any) any { delete(o, "apiVersion"); return o }})

	if g.root.props["status"] != nil {
		add(candidate{mutation: "status", path: "wrong-type", apply: setter([]any{"status"}, "not-an-object")})
		add(candidate{mutation: "status", path: "unknown", apply: setter([]any{"status"}, map[string]any{"crdkitUnknown": int64(1)})})
	}
	if g.root.props["spec"] != nil {
		add(candidate{mutation: "status", path: "spec-empty", apply: setter([]any{"spec"}, map[string]any{})})
	}

	js := func(what string, f func([]byte) []byte) {
		add(candidate{mutation: "json", path: what, raw: f})
	}
	js("truncated", func(b []byte) []byte { return b[:len(b)/2] })
	js("array-root", func([]byte) []byte { return []byte("[]") })
	js("trailing-garbage", func(b []byte) []byte { return append(append([]byte{}, b...), []byte(" x")...) })
	js("trailing-object", func(b []byte) []byte { return append(append([]byte{}, b...), []byte(`{"a":1}`)...) })
	js("empty", func([]byte) []byte { return []byte{} })
	js("yaml", func([]byte) []byte {
		return []byte(fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: yaml-case\n", g.APIVersion(), g.kind))
	})
	js("duplicate-root-metadata-name", func(b []byte) []byte {
		return []byte(strings.Replace(string(b), `"metadata":{`, `"metadata":{"name":"first-name",`, 1))
	})
	js("utf8-invalid", func(b []byte) []byte {
		return []byte(strings.Replace(string(b), `"metadata":{`, `"metadata":{"annotations":{"a":"`+"\xff"+`"},`, 1))
	})
}

// breakExpect states the refusal a single-keyword break of site s with
// value v gets: the error type the server's OpenAPI validation reports for
// that keyword, at the site's field.
func (g *Generator) breakExpect(s site, mutation string, v any) Expectation {
	n := s.n
	var t field.ErrorType
	switch mutation {
	case "break-enum":
		t = field.ErrorTypeNotSupported
	case "break-type", "break-format":
		t = field.ErrorTypeTypeInvalid
	case "break-maxLength":
		t = field.ErrorTypeTooLong
	case "break-pattern":
		t = field.ErrorTypeInvalid
		if str, ok := v.(string); ok && n.s.MaxLength != nil && int64(utf8.RuneCountInString(str)) > *n.s.MaxLength {
			t = field.ErrorTypeTooLong // maxLength is checked first
		}
	case "break-maxItems", "break-maxProperties":
		t = field.ErrorTypeTooMany
	case "break-minProperties":
		for _, c := range n.props {
			if c.hasDef {
				return Expectation{} // defaulting may fill the object again
			}
		}
		t = field.ErrorTypeInvalid
	default: // minimum, maximum, multipleOf, minLength, minItems
		t = field.ErrorTypeInvalid
	}
	return g.statusExpect(s.path, refused(s.path, t))
}

// statusExpect is e, or Accepted for a change under status when the
// version has a status subresource: a create drops status.
func (g *Generator) statusExpect(path []any, e Expectation) Expectation {
	if g.statusSub && len(path) > 0 && path[0] == "status" {
		return accepted
	}
	return e
}
