package definition

import (
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"

	"github.com/crdkit/crdkit/schema"
)

// SchemaProps converts the server's internal schema type into the schema
// package's input, keeping every presence distinction the server's checks
// look at (nil versus empty lists and maps, absent versus false). The
// result shares the default, example and enum values of in.
func SchemaProps(in *apiextensions.JSONSchemaProps) *schema.Props {
	var f propsFacts
	return f.convert(in, 0)
}

// propsFacts are facts about the nodes of a schema, gathered while it is
// converted, so that the checks that ask them need no walk of their own:
// whether a node at most maxWalkDepth deep (the depth propsHas walks to)
// has a default or Kubernetes extensions, and whether a node at any depth
// has a default or x-kubernetes-validations (without which
// schema.Compile's summary has neither HasDefaults nor HasRules).
type propsFacts struct {
	defaults, extensions bool
	defaultsOrRules      bool
}

// convert is SchemaProps for a node depth steps below the root (each
// schema keyword one step, as propsHas counts), recording its facts in f.
func (f *propsFacts) convert(in *apiextensions.JSONSchemaProps, depth int) *schema.Props {
	if in == nil {
		return nil
	}
	d := depth + 1
	p := &schema.Props{
		ID:                     in.ID,
		Schema:                 string(in.Schema),
		Ref:                    in.Ref,
		Description:            in.Description,
		Type:                   in.Type,
		Format:                 in.Format,
		Title:                  in.Title,
		Maximum:                in.Maximum,
		ExclusiveMaximum:       in.ExclusiveMaximum,
		Minimum:                in.Minimum,
		ExclusiveMinimum:       in.ExclusiveMinimum,
		MaxLength:              in.MaxLength,
		MinLength:              in.MinLength,
		Pattern:                in.Pattern,
		MaxItems:               in.MaxItems,
		MinItems:               in.MinItems,
		UniqueItems:            in.UniqueItems,
		MultipleOf:             in.MultipleOf,
		MaxProperties:          in.MaxProperties,
		MinProperties:          in.MinProperties,
		Required:               in.Required,
		Not:                    f.convert(in.Not, d),
		Nullable:               in.Nullable,
		XPreserveUnknownFields: in.XPreserveUnknownFields,
		XEmbeddedResource:      in.XEmbeddedResource,
		XIntOrString:           in.XIntOrString,
		XListMapKeys:           in.XListMapKeys,
		XListType:              in.XListType,
		XMapType:               in.XMapType,
	}
	if in.Default != nil {
		p.Default = &schema.Value{V: *in.Default}
	}
	if in.Example != nil {
		p.Example = &schema.Value{V: *in.Example}
	}
	for _, e := range in.Enum {
		p.Enum = append(p.Enum, any(e))
	}
	if in.Items != nil {
		p.HasItems = true
		p.Items = f.convert(in.Items.Schema, d)
		if in.Items.Schema == nil { // the only case messages show it
			p.ItemsOrigin = &schema.Value{V: in.Items}
		}
		if in.Items.JSONSchemas != nil {
			p.ItemsArray = f.list(in.Items.JSONSchemas, d)
		}
	}
	p.AllOf = f.list(in.AllOf, d)
	p.OneOf = f.list(in.OneOf, d)
	p.AnyOf = f.list(in.AnyOf, d)
	p.Properties = f.propsMap(in.Properties, d)
	p.PatternProperties = f.propsMap(in.PatternProperties, d)
	p.Definitions = f.propsMap(in.Definitions, d)
	p.AdditionalProperties = f.propsOrBool(in.AdditionalProperties, d)
	p.AdditionalItems = f.propsOrBool(in.AdditionalItems, d)
	if in.Dependencies != nil {
		p.Dependencies = make(map[string]schema.Dependency, len(in.Dependencies))
		for k, dep := range in.Dependencies {
			p.Dependencies[k] = schema.Dependency{Schema: f.convert(dep.Schema, d), Property: dep.Property}
		}
	}
	if in.ExternalDocs != nil {
		p.ExternalDocs = &schema.ExternalDocs{Description: in.ExternalDocs.Description, URL: in.ExternalDocs.URL}
	}
	if in.XValidations != nil {
		p.XValidations = make([]schema.ValidationRule, len(in.XValidations))
		for i, r := range in.XValidations {
			p.XValidations[i] = schema.ValidationRule{
				Rule: r.Rule, Message: r.Message, MessageExpression: r.MessageExpression,
				FieldPath: r.FieldPath, OptionalOldSelf: r.OptionalOldSelf,
			}
			if r.Reason != nil {
				s := string(*r.Reason)
				p.XValidations[i].Reason = &s
			}
		}
	}
	if p.Default != nil || len(p.XValidations) > 0 {
		f.defaultsOrRules = true
	}
	if depth <= maxWalkDepth {
		f.defaults = f.defaults || hasDefault(p)
		f.extensions = f.extensions || hasKubernetesExtensions(p)
	}
	return p
}

func (f *propsFacts) list(in []apiextensions.JSONSchemaProps, depth int) []*schema.Props {
	if in == nil {
		return nil
	}
	out := make([]*schema.Props, len(in))
	for i := range in {
		out[i] = f.convert(&in[i], depth)
	}
	return out
}

func (f *propsFacts) propsMap(in map[string]apiextensions.JSONSchemaProps, depth int) map[string]*schema.Props {
	if in == nil {
		return nil
	}
	out := make(map[string]*schema.Props, len(in))
	for k, v := range in {
		out[k] = f.convert(&v, depth)
	}
	return out
}

func (f *propsFacts) propsOrBool(in *apiextensions.JSONSchemaPropsOrBool, depth int) *schema.PropsOrBool {
	if in == nil {
		return nil
	}
	return &schema.PropsOrBool{Allows: in.Allows, Schema: f.convert(in.Schema, depth)}
}
