package generate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"
)

// state is one generation run: a random source and the size budget.
type state struct {
	r     *rand.Rand
	opts  Options
	ratio float64 // probability of including an optional property near the root
	nodes int     // values generated so far
	names int     // counter for generated map keys and embedded names
}

// validFormats maps each format the server validates (validation/formats.go;
// "date-time" is normalised to "datetime" by the format registry) to a value
// it accepts, and invalidFormats to one it refuses.
var validFormats = map[string]string{
	"bsonobjectid":   "507f1f77bcf86cd799439011",
	"uri":            "https://example.com/path",
	"email":          "user@example.com",
	"hostname":       "example.com",
	"ipv4":           "192.0.2.10",
	"ipv6":           "2001:db8::1",
	"cidr":           "10.0.0.0/8",
	"mac":            "00:1a:2b:3c:4d:5e",
	"uuid":           "123e4567-e89b-12d3-a456-426614174000",
	"uuid3":          "a3bb189e-8bf9-3888-9912-ace4e6543002",
	"uuid4":          "f47ac10b-58cc-4372-a567-0e02b2c3d479",
	"uuid5":          "886313e1-3b8a-5372-9b90-0c9aee199e5d",
	"isbn":           "0321751043",
	"isbn10":         "0321751043",
	"isbn13":         "978-0321751041",
	"creditcard":     "4111111111111111",
	"ssn":            "123-45-6789",
	"hexcolor":       "#a1b2c3",
	"rgbcolor":       "rgb(10,20,30)",
	"byte":           "aGVsbG8=",
	"password":       "secret",
	"date":           "2024-01-02",
	"duration":       "1h30m",
	"datetime":       "2024-01-02T03:04:05Z",
	"k8s-short-name": "short-name",
	"k8s-long-name":  "long.name.example",
}

var invalidFormats = map[string]string{
	"bsonobjectid":   "not-an-object-id",
	"uri":            "not a uri",
	"email":          "not an email",
	"hostname":       "-not_a_hostname-",
	"ipv4":           "300.1.2.3",
	"ipv6":           "not:an:ipv6",
	"cidr":           "10.0.0.0/99",
	"mac":            "00:zz:2b:3c:4d:5e",
	"uuid":           "not-a-uuid",
	"uuid3":          "not-a-uuid3",
	"uuid4":          "not-a-uuid4",
	"uuid5":          "not-a-uuid5",
	"isbn":           "not-an-isbn",
	"isbn10":         "123",
	"isbn13":         "123",
	"creditcard":     "1234",
	"ssn":            "12-345-6789x",
	"hexcolor":       "#xyz",
	"rgbcolor":       "rgb(a,b,c)",
	"byte":           "%%%not base64%%%",
	"date":           "2024-13-45",
	"duration":       "banana",
	"datetime":       "2024-01-02 not a time",
	"k8s-short-name": "Not_A_Short_Name",
	"k8s-long-name":  "Not_A_Long..Name",
}

// formatName normalises a format the way the server's registry does.
func formatName(f string) string {
	if f == "date-time" {
		return "datetime"
	}
	return f
}

// value returns a value valid for n, or ok=false when the generator could not
// satisfy n (the caller then omits an optional field).
func (st *state) value(n *node, depth int) (any, bool) {
	st.nodes++
	tries := 1
	if n.validator != nil {
		tries = 4
	}
	var v any
	var ok bool
	for i := 0; i < tries; i++ {
		v, ok = st.value1(n, depth)
		if ok && n.valid(v) {
			return v, true
		}
	}
	return v, false
}

func (st *state) value1(n *node, depth int) (any, bool) {
	if len(n.enum) > 0 {
		return deepCopy(n.enum[st.r.IntN(len(n.enum))]), true
	}
	switch n.effectiveType() {
	case "int-or-string":
		if st.r.IntN(2) == 0 {
			if s, ok := st.stringValue(n); ok {
				return s, true
			}
		}
		return st.intValue(n)
	case "string":
		return st.stringValue(n)
	case "integer":
		return st.intValue(n)
	case "number":
		return st.numberValue(n)
	case "boolean":
		return st.r.IntN(2) == 0, true
	case "array":
		return st.arrayValue(n, depth)
	case "object":
		return st.objectValue(n, depth)
	}
	if n.preserve {
		return st.freeForm(), true
	}
	return "value", true
}

func (st *state) freeForm() any {
	switch st.r.IntN(3) {
	case 0:
		return map[string]any{"free": "form"}
	case 1:
		return map[string]any{"nested": map[string]any{"a": int64(1), "b": []any{"x", true}}}
	}
	return map[string]any{}
}

// fits reports whether s satisfies n's string keywords.
func (n *node) fits(s string) bool {
	l := int64(utf8.RuneCountInString(s))
	if n.s.MinLength != nil && l < *n.s.MinLength {
		return false
	}
	if n.s.MaxLength != nil && l > *n.s.MaxLength {
		return false
	}
	if n.re != nil && !n.re.MatchString(s) {
		return false
	}
	return true
}

func (st *state) stringValue(n *node) (string, bool) {
	if f := formatName(n.s.Format); validFormats[f] != "" && f != "password" {
		// A validated format: only the known-good spelling, or the author's
		// example or default, is trusted.
		for _, c := range []any{validFormats[f], n.example, n.def} {
			if s, isStr := c.(string); isStr && n.fits(s) {
				return s, true
			}
		}
		return "", false
	}
	minLen, maxLen := 0, -1
	if n.s.MinLength != nil {
		minLen = int(*n.s.MinLength)
	}
	if n.s.MaxLength != nil {
		maxLen = int(*n.s.MaxLength)
	}
	if n.re != nil {
		if s, ok := patternString(st.r, n.re, minLen, maxLen); ok && n.fits(s) {
			return s, true
		}
	}
	for _, c := range []struct {
		v  any
		ok bool
	}{{n.example, n.hasExample}, {n.def, n.hasDef}} {
		if s, isStr := c.v.(string); c.ok && isStr && n.fits(s) {
			return s, true
		}
	}
	if n.re != nil {
		return "", false
	}
	// Plain string: lowercase alphanumerics, readable and name-like.
	l := 3 + st.r.IntN(8)
	if l < minLen {
		l = minLen
	}
	if maxLen >= 0 && l > maxLen {
		l = maxLen
	}
	if l > 4096 {
		l = 4096
	}
	const alpha = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	for i := 0; i < l; i++ {
		if i == 0 {
			b.WriteByte(alpha[st.r.IntN(26)])
			continue
		}
		b.WriteByte(alpha[st.r.IntN(len(alpha))])
	}
	s := b.String()
	return s, n.fits(s)
}

// bounds returns the inclusive integer range n allows, defaulting to a
// small non-negative range.
func (n *node) bounds() (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if n.s.Minimum != nil {
		lo = *n.s.Minimum
	}
	if n.s.Maximum != nil {
		hi = *n.s.Maximum
	}
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		lo, hi = 0, 100
	case math.IsInf(lo, -1):
		lo = math.Min(0, hi-100)
		if hi > 100 {
			lo = 0
		}
	case math.IsInf(hi, 1):
		hi = lo + 100
	}
	return lo, hi
}

func (st *state) intValue(n *node) (any, bool) {
	lo, hi := n.bounds()
	ilo, ihi := math.Ceil(lo), math.Floor(hi)
	if n.s.ExclusiveMinimum && ilo == lo {
		ilo++
	}
	if n.s.ExclusiveMaximum && ihi == hi {
		ihi--
	}
	if ilo > ihi || ilo < -1e15 || ihi > 1e15 {
		ilo, ihi = math.Max(ilo, -1e15), math.Min(ihi, 1e15)
		if ilo > ihi {
			return int64(0), false
		}
	}
	if m := n.s.MultipleOf; m != nil && *m > 0 && *m == math.Trunc(*m) {
		klo, khi := math.Ceil(ilo / *m), math.Floor(ihi / *m)
		if klo > khi {
			return int64(0), false
		}
		k := klo + float64(st.r.Int64N(int64(math.Min(khi-klo, 1000))+1))
		return int64(k * *m), true
	}
	span := ihi - ilo
	if span > 1000 {
		span = 1000
	}
	return int64(ilo) + st.r.Int64N(int64(span)+1), true
}

func (st *state) numberValue(n *node) (any, bool) {
	v, ok := st.intValue(n)
	if !ok || n.s.MultipleOf != nil || st.r.IntN(3) != 0 {
		if i, isInt := v.(int64); isInt && ok {
			return float64(i), true
		}
		return v, ok
	}
	lo, hi := n.bounds()
	f := float64(v.(int64)) + 0.5
	if f > hi || (n.s.ExclusiveMaximum && f >= hi) || f < lo {
		return float64(v.(int64)), true
	}
	return f, true
}

func (st *state) arrayValue(n *node, depth int) (any, bool) {
	minItems, maxItems := 0, -1
	if n.s.MinItems != nil {
		minItems = int(*n.s.MinItems)
	}
	if n.s.MaxItems != nil {
		maxItems = int(*n.s.MaxItems)
	}
	count := minItems
	if !st.exhausted(depth) {
		hi := minItems + st.opts.MaxItems
		if maxItems >= 0 && hi > maxItems {
			hi = maxItems
		}
		lo := max(minItems, 1)
		if hi >= lo {
			count = lo + st.r.IntN(hi-lo+1)
		}
	}
	if minItems > 64 {
		return []any{}, false
	}
	out := []any{}
	if n.items == nil {
		for i := 0; i < count; i++ {
			out = append(out, fmt.Sprintf("item-%d", i))
		}
		return out, true
	}
	seen := map[string]bool{}
	for i := 0; i < count; i++ {
		added := false
		for try := 0; try < 6 && !added; try++ {
			v, ok := st.value(n.items, depth+1)
			if !ok {
				continue
			}
			key := n.itemKey(v)
			if key != "" && seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, v)
			added = true
		}
		if !added {
			break
		}
	}
	return out, len(out) >= minItems
}

// itemKey is the identity of a list element under listType set or map, ""
// when elements need not be unique.
func (n *node) itemKey(v any) string {
	switch n.listType {
	case "set":
		b, _ := Marshal(v)
		return string(b)
	case "map":
		m, _ := v.(map[string]any)
		var parts []any
		for _, k := range n.mapKeys {
			kv, ok := m[k]
			if !ok && n.items != nil {
				if c := n.items.props[k]; c != nil && c.hasDef {
					kv = c.def
				}
			}
			parts = append(parts, kv)
		}
		b, _ := Marshal(parts)
		return string(b)
	}
	return ""
}

func (st *state) exhausted(depth int) bool {
	return depth >= st.opts.MaxDepth || st.nodes >= st.opts.MaxNodes
}

// includeOptional decides whether an optional property is generated.
func (st *state) includeOptional(depth int) bool {
	if st.exhausted(depth) {
		return false
	}
	p := st.ratio
	if depth == 0 && p >= 0.5 {
		// Top-level fields (spec, status) are what objects are about.
		return true
	}
	for d := 2; d < depth; d++ {
		p *= 0.75
	}
	return st.r.Float64() < p
}

func (st *state) objectValue(n *node, depth int) (any, bool) {
	if n.hasFreeForm() && !n.embedded {
		return st.freeForm(), true
	}
	out := map[string]any{}
	forced := map[string]bool{}
	for k := range n.required {
		forced[k] = true
	}
	excluded := map[string]bool{}
	if len(n.branches) > 0 {
		chosen := st.r.IntN(len(n.branches))
		for _, k := range n.branches[chosen] {
			forced[k] = true
		}
		if n.oneOf {
			for i, b := range n.branches {
				if i == chosen {
					continue
				}
				for _, k := range b {
					if !forced[k] {
						excluded[k] = true
					}
				}
			}
		}
	}
	for _, k := range n.forbidden {
		if !forced[k] {
			excluded[k] = true
		}
	}
	for _, k := range n.names {
		if n.embedded && (k == "apiVersion" || k == "kind" || k == "metadata") {
			continue
		}
		if !forced[k] && (excluded[k] || !st.includeOptional(depth)) {
			continue
		}
		v, ok := st.value(n.props[k], depth+1)
		if !ok && !forced[k] {
			continue
		}
		out[k] = v
	}
	if n.addl != nil && !st.exhausted(depth) {
		count := st.r.IntN(st.opts.MaxItems + 1)
		for i := 0; i < count; i++ {
			st.addEntry(n, out, depth)
		}
	}
	minProps, maxProps := 0, -1
	if n.s.MinProperties != nil {
		minProps = int(*n.s.MinProperties)
	}
	if n.s.MaxProperties != nil {
		maxProps = int(*n.s.MaxProperties)
	}
	for _, k := range n.names {
		if len(out) >= minProps {
			break
		}
		if _, ok := out[k]; ok || excluded[k] {
			continue
		}
		if v, ok := st.value(n.props[k], depth+1); ok {
			out[k] = v
		}
	}
	for i := 0; len(out) < minProps && n.addl != nil && i < minProps+2; i++ {
		st.addEntry(n, out, depth)
	}
	if maxProps >= 0 {
		for _, k := range sortedKeys(out) {
			if len(out) <= maxProps {
				break
			}
			if !forced[k] {
				delete(out, k)
			}
		}
	}
	if n.embedded {
		st.embeddedTypeMeta(n, out, depth)
	}
	return out, len(out) >= minProps && (maxProps < 0 || len(out) <= maxProps)
}

func (st *state) addEntry(n *node, out map[string]any, depth int) {
	st.names++
	key := fmt.Sprintf("key-%d", st.names)
	if v, ok := st.value(n.addl, depth+1); ok {
		out[key] = v
	}
}

// embeddedTypeMeta fills apiVersion, kind and metadata of an embedded
// resource: schema-constrained values when the schema constrains them, a
// ConfigMap-like identity otherwise.
func (st *state) embeddedTypeMeta(n *node, out map[string]any, depth int) {
	for _, f := range []struct{ key, plain string }{{"apiVersion", "v1"}, {"kind", "ConfigMap"}} {
		c := n.props[f.key]
		if c != nil && (len(c.enum) > 0 || c.re != nil) {
			if v, ok := st.value(c, depth+1); ok {
				out[f.key] = v
				continue
			}
		}
		out[f.key] = f.plain
	}
	st.names++
	out["metadata"] = map[string]any{
		"name":   fmt.Sprintf("embedded-%d", st.names),
		"labels": map[string]any{"app": "crdkit"},
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsonEqual compares two generated values by their encoding.
func jsonEqual(a, b any) bool {
	x, err1 := Marshal(a)
	y, err2 := Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
