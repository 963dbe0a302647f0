package conversion

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// deepCopy copies a JSON-like value of the value model (maps, slices,
// strings, bools, numbers, nil). Other values are shared.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = deepCopy(x)
		}
		return l
	default:
		return v
	}
}

// str is the string at keys, "" when absent or not a string (unstructured's
// getters).
func str(obj map[string]any, keys ...string) string {
	var cur any = obj
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[k]
	}
	s, _ := cur.(string)
	return s
}

// gvk is the group, version and kind obj names, with an empty group and
// version when its apiVersion does not parse (unstructured's
// GroupVersionKind).
func gvk(obj map[string]any) schema.GroupVersionKind {
	gv, err := schema.ParseGroupVersion(str(obj, "apiVersion"))
	if err != nil {
		return schema.GroupVersionKind{}
	}
	return gv.WithKind(str(obj, "kind"))
}
