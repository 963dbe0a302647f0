package schema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzValidateUpdate feeds a schema, an old value and a JSON merge patch
// (RFC 7386) that makes the new value from the old one to ValidateUpdate.
// It must not panic or hang, nor modify its inputs; without a correlation it
// is Validate; its errors are some of Validate's, the same on copies of the
// values (whose maps iterate differently); an update whose root pairs as
// Equal reports nothing, and so does an unchanged value whose every property
// has a schema (Equal then holds). The conformance module's
// TestValidateUpdateAgrees compares the answers with the server's.
func FuzzValidateUpdate(f *testing.F) {
	for _, c := range validateUpdateCases {
		f.Add([]byte(ratchetSchema), []byte(c.old), []byte(c.new))
	}
	f.Add([]byte(ratchetSchema), []byte(`{"spec":{"ports":[{"name":"a","port":99},{"name":"a","port":98}]}}`), []byte(`{"spec":{"name":"x"}}`))
	f.Add([]byte(featureSchema), []byte(featureValue), []byte(`{"spec":{"replicas":null}}`))
	corpus := corpusSchemas(f)
	for _, name := range sortedNames(corpus) {
		if len(corpus[name]) < 4<<10 {
			f.Add(corpus[name], []byte(`{"apiVersion":"x/v1","kind":"X","metadata":{"name":"n"},"spec":{"a":[1,"b"],"b":"c"}}`), []byte(`{"spec":{"b":"d"}}`))
		}
	}
	f.Fuzz(func(t *testing.T, schemaJSON, oldJSON, patchJSON []byte) {
		s, err := CompileJSON(schemaJSON)
		if err != nil || s == nil {
			return
		}
		old, ok1 := fuzzDecode(oldJSON)
		patch, ok2 := fuzzDecode(patchJSON)
		if !ok1 || !ok2 {
			return
		}
		nw := mergePatch(copyValue(old), patch)
		before, _ := json.Marshal([]any{nw, old})
		start := time.Now()

		plain := errorTexts(s.Validate(nw, nil, nil))
		if got := errorTexts(s.ValidateUpdate(nw, nil, nil, nil)); !slices.Equal(got, plain) {
			t.Fatalf("ValidateUpdate(%s) without correlation = %q, Validate = %q", nw, got, plain)
		}
		c := Correlate(s, nw, old)
		got := errorTexts(s.ValidateUpdate(nw, c, nil, nil))
		if !subset(got, plain) {
			t.Fatalf("ValidateUpdate(%s over %s) = %q, not some of Validate's %q", patchJSON, oldJSON, got, plain)
		}
		if c.Equal() && len(got) > 0 {
			t.Fatalf("ValidateUpdate(%s over %s) = %q with the root Equal", patchJSON, oldJSON, got)
		}
		again := errorTexts(s.ValidateUpdate(copyValue(nw), Correlate(s, copyValue(nw), copyValue(old)), nil, nil))
		if !slices.Equal(again, got) {
			t.Fatalf("ValidateUpdate(%s over %s) = %q, then %q on copies", patchJSON, oldJSON, got, again)
		}
		// With the base path and dst given: the same errors after dst's.
		dst := ErrorList{required(NewPath("x"), "")}
		based := s.ValidateUpdate(nw, Correlate(s, nw, old), NewPath("status"), dst)
		if len(based) != len(got)+1 || based[0] != dst[0] {
			t.Fatalf("ValidateUpdate with a base and dst = %q, want %d errors after dst's", errorTexts(based), len(got))
		}
		// The old value over itself.
		same := Correlate(s, old, copyValue(old))
		unchanged := errorTexts(s.ValidateUpdate(old, same, nil, nil))
		if same.Equal() && len(unchanged) > 0 {
			t.Fatalf("ValidateUpdate(%s over itself) = %q with the root Equal", oldJSON, unchanged)
		}
		if fullySchemed(s, old) && !same.Equal() {
			t.Fatalf("Correlate(%s, itself).Equal() = false, though every value has a schema", oldJSON)
		}
		if after, _ := json.Marshal([]any{nw, old}); string(after) != string(before) {
			t.Fatalf("ValidateUpdate modified its inputs: %s, then %s", before, after)
		}
		if d := time.Since(start); d > fuzzBudget {
			t.Fatalf("validating %s over %s took %v", patchJSON, oldJSON, d)
		}
	})
}

func fuzzDecode(b []byte) (any, bool) {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	return fromNumbers(v), true
}

// mergePatch applies a JSON merge patch to v, which it modifies.
func mergePatch(v, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	m, ok := v.(map[string]any)
	if !ok {
		m = map[string]any{}
	}
	for k, pv := range p {
		if pv == nil {
			delete(m, k)
			continue
		}
		m[k] = mergePatch(m[k], pv)
	}
	return m
}

// subset reports whether every text of a is in b, as often.
func subset(a, b []string) bool {
	left := map[string]int{}
	for _, x := range b {
		left[x]++
	}
	for _, x := range a {
		if left[x] == 0 {
			return false
		}
		left[x]--
	}
	return true
}

// fullySchemed reports whether every property of every object in v has a
// schema (declared or additionalProperties), so that v correlates with a
// copy of itself all the way down (list items of lists that are not
// list-type=map, and scalars, are compared whole).
func fullySchemed(s *Schema, v any) bool {
	if s == nil {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := s.Property(k)
			if p == nil {
				p = s.additional
			}
			if !fullySchemed(p, e) {
				return false
			}
		}
	case []any:
		if s.listType != "map" {
			return true
		}
		if s.items == nil {
			return len(x) == 0
		}
		l := NewMapList(s, x)
		for _, e := range x {
			// An item pairs with the first of its keys: a repeated key
			// pairs a later item with another one.
			if l.Get(e) == nil || !sameJSON(l.Get(e), e) || !fullySchemed(s.items, e) {
				return false
			}
		}
	}
	return true
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
