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

// snapshot is a stored object as a read at one version answers it, never
// changed once made, and its copy plan (nil when it holds a value that is
// not JSON: copyJSON then copies it, or panics as DeepCopyJSON does).
type snapshot struct {
	obj  map[string]any
	plan []step
}

// step is one object or array of a snapshot, in depth-first order: the
// value itself (m or s), where it sits in its parent (key, or index), and
// how many of its values are objects or arrays (their steps follow, each
// after the steps of the one before). A copy clones m (or s) whole, which
// shares its scalars, then replaces those values by their copies: it
// neither looks for them nor hashes a key but theirs.
type step struct {
	key  string
	idx  int
	m    map[string]any
	s    []any
	kids int
}

func newSnapshot(obj map[string]any) *snapshot {
	sn := &snapshot{obj: obj}
	if obj == nil {
		return sn // copied by copyJSON: nil
	}
	if plan, ok := planValue(nil, obj, "", 0); ok {
		sn.plan = plan
	}
	return sn
}

// planValue appends the steps of v (an object or array) to plan; ok is
// false when v holds a value that is not JSON.
func planValue(plan []step, v any, key string, idx int) ([]step, bool) {
	i := len(plan)
	plan = append(plan, step{key: key, idx: idx})
	kid := func(k string, j int, x any) bool {
		switch y := x.(type) {
		case map[string]any:
			if y == nil {
				return true // shared: a nil map cannot be changed
			}
		case []any:
			if y == nil {
				return true
			}
		case string, int64, bool, float64, nil, json.Number:
			return true
		default:
			return false
		}
		var ok bool
		plan, ok = planValue(plan, x, k, j)
		plan[i].kids++
		return ok
	}
	switch x := v.(type) {
	case map[string]any:
		plan[i].m = x
		for k, e := range x {
			if !kid(k, 0, e) {
				return plan, false
			}
		}
	case []any:
		plan[i].s = x
		for j, e := range x {
			if !kid("", j, e) {
				return plan, false
			}
		}
	}
	return plan, true
}

// copy returns a deep copy of the snapshot's object: every map and slice
// in it new.
func (sn *snapshot) copy() map[string]any {
	if sn.plan == nil {
		return copyJSON(sn.obj)
	}
	c, _ := copyStep(sn.plan, 0)
	return c.(map[string]any)
}

// copyStep returns the copy of plan[i]'s value and the index of the step
// after its own and its values' steps.
func copyStep(plan []step, i int) (any, int) {
	st := &plan[i]
	i++
	if st.m != nil {
		c := maps.Clone(st.m)
		for range st.kids {
			k := plan[i].key
			var v any
			v, i = copyStep(plan, i)
			c[k] = v
		}
		return c, i
	}
	c := make([]any, len(st.s))
	copy(c, st.s)
	for range st.kids {
		j := plan[i].idx
		var v any
		v, i = copyStep(plan, i)
		c[j] = v
	}
	return c, i
}
