package schema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// validateBoth runs each validation mode on x twice, with the fast path of
// plain schemas and without it (exact), and fails when anything differs: the
// errors and their order, the failures counted and the MatchCount (not in
// modeBool, where it depends on the map order of the walk up to the first
// failure).
func validateBoth(t *testing.T, s *Schema, x any) (errs ErrorList) {
	t.Helper()
	for _, m := range []vmode{modeCollect, modeCount, modeBool} {
		fast := validator{mode: m, base: NewPath("x")}
		exact := validator{mode: m, base: NewPath("x"), exact: true}
		nf, ne := fast.node(s, x), exact.node(s, x)
		if m == modeBool {
			if (fast.fails > 0) != (exact.fails > 0) {
				t.Fatalf("modeBool: node(%v) failed %d times, exact %d", x, fast.fails, exact.fails)
			}
			continue
		}
		if nf != ne || fast.fails != exact.fails {
			t.Fatalf("mode %d: node(%v) = %d with %d failures, exact %d with %d", m, x, nf, fast.fails, ne, exact.fails)
		}
		if got, want := strings.Join(errorTexts(fast.dst), "\n"), strings.Join(errorTexts(exact.dst), "\n"); got != want {
			t.Fatalf("mode %d: node(%v) errors\n%s\nwant\n%s", m, x, got, want)
		}
		if m == modeCollect {
			errs = fast.dst
		}
	}
	return errs
}

// ratchetBoth compares the fast path with the general one in
// ValidateUpdate's ratcheting pass, with x as the new value and old the old.
func ratchetBoth(t *testing.T, s *Schema, x, old any) {
	t.Helper()
	c := Correlate(s, x, old)
	fast := validator{base: NewPath("x"), cor: c}
	exact := validator{base: NewPath("x"), cor: c, exact: true}
	nf, ne := fast.ratchet(s, x, c), exact.ratchet(s, x, c)
	if nf != ne || fast.fails != exact.fails {
		t.Fatalf("ratchet(%v, %v) = %d with %d failures, exact %d with %d", x, old, nf, fast.fails, ne, exact.fails)
	}
	if got, want := strings.Join(errorTexts(fast.dst), "\n"), strings.Join(errorTexts(exact.dst), "\n"); got != want {
		t.Fatalf("ratchet(%v, %v) errors\n%s\nwant\n%s", x, old, got, want)
	}
}

// genValue makes a value for s: mostly one of its type that passes its
// checks, sometimes (bad of the time, in thousandths) a value of another
// type, a null, an out-of-bounds number or a string that fails its pattern.
func genValue(rng *rand.Rand, s *Schema, depth, bad int) any {
	if s == nil || depth > 12 {
		return "x"
	}
	if rng.IntN(1000) < bad {
		switch rng.IntN(8) {
		case 0:
			return nil
		case 1:
			return true
		case 2:
			return int64(rng.IntN(1<<40)) - 1<<39
		case 3:
			return rng.Float64()*1e12 - 5e11
		case 4:
			return "x-" + fmt.Sprint(rng.IntN(100))
		case 5:
			return []any{"a"}
		case 6:
			return map[string]any{"a": int64(1)}
		default:
			return strings.Repeat("é", rng.IntN(80))
		}
	}
	if len(s.enum) > 0 {
		return s.enum[rng.IntN(len(s.enum))]
	}
	switch s.typ {
	case "object":
		m := map[string]any{}
		for i, k := range s.propNames {
			if rng.IntN(3) > 0 || slices.Contains(s.required, k) {
				m[k] = genValue(rng, s.propNodes[i], depth+1, bad)
			}
		}
		if rng.IntN(4) == 0 {
			m["zz"] = []any{"u", int64(1)} // undeclared: forbidden, kept or preserved
		}
		if s.additional != nil {
			for i := range rng.IntN(3) {
				m[fmt.Sprint("k", i)] = genValue(rng, s.additional, depth+1, bad)
			}
		}
		return m
	case "array":
		a := make([]any, rng.IntN(4))
		for i := range a {
			a[i] = genValue(rng, s.items, depth+1, bad)
		}
		return a
	case "string":
		if m := s.match.get(); m != nil {
			alpha := matcherAlphabet(m)
			var b strings.Builder
			for range rng.IntN(12) {
				b.WriteString(alpha[rng.IntN(len(alpha))])
			}
			return b.String()
		}
		switch s.plainFmt {
		case fmtDateTime:
			return "2024-01-02T03:04:05Z"
		}
		return "abc"
	case "integer":
		if rng.IntN(2) == 0 {
			return int64(rng.IntN(200)) - 100
		}
		return int64(rng.Uint64())
	case "number":
		return rng.NormFloat64() * 100
	case "boolean":
		return rng.IntN(2) == 0
	}
	if s.intOrString && rng.IntN(2) == 0 {
		return "50%"
	}
	return int64(8080)
}

// TestValidateFast compares the fast path of plain schemas with the general
// one on values generated from every corpus schema and the test schemas.
func TestValidateFast(t *testing.T) {
	corpus := corpusSchemas(t)
	var schemas []*Schema
	for _, name := range sortedNames(corpus) {
		s, err := CompileJSON(corpus[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		schemas = append(schemas, s)
	}
	for _, c := range validateCases {
		if s, err := CompileJSON([]byte(c.schema)); err == nil && s != nil {
			schemas = append(schemas, s)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	invalid, total := 0, 0
	for _, s := range schemas {
		for _, bad := range []int{0, 2, 20, 200} {
			for range 8 {
				x := genValue(rng, s, 0, bad)
				if len(validateBoth(t, s, x)) > 0 {
					invalid++
				}
				total++
				ratchetBoth(t, s, x, genValue(rng, s, 0, bad))
				ratchetBoth(t, s, x, copyValue(x))
			}
		}
	}
	t.Logf("%d values, %d invalid", total, invalid)
	if invalid == 0 || invalid == total {
		t.Errorf("%d of %d values invalid: the generator tests one side only", invalid, total)
	}
	for _, c := range validateCases {
		s, err := CompileJSON([]byte(c.schema))
		if err != nil || s == nil {
			continue
		}
		var x any
		if err := json.Unmarshal([]byte(c.value), &x); err != nil {
			continue
		}
		validateBoth(t, s, fromNumbers(x))
	}
}

// FuzzValidateFast compares the fast path of plain schemas with the general
// one on arbitrary schemas and values.
func FuzzValidateFast(f *testing.F) {
	for _, c := range validateCases {
		f.Add([]byte(c.schema), []byte(c.value))
	}
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string","pattern":"^a+$","maxLength":3},"b":{"type":"integer","format":"int32"},"c":{"type":"array","items":{"type":"number"}},"d":{"type":"string","format":"date-time"}}}`),
		[]byte(`{"a":"aa","b":5000000000,"c":[1.5,2,"x"],"d":"2024-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, schemaJSON, value []byte) {
		s, err := CompileJSON(schemaJSON)
		if err != nil || s == nil {
			return
		}
		var x any
		d := json.NewDecoder(strings.NewReader(string(value)))
		d.UseNumber()
		if d.Decode(&x) != nil {
			return
		}
		validateBoth(t, s, fromNumbers(x))
	})
}
