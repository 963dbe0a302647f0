package crdkit

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/internal/verdict"
)

// loadWithVerdict loads doc three ways: without a verdict, recording one,
// then trusting the recorded one, and checks that the three CRDs are the
// same (the stored CRD, warnings, lint, versions) and that the recorded
// verdict holds the validation's warnings.
func loadWithVerdict(t *testing.T, name string, doc []byte) []string {
	t.Helper()
	want, err := Load(doc)
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	vd := &verdict.Verdict{}
	rec, err := Load(doc, LoadOptions{Verdict: vd})
	if err != nil || !vd.Known {
		t.Fatalf("Load(%s, recording) = %v, Known %v, want nil, true", name, err, vd.Known)
	}
	if !strings.HasSuffix(strings.Join(want.Warnings(), "\n"), strings.Join(vd.Warnings, "\n")) {
		t.Errorf("Load(%s) recorded warnings %q, want the last of %q", name, vd.Warnings, want.Warnings())
	}
	trusted, err := Load(doc, LoadOptions{Verdict: &verdict.Verdict{Known: true, Warnings: vd.Warnings}})
	if err != nil {
		t.Fatalf("Load(%s, trusted): %v", name, err)
	}
	for _, c := range []struct {
		how string
		got *CRD
	}{{"recording", rec}, {"trusted", trusted}} {
		if !reflect.DeepEqual(c.got.v1, want.v1) || fmt.Sprint(c.got.Warnings()) != fmt.Sprint(want.Warnings()) || len(c.got.lint) != 0 {
			t.Errorf("Load(%s, %s) = warnings %q, lint %v, want %q, none, and the same CRD", name, c.how, c.got.Warnings(), c.got.lint, want.Warnings())
		}
		var gv, wv []string
		for _, v := range c.got.Versions() {
			gv = append(gv, fmt.Sprint(v.Name(), v.Served(), v.Schema() != nil))
		}
		for _, v := range want.Versions() {
			wv = append(wv, fmt.Sprint(v.Name(), v.Served(), v.Schema() != nil))
		}
		if fmt.Sprint(gv) != fmt.Sprint(wv) {
			t.Errorf("Load(%s, %s) versions = %v, want %v", name, c.how, gv, wv)
		}
	}
	return vd.Warnings
}

// TestLoadVerdict: a verdict recorded by Load and given back gives the
// same CRD, warnings included; a refused CRD records none.
func TestLoadVerdict(t *testing.T) {
	const head = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com","ownerReferences":[{"apiVersion":"v1","kind":"A","name":"a","uid":"1"},{"apiVersion":"v1","kind":"A","name":"a","uid":"1"}]},"spec":{"group":"example.com","scope":"Namespaced","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":`
	if w := loadWithVerdict(t, "warnings of every kind", []byte(head+`{"type":"object","properties":{"a":{"type":"string","format":"foo"},"o":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","x-kubernetes-map-type":"atomic"}}}}}}]}}`)); len(w) != 2 {
		t.Errorf("the recorded verdict's warnings = %q, want the format's and the set list's", w)
	}
	if c, _ := Load([]byte(head + `{"type":"object"}}}]}}`)); len(c.Warnings()) != 2 {
		t.Errorf("the test CRD's warnings = %q, want the decoder's and the handler's", c.Warnings())
	}
	vd := &verdict.Verdict{}
	if _, err := Load([]byte(head+`{"type":"object","properties":{"a":{}}}}}]}}`), LoadOptions{Verdict: vd}); err == nil || vd.Known {
		t.Errorf("Load(non-structural, recording) = %v, Known %v, want an error and no verdict", err, vd.Known)
	}
	root, ok := corpus.Root()
	if !ok {
		t.Skip("no corpus (../shared/corpus or CRDKIT_CORPUS)")
	}
	docs, err := corpus.Walk(filepath.Join(root, "crds"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range docs {
		if !strings.Contains(string(d.JSON), `"kind":"CustomResourceDefinition"`) {
			continue
		}
		n++
		loadWithVerdict(t, d.Name, d.JSON)
	}
	if !t.Failed() {
		fmt.Printf("conformance: corpus CRDs loaded with a recorded verdict, same as without %d/%d\n", n, n)
	}
}
