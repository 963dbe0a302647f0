package schema

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

// ValidateListTypes checks the uniqueness that x-kubernetes-list-type asks
// of the arrays in obj and appends the errors to dst, as the server's
// listtype.ValidateListSetsAndMaps(base, structural, obj) does. It walks
// properties, additionalProperties and items (not allOf, anyOf, oneOf or
// not), and skips subtrees whose schema has no list type. The errors
// appended are in the server's order (see "Order of errors" in the package
// documentation).
//
//   - A set may not hold a value twice. Each duplicated value is reported
//     once, as Duplicate at its second occurrence. Scalars are compared as Go
//     values, so int64(1) and float64(1) differ; arrays and objects are
//     compared by their JSON encoding, where they do not. An element that
//     cannot be encoded (a NaN) is reported as Invalid "internal error"
//     instead of any duplicate.
//   - The elements of a map list must be objects or null ("must be an object
//     for an array of list-type map", reported for the first offender alone).
//     Their keys (x-kubernetes-list-map-keys) must be unique: a missing key,
//     or a null element, counts as an unspecified value, which equals
//     itself. A duplicate is reported with its key, {"name":"x"}, or {} when
//     unspecified; with several keys, with those present.
//
// Checking a list of n elements takes n²/2 comparisons and allocates
// nothing; lists longer than 64 elements are checked with a hash map and
// JSON encoding, as the server does.
func (s *Schema) ValidateListTypes(obj map[string]any, base *Path, dst ErrorList) ErrorList {
	if s == nil || obj == nil {
		return dst
	}
	w := listWalker{base: base, dst: dst}
	w.object(s, obj)
	return w.dst
}

// listWalker is the state of one ValidateListTypes call.
type listWalker struct {
	base *Path
	dst  ErrorList
	at   steps
	segs []segment // the properties with errors of the objects being walked, over dst
}

// add records an error at element i of the array being checked.
func (w *listWalker) add(t ErrorType, i int, value any, detail string) {
	w.at.push(step{idx: i, kind: stepIndex})
	w.dst = append(w.dst, &Error{Type: t, Field: w.at.path(w.base).String(), BadValue: value, Detail: detail})
	w.at.pop()
}

func (w *listWalker) object(s *Schema, obj map[string]any) {
	if s.summary&HasListTypes == 0 || obj == nil {
		return
	}
	// The server walks every key under additionalProperties, then the
	// declared properties, each in map order; crdkit sorts the errors of
	// the keys of each walk by key.
	segs, inOrder := len(w.segs), true
	note := func(k string, declared bool, from int) {
		if len(w.dst) == from {
			return
		}
		sg := segment{key: k, declared: declared, from: from, to: len(w.dst)}
		if len(w.segs) > segs && !w.segs[len(w.segs)-1].before(&sg) {
			inOrder = false
		}
		w.segs = append(w.segs, sg)
	}
	if s.additional != nil && s.additional.summary&HasListTypes != 0 {
		for k, x := range obj {
			from := len(w.dst)
			w.at.push(step{key: k, kind: stepKey})
			w.value(s.additional, x)
			w.at.pop()
			note(k, false, from)
		}
	}
	switch {
	case len(s.listProps) == 0:
	case 2*len(s.listProps) <= len(obj):
		// Few properties can hold a list type: look them up, in sorted
		// order (the order the errors are sorted in), rather than range
		// over obj and look every key up in s.
		for _, i := range s.listProps {
			k, p := s.propNames[i], s.propNodes[i]
			x, ok := obj[k]
			if !ok {
				continue
			}
			from := len(w.dst)
			w.at.push(step{key: k})
			w.value(p, x)
			w.at.pop()
			note(k, true, from)
		}
	default:
		for k, x := range obj {
			if p := s.Property(k); p != nil && p.summary&HasListTypes != 0 {
				from := len(w.dst)
				w.at.push(step{key: k})
				w.value(p, x)
				w.at.pop()
				note(k, true, from)
			}
		}
	}
	if !inOrder {
		reorderErrors(w.dst, w.segs[segs:])
	}
	w.segs = w.segs[:segs]
}

// reorderErrors sorts segs, which cover dst[segs[0].from:] one after the
// other, and moves their errors accordingly.
func reorderErrors(dst ErrorList, segs []segment) {
	from := segs[0].from
	errs := slices.Clone(dst[from:])
	slices.SortFunc(segs, func(a, b segment) int {
		if a.before(&b) {
			return -1
		}
		return 1
	})
	i := from
	for _, sg := range segs {
		i += copy(dst[i:], errs[sg.from-from:sg.to-from])
	}
}

func (w *listWalker) value(s *Schema, x any) {
	switch x := x.(type) {
	case []any:
		w.array(s, x)
	case map[string]any:
		w.object(s, x)
	}
}

func (w *listWalker) array(s *Schema, a []any) {
	switch s.listType {
	case "set":
		w.set(a)
	case "map":
		w.mapList(s, a)
	}
	if s.items != nil && s.items.summary&HasListTypes != 0 {
		for i, x := range a {
			w.at.push(step{idx: i, kind: stepIndex})
			w.value(s.items, x)
			w.at.pop()
		}
	}
}

// maxPairwise is the longest list compared pair by pair.
const maxPairwise = 64

// compound reports whether x is compared by its JSON encoding.
func compound(x any) bool {
	switch x.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

func (w *listWalker) set(a []any) {
	if len(a) <= 1 {
		return
	}
	for i, x := range a {
		if compound(x) && !encodable(x) {
			w.add(ErrorTypeInvalid, i, x, "internal error")
			return
		}
	}
	dup := func(i int) {
		w.add(ErrorTypeDuplicate, i, a[i], "")
	}
	if len(a) > maxPairwise {
		hashedDuplicates(len(a), func(i int) any { return a[i] }, dup)
		return
	}
	pairwiseDuplicates(len(a), func(i, j int) bool { return setEqual(a[i], a[j]) }, dup)
}

// pairwiseDuplicates calls dup with the index of every element that is the
// second occurrence of its value.
func pairwiseDuplicates(n int, eq func(i, j int) bool, dup func(int)) {
	for i := 1; i < n; i++ {
		seen := 0
		for j := 0; j < i && seen < 2; j++ {
			if eq(j, i) {
				seen++
			}
		}
		if seen == 1 {
			dup(i)
		}
	}
}

// hashedDuplicates is pairwiseDuplicates the server's way: scalars as map
// keys, compound values by their JSON encoding. The values must encode.
func hashedDuplicates(n int, at func(int) any, dup func(int)) {
	scalars := make(map[any]int, n)
	compounds := make(map[string]int, n)
	for i := 0; i < n; i++ {
		x := at(i)
		var times int
		if compound(x) {
			b, _ := json.Marshal(x)
			times = compounds[string(b)]
			compounds[string(b)]++
		} else {
			if t := reflect.TypeOf(x); t != nil && !t.Comparable() {
				continue
			}
			times = scalars[x]
			scalars[x]++
		}
		if times == 1 {
			dup(i)
		}
	}
}

// setEqual compares two set elements as the server does.
func setEqual(a, b any) bool {
	if compound(a) || compound(b) {
		return compound(a) && compound(b) && jsonEqual(a, b)
	}
	return scalarEqual(a, b)
}

// scalarEqual is Go's == on interface values, as map keys compare.
func scalarEqual(a, b any) bool {
	switch a.(type) {
	case nil, string, bool, int64, float64:
		return deepEqual(a, b)
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb || !ta.Comparable() {
		return false
	}
	defer func() { _ = recover() }()
	return a == b
}

// encodable reports whether json.Marshal succeeds on x.
func encodable(x any) bool {
	switch x := x.(type) {
	case nil, bool, string, int64:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		for _, e := range x {
			if !encodable(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range x {
			if !encodable(e) {
				return false
			}
		}
		return true
	}
	_, err := json.Marshal(x)
	return err == nil
}

// jsonEqual reports whether json.Marshal encodes a and b alike. Both must
// encode.
func jsonEqual(a, b any) bool {
	eq, ok := jsonEqualFast(a, b)
	if ok {
		return eq
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// jsonEqualFast decides jsonEqual for decoded JSON values; ok is false when
// it cannot (invalid UTF-8, which encodes lossily, or other Go types).
func jsonEqualFast(a, b any) (eq, ok bool) {
	if isNullJSON(a) || isNullJSON(b) {
		return isNullJSON(a) && isNullJSON(b), true
	}
	switch x := a.(type) {
	case bool:
		y, isB := b.(bool)
		return isB && x == y, true
	case string:
		y, isS := b.(string)
		if !isS {
			return false, true
		}
		if !utf8.ValidString(x) || !utf8.ValidString(y) {
			return false, false
		}
		return x == y, true
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y, true
		case float64:
			return intFloatJSONEqual(x, y), true
		}
		return false, knownJSON(b)
	case float64:
		switch y := b.(type) {
		case float64:
			return math.Float64bits(x) == math.Float64bits(y), true
		case int64:
			return intFloatJSONEqual(y, x), true
		}
		return false, knownJSON(b)
	case []any:
		y, isA := b.([]any)
		if !isA {
			return false, knownJSON(b)
		}
		if len(x) != len(y) {
			return false, true
		}
		for i := range x {
			if eq, ok := jsonEqualFast(x[i], y[i]); !ok || !eq {
				return eq, ok
			}
		}
		return true, true
	case map[string]any:
		y, isM := b.(map[string]any)
		if !isM {
			return false, knownJSON(b)
		}
		if len(x) != len(y) {
			return false, true
		}
		for k, xv := range x {
			if !utf8.ValidString(k) {
				return false, false
			}
			yv, found := y[k]
			if !found {
				return false, true
			}
			if eq, ok := jsonEqualFast(xv, yv); !ok || !eq {
				return eq, ok
			}
		}
		return true, true
	}
	return false, false
}

// isNullJSON reports whether x encodes as null.
func isNullJSON(x any) bool {
	switch x := x.(type) {
	case nil:
		return true
	case []any:
		return x == nil
	case map[string]any:
		return x == nil
	}
	return false
}

func knownJSON(x any) bool {
	switch x.(type) {
	case nil, bool, string, int64, float64, []any, map[string]any:
		return true
	}
	return false
}

// intFloatJSONEqual compares the JSON encodings of an int64 and a float64.
func intFloatJSONEqual(i int64, f float64) bool {
	if f != math.Trunc(f) || math.Abs(f) >= 1e21 {
		return false // has a fraction or an exponent
	}
	if math.Abs(f) < 1<<53 {
		return float64(i) == f && int64(f) == i
	}
	var bi, bf [32]byte
	return string(strconv.AppendInt(bi[:0], i, 10)) == string(strconv.AppendFloat(bf[:0], f, 'f', -1, 64))
}

func (w *listWalker) mapList(s *Schema, a []any) {
	for i, x := range a {
		if _, ok := x.(map[string]any); x != nil && !ok {
			w.add(ErrorTypeInvalid, i, x, "must be an object for an array of list-type map")
			return
		}
	}
	if len(a) <= 1 {
		return
	}
	keys := s.listMapKeys
	if len(keys) == 1 {
		w.mapListOneKey(keys[0], a)
		return
	}
	// Several keys: each element's key is the object of the keys present.
	for i, x := range a {
		for _, k := range keys {
			if kv, ok := mapKey(x, k); ok && !encodable(kv) {
				w.add(ErrorTypeInvalid, i, keyObject(x, keys), "internal error")
				return
			}
		}
	}
	dup := func(i int) {
		w.add(ErrorTypeDuplicate, i, keyObject(a[i], keys), "")
	}
	if len(a) > maxPairwise || !validKeys(keys) {
		hashedDuplicates(len(a), func(i int) any { return keyObject(a[i], keys) }, dup)
		return
	}
	pairwiseDuplicates(len(a), func(i, j int) bool {
		for _, k := range keys {
			x, xok := mapKey(a[i], k)
			y, yok := mapKey(a[j], k)
			if xok != yok || xok && !jsonEqual(x, y) {
				return false
			}
		}
		return true
	}, dup)
}

// mapListOneKey checks a map list with one key: missing keys (and null
// elements) are an unspecified value equal to itself.
func (w *listWalker) mapListOneKey(key string, a []any) {
	for i, x := range a {
		if kv, ok := mapKey(x, key); ok && compound(kv) && !encodable(kv) {
			w.add(ErrorTypeInvalid, i, kv, "internal error")
			return
		}
	}
	dup := func(i int) {
		kv, ok := mapKey(a[i], key)
		value := map[string]any{}
		if ok {
			value[key] = kv
		}
		w.add(ErrorTypeDuplicate, i, value, "")
	}
	if len(a) > maxPairwise {
		type unspecified struct{}
		hashedDuplicates(len(a), func(i int) any {
			if kv, ok := mapKey(a[i], key); ok {
				return kv
			}
			return unspecified{}
		}, dup)
		return
	}
	pairwiseDuplicates(len(a), func(i, j int) bool {
		x, xok := mapKey(a[i], key)
		y, yok := mapKey(a[j], key)
		if !xok || !yok {
			return xok == yok
		}
		return setEqual(x, y)
	}, dup)
}

// mapKey returns the value of key k in the map list element x.
func mapKey(x any, k string) (any, bool) {
	m, _ := x.(map[string]any)
	v, ok := m[k]
	return v, ok
}

// keyObject is the object of the keys present in the element x.
func keyObject(x any, keys []string) map[string]any {
	o := map[string]any{}
	for _, k := range keys {
		if v, ok := mapKey(x, k); ok {
			o[k] = v
		}
	}
	return o
}

// validKeys reports whether the key names encode losslessly, so that
// comparing them as strings is comparing their encodings.
func validKeys(keys []string) bool {
	for _, k := range keys {
		if !utf8.ValidString(k) {
			return false
		}
	}
	return true
}
