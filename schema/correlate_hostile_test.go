package schema

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// hostileBound is how long one hostile update may take. The inputs below
// take milliseconds; a pairing that went quadratic would take minutes.
const hostileBound = 10 * time.Second

const hostileListSchema = `{"type":"object","properties":{"spec":{"type":"object","properties":{
  "other":{"type":"string"},
  "l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
    "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"v":{"type":"string","maxLength":1}}}},
  "m":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","port"],
    "items":{"type":"object","required":["name","port"],"properties":{"name":{"type":"string"},"port":{"type":"number"},"v":{"type":"string","maxLength":1}}}}}}}}`

// hostileList is n items of a map list keyed by key(i), each with an
// invalid v, so that every item's errors depend on its pairing.
func hostileList(n int, key func(i int) map[string]any, v string) []any {
	l := make([]any, n)
	for i := range l {
		item := key(i)
		item["v"] = v
		l[i] = item
	}
	return l
}

func TestValidateUpdateHostileLists(t *testing.T) {
	s := mustCompile(t, hostileListSchema)
	const n = 20000
	byName := func(i int) map[string]any { return map[string]any{"name": fmt.Sprint("item-", i)} }
	renamed := func(i int) map[string]any { return map[string]any{"name": fmt.Sprint("renamed-", i)} }
	composite := func(i int) map[string]any { return map[string]any{"name": "x", "port": float64(i) + 0.5} }
	same := func(int) map[string]any { return map[string]any{"name": "same"} }
	reversed := func(l []any) []any {
		r := make([]any, len(l))
		for i, e := range l {
			r[len(l)-1-i] = copyValue(e)
		}
		return r
	}
	spec := func(field string, l []any, other string) map[string]any {
		return map[string]any{"spec": map[string]any{field: l, "other": other}}
	}
	cases := []struct {
		name     string
		new, old map[string]any
		want     int
	}{
		{"all unchanged, another field changed", spec("l", hostileList(n, byName, "long"), "a"), spec("l", hostileList(n, byName, "long"), "b"), 0},
		{"all unchanged, reversed", spec("l", reversed(hostileList(n, byName, "long")), "a"), spec("l", hostileList(n, byName, "long"), "b"), 0},
		{"all changed", spec("l", hostileList(n, byName, "longer"), "a"), spec("l", hostileList(n, byName, "long"), "a"), n},
		{"no key pairs", spec("l", hostileList(n, renamed, "long"), "a"), spec("l", hostileList(n, byName, "long"), "a"), n},
		{"composite keys unchanged, reversed", spec("m", reversed(hostileList(n, composite, "long")), "a"), spec("m", hostileList(n, composite, "long"), "b"), 0},
		// Every new item pairs with the first old one: one error kept, as
		// kube-openapi reports each message once.
		{"one key repeated", spec("l", hostileList(n, same, "longer"), "a"), spec("l", hostileList(n, same, "long"), "a"), n},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			errs := s.ValidateUpdate(c.new, Correlate(s, c.new, c.old), nil, nil)
			d := time.Since(start)
			if d > hostileBound {
				t.Errorf("ValidateUpdate took %v", d)
			}
			start = time.Now()
			plain := s.Validate(c.new, nil, nil)
			t.Logf("ValidateUpdate %v, Validate %v (%d errors)", d, time.Since(start), len(plain))
			if len(errs) != c.want {
				t.Errorf("ValidateUpdate reported %d errors, want %d", len(errs), c.want)
			}
		})
	}
}

// nestedValue is a value nested depth levels deep under key k, objects or
// lists, with leaf at the bottom.
func nestedValue(depth int, k string, list bool, leaf any) any {
	v := leaf
	for range depth {
		if list {
			v = []any{v}
		} else {
			v = map[string]any{k: v}
		}
	}
	return v
}

func TestValidateUpdateHostileNesting(t *testing.T) {
	// A schema as deep as Compile allows (maxDepth), each level the property
	// "a" with a constrained leaf; values 5,000 deep under it, under an
	// atomic list of anything, and under preserved unknown fields.
	deep := `{"type":"object","x-kubernetes-preserve-unknown-fields":true,"maxProperties":0}`
	deepField := "spec.deep"
	for range maxDepth/2 - 4 {
		deep = `{"type":"object","properties":{"a":` + deep + `}}`
		deepField += ".a"
	}
	s := mustCompile(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
	  "other":{"type":"string"},
	  "deep":`+deep+`,
	  "atomic":{"type":"array","maxItems":0,"items":{"x-kubernetes-preserve-unknown-fields":true}},
	  "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"maxProperties":0}}}}}`)
	const depth = 5000
	mk := func(other, leaf string) map[string]any {
		return map[string]any{"spec": map[string]any{
			"other":  other,
			"deep":   nestedValue(depth, "a", false, leaf),
			"atomic": []any{nestedValue(depth, "a", true, leaf)},
			"free":   map[string]any{"a": nestedValue(depth, "a", false, leaf)},
		}}
	}
	cases := []struct {
		name     string
		new, old map[string]any
		want     []string // the fields of the errors
	}{
		// The objects under free and at the bottom of deep have no schema
		// below: never unchanged.
		{"unchanged", mk("a", "long"), mk("b", "long"), []string{deepField, "spec.free"}},
		{"changed at the bottom", mk("a", "longer"), mk("a", "long"), []string{deepField, "spec.atomic", "spec.free"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			errs := s.ValidateUpdate(c.new, Correlate(s, c.new, c.old), nil, nil)
			if d := time.Since(start); d > hostileBound {
				t.Errorf("ValidateUpdate took %v", d)
			}
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field)
			}
			slices.Sort(fields)
			slices.Sort(c.want)
			if strings.Join(fields, " ") != strings.Join(c.want, " ") {
				t.Errorf("ValidateUpdate = %q, want errors at %q", errorTexts(errs), c.want)
			}
			if eq := Correlate(s, c.new, c.old).Equal(); eq {
				t.Error("Equal() = true")
			}
		})
	}
}
