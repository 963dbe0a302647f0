package crdkit

import (
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/schema"
)

// getObjectMeta reads obj["metadata"] into an ObjectMeta as the server does:
// through JSON, strictly when unknown fields are to be reported (their paths
// returned under prefix), dropping malformed fields one by one when drop is
// set. found is false when there is no metadata key.
func getObjectMeta(obj map[string]any, strict, drop bool, prefix string) (meta *metav1.ObjectMeta, found bool, unknown []string, err error) {
	md, ok := obj["metadata"]
	if !ok {
		return nil, false, nil, nil
	}
	if m, ok := md.(map[string]any); ok {
		if meta, ok := plainMetaFromMap(m); ok {
			return meta, true, nil, nil
		}
	}
	return getObjectMetaJSON(md, strict, drop, prefix)
}

// getObjectMetaJSON is getObjectMeta's general case, the server's own: md
// to JSON and back into ObjectMeta.
func getObjectMetaJSON(md any, strict, drop bool, prefix string) (meta *metav1.ObjectMeta, found bool, unknown []string, err error) {
	meta = new(metav1.ObjectMeta)
	raw, err := utiljson.Marshal(md)
	if err != nil {
		return nil, false, nil, err
	}
	var uerr error
	if strict {
		var serrs []error
		serrs, uerr = kjson.UnmarshalStrict(raw, meta)
		if uerr == nil {
			return meta, true, fieldPathErrors(serrs, prefix), nil
		}
	} else if uerr = utiljson.Unmarshal(raw, meta); uerr == nil {
		return meta, true, nil, nil
	}
	if !drop {
		return nil, true, nil, uerr
	}
	m, ok := md.(map[string]any)
	if !ok {
		return nil, false, nil, fmt.Errorf("invalid metadata: expected object, got %T", md)
	}
	acc, probe := new(metav1.ObjectMeta), new(metav1.ObjectMeta)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		one, err := utiljson.Marshal(map[string]any{k: m[k]})
		if err != nil || utiljson.Unmarshal(one, probe) != nil {
			continue
		}
		if strict {
			serrs, _ := kjson.UnmarshalStrict(one, acc)
			unknown = append(unknown, fieldPathErrors(serrs, prefix)...)
		} else {
			_ = utiljson.Unmarshal(one, acc)
		}
	}
	return acc, true, unknown, nil
}

func fieldPathErrors(errs []error, prefix string) []string {
	var out []string
	for _, e := range errs {
		if fe, ok := e.(kjson.FieldError); ok {
			out = append(out, prefix+"."+fe.FieldPath())
		}
	}
	return out
}

// setObjectMeta writes meta back into obj["metadata"] in the unstructured
// form the server produces (unknown fields gone, empty fields omitted).
func setObjectMeta(obj map[string]any, meta *metav1.ObjectMeta) error {
	if meta == nil {
		delete(obj, "metadata")
		return nil
	}
	if m, ok := plainMetaToMap(meta); ok {
		obj["metadata"] = m
		return nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(meta)
	if err != nil {
		return err
	}
	obj["metadata"] = m
	return nil
}

// coerceEmbedded normalises the type and object metadata of every embedded
// resource under s (not the root), as the server's decoder does: apiVersion
// and kind must be strings (or are dropped when drop is set), metadata is
// round-tripped through ObjectMeta with a zero creationTimestamp removed.
// It returns the first error and the sorted unknown metadata paths.
func coerceEmbedded(obj any, s *schema.Schema, strict, drop bool) (*field.Error, []string) {
	var unknown []string
	err := coerce(nil, obj, s, false, strict, drop, &unknown, 0)
	sort.Strings(unknown)
	return err, unknown
}

// coerce is coerceEmbedded's walk; root marks x as a resource itself (the
// server's isResourceRoot), coerced like an embedded resource.
func coerce(pth *field.Path, x any, s *schema.Schema, root, strict, drop bool, unknown *[]string, depth int) *field.Error {
	if root && s == nil {
		s = emptySchema
	}
	if s == nil || depth > maxWalkDepth || (!root && s.Summary()&schema.HasEmbeddedResource == 0) {
		return nil
	}
	switch x := x.(type) {
	case map[string]any:
		if root || s.EmbeddedResource() {
			for _, k := range []string{"apiVersion", "kind"} {
				v, ok := x[k]
				if !ok {
					continue
				}
				if _, isStr := v.(string); !isStr {
					if !drop {
						return field.Invalid(pth.Child(k), v, "must be a string")
					}
					delete(x, k)
				}
			}
			if v, ok := x["metadata"]; ok {
				meta, found, u, err := getObjectMeta(x, strict, drop, pth.Child("metadata").String())
				*unknown = append(*unknown, u...)
				if err != nil {
					if !drop {
						return field.Invalid(pth.Child("metadata"), v, err.Error())
					}
				} else if found {
					if err := setObjectMeta(x, meta); err != nil {
						return field.Invalid(pth.Child("metadata"), v, err.Error())
					}
					if meta.CreationTimestamp.IsZero() {
						if m, ok := x["metadata"].(map[string]any); ok {
							delete(m, "creationTimestamp")
						}
					}
				}
			}
		}
		addl, _, _ := s.AdditionalProperties()
		for _, k := range sortedMapKeys(x) {
			if p := s.Property(k); p != nil {
				if err := coerce(pth.Child(k), x[k], p, false, strict, drop, unknown, depth+1); err != nil {
					return err
				}
			} else if addl != nil {
				if err := coerce(pth.Key(k), x[k], addl, false, strict, drop, unknown, depth+1); err != nil {
					return err
				}
			}
		}
	case []any:
		for i, v := range x {
			if err := coerce(pth.Index(i), v, s.Items(), false, strict, drop, unknown, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxWalkDepth bounds the facade's own recursive walks. Decoding already
// refuses JSON nested deeper than 10000 levels.
const maxWalkDepth = 10000

func sortedMapKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// emptySchema stands for a missing schema at a resource root.
var emptySchema, _ = schema.Compile(&schema.Props{})
