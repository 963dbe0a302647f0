package schema

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"
)

// FuzzValidate feeds a schema and a value to Validate, Valid and
// ValidateListTypes. None may panic or hang; Valid must agree with Validate;
// the errors must be well formed and the same, in the same order, on a
// second run over a copy of the value (whose maps iterate differently). The
// conformance module's FuzzValidateAgrees compares the answers with the
// server's.
func FuzzValidate(f *testing.F) {
	for _, c := range validateCases {
		f.Add([]byte(c.schema), []byte(c.value))
	}
	for _, c := range listTypeCases {
		f.Add([]byte(listSchema), []byte(c.value))
	}
	f.Add([]byte(featureSchema), []byte(featureValue))
	// Only the smaller corpus schemas: the engine's minimisation of inputs
	// built from megabyte-sized ones stalls fuzzing for minutes.
	corpus := corpusSchemas(f)
	for _, name := range sortedNames(corpus) {
		if len(corpus[name]) < 4<<10 {
			f.Add(corpus[name], []byte(`{"apiVersion":"x/v1","kind":"X","metadata":{"name":"n"},"spec":{"a":[1,"b"]}}`))
		}
	}
	f.Fuzz(func(t *testing.T, schemaJSON, value []byte) {
		s, err := CompileJSON(schemaJSON)
		if err != nil || s == nil {
			return
		}
		d := json.NewDecoder(strings.NewReader(string(value)))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return
		}
		v = fromNumbers(v)
		start := time.Now()
		errs := s.Validate(v, nil, nil)
		if valid := s.Valid(v); valid != (len(errs) == 0) {
			t.Fatalf("Valid(%s) = %v, Validate = %q", value, valid, errorTexts(errs))
		}
		checkErrors(t, "Validate", value, errs)
		if again := s.Validate(copyValue(v), nil, nil); strings.Join(errorTexts(again), "\n") != strings.Join(errorTexts(errs), "\n") {
			t.Fatalf("Validate(%s) = %q, then %q", value, errorTexts(errs), errorTexts(again))
		}
		if m, ok := v.(map[string]any); ok {
			lerrs := s.ValidateListTypes(m, NewPath("x"), nil)
			checkErrors(t, "ValidateListTypes", value, lerrs)
			again := s.ValidateListTypes(copyValue(m).(map[string]any), NewPath("x"), nil)
			if strings.Join(errorTexts(again), "\n") != strings.Join(errorTexts(lerrs), "\n") {
				t.Fatalf("ValidateListTypes(%s) = %q, then %q", value, errorTexts(lerrs), errorTexts(again))
			}
		}
		if d := time.Since(start); d > fuzzBudget {
			t.Fatalf("validating %s took %v", value, d)
		}
	})
}

func checkErrors(t *testing.T, fn string, value []byte, errs ErrorList) {
	t.Helper()
	for _, e := range errs {
		if e == nil || e.Type == "" || e.Field == "" {
			t.Fatalf("%s(%s) produced a malformed error %#v", fn, value, e)
		}
	}
}

// copyValue copies the maps and slices of a decoded JSON value, inserting
// the keys of each map in reverse order.
func copyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Sort(sort.Reverse(sort.StringSlice(keys)))
		m := make(map[string]any, len(x))
		for _, k := range keys {
			m[k] = copyValue(x[k])
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = copyValue(e)
		}
		return a
	}
	return v
}
