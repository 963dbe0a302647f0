package crdjson

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// maxDepth bounds the nesting of objects and arrays (the standard decoder
// allows 10000; real CRDs nest a few dozen levels).
const maxDepth = 200

// Decode decodes js as kjson.UnmarshalStrict would into a
// CustomResourceDefinition. ok is false when it is not sure the answer is
// the same with no strict error and no error; the CRD is then nil.
func Decode(js []byte) (crd *apiextensionsv1.CustomResourceDefinition, ok bool) {
	d := decoder{data: js}
	crd = new(apiextensionsv1.CustomResourceDefinition)
	if !d.crd(crd) {
		return nil, false
	}
	d.ws()
	if d.i != len(d.data) {
		return nil, false
	}
	return crd, true
}

// decoder reads data from i; every method returns false when it bails.
type decoder struct {
	data  []byte
	i     int
	depth int
	buf   []byte // for strings with escapes
}

func (d *decoder) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the first byte of the next value, 0 at the end.
func (d *decoder) peek() byte {
	d.ws()
	if d.i < len(d.data) {
		return d.data[d.i]
	}
	return 0
}

// open consumes c ('{' or '[') opening a value.
func (d *decoder) open(c byte) bool {
	if d.peek() != c || d.depth >= maxDepth {
		return false
	}
	d.i++
	d.depth++
	return true
}

// key reads the next key of an object opened with open('{'): done is true
// at its '}'. Keys are plain strings only; k aliases the input.
func (d *decoder) key(first bool) (k []byte, done, ok bool) {
	c := d.peek()
	if c == '}' {
		d.i++
		d.depth--
		return nil, true, true
	}
	if !first {
		if c != ',' {
			return nil, false, false
		}
		d.i++
		c = d.peek()
	}
	if c != '"' {
		return nil, false, false
	}
	k, ok = d.plain()
	if !ok || d.peek() != ':' {
		return nil, false, false
	}
	d.i++
	return k, false, true
}

// elem reports whether an array opened with open('[') has a next element
// (done is true at its ']').
func (d *decoder) elem(first bool) (done, ok bool) {
	c := d.peek()
	if c == ']' {
		d.i++
		d.depth--
		return true, true
	}
	if !first {
		if c != ',' {
			return false, false
		}
		d.i++
	}
	return false, true
}

// special marks the bytes that end a run of plain ASCII in a string: the
// quote, the backslash, control characters and non-ASCII bytes.
var special = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

// plain reads a string without escapes (d.data[d.i] is its '"'), returning
// its bytes in the input.
func (d *decoder) plain() ([]byte, bool) {
	s := d.data
	start := d.i + 1
	for j := start; ; {
		for j < len(s) && !special[s[j]] {
			j++
		}
		if j >= len(s) {
			return nil, false
		}
		switch c := s[j]; {
		case c == '"':
			d.i = j + 1
			return s[start:j], true
		case c < utf8.RuneSelf: // a backslash or a control character
			return nil, false
		default:
			r, n := utf8.DecodeRune(s[j:])
			if r == utf8.RuneError && n == 1 {
				return nil, false
			}
			j += n
		}
	}
}

// str reads a string value. Escapes are decoded as the standard decoder
// does; lone surrogates, invalid UTF-8 and control characters bail.
func (d *decoder) str() (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	s := d.data
	start := d.i + 1
	b := d.buf[:0]
	escaped := false
	run := start // the bytes from run to j are still to copy into b
	for j := start; ; {
		for j < len(s) && !special[s[j]] {
			j++
		}
		if j >= len(s) {
			return "", false
		}
		c := s[j]
		switch {
		case c == '"':
			d.i = j + 1
			if !escaped {
				return string(s[start:j]), true
			}
			b = append(b, s[run:j]...)
			d.buf = b
			return string(b), true
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(s[j:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			j += n
			continue
		case c != '\\' || j+1 >= len(s):
			return "", false
		}
		escaped = true
		b = append(b, s[run:j]...)
		switch e := s[j+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(s[j+2:])
			if !ok {
				return "", false
			}
			j += 6
			if utf16.IsSurrogate(r) {
				// Only a high surrogate followed by a low one.
				if j+1 >= len(s) || s[j] != '\\' || s[j+1] != 'u' {
					return "", false
				}
				r2, ok := hex4(s[j+2:])
				if !ok {
					return "", false
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return "", false
				}
				j += 6
			}
			b = utf8.AppendRune(b, r)
			run = j
			continue
		default:
			return "", false
		}
		j += 2
		run = j
	}
}

// word reads a string value that is often one of a few words (a schema's
// type or format, a list or map type): those take no allocation.
func (d *decoder) word() (string, bool) {
	if d.peek() == '"' {
		save := d.i
		if b, ok := d.plain(); ok {
			switch string(b) {
			case "object":
				return "object", true
			case "string":
				return "string", true
			case "array":
				return "array", true
			case "integer":
				return "integer", true
			case "boolean":
				return "boolean", true
			case "number":
				return "number", true
			case "int32":
				return "int32", true
			case "int64":
				return "int64", true
			case "date-time":
				return "date-time", true
			case "atomic":
				return "atomic", true
			case "map":
				return "map", true
			case "set":
				return "set", true
			case "granular":
				return "granular", true
			}
		}
		d.i = save
	}
	return d.str()
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// literal consumes lit (true, false, null).
func (d *decoder) literal(lit string) bool {
	if len(d.data)-d.i < len(lit) || string(d.data[d.i:d.i+len(lit)]) != lit {
		return false
	}
	d.i += len(lit)
	return true
}

func (d *decoder) boolean() (bool, bool) {
	switch d.peek() {
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	}
	return false, false
}

// number reads a JSON number literal; integral is true when it has neither
// a fraction nor an exponent.
func (d *decoder) number() (lit []byte, integral, ok bool) {
	d.ws()
	s, j := d.data, d.i
	if j < len(s) && s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && '1' <= s[j] && s[j] <= '9':
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
	default:
		return nil, false, false
	}
	integral = true
	if j < len(s) && s[j] == '.' {
		integral = false
		j++
		k := j
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		if j == k {
			return nil, false, false
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		integral = false
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		if j == k {
			return nil, false, false
		}
	}
	lit = s[d.i:j]
	d.i = j
	return lit, integral, true
}

// integer reads an integer field of the given bit size: the standard
// decoder takes only what strconv.ParseInt does.
func (d *decoder) integer(bits int) (int64, bool) {
	lit, integral, ok := d.number()
	if !ok || !integral {
		return 0, false
	}
	n, err := strconv.ParseInt(string(lit), 10, bits)
	return n, err == nil
}

func (d *decoder) float() (float64, bool) {
	lit, _, ok := d.number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, err == nil
}

// skip consumes any valid JSON value (nulls allowed within).
func (d *decoder) skip() bool {
	switch d.peek() {
	case '{':
		if !d.open('{') {
			return false
		}
		for first := true; ; first = false {
			_, done, ok := d.key(first)
			if !ok {
				// The key may have an escape: read it as a string.
				return false
			}
			if done {
				return true
			}
			if !d.skip() {
				return false
			}
		}
	case '[':
		if !d.open('[') {
			return false
		}
		for first := true; ; first = false {
			done, ok := d.elem(first)
			if !ok {
				return false
			}
			if done {
				return true
			}
			if !d.skip() {
				return false
			}
		}
	case '"':
		_, ok := d.str()
		return ok
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		_, _, ok := d.number()
		return ok
	}
}

// raw reads a value kept as its text (a copy), as JSON.UnmarshalJSON does;
// a null (which keeps nothing) bails.
func (d *decoder) raw() (apiextensionsv1.JSON, bool) {
	if d.peek() == 'n' {
		return apiextensionsv1.JSON{}, false
	}
	start := d.i
	if !d.skip() {
		return apiextensionsv1.JSON{}, false
	}
	return apiextensionsv1.JSON{Raw: append([]byte(nil), d.data[start:d.i]...)}, true
}

func (d *decoder) rawPtr() (*apiextensionsv1.JSON, bool) {
	j, ok := d.raw()
	if !ok {
		return nil, false
	}
	return &j, true
}

func (d *decoder) strPtr() (*string, bool) {
	s, ok := d.str()
	if !ok {
		return nil, false
	}
	return &s, true
}

func (d *decoder) strings() ([]string, bool) {
	if !d.open('[') {
		return nil, false
	}
	out := []string{}
	for first := true; ; first = false {
		done, ok := d.elem(first)
		if !ok {
			return nil, false
		}
		if done {
			return out, true
		}
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
}

func (d *decoder) stringMap() (map[string]string, bool) {
	if !d.open('{') {
		return nil, false
	}
	out := map[string]string{}
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return nil, false
		}
		if done {
			return out, true
		}
		if _, dup := out[string(k)]; dup {
			return nil, false
		}
		v, ok := d.str()
		if !ok {
			return nil, false
		}
		out[string(k)] = v
	}
}

// once records field n as seen; false when it was already.
func once(seen *uint64, n uint) bool {
	if *seen&(1<<n) != 0 {
		return false
	}
	*seen |= 1 << n
	return true
}

func (d *decoder) crd(c *apiextensionsv1.CustomResourceDefinition) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "apiVersion":
			ok = once(&seen, 0)
			if ok {
				c.APIVersion, ok = d.str()
			}
		case "kind":
			ok = once(&seen, 1)
			if ok {
				c.Kind, ok = d.str()
			}
		case "metadata":
			ok = once(&seen, 2) && d.meta(&c.ObjectMeta)
		case "spec":
			ok = once(&seen, 3) && d.spec(&c.Spec)
		case "status":
			ok = once(&seen, 4) && d.status(&c.Status)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) meta(m *metav1.ObjectMeta) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "name":
			ok = once(&seen, 0)
			if ok {
				m.Name, ok = d.str()
			}
		case "generateName":
			ok = once(&seen, 1)
			if ok {
				m.GenerateName, ok = d.str()
			}
		case "namespace":
			ok = once(&seen, 2)
			if ok {
				m.Namespace, ok = d.str()
			}
		case "selfLink":
			ok = once(&seen, 3)
			if ok {
				m.SelfLink, ok = d.str()
			}
		case "uid":
			ok = once(&seen, 4)
			if ok {
				var s string
				s, ok = d.str()
				m.UID = types.UID(s)
			}
		case "resourceVersion":
			ok = once(&seen, 5)
			if ok {
				m.ResourceVersion, ok = d.str()
			}
		case "generation":
			ok = once(&seen, 6)
			if ok {
				m.Generation, ok = d.integer(64)
			}
		case "creationTimestamp":
			// Only the null controller-gen once wrote: a zero time.
			ok = once(&seen, 7) && d.peek() == 'n' && d.literal("null")
		case "labels":
			ok = once(&seen, 8)
			if ok {
				m.Labels, ok = d.stringMap()
			}
		case "annotations":
			ok = once(&seen, 9)
			if ok {
				m.Annotations, ok = d.stringMap()
			}
		case "finalizers":
			ok = once(&seen, 10)
			if ok {
				m.Finalizers, ok = d.strings()
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) spec(s *apiextensionsv1.CustomResourceDefinitionSpec) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "group":
			ok = once(&seen, 0)
			if ok {
				s.Group, ok = d.str()
			}
		case "names":
			ok = once(&seen, 1) && d.names(&s.Names)
		case "scope":
			ok = once(&seen, 2)
			if ok {
				var v string
				v, ok = d.str()
				s.Scope = apiextensionsv1.ResourceScope(v)
			}
		case "versions":
			ok = once(&seen, 3)
			if ok {
				s.Versions, ok = d.versions()
			}
		case "conversion":
			ok = once(&seen, 4)
			if ok {
				s.Conversion = new(apiextensionsv1.CustomResourceConversion)
				ok = d.conversion(s.Conversion)
			}
		case "preserveUnknownFields":
			ok = once(&seen, 5)
			if ok {
				s.PreserveUnknownFields, ok = d.boolean()
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) names(n *apiextensionsv1.CustomResourceDefinitionNames) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "plural":
			ok = once(&seen, 0)
			if ok {
				n.Plural, ok = d.str()
			}
		case "singular":
			ok = once(&seen, 1)
			if ok {
				n.Singular, ok = d.str()
			}
		case "shortNames":
			ok = once(&seen, 2)
			if ok {
				n.ShortNames, ok = d.strings()
			}
		case "kind":
			ok = once(&seen, 3)
			if ok {
				n.Kind, ok = d.str()
			}
		case "listKind":
			ok = once(&seen, 4)
			if ok {
				n.ListKind, ok = d.str()
			}
		case "categories":
			ok = once(&seen, 5)
			if ok {
				n.Categories, ok = d.strings()
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) conversion(c *apiextensionsv1.CustomResourceConversion) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "strategy":
			ok = once(&seen, 0)
			if ok {
				var v string
				v, ok = d.str()
				c.Strategy = apiextensionsv1.ConversionStrategyType(v)
			}
		default: // webhook among others
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) versions() ([]apiextensionsv1.CustomResourceDefinitionVersion, bool) {
	if !d.open('[') {
		return nil, false
	}
	out := []apiextensionsv1.CustomResourceDefinitionVersion{}
	for first := true; ; first = false {
		done, ok := d.elem(first)
		if !ok {
			return nil, false
		}
		if done {
			return out, true
		}
		out = append(out, apiextensionsv1.CustomResourceDefinitionVersion{})
		if !d.version(&out[len(out)-1]) {
			return nil, false
		}
	}
}

func (d *decoder) version(v *apiextensionsv1.CustomResourceDefinitionVersion) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "name":
			ok = once(&seen, 0)
			if ok {
				v.Name, ok = d.str()
			}
		case "served":
			ok = once(&seen, 1)
			if ok {
				v.Served, ok = d.boolean()
			}
		case "storage":
			ok = once(&seen, 2)
			if ok {
				v.Storage, ok = d.boolean()
			}
		case "deprecated":
			ok = once(&seen, 3)
			if ok {
				v.Deprecated, ok = d.boolean()
			}
		case "deprecationWarning":
			ok = once(&seen, 4)
			if ok {
				v.DeprecationWarning, ok = d.strPtr()
			}
		case "schema":
			ok = once(&seen, 5)
			if ok {
				v.Schema = new(apiextensionsv1.CustomResourceValidation)
				ok = d.validation(v.Schema)
			}
		case "subresources":
			ok = once(&seen, 6)
			if ok {
				v.Subresources = new(apiextensionsv1.CustomResourceSubresources)
				ok = d.subresources(v.Subresources)
			}
		case "additionalPrinterColumns":
			ok = once(&seen, 7)
			if ok {
				v.AdditionalPrinterColumns, ok = d.columns()
			}
		case "selectableFields":
			ok = once(&seen, 8)
			if ok {
				v.SelectableFields, ok = d.selectableFields()
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) validation(v *apiextensionsv1.CustomResourceValidation) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "openAPIV3Schema":
			ok = once(&seen, 0)
			if ok {
				v.OpenAPIV3Schema = new(apiextensionsv1.JSONSchemaProps)
				ok = d.props(v.OpenAPIV3Schema)
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) subresources(s *apiextensionsv1.CustomResourceSubresources) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "status":
			// An empty object: the type has no fields.
			ok = once(&seen, 0) && d.open('{')
			if ok {
				_, done, ok = d.key(true)
				ok = ok && done
				s.Status = new(apiextensionsv1.CustomResourceSubresourceStatus)
			}
		case "scale":
			ok = once(&seen, 1)
			if ok {
				s.Scale = new(apiextensionsv1.CustomResourceSubresourceScale)
				ok = d.scale(s.Scale)
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) scale(s *apiextensionsv1.CustomResourceSubresourceScale) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "specReplicasPath":
			ok = once(&seen, 0)
			if ok {
				s.SpecReplicasPath, ok = d.str()
			}
		case "statusReplicasPath":
			ok = once(&seen, 1)
			if ok {
				s.StatusReplicasPath, ok = d.str()
			}
		case "labelSelectorPath":
			ok = once(&seen, 2)
			if ok {
				s.LabelSelectorPath, ok = d.strPtr()
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) columns() ([]apiextensionsv1.CustomResourceColumnDefinition, bool) {
	if !d.open('[') {
		return nil, false
	}
	out := []apiextensionsv1.CustomResourceColumnDefinition{}
	for first := true; ; first = false {
		done, ok := d.elem(first)
		if !ok {
			return nil, false
		}
		if done {
			return out, true
		}
		out = append(out, apiextensionsv1.CustomResourceColumnDefinition{})
		if !d.column(&out[len(out)-1]) {
			return nil, false
		}
	}
}

func (d *decoder) column(c *apiextensionsv1.CustomResourceColumnDefinition) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "name":
			ok = once(&seen, 0)
			if ok {
				c.Name, ok = d.str()
			}
		case "type":
			ok = once(&seen, 1)
			if ok {
				c.Type, ok = d.str()
			}
		case "format":
			ok = once(&seen, 2)
			if ok {
				c.Format, ok = d.str()
			}
		case "description":
			ok = once(&seen, 3)
			if ok {
				c.Description, ok = d.str()
			}
		case "priority":
			ok = once(&seen, 4)
			if ok {
				var n int64
				n, ok = d.integer(32)
				c.Priority = int32(n)
			}
		case "jsonPath":
			ok = once(&seen, 5)
			if ok {
				c.JSONPath, ok = d.str()
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (d *decoder) selectableFields() ([]apiextensionsv1.SelectableField, bool) {
	if !d.open('[') {
		return nil, false
	}
	out := []apiextensionsv1.SelectableField{}
	for first := true; ; first = false {
		done, ok := d.elem(first)
		if !ok {
			return nil, false
		}
		if done {
			return out, true
		}
		if !d.open('{') {
			return nil, false
		}
		var f apiextensionsv1.SelectableField
		var seen uint64
		for first := true; ; first = false {
			k, done, ok := d.key(first)
			if !ok {
				return nil, false
			}
			if done {
				break
			}
			if string(k) != "jsonPath" || !once(&seen, 0) {
				return nil, false
			}
			if f.JSONPath, ok = d.str(); !ok {
				return nil, false
			}
		}
		out = append(out, f)
	}
}

func (d *decoder) status(s *apiextensionsv1.CustomResourceDefinitionStatus) bool {
	if !d.open('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		k, done, ok := d.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(k) {
		case "conditions":
			// Only the empty list controller-gen writes.
			ok = once(&seen, 0) && d.open('[')
			if ok {
				done, ok = d.elem(true)
				ok = ok && done
				s.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{}
			}
		case "acceptedNames":
			ok = once(&seen, 1) && d.names(&s.AcceptedNames)
		case "storedVersions":
			ok = once(&seen, 2)
			if ok {
				s.StoredVersions, ok = d.strings()
			}
		case "observedGeneration":
			ok = once(&seen, 3)
			if ok {
				s.ObservedGeneration, ok = d.integer(64)
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}
