package objectmeta

import (
	"context"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate/content"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/schema"
)

// CoerceOptions are the options of the server's embedded-resource coercion
// (objectmeta.CoerceWithOptions).
type CoerceOptions struct {
	// ReturnUnknownFieldPaths reports unknown metadata fields (strict
	// decoding).
	ReturnUnknownFieldPaths bool
	// DropInvalidFields drops malformed type meta and metadata fields
	// instead of failing (the storage decoder).
	DropInvalidFields bool
	// ResourceRoot treats x itself as a resource (the server's
	// isResourceRoot), coerced like an embedded one.
	ResourceRoot bool
}

// Coerce normalises, in place, the type and object metadata of every
// embedded resource (x-kubernetes-embedded-resource) in x under s, as the
// server's decoder does: apiVersion and kind must be strings (or are
// dropped), metadata is round-tripped through ObjectMeta with a zero
// creationTimestamp removed. pth is x's path. It returns the first error
// and the sorted paths of unknown metadata fields.
func Coerce(pth *field.Path, x any, s *schema.Schema, opts CoerceOptions) (*field.Error, []string) {
	var unknown []string
	err := coerce(pth, x, s, opts.ResourceRoot, opts, &unknown, 0)
	sort.Strings(unknown)
	return err, unknown
}

func coerce(pth *field.Path, x any, s *schema.Schema, root bool, opts CoerceOptions, unknown *[]string, depth int) *field.Error {
	if root && s == nil {
		s = emptySchema
	}
	if s == nil || depth > maxWalkDepth || (!root && s.Summary()&schema.HasEmbeddedResource == 0) {
		return nil
	}
	switch x := x.(type) {
	case map[string]any:
		if root || s.EmbeddedResource() {
			if err := coerceResource(pth, x, opts, unknown); err != nil {
				return err
			}
		}
		var buf [8]string
		for _, k := range embeddingKeys(x, s, buf[:0]) {
			if p := s.Property(k); p != nil {
				if err := coerce(pth.Child(k), x[k], p, false, opts, unknown, depth+1); err != nil {
					return err
				}
			} else {
				addl, _, _ := s.AdditionalProperties()
				if err := coerce(pth.Key(k), x[k], addl, false, opts, unknown, depth+1); err != nil {
					return err
				}
			}
		}
	case []any:
		for i, v := range x {
			if err := coerce(pth.Index(i), v, s.Items(), false, opts, unknown, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// coerceResource coerces the type meta and metadata of one resource.
func coerceResource(pth *field.Path, x map[string]any, opts CoerceOptions, unknown *[]string) *field.Error {
	for _, k := range []string{"apiVersion", "kind"} {
		v, ok := x[k]
		if !ok {
			continue
		}
		if _, isStr := v.(string); !isStr {
			if !opts.DropInvalidFields {
				return field.Invalid(pth.Child(k), v, "must be a string")
			}
			delete(x, k)
		}
	}
	v, ok := x["metadata"]
	if !ok {
		return nil
	}
	meta, found, u, err := Get(x, GetOptions{
		ReturnUnknownFieldPaths: opts.ReturnUnknownFieldPaths,
		DropMalformedFields:     opts.DropInvalidFields,
		Prefix:                  pth.Child("metadata").String(),
	})
	*unknown = append(*unknown, u...)
	if err != nil {
		if !opts.DropInvalidFields {
			return field.Invalid(pth.Child("metadata"), v, err.Error())
		}
		return nil
	}
	if !found {
		return nil
	}
	if err := Set(x, meta); err != nil {
		return field.Invalid(pth.Child("metadata"), v, err.Error())
	}
	if meta.CreationTimestamp.IsZero() {
		if m, ok := x["metadata"].(map[string]any); ok {
			delete(m, "creationTimestamp")
		}
	}
	return nil
}

// ValidateOptions are the options of Validate.
type ValidateOptions struct {
	// ResourceRoot validates x itself as a resource too (the server's
	// isResourceRoot).
	ResourceRoot bool
}

// Validate checks every embedded resource in x under s as the server's
// objectmeta.Validate does: apiVersion and kind present, strings, non-empty
// and well-formed; metadata valid for a create with path-segment names (a
// missing name counts as set). pth is x's path.
func Validate(pth *field.Path, x any, s *schema.Schema, opts ValidateOptions) field.ErrorList {
	return validate(pth, x, s, opts.ResourceRoot, 0)
}

func validate(pth *field.Path, x any, s *schema.Schema, root bool, depth int) field.ErrorList {
	if root && s == nil {
		s = emptySchema
	}
	if s == nil || depth > maxWalkDepth || (!root && s.Summary()&schema.HasEmbeddedResource == 0) {
		return nil
	}
	var errs field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		if root || s.EmbeddedResource() {
			errs = append(errs, validateResource(pth, x)...)
		}
		var buf [8]string
		for _, k := range embeddingKeys(x, s, buf[:0]) {
			if p := s.Property(k); p != nil {
				errs = append(errs, validate(pth.Child(k), x[k], p, false, depth+1)...)
			} else {
				addl, _, _ := s.AdditionalProperties()
				errs = append(errs, validate(pth.Key(k), x[k], addl, false, depth+1)...)
			}
		}
	case []any:
		for i, e := range x {
			errs = append(errs, validate(pth.Index(i), e, s.Items(), false, depth+1)...)
		}
	}
	return errs
}

func validatePathSegment(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}

// validateResource checks one resource's type meta and metadata, in the
// server's order: the required fields, then the present ones sorted.
func validateResource(pth *field.Path, x map[string]any) field.ErrorList {
	var errs field.ErrorList
	if _, ok := x["apiVersion"]; !ok {
		errs = append(errs, field.Required(pth.Child("apiVersion"), ""))
	}
	if _, ok := x["kind"]; !ok {
		errs = append(errs, field.Required(pth.Child("kind"), ""))
	}
	for _, k := range [...]string{"apiVersion", "kind", "metadata"} { // sorted
		v, ok := x[k]
		if !ok {
			continue
		}
		switch k {
		case "apiVersion":
			av, ok := v.(string)
			switch {
			case !ok:
				errs = append(errs, field.Invalid(pth.Child("apiVersion"), v, "must be a string"))
			case av == "":
				errs = append(errs, field.Invalid(pth.Child("apiVersion"), av, "must not be empty"))
			default:
				if _, err := runtimeschema.ParseGroupVersion(av); err != nil {
					errs = append(errs, field.Invalid(pth.Child("apiVersion"), av, err.Error()))
				}
			}
		case "kind":
			kind, ok := v.(string)
			switch {
			case !ok:
				errs = append(errs, field.Invalid(pth.Child("kind"), v, "must be a string"))
			case kind == "":
				errs = append(errs, field.Invalid(pth.Child("kind"), kind, "must not be empty"))
			default:
				if e := utilvalidation.IsDNS1035Label(strings.ToLower(kind)); len(e) > 0 {
					errs = append(errs, field.Invalid(pth.Child("kind"), kind, "may have mixed case, but should otherwise match: "+strings.Join(e, ",")))
				}
			}
		case "metadata":
			meta, _, _, err := Get(x, GetOptions{})
			if err != nil {
				errs = append(errs, field.Invalid(pth.Child("metadata"), v, err.Error()))
				continue
			}
			if meta.Name == "" {
				meta.Name = "fakename"
			}
			if plainMetaValid(meta, meta.Namespace != "") {
				continue // the check below would find nothing (plain_test.go)
			}
			errs = append(errs, genericvalidation.ValidateObjectMetaDeclaratively(context.Background(), operation.Create, meta, nil, meta.Namespace != "", validatePathSegment, pth.Child("metadata"), true)...)
		}
	}
	return errs
}

// maxWalkDepth bounds the recursive walks. Decoding already refuses JSON
// nested deeper than 10000 levels.
const maxWalkDepth = 10000

// embeddingKeys appends to ks, sorted, the keys of m whose schema under s
// (a property's, else additionalProperties') can hold an embedded resource:
// the walks above visit keys in sorted order, and a key whose schema holds
// none would return at once, so only these need a path and a visit. With
// ks backed by an array of the caller's, a clean walk allocates nothing.
func embeddingKeys(m map[string]any, s *schema.Schema, ks []string) []string {
	addl, _, _ := s.AdditionalProperties()
	for k := range m {
		p := s.Property(k)
		if p == nil {
			p = addl
		}
		if p != nil && p.Summary()&schema.HasEmbeddedResource != 0 {
			ks = append(ks, k)
		}
	}
	if len(ks) > 1 {
		sort.Strings(ks)
	}
	return ks
}

// emptySchema stands for a missing schema at a resource root. It is
// immutable.
var emptySchema, _ = schema.Compile(&schema.Props{})
