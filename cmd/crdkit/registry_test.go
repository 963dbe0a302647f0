package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestTypeMetaHints(t *testing.T) {
	for _, c := range []struct{ name, in string }{
		{"json", `{"apiVersion":"a/v1","kind":"K","metadata":{"kind":"Nested"}}`},
		{"json nested first", `{"spec":{"kind":"X","l":[1,"}",{"a":"\"]"}]},"kind":"K","apiVersion":"a/v1"}`},
		{"json stops at both", `{"kind":"K","apiVersion":"a/v1","kind":"X"}`},
		{"json numbers and literals", `{"n":-1.5e3,"t":true,"z":null,"apiVersion":"a/v1","kind":"K"}`},
		{"yaml", "apiVersion: a/v1\nkind: K # comment\nspec:\n  kind: Nested\n"},
		{"yaml quoted", "apiVersion: \"a/v1\"\nkind: 'K'\n"},
		{"yaml two documents", "apiVersion: a/v1\nkind: K\n---\napiVersion: b/v2\nkind: L\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := typeMetaHints("f", []byte(c.in))
			want := []string{"a/v1 K"}
			if c.name == "yaml two documents" {
				want = append(want, "b/v2 L")
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %q, want %q", got, want)
			}
		})
	}
	for _, in := range []string{`{"kind":`, `{"apiVersion":"a/v1","kind":"K"`, `{"a":[1,2`, `{`, `{"x":{"y":"\`, "kind: K\n", `{"apiVersion":"a/v1","kind":1}`} {
		if got := typeMetaHints("f", []byte(in)); in != `{"apiVersion":"a/v1","kind":"K"` && len(got) > 0 {
			t.Errorf("%q: got %q, want none", in, got)
		}
	}
}

// FuzzTypeMetaHints checks that the light look never panics, and that on
// a JSON object whose apiVersion and kind are plain strings it finds what
// a decoder finds.
func FuzzTypeMetaHints(f *testing.F) {
	for _, s := range []string{`{"apiVersion":"a/v1","kind":"K","spec":{"kind":"X"}}`, "apiVersion: a/v1\nkind: K\n", `{"a":[{"b":"}"}],"kind":"K","apiVersion":"v1"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := typeMetaHints("f", []byte(in))
		var tm struct {
			APIVersion *string `json:"apiVersion"`
			Kind       *string `json:"kind"`
		}
		var raw map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &raw) != nil || json.Unmarshal([]byte(in), &tm) != nil || tm.APIVersion == nil || tm.Kind == nil {
			return
		}
		for k := range raw {
			if (strings.EqualFold(k, "apiVersion") && k != "apiVersion") || (strings.EqualFold(k, "kind") && k != "kind") {
				return // a decoder folds case; the light look does not
			}
		}
		for _, k := range []string{"apiVersion", "kind"} {
			var s string
			if json.Unmarshal(raw[k], &s) != nil || string(raw[k]) != `"`+s+`"` {
				return // escapes: the light look may miss it
			}
		}
		if want := *tm.APIVersion + " " + *tm.Kind; len(raw) == countKeys(in) && *tm.APIVersion != "" && *tm.Kind != "" && !slices.Equal(got, []string{want}) {
			t.Fatalf("%q: got %q, want %q", in, got, want)
		}
	})
}

// countKeys counts the top-level keys of a JSON object as written
// (duplicates and case variants included).
func countKeys(in string) int {
	d := json.NewDecoder(stringsReader(in))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return -1
	}
	n := 0
	for d.More() {
		if _, err := d.Token(); err != nil {
			return -1
		}
		var v json.RawMessage
		if d.Decode(&v) != nil {
			return -1
		}
		n++
	}
	return n
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
