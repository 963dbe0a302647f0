package crdhead

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/internal/docs"
)

// checkJSON fails when JSON reads a head from text that is not the one
// encoding/json decodes from it (case sensitively: keys that differ from a
// head key only in case are given up on). It reports whether it read one.
func checkJSON(t testing.TB, name string, text []byte) bool {
	h, ok := JSON(text)
	if !ok {
		return false
	}
	if !json.Valid(text) {
		return true // not JSON: the head is only a guess, checked when the document is decoded
	}
	var want Head
	if err := json.Unmarshal(text, &want); err != nil {
		t.Errorf("JSON(%s) read a head from a document encoding/json refuses: %v", name, err)
		return true
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("JSON(%s) = %+v, want %+v", name, h, want)
	}
	return true
}

// TestJSONCorpus reads the head of every corpus CRD from its JSON and
// compares it with encoding/json's.
func TestJSONCorpus(t *testing.T) {
	root, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found: set CRDKIT_CORPUS or put it at ../shared/corpus")
	}
	files, err := docs.Files([]string{filepath.Join(root, "crds")})
	if err != nil {
		t.Fatal(err)
	}
	read, crds := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := docs.Chunks(f.Path, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			js, _, err := c.Convert()
			if err != nil || !strings.Contains(string(js), `"CustomResourceDefinition"`) {
				continue
			}
			crds++
			if checkJSON(t, f.Path, js) {
				read++
			}
			// The YAML reader reads the scope too.
			if h, ok := YAML(c.Text); ok {
				var want Head
				_ = json.Unmarshal(js, &want)
				if h.Spec.Scope != want.Spec.Scope {
					t.Errorf("YAML(%s) scope = %q, want %q", f.Path, h.Spec.Scope, want.Spec.Scope)
				}
			}
		}
	}
	t.Logf("JSON read %d of %d corpus CRDs", read, crds)
	if read != crds || crds == 0 {
		t.Errorf("JSON read %d of %d corpus CRDs, want all", read, crds)
	}
}

const headJSON = `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "crontabs.stable.example.com", "annotations": {"a": "x\"}{]["}},
 "spec": {"group": "stable.example.com", "scope": "Namespaced",
  "names": {"kind": "CronTab", "listKind": "CronTabList", "plural": "crontabs", "singular": "crontab", "shortNames": ["ct"]},
  "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object", "x": [1, -2.5e3, null, false, {"kind": "Nope"}]}}},
   {"name": "v2", "served": false, "storage": false}]}}`

// TestJSON reads heads written in the ways JSON allows, and gives up on
// those it cannot be sure of.
func TestJSON(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		ok         bool
	}{
		{"plain", headJSON, true},
		{"compact", strings.NewReplacer("\n", "", ", ", ",", ": ", ":").Replace(headJSON), true},
		{"no versions", strings.Replace(headJSON, `"versions"`, `"versionz"`, 1), true},
		{"escaped group", strings.Replace(headJSON, `"stable.example.com"`, `"stable\u002eexample.com"`, 1), false},
		{"escaped key", strings.Replace(headJSON, `"group"`, `"gr\u006fup"`, 1), false},
		{"duplicate kind", strings.Replace(headJSON, `"listKind"`, `"kind": "Other", "listKind"`, 1), false},
		{"case-folded key", strings.Replace(headJSON, `"group"`, `"Group"`, 1), false},
		{"served string", strings.Replace(headJSON, `"served": false`, `"served": "false"`, 1), false},
		{"null scope", strings.Replace(headJSON, `"Namespaced"`, `null`, 1), false},
		{"trailing", headJSON + " {}", false},
		{"array", "[" + headJSON + "]", false},
		{"cut", headJSON[:len(headJSON)/2], false},
		{"empty", "", false},
		{"yaml", "apiVersion: v1\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkJSON(t, tc.name, []byte(tc.text)); got != tc.ok {
				t.Errorf("JSON(%s) ok = %v, want %v", tc.name, got, tc.ok)
			}
		})
	}
}

// FuzzJSON: whatever the text, a head JSON reads from valid JSON is the
// one encoding/json decodes, and it never panics nor hangs.
func FuzzJSON(f *testing.F) {
	f.Add([]byte(headJSON))
	f.Add([]byte(`{"spec":{"versions":[{"served":true}]}}`))
	f.Add([]byte(`{"a":"\\"}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		checkJSON(t, "fuzz", text)
	})
}
