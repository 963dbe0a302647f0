package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/internal/docs"
)

// checkHead fails when yamlCRDHead reads a head from text that is not the
// one the converted document gives. It reports whether it read one.
func checkHead(t testing.TB, name string, text []byte) bool {
	h, ok := yamlCRDHead(text)
	if !ok {
		return false
	}
	js, _, err := docs.Chunk{File: name, Line: 1, Text: text}.Convert()
	if err != nil || js == nil {
		return true // invalid YAML: the head is only a guess, checked when the document is converted
	}
	var tm struct{ APIVersion, Kind string }
	_ = json.Unmarshal(js, &tm)
	if h.APIVersion != tm.APIVersion || h.Kind != tm.Kind {
		t.Errorf("yamlCRDHead(%s) type meta = %s %s, want %s %s", name, h.APIVersion, h.Kind, tm.APIVersion, tm.Kind)
	}
	want, crd := isCRD(js)
	if crd && !reflect.DeepEqual(h, want) {
		t.Errorf("yamlCRDHead(%s) = %+v, want %+v", name, h, want)
	}
	return true
}

// TestYAMLCRDHeadCorpus reads the head of every corpus CRD from its text
// and compares it with the converted document's.
func TestYAMLCRDHeadCorpus(t *testing.T) {
	root, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found: set CRDKIT_CORPUS or put it at ../shared/corpus")
	}
	files, err := docs.Files([]string{filepath.Join(root, "crds"), filepath.Join(root, "objects")})
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
			if strings.Contains(string(c.Text), "kind: CustomResourceDefinition") {
				crds++
				if checkHead(t, f.Path, c.Text) {
					read++
				}
			} else {
				checkHead(t, f.Path, c.Text)
			}
		}
	}
	t.Logf("yamlCRDHead read %d of %d corpus CRDs from their text", read, crds)
	if read != crds {
		t.Errorf("yamlCRDHead read %d of %d corpus CRDs, want all", read, crds)
	}
}

const headCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com # a comment
  names:
    kind: CronTab
    listKind: CronTabList
    plural: crontabs
    shortNames: [ct, cron]
    singular: crontab
  scope: Namespaced
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        description: |
          kind: Nope
          spec: nope
    served: true
    storage: true
  - name: v2
    served: false
    storage: false
`

// TestYAMLCRDHead reads heads written in the ways YAML allows, and gives
// up on those it cannot be sure of.
func TestYAMLCRDHead(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		ok         bool
	}{
		{"plain", headCRD, true},
		{"block shortNames", strings.Replace(headCRD, "shortNames: [ct, cron]", "shortNames:\n    - ct\n    - 'cron'", 1), true},
		{"quoted group", strings.Replace(headCRD, "group: stable.example.com", `group: "stable.example.com"`, 1), true},
		{"served yes", strings.Replace(headCRD, "served: false", "served: yes", 1), false},
		{"numeric name", strings.Replace(headCRD, "name: v2", "name: 2", 1), false},
		{"escaped group", strings.Replace(headCRD, "group: stable.example.com", `group: "stable\x2eexample.com"`, 1), false},
		{"anchor", strings.Replace(headCRD, "  names:", "  names: &n", 1), false},
		{"duplicate kind", strings.Replace(headCRD, "    listKind:", "    kind: Other\n    listKind:", 1), false},
		{"case-folded key", strings.Replace(headCRD, "  group:", "  Group:", 1), false},
		{"flow names", strings.Replace(headCRD, "  names:\n", "  names: {kind: X}\n  namesx:\n", 1), false},
		{"multi-line quoted", strings.Replace(headCRD, "  name: crontabs.stable.example.com", "  name: \"crontabs.stable.\nexample.com\"", 1), true},
		{"multi-line quoted scope", strings.Replace(headCRD, "  scope: Namespaced", "  scope: \"Name\nspaced\"", 1), false},
		{"tab", strings.Replace(headCRD, "  scope:", "\tscope:", 1), false},
		{"json", `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}`, false},
		{"dash alone", strings.Replace(headCRD, "  - name: v2", "  -\n    name: v2", 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkHead(t, tc.name, []byte(tc.text)); got != tc.ok {
				t.Errorf("yamlCRDHead(%s) ok = %v, want %v", tc.name, got, tc.ok)
			}
		})
	}
}

// FuzzYAMLCRDHead: whatever the text, a head yamlCRDHead reads is the one
// the converted document gives.
func FuzzYAMLCRDHead(f *testing.F) {
	f.Add([]byte(headCRD))
	f.Add([]byte(strings.ReplaceAll(headCRD, "\n  - name", "\n    - name")))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: []\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) > 1<<16 {
			return
		}
		checkHead(t, "fuzz", text)
	})
}

// TestValidateUnreadableCRD: a --crds document that is not valid YAML is
// a warning when every object found its CRD (exit as the verdicts say),
// and an error (exit 2) when an object found none, since it may have been
// that object's CRD; a CRD an object needs is converted when needed, and
// its YAML error fails the run.
func TestValidateUnreadableCRD(t *testing.T) {
	crd, err := os.ReadFile("../../examples/crontab/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obj, err := os.ReadFile("../../examples/crontab/crontab.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const broken = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: [unclosed\n"
	// The CronTab CRD with a YAML error in its schema, under its head.
	brokenCronTab := strings.Replace(string(crd), "openAPIV3Schema:", "openAPIV3Schema:\n          bad: [unclosed", 1)
	cm := "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: x\n" // neither a CRD's kind nor built-in
	for _, tc := range []struct {
		name    string
		crds    []string // files of the --crds directory
		input   string
		want    int
		wantErr string
	}{
		{"unneeded: warning", []string{string(crd), broken}, string(obj), 0, "crdkit: warning: "},
		{"object without CRD: error", []string{string(crd), broken}, cm, 2, "invalid YAML"},
		{"needed: error", []string{brokenCronTab}, string(obj), 2, "invalid YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, c := range tc.crds {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.yaml", i)), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			in := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(in, []byte(tc.input), 0o644); err != nil {
				t.Fatal(err)
			}
			got, out, errs := runCLI(t, "validate", "--crds", dir, in)
			if got != tc.want || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("validate(%s) = %d, stderr %q; want %d and %q (stdout %q)", tc.name, got, errs, tc.want, tc.wantErr, out)
			}
			if tc.want == 2 && strings.Contains(errs, "warning:") {
				t.Errorf("validate(%s): stderr %q has a warning, want an error", tc.name, errs)
			}
		})
	}
}
