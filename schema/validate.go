package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Validate checks obj against s as the API server's OpenAPI value
// validation does, and appends what the server reports to dst: the result
// of apiextensions-apiserver's ValidateCustomResource(base, obj, validator)
// with the validator NewSchemaValidator builds from the same schema, in the
// server's order (see "Order of errors" in the package documentation).
// Those already in dst are left as they are.
//
// The semantics are kube-openapi's, quirks included:
//
//   - Each check applies by the Go type of the value, whatever the schema's
//     type says: a string under "type: integer" gets a type error and is
//     still checked against maxLength and pattern.
//   - "integer" accepts a float64 within 1e-9 of an integer (and below 2^53
//     in magnitude); x-kubernetes-int-or-string makes the type list
//     [integer, string] while its anyOf is still checked, so a boolean gets
//     three errors.
//   - Formats are those the server keeps after its post-processing
//     ("date-time" and "datetime" are the same, integers keep only int32 and
//     int64, numbers only float and double, other types none); int32 and
//     float are range-checked, and the string formats are checked as
//     kube-openapi's strfmt registry checks them.
//   - Bounds compare an int64 value with the bound converted to int64, and a
//     float64 value as a float; multipleOf on an int64 value uses the factor
//     converted to int64 (so a factor below 1 is reported as not positive).
//   - A value matches an enum value after conversion to its Go type: an
//     int64 matches the string of its code point, a float64 matches an int64
//     enum value once truncated, and a null never matches.
//   - Errors are de-duplicated by kube-openapi's message text.
//
// Each error has the server's field, type, value and detail: kube-openapi's
// dotted name becomes one path element under base ("spec.a[0].b"), errors
// with no name and composite errors (anyOf, oneOf, allOf, not, range
// checks) have the field of base itself, "<nil>" when base is nil.
//
// Values are decoded JSON (see the package documentation); a value of any
// other Go type has no JSON type, so a typed schema reports it. Validate
// allocates nothing when obj is valid, except for strings in the uri and
// email formats, which the standard library parses, for the rare duration
// that only strfmt's lenient fallback accepts ("1s1"), and once for a value
// nested more than 32 levels deep (its path stack).
func (s *Schema) Validate(obj any, base *Path, dst ErrorList) ErrorList {
	if s == nil {
		return dst
	}
	v := validator{base: base, dst: dst, start: len(dst)}
	v.node(s, obj)
	return v.dst
}

// ValidateUpdate is Validate for the new value of an update, with the
// server's ratcheting (ValidateCustomResourceUpdate with the strategy's
// correlated object): c pairs obj with the old value (Correlate(s, obj,
// old), or a child of the pairing of a larger object), and the errors of
// any paired value left unchanged are dropped. Values are paired as
// Correlated describes, and never inside anyOf, oneOf, allOf and not
// branches, which the server checks with plain validators. A nil c is
// Validate. An object without errors costs what Validate costs: pairs are
// made only once an error is found.
func (s *Schema) ValidateUpdate(obj any, c *Correlated, base *Path, dst ErrorList) ErrorList {
	if s == nil {
		return dst
	}
	start := len(dst)
	dst = s.Validate(obj, base, dst)
	if c == nil || len(dst) == start {
		return dst
	}
	clear(dst[start:])
	v := validator{base: base, dst: dst[:start], start: start, cor: c}
	v.ratchet(s, obj, c)
	return v.dst
}

// Valid reports whether Validate would report nothing for obj, without
// building any error. It stops at the first failed check.
func (s *Schema) Valid(obj any) bool {
	if s == nil {
		return true
	}
	v := validator{mode: modeBool}
	v.node(s, obj)
	return v.fails == 0
}

// vmode is what a validation pass produces.
type vmode uint8

const (
	// modeCollect builds errors (and counts checks).
	modeCollect vmode = iota
	// modeCount counts kube-openapi's successful checks (its MatchCount,
	// which picks the branch whose errors an anyOf or oneOf reports) and
	// failures, without building errors.
	modeCount
	// modeBool only tells whether something failed, and stops early.
	modeBool
)

// validator is the state of one Validate or Valid call. It lives on the
// caller's stack.
type validator struct {
	base  *Path
	dst   ErrorList
	msgs  []string       // kube-openapi's message of each error in dst[start:]
	seen  map[string]int // msgs with their index, once there are many
	start int
	mode  vmode
	fails int // failed checks, before de-duplication
	at    steps

	// exact turns the fast path of plain schemas off (for tests).
	exact bool

	// cor pairs the value being checked with its old value during
	// ValidateUpdate; nil where there is none (and always in Validate).
	cor *Correlated

	// The order of an object's properties (see object).
	sorted bool      // walk properties in sorted order
	segs   []segment // the properties with errors of the objects being walked
	drops  []int     // for each error dropped as a duplicate, the index in msgs of the one kept
}

// segment is the errors of one property of an object, msgs[from:to] (or
// dst[from:to] for ValidateListTypes).
type segment struct {
	key      string
	declared bool
	cross    bool // an error of the property was dropped as one of another's
	from, to int
}

// before reports whether a comes before b in the order crdkit gives the
// properties of an object: the keys that are not declared properties, then
// the declared ones, each sorted.
func (a *segment) before(b *segment) bool {
	if a.declared != b.declared {
		return !a.declared
	}
	return a.key < b.key
}

// stepKind says how a step of the walk goes from a value to a child.
type stepKind uint8

const (
	stepProperty stepKind = iota // a declared property
	stepKey                      // a key under additionalProperties
	stepIndex                    // an array element
)

// step is one element of the path from the root to the value being
// checked. Names and paths are rendered from the steps only when an error is
// recorded.
type step struct {
	key  string
	idx  int
	kind stepKind
}

// steps is the path stack of a walk: the first steps in a fixed array, so
// that a walk no deeper than that allocates nothing, the rest in a slice.
type steps struct {
	n    int
	buf  [32]step
	more []step
}

func (p *steps) push(st step) {
	if p.n < len(p.buf) {
		p.buf[p.n] = st
	} else {
		p.more = append(p.more, st)
	}
	p.n++
}

func (p *steps) pop() {
	p.n--
	if p.n >= len(p.buf) {
		p.more = p.more[:len(p.more)-1]
	}
}

func (p *steps) at(i int) step {
	if i < len(p.buf) {
		return p.buf[i]
	}
	return p.more[i-len(p.buf)]
}

// koName renders the path as kube-openapi names a value: properties joined
// with ".", without a leading one at the root, additionalProperties keys
// always after a ".", and array indexes as "[i]".
func (p *steps) koName() string {
	var small [128]byte
	return string(p.appendKoName(small[:0]))
}

// appendKoName appends koName's text to b.
func (p *steps) appendKoName(b []byte) []byte {
	start := len(b)
	for i := 0; i < p.n; i++ {
		st := p.at(i)
		switch st.kind {
		case stepIndex:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(st.idx), 10)
			b = append(b, ']')
		case stepKey:
			b = append(b, '.')
			b = append(b, st.key...)
		default:
			if len(b) > start {
				b = append(b, '.')
			}
			b = append(b, st.key...)
		}
	}
	return b
}

// path renders the path as a field path under base, with Child, Key and
// Index, as the server's list-type checks build theirs.
func (p *steps) path(base *Path) *Path {
	for i := 0; i < p.n; i++ {
		st := p.at(i)
		switch st.kind {
		case stepIndex:
			base = base.Index(st.idx)
		case stepKey:
			base = base.Key(st.key)
		default:
			base = base.Child(st.key)
		}
	}
	return base
}

// kind is the JSON kind of a value.
type kind uint8

const (
	kindOther kind = iota
	kindNull
	kindBool
	kindString
	kindInt
	kindFloat
	kindArray
	kindObject
)

// jsonType returns the JSON type name and the Go number format kube-openapi
// infers for a value of kind k.
func (k kind) jsonType() (typ, goFormat string) {
	switch k {
	case kindBool:
		return "boolean", ""
	case kindString:
		return "string", ""
	case kindInt:
		return "integer", "int64"
	case kindFloat:
		return "number", "float64"
	case kindArray:
		return "array", ""
	case kindObject:
		return "object", ""
	}
	return "", ""
}

func kindOf(x any) kind {
	switch x.(type) {
	case nil:
		return kindNull
	case bool:
		return kindBool
	case string:
		return kindString
	case int64:
		return kindInt
	case float64:
		return kindFloat
	case []any:
		return kindArray
	case map[string]any:
		return kindObject
	}
	return kindOther
}

// typed reports whether the schema has a type list.
func (s *Schema) typed() bool { return s.intOrString || s.typ != "" }

// hasType reports whether the type list holds t.
func (s *Schema) hasType(t string) bool {
	if s.intOrString {
		return t == "integer" || t == "string"
	}
	return s.typ != "" && s.typ == t
}

// typeList is the type list as kube-openapi prints it.
func (s *Schema) typeList() string {
	if s.intOrString {
		return "integer,string"
	}
	return s.typ
}

// singleType is the type when the list has exactly one.
func (s *Schema) singleType() string {
	if s.intOrString {
		return ""
	}
	return s.typ
}

func (v *validator) stop() bool { return v.mode == modeBool && v.fails > 0 }

// failing records a failed check and reports whether to build its error.
func (v *validator) failing() bool {
	v.fails++
	return v.mode == modeCollect
}

// setPlain sets plain and plainFmt once the node is compiled.
func (s *Schema) setPlain() {
	name, fk := s.effectiveFormat()
	s.plain = !s.intOrString && len(s.anyOf)+len(s.oneOf)+len(s.allOf) == 0 && s.not == nil
	switch s.typ {
	case "object", "array":
		// An enum is checked between an array's items and an object's
		// properties: those keep the general path.
		s.plain = s.plain && name == "" && len(s.enum) == 0
	case "boolean", "number":
		s.plain = s.plain && name == ""
	case "string":
		s.plain = s.plain && (name == "" || fk.isString())
	case "integer":
		s.plain = s.plain && (name == "" || fk == fmtInt32 || fk == fmtInt64)
	default:
		s.plain = false
	}
	s.plainFmt = fk
}

// fast is node for a plain schema (see Schema.plain) when x has its type
// and, if a scalar, passes its checks; ok is false otherwise and then node
// must take the general path. The MatchCounts are those the general path
// counts: a type check that passes (2), the junctors (2), the value's own
// validator (string 1, format 1, number 2, array 2 and its items) and the
// enum (1), the object's validator (1 and its properties).
func (v *validator) fast(s *Schema, x any) (n int, ok bool) {
	switch x := x.(type) {
	case map[string]any:
		if s.typ != "object" {
			return 0, false
		}
		return 7 + v.object(s, x), true
	case []any:
		if s.typ != "array" {
			return 0, false
		}
		n = 7 + v.array(s, x)
		if !v.stop() { // the enum's count, as general stops before it
			n++
		}
		return n, true
	}
	return leaf(s, x)
}

// leaf is fast for a scalar x, which needs no walk and no path.
func leaf(s *Schema, x any) (n int, ok bool) {
	if n, ok = scalar(s, x); ok && len(s.enum) > 0 {
		ok = slices.ContainsFunc(s.enum, func(e any) bool { return enumMatch(x, e) })
	}
	return n, ok
}

// scalar is leaf without the enum.
func scalar(s *Schema, x any) (n int, ok bool) {
	b := s.bnd()
	switch x := x.(type) {
	case string:
		if s.typ != "string" {
			return 0, false
		}
		if b.maxLength != nil || b.minLength != nil {
			l := int64(utf8.RuneCountInString(x))
			if b.maxLength != nil && l > *b.maxLength || b.minLength != nil && l < *b.minLength {
				return 0, false
			}
		}
		if s.pattern != nil && !s.matchPattern(x) {
			return 0, false
		}
		if s.plainFmt != fmtNone {
			return 8, validFormat(s.plainFmt, x)
		}
		return 7, true
	case bool:
		return 6, s.typ == "boolean"
	case int64:
		if s.typ != "integer" || b.minimum != nil || b.maximum != nil || b.multipleOf != nil {
			return 0, false
		}
		return 8, s.plainFmt != fmtInt32 || x >= math.MinInt32 && x <= math.MaxInt32
	case float64:
		if s.typ != "number" || b.minimum != nil || b.maximum != nil || b.multipleOf != nil {
			return 0, false
		}
		return 8, true
	}
	return 0, false
}

// node validates x against s and returns kube-openapi's MatchCount for it.
// The validators run in kube-openapi's order: type, junctors, string,
// format, number, array, enum, object.
func (v *validator) node(s *Schema, x any) int {
	if s == nil {
		var empty Schema
		s = &empty
	}
	if s.plain && !v.exact && !v.stop() {
		if n, ok := v.fast(s, x); ok {
			return n
		}
	}
	return v.general(s, x)
}

// general is node without its fast path.
func (v *validator) general(s *Schema, x any) int {
	k := kindOf(x)
	if k == kindNull {
		return v.null(s)
	}
	fmtName, fk := s.effectiveFormat()
	n := 1
	if s.typed() || fmtName != "" {
		if v.checkType(s, x, k, fmtName) {
			n++
		}
		n++
		if v.stop() {
			return n
		}
	}
	if v.cor != nil {
		// kube-openapi validates the branches with plain validators.
		cor := v.cor
		v.cor = nil
		n += v.junctors(s, x) + 1
		v.cor = cor
	} else {
		n += v.junctors(s, x) + 1
	}
	if v.stop() {
		return n
	}
	switch k {
	case kindString:
		str := x.(string)
		v.checkString(s, str)
		n++
		if fk.isString() {
			if !validFormat(fk, str) && v.failing() {
				v.typeError(fmtName, str)
			}
			n++
		}
	case kindInt, kindFloat:
		v.checkNumber(s, x, k, fmtName, fk)
		n += 2
	case kindArray:
		n += v.array(s, x.([]any)) + 2
	}
	if v.stop() {
		return n
	}
	if len(s.enum) > 0 {
		v.checkEnum(s, x)
	}
	n++
	if k == kindObject {
		n += v.object(s, x.(map[string]any)) + 1
	}
	return n
}

// null validates a null: only the type and the enum are checked.
func (v *validator) null(s *Schema) int {
	n := 1
	if s.typed() && !s.hasType("null") && !s.nullable {
		n = 0
		if v.failing() {
			v.typeError(s.typeList(), "null")
		}
	}
	if len(s.enum) > 0 && v.failing() {
		v.enumError(s, nil)
	}
	return n
}

// checkType is kube-openapi's type validator, format clauses included.
func (v *validator) checkType(s *Schema, x any, k kind, fmtName string) bool {
	jt, goFmt := k.jsonType()
	floatInt := k == kindFloat && s.hasType("integer") && isJSONInteger(x.(float64))
	intFloat := k == kindInt && s.hasType("number")
	if k != kindString && k != kindArray && fmtName != "" &&
		!(s.hasType(jt) || goFmt == fmtName || floatInt || intFloat) {
		if v.failing() {
			v.typeError(fmtName, goFmt)
		}
		return false
	}
	if fmtName != "" && (k == kindString || k == kindArray) && !s.hasType("number") && !s.hasType("integer") {
		return true
	}
	if !(s.hasType(jt) || floatInt || intFloat) {
		if v.failing() {
			v.typeError(s.typeList(), jt)
		}
		return false
	}
	return true
}

// isJSONInteger is swag's IsFloat64AJSONInteger: within 2^53 and within a
// relative 1e-9 of an integer.
func isJSONInteger(x float64) bool {
	const limit = 1<<53 - 1
	if math.IsNaN(x) || math.IsInf(x, 0) || x < -limit || x > limit {
		return false
	}
	r := math.Round(x)
	if x == r {
		return true
	}
	if r == 0 {
		return false
	}
	d := math.Abs(x - r)
	return d == 0 || d < 1e-9*math.Abs(r)
}

// junctors validates anyOf, oneOf, allOf and not.
func (v *validator) junctors(s *Schema, x any) int {
	n := 1
	if len(s.anyOf) > 0 {
		n += v.anyOf(s.anyOf, x)
	}
	if len(s.oneOf) > 0 && !v.stop() {
		n += v.oneOf(s.oneOf, x)
	}
	if len(s.allOf) > 0 && !v.stop() {
		n += v.allOf(s.allOf, x)
	}
	if s.not != nil && !v.stop() {
		if ok, _ := v.try(s.not, x, modeBool); ok && v.failing() {
			v.plain(fmt.Sprintf("%q must not validate the schema (not)", v.at.koName()))
		}
	}
	return n
}

// try validates x against s in mode m without recording anything, and
// reports whether it passed and its MatchCount.
func (v *validator) try(s *Schema, x any, m vmode) (bool, int) {
	mode, fails := v.mode, v.fails
	v.mode, v.fails = m, 0
	n := v.node(s, x)
	ok := v.fails == 0
	v.mode, v.fails = mode, fails
	return ok, n
}

// anyOf passes at the first branch that passes; otherwise it reports its
// own error and the errors of the branch with the highest MatchCount (the
// first of equals).
func (v *validator) anyOf(bs []*Schema, x any) int {
	if v.mode == modeBool {
		for _, b := range bs {
			if ok, _ := v.try(b, x, modeBool); ok {
				return 0
			}
		}
		v.fails++
		return 0
	}
	best, bestN := -1, 0
	for i, b := range bs {
		ok, n := v.try(b, x, modeCount)
		if ok {
			return n
		}
		if best < 0 || n > bestN {
			best, bestN = i, n
		}
	}
	if v.failing() {
		v.plain(fmt.Sprintf("%q must validate at least one schema (anyOf)", v.at.koName()))
		v.node(bs[best], x)
	}
	return bestN
}

// oneOf needs exactly one passing branch; when none passes it also reports
// the errors of the failing branch with the highest MatchCount.
func (v *validator) oneOf(bs []*Schema, x any) int {
	if v.mode == modeBool {
		valid := 0
		for _, b := range bs {
			if ok, _ := v.try(b, x, modeBool); ok {
				if valid++; valid > 1 {
					break
				}
			}
		}
		if valid != 1 {
			v.fails++
		}
		return 0
	}
	valid, best, bestN, firstN := 0, -1, 0, 0
	for i, b := range bs {
		ok, n := v.try(b, x, modeCount)
		if ok {
			if valid++; valid == 1 {
				firstN = n
			}
			best = -1
			continue
		}
		if valid == 0 && (best < 0 || n > bestN) {
			best, bestN = i, n
		}
	}
	if valid == 1 {
		return firstN
	}
	if v.failing() {
		extra := "Found none valid"
		if valid > 0 {
			extra = fmt.Sprintf("Found %d valid alternatives", valid)
		}
		v.plain(fmt.Sprintf("%q must validate one and only one schema (oneOf). %s", v.at.koName(), extra))
		if best >= 0 {
			v.node(bs[best], x)
		}
	}
	if best >= 0 {
		return bestN
	}
	return 0
}

// allOf reports the errors of every branch, then its own.
func (v *validator) allOf(bs []*Schema, x any) int {
	n, valid := 0, 0
	for _, b := range bs {
		before := v.fails
		n += v.node(b, x)
		if v.fails == before {
			valid++
		} else if v.mode == modeBool {
			return n
		}
	}
	if valid != len(bs) && v.failing() {
		extra := ""
		if valid == 0 {
			extra = ". None validated"
		}
		v.plain(fmt.Sprintf("%q must validate all the schemas (allOf)%s", v.at.koName(), extra))
	}
	return n
}

// checkString checks maxLength, minLength and pattern, stopping at the first
// failure as kube-openapi does.
func (v *validator) checkString(s *Schema, str string) {
	b := s.bnd()
	if b.maxLength != nil || b.minLength != nil {
		l := int64(utf8.RuneCountInString(str))
		if b.maxLength != nil && l > *b.maxLength {
			if v.failing() {
				v.tooLong(*b.maxLength)
			}
			return
		}
		if b.minLength != nil && l < *b.minLength {
			if v.failing() {
				name := v.at.koName()
				v.invalid(name, str, fmt.Sprintf("%s in body should be at least %d chars long", name, *b.minLength))
			}
			return
		}
	}
	if s.pattern != nil && !s.matchPattern(str) && v.failing() {
		name := v.at.koName()
		v.invalid(name, str, fmt.Sprintf("%s in body should match '%s'", name, s.pattern.String()))
	}
}

// matchPattern reports whether str matches the pattern, with its automaton
// when it has one (s.match is set with s.pattern).
func (s *Schema) matchPattern(str string) bool {
	if m := s.match.get(); m != nil {
		return m.MatchString(str)
	}
	return s.pattern.MatchString(str)
}

// checkNumber is kube-openapi's number validator: the value and each bound
// are range-checked against a single integer or number type and its format,
// then multipleOf, minimum and maximum compare natively when the bound
// passed its range check and as floats otherwise.
func (v *validator) checkNumber(s *Schema, x any, k kind, fmtName string, fk format) {
	typ := s.singleType()
	switch typ {
	case "integer":
		if fk != fmtInt32 && fk != fmtInt64 {
			fmtName, fk = "", fmtNone
		}
	case "number":
		if fk != fmtFloat && fk != fmtDouble {
			fmtName, fk = "", fmtNone
		}
	default:
		typ, fmtName, fk = "", "", fmtNone
	}
	var i int64
	var fl float64
	isInt := k == kindInt
	if isInt {
		i = x.(int64)
		fl = float64(i)
	} else {
		fl = x.(float64)
	}
	if !inRange(isInt, i, fl, typ, fk) && v.failing() {
		v.rangeError("Checked", typ, fmtName)
	}
	b := s.bnd()
	if b.multipleOf != nil {
		m := *b.multipleOf
		if inRange(false, 0, m, typ, fk) {
			if isInt {
				v.multipleOfInt(i, int64(m))
			} else {
				v.multipleOfFloat(fl, m)
			}
		} else {
			if v.failing() {
				v.rangeError("MultipleOf", typ, fmtName)
			}
			v.multipleOfFloat(fl, m)
		}
	}
	if b.minimum != nil {
		m, excl := *b.minimum, b.exclusiveMinimum
		native := inRange(false, 0, m, typ, fk)
		if !native && v.failing() {
			v.rangeError("Minimum boundary", typ, fmtName)
		}
		if native && isInt {
			if b := int64(m); (i < b || excl && i == b) && v.failing() {
				v.bound("greater", b, excl, i)
			}
		} else if (fl < m || excl && fl == m) && v.failing() {
			v.bound("greater", m, excl, fl)
		}
	}
	if b.maximum != nil {
		m, excl := *b.maximum, b.exclusiveMaximum
		native := inRange(false, 0, m, typ, fk)
		if !native && v.failing() {
			v.rangeError("Maximum boundary", typ, fmtName)
		}
		if native && isInt {
			if b := int64(m); (i > b || excl && i == b) && v.failing() {
				v.bound("less", b, excl, i)
			}
		} else if (fl > m || excl && fl == m) && v.failing() {
			v.bound("less", m, excl, fl)
		}
	}
}

// inRange is kube-openapi's IsValueValidAgainstRange without error: it
// prints the number (an int64 in decimal, a float64 with strconv's 'f'
// format) and parses the text back as the type and format ask.
func inRange(isInt bool, i int64, fl float64, typ string, fk format) bool {
	switch typ {
	case "integer":
		if isInt {
			return fk != fmtInt32 || i >= math.MinInt32 && i <= math.MaxInt32
		}
		if math.IsNaN(fl) || math.IsInf(fl, 0) || fl != math.Trunc(fl) {
			return false
		}
		if fk == fmtInt32 {
			return fl >= math.MinInt32 && fl <= math.MaxInt32
		}
		// Beyond 2^53 the printed digits are the shortest that round back,
		// which stay within int64 exactly when the value is below 2^63 in
		// magnitude.
		return fl > -(1<<63) && fl < 1<<63
	case "number":
		if fk != fmtFloat || isInt {
			return true
		}
		// The printed value overflows float32 from halfway between
		// MaxFloat32 and 2^128; at exactly that value the digits decide.
		const half = 1<<128 - 1<<103
		if a := math.Abs(fl); a != half {
			return !(a > half) || math.IsInf(fl, 0)
		}
		_, err := strconv.ParseFloat(strconv.FormatFloat(fl, 'f', -1, 64), 32)
		return err == nil
	}
	return true
}

func (v *validator) multipleOfInt(x, factor int64) {
	if factor <= 0 {
		if v.failing() {
			v.notPositive(factor)
		}
		return
	}
	if x%factor != 0 && v.failing() {
		name := v.at.koName()
		v.invalid(name, x, fmt.Sprintf("%s in body should be a multiple of %v", name, factor))
	}
}

func (v *validator) multipleOfFloat(x, factor float64) {
	if factor <= 0 {
		if v.failing() {
			v.notPositive(factor)
		}
		return
	}
	var q float64
	if factor < 1 {
		q = 1 / factor * x
	} else {
		q = x / factor
	}
	if !isJSONInteger(q) && v.failing() {
		name := v.at.koName()
		v.invalid(name, x, fmt.Sprintf("%s in body should be a multiple of %v", name, factor))
	}
}

// array validates the items and the item counts, returning the sum of the
// items' MatchCounts.
func (v *validator) array(s *Schema, a []any) int {
	n := 0
	if s.items != nil {
		quick := s.items.plain && !v.exact
		for i, e := range a {
			if quick {
				if c, ok := leaf(s.items, e); ok {
					n += c
					continue
				}
			}
			v.at.push(step{idx: i, kind: stepIndex})
			if v.cor != nil {
				n += v.ratchet(s.items, e, v.cor.Index(i))
			} else {
				n += v.node(s.items, e)
			}
			v.at.pop()
			if v.stop() {
				return n
			}
		}
	}
	size := int64(len(a))
	b := s.bnd()
	if b.minItems != nil && size < *b.minItems && v.failing() {
		name := v.at.koName()
		v.invalid(name, size, fmt.Sprintf("%s in body should have at least %d items", name, *b.minItems))
	}
	if b.maxItems != nil && size > *b.maxItems && v.failing() {
		name := v.at.koName()
		v.tooMany(name, fmt.Sprintf("%s in body should have at most %d items", name, *b.maxItems), size, *b.maxItems)
	}
	return n
}

// object validates property counts, additionalProperties, the properties
// present and required, returning the sum of the children's MatchCounts.
//
// The properties are walked in map order, which costs nothing; when more
// than one of them records errors, their errors are then put in the order
// sortedProperties walks them (see orderErrors).
func (v *validator) object(s *Schema, m map[string]any) int {
	size := int64(len(m))
	b := s.bnd()
	if b.minProps != nil && size < *b.minProps && v.failing() {
		name := v.at.koName()
		v.invalid(name, size, fmt.Sprintf("%s in body should have at least %d properties", name, *b.minProps))
	}
	if b.maxProps != nil && size > *b.maxProps && v.failing() {
		name := v.at.koName()
		v.tooMany(name, fmt.Sprintf("%s in body should have at most %d properties", name, *b.maxProps), size, *b.maxProps)
	}
	if v.stop() {
		return 0
	}
	n := 0
	seen := 0 // required keys met by the walk (markRequired)
	switch {
	case len(s.propNames) == 0 && s.additional == nil && !(s.addlSet && !s.addlAllows):
		// No key has a schema or is forbidden: the walk would check nothing
		// (metadata, preserved objects).
	case v.sorted && v.mode == modeCollect:
		n = v.sortedProperties(s, m)
	default:
		segs, drops, from, fails := len(v.segs), len(v.drops), len(v.msgs), v.fails
		forbid := s.addlSet && !s.addlAllows
		for k, x := range m {
			f, at, d := v.fails, len(v.msgs), len(v.drops)
			p, req := s.propertyReq(k) // never nil for a declared property
			if req {
				seen++
			}
			if p != nil && p.plain && !v.exact {
				// A scalar that passes needs neither its path nor a pairing.
				if c, ok := leaf(p, x); ok {
					n += c
					continue
				}
			}
			switch {
			case p != nil:
				v.at.push(step{key: k})
				n += v.child(p, k, x)
				v.at.pop()
			case forbid:
				if v.failing() {
					name := v.at.koName()
					v.invalid(name, k, fmt.Sprintf("%s.%s in body is a forbidden property", name, k))
				}
			case s.additional != nil:
				v.at.push(step{key: k, kind: stepKey})
				n += v.child(s.additional, k, x)
				v.at.pop()
			}
			if v.fails != f {
				if v.mode != modeCollect {
					if v.stop() {
						return n
					}
					continue
				}
				v.segs = append(v.segs, segment{key: k, declared: p != nil, from: at, to: len(v.msgs), cross: v.crossDrop(d, from, at)})
			}
		}
		if len(v.segs) > segs+1 {
			n = v.orderErrors(s, m, n, segs, drops, from, fails)
		}
		v.segs = v.segs[:segs]
	}
	if seen == len(s.required) {
		return n // the walk met every required key: none is missing
	}
	for _, r := range s.required {
		if _, ok := m[r]; !ok && v.failing() {
			name := v.at.koName() + "." + r
			v.add(name+" in body is required", &Error{Type: ErrorTypeRequired, Field: v.field(name), BadValue: ""})
		}
	}
	return n
}

// property validates the value x of key k of an object with schema s.
func (v *validator) property(s *Schema, k string, x any) int {
	switch p := s.Property(k); {
	case p != nil:
		v.at.push(step{key: k})
		n := v.child(p, k, x)
		v.at.pop()
		return n
	case s.addlSet && !s.addlAllows:
		if v.failing() {
			name := v.at.koName()
			v.invalid(name, k, fmt.Sprintf("%s.%s in body is a forbidden property", name, k))
		}
	case s.additional != nil:
		v.at.push(step{key: k, kind: stepKey})
		n := v.child(s.additional, k, x)
		v.at.pop()
		return n
	}
	return 0
}

// child validates the value x of property k (already pushed) against s,
// paired with its old value during ValidateUpdate.
func (v *validator) child(s *Schema, k string, x any) int {
	if v.cor == nil {
		return v.node(s, x)
	}
	var c *Correlated
	// The validator's own root never pairs apiVersion and kind: both old and
	// new were converted to the same version (kube-openapi's root path).
	if v.at.n > 1 || (k != "apiVersion" && k != "kind") {
		c = v.cor.Key(k)
	}
	return v.ratchet(s, x, c)
}

// ratchet validates x against s with c as its pairing (nil: none, and
// nothing below is paired either), then drops the errors x recorded when
// it is unchanged from its old value, as the server's ratcheting validator
// turns them into (unreported) warnings.
func (v *validator) ratchet(s *Schema, x any, c *Correlated) int {
	cor := v.cor
	v.cor = c
	f, at, d := v.fails, len(v.msgs), len(v.drops)
	n := v.node(s, x)
	if c != nil && v.fails != f && c.Equal() {
		v.truncate(at)
		v.drops = v.drops[:d]
		v.fails = f
	}
	v.cor = cor
	return n
}

// sortedProperties walks the properties of m in crdkit's order: the keys
// that are not declared properties (forbidden, or under
// additionalProperties), then the declared ones, each sorted.
func (v *validator) sortedProperties(s *Schema, m map[string]any) int {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	n := 0
	for _, declared := range [2]bool{false, true} {
		for _, k := range keys {
			if (s.Property(k) != nil) == declared {
				n += v.property(s, k, m[k])
			}
		}
	}
	return n
}

// crossDrop reports whether one of the errors dropped as duplicates from
// drops[d] on repeats an error recorded in msgs[from:at], by a property of
// the same object walked before.
func (v *validator) crossDrop(d, from, at int) bool {
	for _, j := range v.drops[d:] {
		if j >= from && j < at {
			return true
		}
	}
	return false
}

// orderErrors puts the errors of the properties of m, which the segments
// from segs on hold in the order object walked them (msgs[from:]), in the
// order of sortedProperties. An error whose message repeats one that
// another property recorded before was dropped, and which of the two is
// dropped depends on the order: then the properties are walked again, in
// sorted order, and their MatchCounts returned instead of n.
func (v *validator) orderErrors(s *Schema, m map[string]any, n, segs, drops, from, fails int) int {
	sg := v.segs[segs:]
	inOrder, cross := true, false
	for i := range sg {
		cross = cross || sg[i].cross
		if i > 0 && !sg[i-1].before(&sg[i]) {
			inOrder = false
		}
	}
	switch {
	case cross:
		v.truncate(from)
		v.fails, v.segs, v.drops = fails, v.segs[:segs], v.drops[:drops]
		v.sorted = true
		n = v.sortedProperties(s, m)
		v.sorted = false
	case !inOrder:
		v.reorder(sg)
	}
	return n
}

// truncate removes the errors recorded from msgs[i] on.
func (v *validator) truncate(i int) {
	if v.seen != nil {
		for _, m := range v.msgs[i:] {
			delete(v.seen, m)
		}
	}
	v.msgs = v.msgs[:i]
	v.dst = v.dst[:v.start+i]
}

// reorder sorts segs, which cover msgs[segs[0].from:] one after the other,
// and moves their errors accordingly.
func (v *validator) reorder(segs []segment) {
	from := segs[0].from
	msgs := slices.Clone(v.msgs[from:])
	errs := slices.Clone(v.dst[v.start+from:])
	slices.SortFunc(segs, func(a, b segment) int {
		if a.before(&b) {
			return -1
		}
		return 1
	})
	i := from
	for _, sg := range segs {
		copy(v.dst[v.start+i:], errs[sg.from-from:sg.to-from])
		i += copy(v.msgs[i:], msgs[sg.from-from:sg.to-from])
	}
	if v.seen != nil {
		for j := from; j < len(v.msgs); j++ {
			v.seen[v.msgs[j]] = j
		}
	}
}

// checkEnum passes when one of the enum values equals x after converting x
// to that value's Go type, as kube-openapi's reflection does.
func (v *validator) checkEnum(s *Schema, x any) {
	for _, e := range s.enum {
		if enumMatch(x, e) {
			return
		}
	}
	if v.failing() {
		v.enumError(s, x)
	}
}

func enumMatch(x, e any) bool {
	switch ev := e.(type) {
	case nil:
		return false
	case string:
		switch xv := x.(type) {
		case string:
			return xv == ev
		case int64:
			return runeString(xv, ev)
		case bool, float64, []any, map[string]any:
			return false
		}
	case float64:
		switch xv := x.(type) {
		case float64:
			return xv == ev
		case int64:
			return float64(xv) == ev
		case bool, string, []any, map[string]any:
			return false
		}
	case int64:
		switch xv := x.(type) {
		case int64:
			return xv == ev
		case float64:
			return int64(xv) == ev
		case bool, string, []any, map[string]any:
			return false
		}
	case bool:
		xv, ok := x.(bool)
		return ok && xv == ev
	case []any:
		xv, ok := x.([]any)
		return ok && deepEqual(xv, ev)
	case map[string]any:
		xv, ok := x.(map[string]any)
		return ok && deepEqual(xv, ev)
	}
	return reflectEnumMatch(x, e)
}

// runeString reports whether converting the integer i to a string, as
// reflection converts integers (U+FFFD when out of range), gives s.
func runeString(i int64, s string) bool {
	r := rune(i)
	if int64(r) != i || !utf8.ValidRune(r) {
		r = utf8.RuneError
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	return s == string(buf[:n])
}

func reflectEnumMatch(x, e any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	xv, et := reflect.ValueOf(x), reflect.TypeOf(e)
	if !xv.IsValid() || !xv.Type().ConvertibleTo(et) {
		return false
	}
	return reflect.DeepEqual(xv.Convert(et).Interface(), e)
}

// deepEqual is reflect.DeepEqual on decoded JSON values.
func deepEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !deepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !deepEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// Errors. Each builder makes the kube-openapi message, maps the error as the
// server's kubeOpenAPIResultToFieldErrors does, and records it unless an
// error with the same message was recorded before.

// add records e unless kube-openapi's message msg was seen in this call.
func (v *validator) add(msg string, e *Error) {
	if v.seen != nil {
		if j, dup := v.seen[msg]; dup {
			v.drops = append(v.drops, j)
			return
		}
		v.seen[msg] = len(v.msgs)
	} else {
		for j, m := range v.msgs {
			if m == msg {
				v.drops = append(v.drops, j)
				return
			}
		}
		if len(v.msgs) == 32 {
			v.seen = make(map[string]int, 64)
			for j, m := range v.msgs {
				v.seen[m] = j
			}
			v.seen[msg] = len(v.msgs)
		}
	}
	v.msgs = append(v.msgs, msg)
	v.dst = append(v.dst, e)
}

// field is the server's field for a kube-openapi name: one child of base
// named without its leading dot, or base itself for "" and ".".
func (v *validator) field(name string) string {
	if name == "" || name == "." {
		if v.base == nil {
			return "<nil>"
		}
		return v.base.String()
	}
	name = strings.TrimPrefix(name, ".")
	if v.base == nil {
		return name
	}
	return v.base.Child(name).String()
}

// plain records an error that is not a kube-openapi validation error: the
// server reports it as invalid at base, with an empty value.
func (v *validator) plain(msg string) {
	v.add(msg, &Error{Type: ErrorTypeInvalid, Field: v.field(""), BadValue: "", Detail: msg})
}

func (v *validator) invalid(name string, value any, msg string) {
	v.add(msg, &Error{Type: ErrorTypeInvalid, Field: v.field(name), BadValue: value, Detail: msg})
}

func (v *validator) typeError(typ, value string) {
	var small [256]byte
	b := v.at.appendKoName(small[:0])
	n := len(b)
	b = append(b, " in body must be of type "...)
	b = append(b, typ...)
	b = append(b, ": "...)
	msg := string(strconv.AppendQuote(b, value))
	name := msg[:n]
	v.add(msg, &Error{Type: ErrorTypeTypeInvalid, Field: v.field(name), BadValue: boxTypeName(value), Detail: msg})
}

// boxTypeName is s in an interface, allocated only when s is not one of the
// JSON type names typeError's values mostly are.
func boxTypeName(s string) any {
	switch s {
	case "object":
		return "object"
	case "array":
		return "array"
	case "string":
		return "string"
	case "integer":
		return "integer"
	case "number":
		return "number"
	case "boolean":
		return "boolean"
	case "null":
		return "null"
	}
	return s
}

func (v *validator) tooLong(max int64) {
	name := v.at.koName()
	msg := fmt.Sprintf("%s in body should be at most %d chars long", name, max)
	unit := "bytes"
	if max == 1 {
		unit = "byte"
	}
	detail := fmt.Sprintf("may not be more than %d %s", int(max), unit)
	if int(max) < 0 {
		detail = "value is too long"
	}
	v.add(msg, &Error{Type: ErrorTypeTooLong, Field: v.field(name), BadValue: "<value omitted>", Detail: detail})
}

func (v *validator) tooMany(name, msg string, size, max int64) {
	unit := "items"
	if max == 1 {
		unit = "item"
	}
	detail := fmt.Sprintf("must have at most %d %s", int(max), unit)
	if int(max) < 0 {
		detail = "has too many items"
	}
	v.add(msg, &Error{Type: ErrorTypeTooMany, Field: v.field(name), BadValue: int(size), Detail: detail})
}

func (v *validator) notPositive(factor any) {
	name := v.at.koName()
	v.invalid(name, factor, fmt.Sprintf("factor MultipleOf declared for %s must be positive: %v", name, factor))
}

// bound records a minimum ("greater") or maximum ("less") failure; bound and
// value are both int64 or both float64.
func (v *validator) bound(dir string, bound any, excl bool, value any) {
	name := v.at.koName()
	var msg string
	if excl {
		msg = fmt.Sprintf("%s in body should be %s than %v", name, dir, bound)
	} else {
		msg = fmt.Sprintf("%s in body should be %s than or equal to %v", name, dir, bound)
	}
	v.invalid(name, value, msg)
}

func (v *validator) rangeError(prefix, typ, format string) {
	if format != "" {
		v.plain(fmt.Sprintf("%s value must be of type %s with format %s in %s", prefix, typ, format, v.at.koName()))
		return
	}
	v.plain(fmt.Sprintf("%s value must be of type %s (default format) in %s", prefix, typ, v.at.koName()))
}

func (v *validator) enumError(s *Schema, x any) {
	name := v.at.koName()
	msg := fmt.Sprintf("%s in body should be one of %v", name, s.enum)
	quoted := make([]string, len(s.enum))
	for i, e := range s.enum {
		str, ok := e.(string)
		if !ok {
			b, _ := json.Marshal(e)
			str = string(b)
		}
		quoted[i] = strconv.Quote(str)
	}
	detail := ""
	if len(quoted) > 0 {
		detail = "supported values: " + strings.Join(quoted, ", ")
	}
	v.add(msg, &Error{Type: ErrorTypeNotSupported, Field: v.field(name), BadValue: x, Detail: detail})
}
