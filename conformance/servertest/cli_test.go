package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/conformance/oracle"
)

// gadgetCRD serves v1 and defines v2 without serving it.
const gadgetCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "gadgets.cli.example.com"},
  "spec": {
    "group": "cli.example.com",
    "scope": "Namespaced",
    "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
    "versions": [
      {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {
          "size": {"type": "integer", "maximum": 5, "default": 1},
          "colour": {"type": "string", "enum": ["red", "blue"]}
        }}}
      }}},
      {"name": "v2", "served": false, "storage": false, "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
    ]
  }
}`

// gadgetLists are what kubectl get -o yaml prints (a v1 List whose items
// carry their type meta) and what the API returns (a GadgetList whose items
// have none), with accepted, refused, defaulted, unknown-field and
// unserved-version items.
const gadgetLists = `apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- {apiVersion: cli.example.com/v1, kind: Gadget, metadata: {name: ok, namespace: default}, spec: {size: 3, colour: red}}
- {apiVersion: cli.example.com/v1, kind: Gadget, metadata: {name: defaulted, namespace: prod}, spec: {}}
- {apiVersion: cli.example.com/v1, kind: Gadget, metadata: {name: too-big}, spec: {size: 9, colour: green}}
- {apiVersion: cli.example.com/v1, kind: Gadget, metadata: {name: unknown, labels: {a: b}}, spec: {size: 2, shape: round}, extra: 1}
- {apiVersion: cli.example.com/v2, kind: Gadget, metadata: {name: unserved}, spec: {size: 2}}
- {apiVersion: cli.example.com/v1, kind: Gadget, metadata: {name: Bad_Name}}
---
apiVersion: cli.example.com/v1
kind: GadgetList
metadata: {}
items:
- {metadata: {name: typed-a}, spec: {size: 4}}
- {metadata: {name: typed-b, namespace: other}, spec: {size: 6, colour: blue}}
- {metadata: {name: typed-c}, status: {x: 1}}
`

// unservedObjects are objects at a version the CRD defines without serving
// (v2), and at one it does not define (v3).
const unservedObjects = `apiVersion: cli.example.com/v2
kind: Gadget
metadata: {name: a}
spec: {size: 2}
---
apiVersion: cli.example.com/v3
kind: Gadget
metadata: {name: b, namespace: prod}
`

// duplicateKeys are YAML documents with keys given twice, in spec, in
// metadata and next to an unknown field; in the second, "y" is YAML's
// true, a label the decoder refuses (a 400 without decoding warnings).
const duplicateKeys = `apiVersion: cli.example.com/v1
kind: Gadget
metadata:
  name: dup-a
  namespace: default
spec:
  size: 2
  size: 3
  colour: red
---
# a comment first
apiVersion: cli.example.com/v1
kind: Gadget
metadata:
  name: dup-b
  labels:
    a: x
    a: y
spec:
  shape: round
  colour: blue
  colour: red
---
apiVersion: cli.example.com/v1
kind: Gadget
metadata:
  name: dup-c
  labels: {a: "x", b: "y", a: "z"}
spec:
  shape: round
  size: 1
  colour: blue
  size: 9
  colour: red
`

// cliResult is one element of crdkit validate -o json.
type cliResult struct {
	File       string         `json:"file"`
	Index      int            `json:"index"`
	Path       string         `json:"path"`
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Namespace  string         `json:"namespace"`
	Name       string         `json:"name"`
	Checked    bool           `json:"checked"`
	Code       int32          `json:"code"`
	Reason     string         `json:"reason"`
	Message    string         `json:"message"`
	Causes     []Cause        `json:"causes"`
	Warnings   []string       `json:"warnings"`
	Object     map[string]any `json:"object"`
}

// buildCLI builds cmd/crdkit into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "crdkit")
	start := time.Now()
	out, err := exec.Command("go", "build", "-o", bin, "github.com/crdkit/crdkit/cmd/crdkit").CombinedOutput()
	if err != nil {
		t.Fatalf("go build cmd/crdkit: %v\n%s", err, out)
	}
	t.Logf("built cmd/crdkit in %v", time.Since(start).Round(time.Millisecond))
	return bin
}

// runValidate runs crdkit validate -o json with args and returns its results.
func runValidate(t *testing.T, bin string, args ...string) []cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"validate", "-o", "json"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
		t.Fatalf("crdkit validate %q: %v\n%s", args, err, stderr.String())
	}
	var doc struct {
		Results []cliResult `json:"results"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("crdkit validate %q: %v\n%s", args, err, stdout.String())
	}
	return doc.Results
}

// TestCLIListsAndUnservedVersions runs the crdkit command on Lists and on
// objects at unserved versions, and sends the same objects to the server as
// kubectl would: each List flattened into its items by apimachinery's
// unstructured decoder (the one kubectl's resource builder uses, which gives
// type meta to items without it), each item created on its own (dry run),
// every field-validation mode; YAML documents with duplicate keys against
// the same documents sent as YAML bodies in fieldValidation=Warn (the
// warnings, in order); objects at a version the CRD does not serve sent
// both raw (the server's 404 and its body) and through client-go's dynamic
// client (the Status a client makes of it).
func TestCLIListsAndUnservedVersions(t *testing.T) {
	bin := buildCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := srv.InstallRawCRDs(ctx, [][]byte{[]byte(gadgetCRD)})
	if err != nil || res[0].Code != 201 {
		t.Fatalf("install %s: %v %+v", "gadgets.cli.example.com", err, res)
	}
	const crdName = "gadgets.cli.example.com"
	dir := t.TempDir()
	crdFile, listFile, unservedFile := filepath.Join(dir, "crd.json"), filepath.Join(dir, "lists.yaml"), filepath.Join(dir, "unserved.yaml")
	for f, text := range map[string]string{crdFile: gadgetCRD, listFile: gadgetLists, unservedFile: unservedObjects} {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := newAgreement()

	// The items kubectl would send, in order.
	var items []*unstructured.Unstructured
	for _, doc := range strings.Split(gadgetLists, "\n---\n") {
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		obj, _, err := unstructured.UnstructuredJSONScheme.Decode(js, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		list, ok := obj.(*unstructured.UnstructuredList)
		if !ok {
			t.Fatalf("%T, want a List", obj)
		}
		for i := range list.Items {
			items = append(items, &list.Items[i])
		}
	}
	for _, mode := range []oracle.FieldValidation{oracle.Strict, oracle.Warn, oracle.Ignore} {
		got := runValidate(t, bin, "--crds", crdFile, "--field-validation", string(mode), listFile)
		a.record("cli-list-items", "count", len(got) == len(items), fmt.Sprintf("[%s] crdkit gives %d items, kubectl's decoder %d", mode, len(got), len(items)))
		for i, it := range items {
			if i >= len(got) {
				break
			}
			body, err := it.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			ver := strings.TrimPrefix(it.GetAPIVersion(), "cli.example.com/")
			want, err := srv.DryRunCreate(ctx, crdName, ver, body, mode)
			if err != nil {
				t.Fatal(err)
			}
			g := got[i]
			desc := fmt.Sprintf("[%s] item %d %s (crdkit: %s#%d.%s %s %s)\n  body: %s\n  server: %d %s\n  crdkit: %d %s %q",
				mode, i, it.GetName(), filepath.Base(g.File), g.Index, g.Path, g.APIVersion, g.Name, body, want.Code, truncate(string(want.Body), 600), g.Code, g.Message, g.Causes)
			same := g.Checked && g.APIVersion == it.GetAPIVersion() && g.Kind == it.GetKind() && g.Name == it.GetName() &&
				int(g.Code) == want.Code && slices.Equal(g.Warnings, want.Warnings)
			if want.Code == 404 {
				same = same && ver == "v2"
			} else if want.Status != nil {
				gotCauses := slices.Clone(g.Causes)
				sortCauses(gotCauses)
				same = same && g.Reason == string(want.Status.Reason) && invalidPrefix(g.Message) == invalidPrefix(want.Status.Message) &&
					reflect.DeepEqual(nonEmpty(gotCauses), nonEmpty(statusCauses(want.Status)))
			} else {
				// The command line leaves managedFields out of its objects.
				server := oracle.Normalize(want.Object)
				if md, ok := server["metadata"].(map[string]any); ok {
					delete(md, "managedFields")
				}
				same = same && reflect.DeepEqual(oracle.Normalize(jsonRoundTrip(g.Object)), server)
			}
			a.record("cli-list-items", it.GetName(), same, desc)
		}
	}

	// YAML duplicate keys: crdkit's warnings (fieldValidation Warn) against
	// the server's for the same document sent as a YAML body.
	dupFile := filepath.Join(dir, "dups.yaml")
	if err := os.WriteFile(dupFile, []byte(duplicateKeys), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runValidate(t, bin, "--crds", crdFile, "--field-validation", "Warn", dupFile)
	client := restClient(t)
	for i, doc := range strings.Split(duplicateKeys, "\n---\n") {
		u := strings.TrimSuffix(srv.RESTConfig().Host, "/") + "/apis/cli.example.com/v1/namespaces/default/gadgets?dryRun=All&fieldValidation=Warn"
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/yaml")
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		ws, _ := utilnet.ParseWarningHeaders(resp.Header.Values("Warning"))
		var want []string
		for _, w := range ws {
			want = append(want, w.Text)
		}
		if i >= len(got) {
			t.Fatalf("crdkit gave %d results for %d documents", len(got), i+1)
		}
		a.record("cli-yaml-duplicate-key-warnings", fmt.Sprint(i), resp.StatusCode == int(got[i].Code) && slices.Equal(got[i].Warnings, want) && (len(want) > 0) == (i != 1),
			fmt.Sprintf("document %d\n  server: %d %q\n  crdkit: %d %q", i, resp.StatusCode, want, got[i].Code, got[i].Warnings))
	}

	// Objects at a version the CRD does not serve.
	got = runValidate(t, bin, "--crds", crdFile, unservedFile)
	dc, err := dynamic.NewForConfig(srv.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	for i, doc := range strings.Split(unservedObjects, "\n---\n") {
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		var u unstructured.Unstructured
		if err := u.UnmarshalJSON(js); err != nil {
			t.Fatal(err)
		}
		ver := strings.TrimPrefix(u.GetAPIVersion(), "cli.example.com/")
		raw, err := srv.DryRunCreate(ctx, crdName, ver, js, oracle.Strict)
		if err != nil {
			t.Fatal(err)
		}
		ns := u.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		_, cerr := dc.Resource(schema.GroupVersionResource{Group: "cli.example.com", Version: ver, Resource: "gadgets"}).Namespace(ns).
			Create(ctx, &u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		st, ok := cerr.(apierrors.APIStatus)
		if !ok || i >= len(got) {
			t.Fatalf("%s: dynamic client create = %v; crdkit gave %d results", u.GetAPIVersion(), cerr, len(got))
		}
		want := st.Status()
		g := got[i]
		var wantCauses []Cause
		for _, c := range want.Details.Causes {
			wantCauses = append(wantCauses, Cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
		}
		desc := fmt.Sprintf("%s %s\n  server: %d %q; client-go: %d %s %q %q\n  crdkit: %d %s %q %q",
			u.GetAPIVersion(), u.GetName(), raw.Code, raw.Body, want.Code, want.Reason, want.Message, wantCauses, g.Code, g.Reason, g.Message, g.Causes)
		a.record("cli-unserved-version-404", u.GetAPIVersion(), raw.Code == 404 && string(raw.Body) == "404 page not found\n" &&
			g.Checked && g.Code == want.Code && g.Reason == string(want.Reason) && g.Message == want.Message &&
			slices.Equal(g.Causes, wantCauses) && len(g.Warnings) == 0, desc)
	}
	a.report(t)
}

// statusCauses are a Status's causes as Causes, sorted.
func statusCauses(st *metav1.Status) []Cause {
	var out []Cause
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			out = append(out, Cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
		}
	}
	sortCauses(out)
	return out
}

func nonEmpty(cs []Cause) []Cause {
	if len(cs) == 0 {
		return nil
	}
	return cs
}
