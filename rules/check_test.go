package rules

import (
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/schema"
)

var checkTests = []struct {
	name   string
	schema string
	want   []string
}{
	{
		name:   "clean",
		schema: spec(`[{"rule":"self.a > 0","messageExpression":"'a: ' + self.s"}]`, `{"a":{"type":"integer"},"s":{"type":"string","maxLength":10}}`),
	},
	{
		// The server's estimator knows no bound on string(int): any
		// messageExpression that concatenates one is refused.
		name:   "string of an integer in a messageExpression",
		schema: spec(`[{"rule":"self.a > 0","messageExpression":"'a: ' + string(self.a)"}]`, `{"a":{"type":"integer"}}`),
		want: []string{
			"B.properties[spec].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
			"B.properties[spec].x-kubernetes-validations[0].messageExpression: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
			"B: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
		},
	},
	{
		name:   "non-bool and bad messageExpression",
		schema: spec(`[{"rule":"1"},{"rule":"true","messageExpression":"1"}]`, `{}`),
		want: []string{
			`B.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: cel expression must evaluate to a bool`,
			`B.properties[spec].x-kubernetes-validations[1].messageExpression: Invalid value: {"Rule":"true","Message":"","MessageExpression":"1","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression must evaluate to a string`,
		},
	},
	{
		name:   "optionalOldSelf without oldSelf",
		schema: spec(`[{"rule":"true","optionalOldSelf":false}]`, `{}`),
		want:   []string{`B.properties[spec].x-kubernetes-validations[0].optionalOldSelf: Invalid value: false: may not be set if oldSelf is not used in rule`},
	},
	{
		name:   "oldSelf in an atomic list",
		schema: `{"type":"object","properties":{"l":{"type":"array","maxItems":5,"items":{"type":"object","x-kubernetes-validations":[{"rule":"self == oldSelf"}],"properties":{"a":{"type":"string","maxLength":5}}}}}}`,
		want:   []string{`B.properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within B.properties[l]`},
	},
	{
		name:   "cost per rule",
		schema: `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x == y))"}]}}}`,
		want: []string{
			"B.properties[l].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
			"B.properties[l].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
			"B: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
		},
	},
}

func TestCheck(t *testing.T) {
	for _, tc := range checkTests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := schema.CompileJSON([]byte(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range Check(s, field.NewPath("B"), nil) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Check =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestCheckSkipsNodesWithOtherErrors(t *testing.T) {
	s, err := schema.CompileJSON([]byte(spec(`[{"rule":"1"}]`, `{"a":{"type":"integer"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	other := field.ErrorList{field.Invalid(field.NewPath("B").Child("properties").Key("spec").Child("properties").Key("a").Child("type"), "x", "bad")}
	if errs := Check(s, field.NewPath("B"), other); len(errs) != 0 {
		t.Errorf("Check = %v, want none", errs)
	}
	sibling := field.ErrorList{field.Invalid(field.NewPath("B").Child("properties").Key("spec2"), "x", "bad")}
	if errs := Check(s, field.NewPath("B"), sibling); len(errs) != 1 {
		t.Errorf("Check = %v, want one error", errs)
	}
}

var fieldPathTests = []struct {
	path, want, err string
}{
	{".a", "a", ""},
	{".a.b", "a.b", ""},
	{"['a']", "a", ""},
	{".m['k.1']", "m[k.1]", ""},
	{".m.k", "m[k]", ""},
	{"['it\\'s']", "it's", ""},
	{".nope", "", "does not refer to a valid field"},
	{"a", "", "expected [ or . but got: a"},
	{".", "", "unexpected end of JSON path"},
	{"[a]", "", "expected single quoted string but got a"},
	{"['a'", "", "unexpected end of JSON path"},
	{"['a'.", "", "expected ] but got ."},
	{"['\\q']", "", "invalid string literal: invalid escape char \\q"},
	{".s.x", "", "does not refer to a valid field"},
}

func TestFieldPath(t *testing.T) {
	s, err := schema.CompileJSON([]byte(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}},"it's":{"type":"string"},"s":{"type":"string"},
	  "m":{"type":"object","additionalProperties":{"type":"string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	n := newNode(s)
	for _, tc := range fieldPathTests {
		p, _, err := resolveFieldPath(tc.path, n)
		got, gotErr := "", ""
		if err != nil {
			gotErr = err.Error()
		} else {
			got = p.String()
		}
		if got != tc.want || gotErr != tc.err {
			t.Errorf("resolveFieldPath(%q) = %q, %q; want %q, %q", tc.path, got, gotErr, tc.want, tc.err)
		}
	}
}

// TestConcurrentValidate runs one Validator from many goroutines (run with
// -race).
func TestConcurrentValidate(t *testing.T) {
	v := mustCompile(t, `{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","x-kubernetes-validations":[{"rule":"self.n < 3","messageExpression":"'n=' + string(self.n)"}],"properties":{"n":{"type":"integer"}}}}}}`)
	obj := decode(t, `{"l":[{"n":1},{"n":5},{"n":7}]}`)
	want, wantLeft := v.Validate(obj, RuntimeBudget)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				got, left := v.Validate(obj, RuntimeBudget)
				if len(got) != len(want) || left != wantLeft || got[0].Error() != want[0].Error() {
					t.Errorf("concurrent Validate = %v (%d), want %v (%d)", got, left, want, wantLeft)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// A Compiler shared by many checks, from several goroutines, gives what
// the plain functions give, and compiles a repeated rule once.
func TestCompilerShared(t *testing.T) {
	c := &Compiler{m: &memo{rules: map[ruleKey]memoRule{}}} // NewCompiler's, not shared with other tests
	var wg sync.WaitGroup
	for range 4 {
		for _, tc := range checkTests {
			s, err := schema.CompileJSON([]byte(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			want := errStrings(Check(s, field.NewPath("B"), nil))
			wg.Go(func() {
				if got := errStrings(c.Check(s, field.NewPath("B"), nil)); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("Compiler.Check(%s) = %q, want %q", tc.name, got, want)
				}
				v1, err1 := c.CompileNode(s, true)
				v2, err2 := CompileNode(s, true)
				if (v1 == nil) != (v2 == nil) || (err1 == nil) != (err2 == nil) {
					t.Errorf("Compiler.CompileNode(%s) = %v, %v, want %v, %v", tc.name, v1, err1, v2, err2)
				}
			})
		}
	}
	wg.Wait()
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	if n := len(c.m.rules); n == 0 || n > 64 {
		t.Errorf("Compiler remembers %d compilations of the test rules, want a few", n)
	}
}

func errStrings(l field.ErrorList) []string {
	var out []string
	for _, e := range l {
		out = append(out, e.Error())
	}
	return out
}
