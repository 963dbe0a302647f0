package crfake

import (
	"encoding/json"
	"maps"

	"k8s.io/apimachinery/pkg/runtime"
)

// copyJSON returns a deep copy of a JSON object (map[string]any with
// []any, string, int64, bool, float64, json.Number and nil values), as
// runtime.DeepCopyJSON does, for less: a map is cloned whole (maps.Clone
// copies its table without hashing a key again) and only its values that
// are objects or arrays are then replaced by their copies. Scalars are
// immutable, so the copy shares them; every map and slice in it is new,
// so a caller may change the copy without changing m, and m without
// changing the copy.
func copyJSON(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c := maps.Clone(m)
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			if x != nil {
				c[k] = copyJSON(x)
			}
		case []any:
			if x != nil {
				c[k] = copyJSONArray(x)
			}
		case string, int64, bool, float64, nil, json.Number:
		default:
			c[k] = runtime.DeepCopyJSONValue(v) // panics as it does
		}
	}
	return c
}

func copyJSONArray(s []any) []any {
	c := make([]any, len(s))
	for i, v := range s {
		c[i] = copyJSONValue(v)
	}
	return c
}

// copyJSONValue is copyJSON for any JSON value.
func copyJSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return v
		}
		return copyJSON(x)
	case []any:
		if x == nil {
			return v
		}
		return copyJSONArray(x)
	case string, int64, bool, float64, nil, json.Number:
		return v
	}
	return runtime.DeepCopyJSONValue(v)
}
