package generate

import (
	"encoding/json"
	"regexp"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdkit/crdkit/schema"
)

// node is a compiled schema node: the v1 schema plus what generation needs,
// computed once.
type node struct {
	s *apiextensionsv1.JSONSchemaProps

	typ         string
	props       map[string]*node
	names       []string // sorted property names
	required    map[string]bool
	items       *node
	addl        *node // additionalProperties schema
	enum        []any
	def         any
	hasDef      bool
	example     any
	hasExample  bool
	re          *regexp.Regexp // nil without a (compilable) pattern
	nullable    bool
	preserve    bool
	embedded    bool
	intOrString bool
	listType    string
	mapKeys     []string

	// xOf handling.
	oneOf     bool
	branches  [][]string // required lists of oneOf/anyOf branches
	forbidden []string   // fields named by not.required / not.anyOf[].required
	validator *schema.Schema

	rules []string // x-kubernetes-validations rules, as written
}

// maxSchemaDepth bounds schema compilation; CRD schemas are finite trees but
// may be deep.
const maxSchemaDepth = 64

func compile(s *apiextensionsv1.JSONSchemaProps, depth int) *node {
	n := &node{
		s:           s,
		typ:         s.Type,
		nullable:    s.Nullable,
		preserve:    s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields,
		embedded:    s.XEmbeddedResource,
		intOrString: s.XIntOrString,
		required:    map[string]bool{},
		mapKeys:     s.XListMapKeys,
	}
	if s.XListType != nil {
		n.listType = *s.XListType
	}
	for _, r := range s.Required {
		n.required[r] = true
	}
	for _, a := range s.AllOf {
		for _, r := range a.Required {
			n.required[r] = true
		}
	}
	for _, e := range s.Enum {
		if v, err := decodeJSON(e.Raw); err == nil {
			n.enum = append(n.enum, v)
		}
	}
	if s.Default != nil {
		if v, err := decodeJSON(s.Default.Raw); err == nil {
			n.def, n.hasDef = v, true
		}
	}
	if s.Example != nil {
		if v, err := decodeJSON(s.Example.Raw); err == nil {
			n.example, n.hasExample = v, true
		}
	}
	for _, r := range s.XValidations {
		n.rules = append(n.rules, r.Rule)
	}
	if s.Pattern != "" {
		n.re, _ = regexp.Compile(s.Pattern)
	}
	if depth >= maxSchemaDepth {
		return n
	}
	if len(s.Properties) > 0 {
		n.props = map[string]*node{}
		for k := range s.Properties {
			p := s.Properties[k]
			n.props[k] = compile(&p, depth+1)
			n.names = append(n.names, k)
		}
		slices.Sort(n.names)
	}
	if s.Items != nil && s.Items.Schema != nil {
		n.items = compile(s.Items.Schema, depth+1)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		n.addl = compile(s.AdditionalProperties.Schema, depth+1)
	}
	switch {
	case len(s.OneOf) > 0:
		n.oneOf = true
		for _, b := range s.OneOf {
			n.branches = append(n.branches, b.Required)
		}
	case len(s.AnyOf) > 0:
		for _, b := range s.AnyOf {
			n.branches = append(n.branches, b.Required)
		}
	}
	if s.Not != nil {
		n.forbidden = append(n.forbidden, s.Not.Required...)
		for _, b := range s.Not.AnyOf {
			n.forbidden = append(n.forbidden, b.Required...)
		}
		for _, b := range s.Not.AllOf {
			n.forbidden = append(n.forbidden, b.Required...)
		}
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 || len(s.AllOf) > 0 || s.Not != nil {
		n.validator = newValidator(s)
	}
	return n
}

// newValidator compiles one schema node with crdkit's schema package (the
// server's OpenAPI value validation), to check generated values under xOf
// constraints the generator cannot solve.
func newValidator(s *apiextensionsv1.JSONSchemaProps) *schema.Schema {
	data, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	v, err := schema.CompileJSON(data)
	if err != nil {
		return nil
	}
	return v
}

// valid reports whether v passes the node's xOf validator (true without one).
func (n *node) valid(v any) bool {
	if n.validator == nil {
		return true
	}
	return n.validator.Valid(v)
}

// effectiveType is the JSON type a value of n must have; "" means any.
func (n *node) effectiveType() string {
	if n.intOrString {
		return "int-or-string"
	}
	if n.typ == "" && (n.props != nil || n.addl != nil || n.embedded) {
		return "object"
	}
	return n.typ
}

func (n *node) hasFreeForm() bool {
	return n.preserve && n.props == nil && n.addl == nil
}
