package schema

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

func mustCompile(t testing.TB, js string) *Schema {
	t.Helper()
	s, err := CompileJSON([]byte(js))
	if err != nil {
		t.Fatalf("CompileJSON(%s): %v", js, err)
	}
	return s
}

const fullSchema = `{
	"type":"object","description":"root","x-kubernetes-preserve-unknown-fields":true,
	"required":["spec"],"minProperties":1,"maxProperties":5,
	"properties":{
		"spec":{"type":"object","nullable":true,"x-kubernetes-map-type":"atomic","properties":{
			"b":{"type":"string","format":"date-time","pattern":"^a+$","minLength":1,"maxLength":9,"enum":["a","aa"],"default":"a"},
			"a":{"type":"integer","minimum":0,"exclusiveMinimum":true,"maximum":10,"multipleOf":2},
			"l":{"type":"array","minItems":1,"maxItems":3,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
				"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}},
			"m":{"type":"object","additionalProperties":{"type":"string"}},
			"t":{"type":"object","additionalProperties":false},
			"e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
			"p":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}},
			"x-kubernetes-validations":[{"rule":"self.a > 0","message":"a"}]}},
	"allOf":[{"required":["spec"]}],"oneOf":[{"required":["a"]},{"required":["b"]}],"not":{"required":["x"]}}`

func TestCompileAccessors(t *testing.T) {
	s := mustCompile(t, fullSchema)
	spec := s.Property("spec")
	b, a, l, m := spec.Property("b"), spec.Property("a"), spec.Property("l"), spec.Property("m")
	if spec == nil || b == nil || a == nil || l == nil || m == nil {
		t.Fatalf("Compile(fullSchema) is missing properties: %s", s)
	}
	i64 := func(p *int64) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	f64 := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	pair := func(x, y string) string { return x + "," + y }
	def := func(s *Schema) string { v, ok := s.Default(); return fmt.Sprintf("%v %v", v, ok) }
	max := func(s *Schema) string { v, ex := s.Maximum(); return pair(f64(v), fmt.Sprint(ex)) }
	min := func(s *Schema) string { v, ex := s.Minimum(); return pair(f64(v), fmt.Sprint(ex)) }
	lengths := func(s *Schema) string { x, y := s.Lengths(); return pair(i64(x), i64(y)) }
	items := func(s *Schema) string { x, y := s.ItemCounts(); return pair(i64(x), i64(y)) }
	props := func(s *Schema) string { x, y := s.PropertyCounts(); return pair(i64(x), i64(y)) }
	addl := func(s *Schema) string {
		sch, allows, set := s.AdditionalProperties()
		return fmt.Sprint(sch != nil, allows, set)
	}
	names := func(s *Schema) string {
		var out []string
		for k := range s.Properties() {
			out = append(out, k)
		}
		return strings.Join(out, ",")
	}
	pattern := func(s *Schema) string {
		if s.Pattern() == nil {
			return "nil"
		}
		return s.Pattern().String()
	}
	tests := []struct {
		name, got, want string
	}{
		{"root type", s.Type(), "object"},
		{"root description", s.Description(), "root"},
		{"root preserve", fmt.Sprint(s.PreserveUnknownFields()), "true"},
		{"root required", fmt.Sprint(s.Required()), "[spec]"},
		{"root property counts", props(s), "1,5"},
		{"root property names", names(s), "spec"},
		{"root additionalProperties", addl(s), "false false false"},
		{"root allOf", fmt.Sprint(len(s.AllOf()), s.AllOf()[0].Required()), "1 [spec]"},
		{"root anyOf", fmt.Sprint(len(s.AnyOf())), "0"},
		{"root oneOf", fmt.Sprint(len(s.OneOf())), "2"},
		{"root not", fmt.Sprint(s.Not().Required()), "[x]"},
		{"spec nullable", fmt.Sprint(spec.Nullable()), "true"},
		{"spec map type", spec.MapType(), "atomic"},
		{"spec rules", fmt.Sprint(spec.Rules()), "[{self.a > 0 a  <nil>  <nil>}]"},
		{"spec sorted properties", names(spec), "a,b,e,l,m,p,t"},
		{"spec num properties", fmt.Sprint(spec.NumProperties()), "7"},
		{"spec unknown property", fmt.Sprint(spec.Property("zz") == nil), "true"},
		{"b format", b.Format(), "date-time"},
		{"b pattern", pattern(b), "^a+$"},
		{"b lengths", lengths(b), "1,9"},
		{"b enum", fmt.Sprint(b.Enum()), "[a aa]"},
		{"b default", def(b), "a true"},
		{"a default", def(a), "<nil> false"},
		{"a maximum", max(a), "10,false"},
		{"a minimum", min(a), "0,true"},
		{"a multipleOf", f64(a.MultipleOf()), "2"},
		{"a pattern", pattern(a), "nil"},
		{"l list type", l.ListType(), "map"},
		{"l map keys", fmt.Sprint(l.ListMapKeys()), "[name]"},
		{"l item counts", items(l), "1,3"},
		{"l items", l.Items().Property("name").Type(), "string"},
		{"l items required", fmt.Sprint(l.Items().Required()), "[name]"},
		{"m additionalProperties", addl(m), "true true true"},
		{"m additional type", func() string { x, _, _ := m.AdditionalProperties(); return x.Type() }(), "string"},
		{"t additionalProperties false", addl(spec.Property("t")), "false false true"},
		{"e embedded", fmt.Sprint(spec.Property("e").EmbeddedResource(), spec.Property("e").PreserveUnknownFields()), "true true"},
		{"p int-or-string", fmt.Sprint(spec.Property("p").IntOrString(), len(spec.Property("p").AnyOf())), "true 2"},
		{"unset list type", a.ListType(), ""},
		{"unset map type", a.MapType(), ""},
		{"no items", fmt.Sprint(a.Items() == nil), "true"},
		{"string", spec.String(), "schema{type=object properties=a,b,e,l,m,p,t}"},
		{"leaf string", a.String(), "schema{type=integer}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("Compile(fullSchema): %s = %s, want %s", tt.name, tt.got, tt.want)
			}
		})
	}
}

func TestCompilePropertiesEarlyStop(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"c":{},"a":{},"b":{}}}`)
	var got []string
	for k := range s.Properties() {
		got = append(got, k)
		if k == "b" {
			break
		}
	}
	if strings.Join(got, ",") != "a,b" {
		t.Errorf("Properties() with break = %v, want [a b]", got)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"build error", `{"type":"object","properties":{"a":{"$ref":"#/x"}}}`, "OpenAPIV3Schema '$ref' is not supported"},
		{"invalid pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"a(b"}}}`, "pattern \"a(b\": error parsing regexp: missing closing ): `a(b`"},
		{"invalid pattern in a junctor", `{"type":"object","allOf":[{"pattern":"[z-a]"}]}`, "pattern \"[z-a]\": error parsing regexp: invalid character class range: `z-a`"},
		{"not JSON", `{"type":`, "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := CompileJSON([]byte(tt.json))
			if err == nil || err.Error() != tt.want {
				t.Errorf("CompileJSON(%s) = %v, %v, want error %q", tt.json, s, err, tt.want)
			}
		})
	}
	if s, err := Compile(nil); s != nil || err != nil {
		t.Errorf("Compile(nil) = %v, %v, want nil, nil", s, err)
	}
}

// Compile does not require a structural schema: the server serves what
// passes ValidateStructural, but tools inspect the rest too.
func TestCompileNonStructural(t *testing.T) {
	js := `{"properties":{"a":{"allOf":[{"type":"string","description":"d"}]}}}`
	p, err := ParseProps([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if errs := ValidateStructural(p, nil); len(errs) == 0 {
		t.Fatalf("ValidateStructural(%s) = nil, want errors", js)
	}
	s, err := Compile(p)
	if err != nil {
		t.Fatalf("Compile(%s) error = %v, want none", js, err)
	}
	if got := s.Property("a").AllOf()[0].Type(); got != "string" {
		t.Errorf("Compile(%s): a.allOf[0].Type() = %s, want string", js, got)
	}
}

func TestCompileSummary(t *testing.T) {
	tests := []struct {
		name string
		json string
		want Summary
	}{
		{"empty", `{}`, 0},
		{"type alone is a value validation", `{"type":"object"}`, HasValueValidation},
		{"bound alone is a value validation", `{"maxLength":1}`, HasValueValidation},
		{"non-nullable child", `{"properties":{"a":{}}}`, HasNonNullable},
		{"nullable child", `{"properties":{"a":{"nullable":true}}}`, 0},
		{"nullable items", `{"items":{"nullable":true}}`, 0},
		{"non-nullable additionalProperties", `{"additionalProperties":{}}`, HasNonNullable},
		{"default", `{"properties":{"a":{"nullable":true,"default":1}}}`, HasDefaults},
		{"default null is no default", `{"properties":{"a":{"nullable":true,"default":null}}}`, 0},
		{"default at the root", `{"default":{}}`, HasDefaults},
		{"embedded resource", `{"properties":{"a":{"nullable":true,"x-kubernetes-embedded-resource":true}}}`, HasEmbeddedResource},
		{"preserve unknown fields", `{"x-kubernetes-preserve-unknown-fields":true}`, HasPreserveUnknownFields},
		{"set list", `{"x-kubernetes-list-type":"set"}`, HasListTypes},
		{"map list", `{"x-kubernetes-list-type":"map"}`, HasListTypes},
		{"atomic list is no list type", `{"x-kubernetes-list-type":"atomic"}`, 0},
		{"rules deep down", `{"properties":{"a":{"nullable":true,"items":{"nullable":true,"x-kubernetes-validations":[{"rule":"true"}]}}}}`, HasRules},
		{"bits from several children", `{"type":"object","properties":{"a":{"type":"string","default":"x"},"b":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}`,
			HasValueValidation | HasNonNullable | HasDefaults | HasEmbeddedResource | HasPreserveUnknownFields},
		// Junctors carry value validations only; what they hold is not
		// summarised (a default there is forbidden, see ValidateStructural).
		{"junctors are value validation", `{"allOf":[{"default":1,"x-kubernetes-validations":[{"rule":"true"}]}]}`, HasValueValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustCompile(t, tt.json).Summary(); got != tt.want {
				t.Errorf("Summary(%s) = %07b, want %07b", tt.json, got, tt.want)
			}
		})
	}
}

// fingerprint walks a compiled schema through every accessor and renders
// what it saw; concurrent walks must all see the same.
func fingerprint(s *Schema, b *strings.Builder, depth int) {
	if s == nil || depth > 64 {
		b.WriteString("nil;")
		return
	}
	def, hasDef := s.Default()
	mx, exMax := s.Maximum()
	mn, exMin := s.Minimum()
	minL, maxL := s.Lengths()
	minI, maxI := s.ItemCounts()
	minP, maxP := s.PropertyCounts()
	fmt.Fprintf(b, "%s|%s|%v|%v|%v|%v|%v|%v|%v|%s|%v|%s|%d|%v|%v|%v|%v|%v|%v|%v|%v|%v|%v|%v|%v|%v|%v|%v|",
		s.Type(), s.Format(), s.Nullable(), def, hasDef, s.PreserveUnknownFields(), s.EmbeddedResource(),
		s.IntOrString(), s.ListMapKeys(), s.ListType(), s.MapType() == "", s.Description(), s.Summary(),
		s.Enum(), s.Required(), mx != nil, exMax, mn != nil, exMin, minL != nil, maxL != nil,
		minI != nil, maxI != nil, minP != nil, maxP != nil, s.MultipleOf() != nil, len(s.Rules()), s.NumProperties())
	if re := s.Pattern(); re != nil {
		fmt.Fprint(b, re.MatchString("abc"), re.String())
	}
	b.WriteString(s.String())
	for k, c := range s.Properties() {
		b.WriteString(k)
		if s.Property(k) != c {
			b.WriteString("MISMATCH")
		}
		fingerprint(c, b, depth+1)
	}
	fingerprint(s.Items(), b, depth+1)
	addl, allows, set := s.AdditionalProperties()
	fmt.Fprint(b, allows, set)
	fingerprint(addl, b, depth+1)
	for _, l := range [][]*Schema{s.AllOf(), s.AnyOf(), s.OneOf()} {
		for _, c := range l {
			fingerprint(c, b, depth+1)
		}
	}
	if n := s.Not(); n != nil {
		fingerprint(n, b, depth+1)
	}
}

// TestCompiledSchemaConcurrentUse reads one compiled Schema from many
// goroutines at once; run it with -race.
func TestCompiledSchemaConcurrentUse(t *testing.T) {
	schemas := []string{fullSchema}
	for _, c := range readStructuralCases(t) {
		if c.BuildError == "" {
			schemas = append(schemas, string(c.Schema))
		}
	}
	for _, js := range corpusSchemas(t) {
		schemas = append(schemas, string(js))
		break // one real CRD is enough to exercise a large tree
	}
	for i, js := range schemas {
		s, err := CompileJSON([]byte(js))
		if err != nil {
			continue // an invalid pattern
		}
		var want strings.Builder
		fingerprint(s, &want, 0)
		const workers = 8
		got := make([]string, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var b strings.Builder
				for range 3 {
					b.Reset()
					fingerprint(s, &b, 0)
				}
				got[w] = b.String()
			}()
		}
		wg.Wait()
		for w, g := range got {
			if g != want.String() {
				t.Errorf("schema %d: goroutine %d saw %.200s, want %.200s", i, w, g, want.String())
			}
		}
	}
}

// TestPropsConcurrentChecks runs every check on one Props from many
// goroutines: none of them may modify it.
func TestPropsConcurrentChecks(t *testing.T) {
	for i, js := range []string{fullSchema, fuzzSeeds[0], fuzzSeeds[2], fuzzSeeds[4]} {
		p, err := ParseProps([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		checks := func() string {
			_, err := Compile(p)
			return fmt.Sprintf("%v|%v|%v|%v", BuildError(p), ValidateStructural(p, NewPath("x")), CheckCRDSchema(p, NewPath("x"), CreateOptions), err)
		}
		want := checks()
		before := dump(p)
		var wg sync.WaitGroup
		got := make([]string, 8)
		for w := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[w] = checks()
			}()
		}
		wg.Wait()
		for w, g := range got {
			if g != want {
				t.Errorf("schema %d, goroutine %d: checks = %s, want %s", i, w, g, want)
			}
		}
		if after := dump(p); after != before {
			t.Errorf("schema %d: checks modified their Props:\nbefore %s\nafter  %s", i, before, after)
		}
	}
}

// Reading a compiled schema costs no allocations.
func TestCompiledSchemaAccessorsDoNotAllocate(t *testing.T) {
	s := mustCompile(t, fullSchema)
	spec := s.Property("spec")
	n := testing.AllocsPerRun(100, func() {
		for _, c := range spec.Properties() {
			_ = c.Type()
			_, _ = c.Default()
			_, _, _ = c.AdditionalProperties()
			_ = c.Items()
		}
		_ = spec.Property("l").Items().Property("name")
	})
	if n != 0 {
		t.Errorf("AllocsPerRun(walk of spec) = %v, want 0", n)
	}
}

func TestCompileJSONTooDeep(t *testing.T) {
	if _, err := CompileJSON([]byte(nest("items", 700))); !errors.Is(err, ErrTooDeep) {
		t.Errorf("CompileJSON(items x 700) = %v, want %v", err, ErrTooDeep)
	}
}

func BenchmarkCompileJSON(b *testing.B) {
	js := []byte(fullSchema)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompileJSON(js); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPropertyName checks that PropertyName finds what Property finds and
// gives the schema's own copy of a declared name where the index holds
// one: not the caller's string, and the same string on every call.
func TestPropertyName(t *testing.T) {
	indexed := mustCompile(t, `{"type":"object","properties":{"alpha":{},"beta":{},"gamma":{"type":"string"}}}`)
	// An empty name leaves the schema without an index: names come back "".
	mapped := mustCompile(t, `{"type":"object","properties":{"alpha":{},"beta":{},"":{}}}`)
	for _, tc := range []struct {
		s       *Schema
		indexed bool
	}{{indexed, true}, {mapped, false}} {
		for _, name := range []string{"alpha", "beta", "gamma", "", "alph", "alphaa", "delta"} {
			asked := strings.Clone(name)
			got, node := tc.s.PropertyName(asked)
			if node != tc.s.Property(name) {
				t.Errorf("PropertyName(%q) node %p, Property gives %p", name, node, tc.s.Property(name))
			}
			switch {
			case node == nil || !tc.indexed:
				if got != "" {
					t.Errorf("PropertyName(%q) = %q, want \"\" (undeclared or no index)", name, got)
				}
			case got != name:
				t.Errorf("PropertyName(%q) = %q", name, got)
			case unsafe.StringData(got) == unsafe.StringData(asked):
				t.Errorf("PropertyName(%q) returned the caller's string", name)
			default:
				again, _ := tc.s.PropertyName(strings.Clone(name))
				if unsafe.StringData(again) != unsafe.StringData(got) {
					t.Errorf("PropertyName(%q) returns a different string each call", name)
				}
			}
		}
	}
}

// TestNodeSizes holds a compiled node and a Props to 512 bytes: larger
// objects with pointers carry a header word in Go's allocator, whose first
// write to a fresh page while a collection runs costs the CLI a TLB flush
// on the other core (BENCHMARKS.md, "Session 18").
func TestNodeSizes(t *testing.T) {
	if n := unsafe.Sizeof(Schema{}); n > 512 {
		t.Errorf("Schema is %d bytes, over 512", n)
	}
	if n := unsafe.Sizeof(Props{}); n > 512 {
		t.Errorf("Props is %d bytes, over 512", n)
	}
}
