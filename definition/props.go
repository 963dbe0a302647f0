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
	if in == nil {
		return nil
	}
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
		Not:                    SchemaProps(in.Not),
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
		p.Items = SchemaProps(in.Items.Schema)
		p.ItemsOrigin = in.Items
		if in.Items.JSONSchemas != nil {
			p.ItemsArray = propsList(in.Items.JSONSchemas)
		}
	}
	p.AllOf = propsList(in.AllOf)
	p.OneOf = propsList(in.OneOf)
	p.AnyOf = propsList(in.AnyOf)
	p.Properties = propsMap(in.Properties)
	p.PatternProperties = propsMap(in.PatternProperties)
	p.Definitions = propsMap(in.Definitions)
	p.AdditionalProperties = propsOrBool(in.AdditionalProperties)
	p.AdditionalItems = propsOrBool(in.AdditionalItems)
	if in.Dependencies != nil {
		p.Dependencies = make(map[string]schema.Dependency, len(in.Dependencies))
		for k, d := range in.Dependencies {
			p.Dependencies[k] = schema.Dependency{Schema: SchemaProps(d.Schema), Property: d.Property}
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
	return p
}

func propsList(in []apiextensions.JSONSchemaProps) []*schema.Props {
	if in == nil {
		return nil
	}
	out := make([]*schema.Props, len(in))
	for i := range in {
		out[i] = SchemaProps(&in[i])
	}
	return out
}

func propsMap(in map[string]apiextensions.JSONSchemaProps) map[string]*schema.Props {
	if in == nil {
		return nil
	}
	out := make(map[string]*schema.Props, len(in))
	for k, v := range in {
		out[k] = SchemaProps(&v)
	}
	return out
}

func propsOrBool(in *apiextensions.JSONSchemaPropsOrBool) *schema.PropsOrBool {
	if in == nil {
		return nil
	}
	return &schema.PropsOrBool{Allows: in.Allows, Schema: SchemaProps(in.Schema)}
}
