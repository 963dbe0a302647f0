package schema

import (
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Schema is a compiled OpenAPI v3 schema node: the structural part of a CRD
// schema (type, properties, items, additionalProperties, extensions) plus its
// value validations, with patterns compiled and properties sorted. It is
// built once by Compile and never changes afterwards, so it is safe for
// concurrent use by any number of goroutines.
//
// Nodes under allOf, anyOf, oneOf and not are Schemas too; they carry value
// validations only, as the structural rules require.
type Schema struct {
	typ         string
	format      string
	description string
	nullable    bool
	preserve    bool
	embedded    bool
	intOrString bool
	hasDefault  bool
	addlSet     bool // additionalProperties present
	addlAllows  bool // additionalProperties true or a schema
	// plain says the node checks nothing but its single type and the
	// scalar checks leaf makes: no int-or-string, no format kept but int32,
	// int64 and the string formats, no junctors, no enum on an object or an
	// array (see validator.fast); plainFmt is that format.
	plain    bool
	plainFmt format
	summary  Summary
	def      any

	bounds *bounds // nil or noBounds when the node has none (see bnd)

	pattern  *regexp.Regexp
	match    *lazyMatcher // pattern's automaton, built on first use
	enum     []any
	required []string

	items      *Schema
	propNames  []string  // sorted
	propNodes  []*Schema // parallel to propNames
	listProps  []int     // the indices in propNames of the properties with HasListTypes
	ownDefs    []int     // ... of the properties with a default
	belowDefs  []int     // ... of the properties with HasDefaults (a default in their subtree)
	props      map[string]*Schema
	index      *propIndex // nil: look names up in props
	additional *Schema    // additionalProperties schema, if any

	allOf, anyOf, oneOf []*Schema
	not                 *Schema

	listType    string
	listMapKeys []string
	mapType     string
	rules       []ValidationRule
}

// bounds are a node's numeric limits. Most nodes have none, and a Schema
// holds them behind one pointer: that keeps a node at 512 bytes or less,
// the largest objects the Go allocator types without a header word of
// their own (see startHeap in cmd/crdkit).
type bounds struct {
	maximum, minimum     *float64
	multipleOf           *float64
	maxLength, minLength *int64
	maxItems, minItems   *int64
	maxProps, minProps   *int64
	exclusiveMaximum     bool
	exclusiveMinimum     bool
}

// noBounds is the bounds of every compiled node without any (never
// written).
var noBounds bounds

// bnd is s's bounds (a zero Schema has none).
func (s *Schema) bnd() *bounds {
	if s.bounds == nil {
		return &noBounds
	}
	return s.bounds
}

// Summary says what a subtree of a schema contains, so that operations can
// skip whole subtrees that need no work.
type Summary uint32

// Summary bits.
const (
	HasDefaults Summary = 1 << iota
	HasEmbeddedResource
	HasPreserveUnknownFields
	HasListTypes
	HasRules
	HasNonNullable // a property or item that is not nullable (null pruning)
	HasValueValidation
)

// Compile compiles p into an immutable Schema. It refuses what the server
// cannot turn into a structural schema (BuildError) and invalid patterns; it
// does not require the schema to be structural (see ValidateStructural).
func Compile(p *Props) (*Schema, error) {
	if p == nil {
		return nil, nil
	}
	if err := BuildError(p); err != nil {
		return nil, err
	}
	var cm compiler
	return cm.compile(p, 0)
}

// CompileJSON decodes the JSON of an openAPIV3Schema and compiles it.
func CompileJSON(data []byte) (*Schema, error) {
	p, err := ParseProps(data)
	if err != nil {
		return nil, err
	}
	return Compile(p)
}

// compiler is the state of one Compile: the patterns compiled so far, which
// nodes with the same pattern share (CRDs repeat theirs, a name pattern
// dozens of times), taken from the process-wide cache on first use.
type compiler struct {
	patterns map[string]compiledPattern
}

type compiledPattern struct {
	re    *regexp.Regexp
	match *lazyMatcher
}

// lazyMatcher is the automaton of a pattern (compileMatcher), built on
// first use: a CRD check compiles every pattern but matches few values (its
// defaults), and building the automaton costs about as much as compiling
// the pattern. Safe for concurrent use.
type lazyMatcher struct {
	once sync.Once
	re   *regexp.Regexp
	m    *matcher
}

// get is the automaton, nil when there is none (the regexp is used).
func (l *lazyMatcher) get() *matcher {
	if l == nil {
		return nil
	}
	l.once.Do(func() { l.m = compileMatcher(l.re) })
	return l.m
}

// pattern compiles expr, or returns it compiled before.
func (c *compiler) pattern(expr string) (compiledPattern, error) {
	if cp, ok := c.patterns[expr]; ok {
		return cp, nil
	}
	cp, err := sharedPattern(expr)
	if err != nil {
		return compiledPattern{}, err
	}
	if c.patterns == nil {
		c.patterns = map[string]compiledPattern{}
	}
	c.patterns[expr] = cp
	return cp, nil
}

func (cm *compiler) compile(p *Props, depth int) (*Schema, error) {
	if p == nil {
		return nil, nil
	}
	if depth > maxDepth {
		return nil, ErrTooDeep
	}
	s := &Schema{
		typ:         p.Type,
		format:      p.Format,
		description: p.Description,
		nullable:    p.Nullable,
		preserve:    p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields,
		embedded:    p.XEmbeddedResource,
		intOrString: p.XIntOrString,
		bounds:      &noBounds,
		required:    slices.Clone(p.Required),
		listMapKeys: slices.Clone(p.XListMapKeys),
		rules:       slices.Clone(p.XValidations),
	}
	if p.Maximum != nil || p.Minimum != nil || p.ExclusiveMaximum || p.ExclusiveMinimum || p.MultipleOf != nil ||
		p.MaxLength != nil || p.MinLength != nil || p.MaxItems != nil || p.MinItems != nil ||
		p.MaxProperties != nil || p.MinProperties != nil {
		s.bounds = &bounds{
			maximum:          copyPtr(p.Maximum),
			minimum:          copyPtr(p.Minimum),
			exclusiveMaximum: p.ExclusiveMaximum,
			exclusiveMinimum: p.ExclusiveMinimum,
			multipleOf:       copyPtr(p.MultipleOf),
			maxLength:        copyPtr(p.MaxLength),
			minLength:        copyPtr(p.MinLength),
			maxItems:         copyPtr(p.MaxItems),
			minItems:         copyPtr(p.MinItems),
			maxProps:         copyPtr(p.MaxProperties),
			minProps:         copyPtr(p.MinProperties),
		}
	}
	// The compiled schema owns its values: nothing the caller keeps can
	// change it afterwards.
	if p.Enum != nil {
		s.enum = make([]any, len(p.Enum))
		for i, e := range p.Enum {
			s.enum[i] = DeepCopyValue(e)
		}
	}
	if p.Default != nil && p.Default.V != nil {
		s.hasDefault, s.def = true, DeepCopyValue(p.Default.V)
		s.summary |= HasDefaults
	}
	if p.XListType != nil {
		s.listType = *p.XListType
		if s.listType == "set" || s.listType == "map" {
			s.summary |= HasListTypes
		}
	}
	if p.XMapType != nil {
		s.mapType = *p.XMapType
	}
	if s.embedded {
		s.summary |= HasEmbeddedResource
	}
	if s.preserve {
		s.summary |= HasPreserveUnknownFields
	}
	if len(s.rules) > 0 {
		s.summary |= HasRules
	}
	if p.Pattern != "" {
		cp, err := cm.pattern(p.Pattern)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", p.Pattern, err)
		}
		s.pattern, s.match = cp.re, cp.match
	}
	if !valueValidationZero(p) || p.Type != "" {
		s.summary |= HasValueValidation
	}
	var err error
	if s.items, err = cm.compile(p.Items, depth+1); err != nil {
		return nil, err
	}
	if len(p.Properties) > 0 {
		s.propNames = sortedKeys(p.Properties)
		s.propNodes = make([]*Schema, len(s.propNames))
		s.props = make(map[string]*Schema, len(s.propNames))
		for i, k := range s.propNames {
			pp := p.Properties[k]
			if pp == nil {
				pp = new(Props) // a declared property with no schema is an empty schema
			}
			c, err := cm.compile(pp, depth+1)
			if err != nil {
				return nil, err
			}
			s.propNodes[i], s.props[k] = c, c
		}
		s.index = buildPropIndex(s.propNames, s.propNodes)
		if s.index != nil {
			s.index.markRequired(s.required)
		}
	}
	if ap := p.AdditionalProperties; ap != nil {
		s.addlSet, s.addlAllows = true, ap.Allows
		if s.additional, err = cm.compile(ap.Schema, depth+1); err != nil {
			return nil, err
		}
	}
	for _, l := range []struct {
		dst *[]*Schema
		src []*Props
	}{{&s.allOf, p.AllOf}, {&s.anyOf, p.AnyOf}, {&s.oneOf, p.OneOf}} {
		for _, x := range l.src {
			if x == nil {
				x = new(Props)
			}
			c, err := cm.compile(x, depth+1)
			if err != nil {
				return nil, err
			}
			*l.dst = append(*l.dst, c)
		}
	}
	if s.not, err = cm.compile(p.Not, depth+1); err != nil {
		return nil, err
	}
	s.setPlain()
	for i, c := range s.propNodes {
		if c.summary&HasListTypes != 0 {
			s.listProps = append(s.listProps, i)
		}
		if c.hasDefault {
			s.ownDefs = append(s.ownDefs, i)
		}
		if c.summary&HasDefaults != 0 {
			s.belowDefs = append(s.belowDefs, i)
		}
	}
	for _, c := range s.children() {
		s.summary |= c.summary
		if !c.nullable {
			s.summary |= HasNonNullable
		}
	}
	return s, nil
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// DeepCopyValue copies a decoded JSON value (maps and slices recursively;
// scalars as they are).
func DeepCopyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = DeepCopyValue(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = DeepCopyValue(e)
		}
		return out
	}
	return v
}

// children returns the structural children (items, properties,
// additionalProperties).
func (s *Schema) children() []*Schema {
	var cs []*Schema
	if s.items != nil {
		cs = append(cs, s.items)
	}
	cs = append(cs, s.propNodes...)
	if s.additional != nil {
		cs = append(cs, s.additional)
	}
	return cs
}

// Type is the type keyword: "", "object", "array", "string", "integer",
// "number" or "boolean".
func (s *Schema) Type() string { return s.typ }

// Format is the format keyword as written.
func (s *Schema) Format() string { return s.format }

// Description is the description keyword.
func (s *Schema) Description() string { return s.description }

// Nullable reports the nullable keyword.
func (s *Schema) Nullable() bool { return s.nullable }

// Default returns the default value and whether one is set. The value is
// shared: callers must deep-copy it before handing it out.
func (s *Schema) Default() (any, bool) { return s.def, s.hasDefault }

// PreserveUnknownFields reports x-kubernetes-preserve-unknown-fields.
func (s *Schema) PreserveUnknownFields() bool { return s.preserve }

// EmbeddedResource reports x-kubernetes-embedded-resource.
func (s *Schema) EmbeddedResource() bool { return s.embedded }

// IntOrString reports x-kubernetes-int-or-string.
func (s *Schema) IntOrString() bool { return s.intOrString }

// ListType is x-kubernetes-list-type ("" when unset).
func (s *Schema) ListType() string { return s.listType }

// ListMapKeys is x-kubernetes-list-map-keys.
func (s *Schema) ListMapKeys() []string { return s.listMapKeys }

// MapType is x-kubernetes-map-type ("" when unset).
func (s *Schema) MapType() string { return s.mapType }

// Rules are the x-kubernetes-validations of this node.
func (s *Schema) Rules() []ValidationRule { return s.rules }

// Items is the items schema, or nil.
func (s *Schema) Items() *Schema { return s.items }

// Property returns the schema of the named property, or nil.
func (s *Schema) Property(name string) *Schema {
	if s.index != nil {
		return s.index.lookup(name)
	}
	return s.props[name]
}

// PropertyName is Property that also returns the schema's own copy of the
// name, equal to name, when it holds one where the lookup finds it (""
// otherwise, or when name is not declared): a decoder can use it as the
// key of the property in the map it builds instead of copying the name
// out of its input.
func (s *Schema) PropertyName(name string) (string, *Schema) {
	if s.index != nil {
		return s.index.lookupName(name)
	}
	return "", s.props[name]
}

// propertyReq is Property that also says whether the name is required
// (as the index flags it: false without an index).
func (s *Schema) propertyReq(name string) (*Schema, bool) {
	if s.index != nil {
		return s.index.lookupReq(name)
	}
	return s.props[name], false
}

// PropertyAt returns the i-th declared property in sorted order, for
// 0 <= i < NumProperties().
func (s *Schema) PropertyAt(i int) (string, *Schema) { return s.propNames[i], s.propNodes[i] }

// DefaultedProperties returns, as indices for PropertyAt in sorted order,
// the declared properties with a default of their own (own), and those
// whose subtree holds a default (below: own and the properties with
// HasDefaults). The slices are the schema's: do not modify them.
func (s *Schema) DefaultedProperties() (own, below []int) { return s.ownDefs, s.belowDefs }

// NumProperties is the number of declared properties.
func (s *Schema) NumProperties() int { return len(s.propNames) }

// Properties yields the declared properties in sorted order.
func (s *Schema) Properties() iter.Seq2[string, *Schema] {
	return func(yield func(string, *Schema) bool) {
		for i, k := range s.propNames {
			if !yield(k, s.propNodes[i]) {
				return
			}
		}
	}
}

// AdditionalProperties returns the additionalProperties schema (nil when it
// is a boolean or absent), whether additional properties are allowed, and
// whether the keyword is present at all.
func (s *Schema) AdditionalProperties() (schema *Schema, allows, set bool) {
	return s.additional, s.addlAllows, s.addlSet
}

// Pattern is the compiled pattern, or nil.
func (s *Schema) Pattern() *regexp.Regexp { return s.pattern }

// Enum is the list of allowed values (nil when unrestricted).
func (s *Schema) Enum() []any { return s.enum }

// Required lists the required property names.
func (s *Schema) Required() []string { return s.required }

// Maximum returns the maximum and whether it is exclusive.
func (s *Schema) Maximum() (*float64, bool) { return s.bnd().maximum, s.bnd().exclusiveMaximum }

// Minimum returns the minimum and whether it is exclusive.
func (s *Schema) Minimum() (*float64, bool) { return s.bnd().minimum, s.bnd().exclusiveMinimum }

// MultipleOf is the multipleOf keyword, or nil.
func (s *Schema) MultipleOf() *float64 { return s.bnd().multipleOf }

// Lengths returns minLength and maxLength (nil when unset).
func (s *Schema) Lengths() (min, max *int64) { return s.bnd().minLength, s.bnd().maxLength }

// ItemCounts returns minItems and maxItems (nil when unset).
func (s *Schema) ItemCounts() (min, max *int64) { return s.bnd().minItems, s.bnd().maxItems }

// PropertyCounts returns minProperties and maxProperties (nil when unset).
func (s *Schema) PropertyCounts() (min, max *int64) { return s.bnd().minProps, s.bnd().maxProps }

// AllOf, AnyOf, OneOf and Not are the junctors of this node.
func (s *Schema) AllOf() []*Schema { return s.allOf }

// AnyOf returns the anyOf junctor.
func (s *Schema) AnyOf() []*Schema { return s.anyOf }

// OneOf returns the oneOf junctor.
func (s *Schema) OneOf() []*Schema { return s.oneOf }

// Not returns the not junctor, or nil.
func (s *Schema) Not() *Schema { return s.not }

// Summary says what this subtree contains.
func (s *Schema) Summary() Summary { return s.summary }

// String is a short description for debugging.
func (s *Schema) String() string {
	var b strings.Builder
	b.WriteString("schema{type=")
	b.WriteString(s.typ)
	if len(s.propNames) > 0 {
		b.WriteString(" properties=")
		b.WriteString(strings.Join(s.propNames, ","))
	}
	b.WriteString("}")
	return b.String()
}
