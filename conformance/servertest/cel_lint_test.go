package servertest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/conformance/oracle"
)

// celMutation breaks one x-kubernetes-validations rule of a CRD the way CRD
// authors do: it receives the rule (a JSON object) and the schema node that
// holds it, and changes them in place.
type celMutation struct {
	name  string
	apply func(rule, node map[string]any)
}

var celMutations = []celMutation{
	{"syntax-error", func(r, _ map[string]any) { r["rule"] = "self.(" }},
	{"not-bool", func(r, _ map[string]any) { r["rule"] = "1 + 1" }},
	{"unknown-field", func(r, _ map[string]any) { r["rule"] = "self.crdkitNoSuchField == 1" }},
	{"unknown-function", func(r, _ map[string]any) { r["rule"] = "crdkitNoSuchFunction(self)" }},
	{"message-expression-not-string", func(r, _ map[string]any) { r["messageExpression"] = "1" }},
	{"message-expression-syntax", func(r, _ map[string]any) { r["messageExpression"] = "'a' +" }},
	{"message-and-expression", func(r, _ map[string]any) { r["message"] = "m"; r["messageExpression"] = "'x'" }},
	{"field-path-invalid", func(r, _ map[string]any) { r["fieldPath"] = ".crdkitNoSuchField" }},
	{"field-path-syntax", func(r, _ map[string]any) { r["fieldPath"] = "spec[" }},
	{"reason-unknown", func(r, _ map[string]any) { r["reason"] = "FieldValueBogus" }},
	{"reason-forbidden", func(r, _ map[string]any) { r["reason"] = "FieldValueForbidden" }},
	{"optional-old-self-without-old-self", func(r, _ map[string]any) { r["optionalOldSelf"] = true }},
	{"old-self", func(r, _ map[string]any) { r["rule"] = "self == oldSelf" }},
	{"old-self-optional", func(r, _ map[string]any) { r["rule"] = "oldSelf.hasValue()"; r["optionalOldSelf"] = true }},
	{"rule-empty", func(r, _ map[string]any) { r["rule"] = "" }},
	{"rule-line-break", func(r, _ map[string]any) { r["rule"] = "true ||\nfalse"; delete(r, "message") }},
	{"regex-invalid", func(r, _ map[string]any) { r["rule"] = "'a'.matches('[')" }},
	{"cost-bomb-strings", func(r, _ map[string]any) {
		r["rule"] = "string(self).matches('^(a+)+$') && string(self).split('a').all(x, string(self).split('b').all(y, x != y))"
	}},
	{"cost-bomb-list", func(_, n map[string]any) {
		// A list without maxItems of strings without maxLength, with nested
		// comprehensions over it.
		props, _ := n["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			n["properties"] = props
		}
		props["crdkitList"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"},
			"x-kubernetes-validations": []any{map[string]any{"rule": "self.all(x, self.all(y, self.all(z, x + y + z != '')))"}}}
	}},
	{"many-rules", func(_, n map[string]any) {
		var l []any
		for i := range 40 {
			l = append(l, map[string]any{"rule": fmt.Sprintf("has(self.crdkitMissing%d) || true", i)})
		}
		n["x-kubernetes-validations"] = l
	}},
}

// TestLintCELAgreesWithServer breaks the x-kubernetes-validations rules of
// the corpus CRDs one way at a time and compares the server's dry-run CRD
// create with crdkit.Load (code, reason, sorted causes).
func TestLintCELAgreesWithServer(t *testing.T) {
	dir := corpusDir()
	if dir == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	docs, err := oracle.LoadCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	type lintCase struct{ mutation, name, json string }
	var cases []lintCase
	for _, d := range docs {
		doc := regroup(t, d.JSON)
		var probe map[string]any
		if err := json.Unmarshal(doc, &probe); err != nil {
			t.Fatal(err)
		}
		sites := ruleSites(probe, nil)
		if len(sites) == 0 {
			continue
		}
		// The first rule of every CRD, and the last of one in four.
		picks := []int{0}
		if len(sites) > 1 && len(cases)%4 == 0 {
			picks = append(picks, len(sites)-1)
		}
		for _, pick := range picks {
			for _, m := range celMutations {
				var obj map[string]any
				if err := json.Unmarshal(doc, &obj); err != nil {
					t.Fatal(err)
				}
				site := ruleSites(obj, nil)[pick]
				node := getAt(obj, site).(map[string]any)
				rule := node["x-kubernetes-validations"].([]any)[0].(map[string]any)
				m.apply(rule, node)
				b, _ := json.Marshal(obj)
				cases = append(cases, lintCase{m.name, fmt.Sprintf("%s#%d %s at %s", filepath.Base(d.File), d.Index, m.name, pathString(site)), string(b)})
			}
		}
	}
	if len(cases) == 0 {
		t.Fatal("no corpus CRD has x-kubernetes-validations rules")
	}

	bodies := make([][]byte, len(cases))
	for i, c := range cases {
		bodies[i] = []byte(c.json)
	}
	results, errs := dryRunCRDs(bodies)

	agr := newAgreement()
	defer agr.report(t)
	refused := 0
	for i, c := range cases {
		r, err := results[i], errs[i]
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Code >= 500 {
			agr.skip("lint-cel: the server fails with 500")
			continue
		}
		want := verdictOf(r.Code, r.Status)
		if gap := scopeGap(want); gap != "" {
			agr.skip("lint-cel: " + gap)
			continue
		}
		if r.Code != 201 {
			refused++
		}
		got := normalizeCEL(crdkitVerdict([]byte(c.json)))
		want = normalizeCEL(want)
		agr.record("lint-cel", c.mutation, got == want, fmt.Sprintf("%s\n  server: %s\n  crdkit: %s", c.name, want, got))
	}
	t.Logf("lint-cel: %d cases, %d refused by the server", len(cases), refused)
	if refused == 0 {
		t.Error("no mutated rule was refused: the mutations test nothing")
	}
}

// ruleSites lists the paths of the schema nodes that hold
// x-kubernetes-validations rules, in a stable order.
func ruleSites(v any, at []any) [][]any {
	var out [][]any
	switch t := v.(type) {
	case map[string]any:
		if l, ok := t["x-kubernetes-validations"].([]any); ok && len(l) > 0 {
			if _, ok := l[0].(map[string]any); ok {
				out = append(out, slices.Clone(at))
			}
		}
		for _, k := range sortedKeys(t) {
			if k == "x-kubernetes-validations" || strings.HasPrefix(k, "default") {
				continue
			}
			out = append(out, ruleSites(t[k], append(slices.Clone(at), k))...)
		}
	case []any:
		for i, e := range t {
			out = append(out, ruleSites(e, append(slices.Clone(at), i))...)
		}
	}
	return out
}

var (
	selfType    = regexp.MustCompile(`selfType[0-9]+`)
	contributed = regexp.MustCompile(`(?m)^  \S+ \| Forbidden \| Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema$`)
)

// normalizeCEL removes from a rendered CRD verdict what the server makes
// up at random: the name of the type of self in compiler messages (it is
// "selfType" and the clock), and which of equally expensive rules it names
// as having "contributed to estimated rule cost total exceeding cost limit"
// (it keeps the first few in Go map order): those causes are compared by
// count.
func normalizeCEL(v string) string {
	v = selfType.ReplaceAllString(v, "selfType*")
	v = contributed.ReplaceAllString(v, "  (a most expensive rule) | Forbidden | Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema")
	lines := strings.Split(v, "\n")
	if len(lines) > 2 {
		slices.Sort(lines[1:])
	}
	return strings.Join(lines, "\n")
}
