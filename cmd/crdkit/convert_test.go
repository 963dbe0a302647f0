package main

import (
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conversion"
)

const convertCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: things, kind: Thing}
  %CONVERSION%
  versions:
  - name: v1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer, default: 1}}}}}}
  - name: v2
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {replicas: {type: integer, default: 3}, size: {type: integer}}}}}}
  - name: v3
    served: false
    storage: false
    schema: {openAPIV3Schema: {type: object}}
`

const storedThings = `apiVersion: example.com/v1
kind: Thing
metadata: {name: a, namespace: ns, uid: u1, resourceVersion: "5", creationTimestamp: "2020-01-01T00:00:00Z", generation: 2, labels: {x: 1}}
spec: {bogus: true}
---
apiVersion: example.com/v9
kind: Thing
metadata: {name: b, namespace: ns}
`

func TestConvert(t *testing.T) {
	crd := writeFile(t, "crd.yaml", strings.Replace(convertCRD, "%CONVERSION%", "", 1))
	objs := writeFile(t, "stored.yaml", storedThings)
	code, out, errs := runCLI(t, "convert", "--crds", crd, "--to", "v2", objs)
	if code != 1 {
		t.Fatalf("convert = %d (stderr %s), want 1", code, errs)
	}
	var doc struct {
		Results []objectResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output %s: %v", out, err)
	}
	if len(doc.Results) != 2 {
		t.Fatalf("%d results, want 2: %s", len(doc.Results), out)
	}
	r := doc.Results[0]
	obj, _ := json.Marshal(r.Object)
	if want := `{"apiVersion":"example.com/v2","kind":"Thing","metadata":{"generation":2,"name":"a","namespace":"ns"},"spec":{"size":1}}`; !r.Allowed || r.Code != 200 || string(obj) != want || r.Name != "a" || r.Namespace != "ns" || r.APIVersion != "example.com/v1" {
		t.Errorf("result 0 = %+v, object %s; want allowed, 200, %s", r, obj, want)
	}
	r = doc.Results[1]
	if r.Allowed || r.Code != 500 || r.Reason != "InternalError" || !strings.HasSuffix(r.Message, "request to convert CR from an invalid group/version: example.com/v9") {
		t.Errorf("result 1 = %+v, want a 500 for the undefined version", r)
	}

	if code, out, _ := runCLI(t, "convert", "--crds", crd, "--to", "v3", "-o", "yaml", objs); code != 1 || !strings.Contains(out, "code: 404") {
		t.Errorf("convert --to v3 = %d, %s; want 1 and a 404", code, out)
	}
	for _, args := range [][]string{
		{"convert", "--crds", crd, objs},
		{"convert", "--to", "v2", objs},
		{"convert", "--crds", crd, "--to", "v2"},
		{"convert", "--crds", crd, "--to", "v2", "-o", "text", objs},
		{"convert", "--crds", crd, "--to", "v7", objs},
	} {
		if code, _, _ := runCLI(t, args...); code != 2 {
			t.Errorf("run(%v) = %d, want 2", args, code)
		}
	}
}

func TestConvertWebhook(t *testing.T) {
	h := conversion.NewHandler(conversion.Pairs(map[conversion.Pair]conversion.Func{
		{From: "example.com/v1", To: "example.com/v2"}: func(o map[string]any) (map[string]any, error) {
			spec := o["spec"].(map[string]any)
			spec["replicas"] = spec["size"]
			delete(spec, "size")
			return o, nil
		},
	}))
	srv := httptest.NewTLSServer(h)
	defer srv.Close()
	// The CRD's own clientConfig points nowhere useful: the flags redirect it.
	crd := writeFile(t, "crd.yaml", strings.Replace(convertCRD, "%CONVERSION%",
		`conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: "https://127.0.0.1:1/convert"}}}`, 1))
	ca := writeFile(t, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	objs := writeFile(t, "stored.yaml", `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a","namespace":"ns"},"spec":{"size":4}}`)
	code, out, errs := runCLI(t, "convert", "--crds", crd, "--to", "v2", "--webhook-url", srv.URL+"/convert", "--webhook-ca", ca, objs)
	if code != 0 {
		t.Fatalf("convert = %d (stderr %s, out %s), want 0", code, errs, out)
	}
	if !strings.Contains(out, `"spec": {
          "replicas": 4
        }`) {
		t.Errorf("convert output %s: want spec.replicas 4", out)
	}
}

// storedElsewhere are objects at a things.example.com key whose kind or
// group is not the CRD's, and one at a version it does not define.
const storedElsewhere = `apiVersion: example.com/v1
kind: Other
metadata: {name: a, namespace: ns}
spec: {size: 2, bogus: 1}
---
apiVersion: other.example.com/v1
kind: Thing
metadata: {name: b, namespace: ns}
spec: {size: 2}
---
apiVersion: example.com/v9
kind: Thing
metadata: {name: c, namespace: ns}
`

// TestConvertResource checks convert --resource against the library's
// Version.ReadJSON on the same bytes (which conformance/servertest's
// TestServerReadPath checks against the server for objects of another
// kind, another group and an undefined version at a resource's key), and
// that a 500's causes are printed.
func TestConvertResource(t *testing.T) {
	crdText := strings.Replace(convertCRD, "%CONVERSION%", "", 1)
	crd := writeFile(t, "crd.yaml", crdText)
	objs := writeFile(t, "stored.yaml", storedElsewhere)
	code, _, errs := runCLI(t, "convert", "--crds", crd, "--to", "v2", objs)
	if code != 2 || !strings.Contains(errs, `no CRD defines apiVersion "example.com/v1", kind "Other" (if it is stored under a CRD's resource, give --resource PLURAL.GROUP)`) {
		t.Errorf("convert without --resource = %d %q, want 2 and a hint at --resource", code, errs)
	}
	if code, _, errs := runCLI(t, "convert", "--crds", crd, "--to", "v2", "--resource", "widgets.example.com", objs); code != 2 || !strings.Contains(errs, "no CRD of that name among --crds (they define: things.example.com)") {
		t.Errorf("convert --resource widgets.example.com = %d %q, want 2", code, errs)
	}
	code, out, errs := runCLI(t, "convert", "--crds", crd, "--to", "v2", "--resource", "things.example.com", objs)
	rs := decodeResults(t, out)
	if code != 1 || len(rs) != 3 {
		t.Fatalf("convert --resource = %d, %d results, want 1, 3\n%s%s", code, len(rs), out, errs)
	}
	js, err := yaml.YAMLToJSON([]byte(crdText))
	if err != nil {
		t.Fatal(err)
	}
	c, err := crdkit.Load(js)
	if err != nil {
		t.Fatal(err)
	}
	for i, doc := range strings.Split(storedElsewhere, "---\n") {
		body, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		obj, err := c.Version("v2").ReadJSON(body)
		got := rs[i]
		if err == nil {
			for _, k := range []string{"uid", "creationTimestamp", "resourceVersion", "managedFields"} {
				delete(obj["metadata"].(map[string]any), k)
			}
			want, _ := json.Marshal(obj)
			g, _ := json.Marshal(got.Object)
			if !got.Allowed || got.Code != 200 || string(g) != string(want) {
				t.Errorf("result %d = %+v, want %s", i, got, want)
			}
			continue
		}
		var st apierrors.APIStatus
		if !errors.As(err, &st) {
			t.Fatalf("ReadJSON(%s): %v", body, err)
		}
		s := st.Status()
		var causes []cause
		for _, c := range s.Details.Causes {
			causes = append(causes, cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
		}
		if got.Allowed || got.Code != s.Code || got.Reason != string(s.Reason) || got.Message != s.Message || len(causes) == 0 || !reflect.DeepEqual(got.Causes, causes) {
			t.Errorf("result %d = %+v, want %d %s %q with causes %+v", i, got, s.Code, s.Reason, s.Message, causes)
		}
	}
	if rs[0].Object["kind"] != "Other" || rs[1].Code != 500 || !strings.Contains(rs[1].Message, "Key: /example.com/things/ns/b,") {
		t.Errorf("results = %+v, want Other read at v2, a 500 for the other group at things' key", rs)
	}
}

// upgrade round-trips generated objects through the new revision's
// webhook: v1 -> v2 -> v1 keeps everything, v2 -> v1 -> v2 loses v2's own
// spec.size (v1 has only the one number); --round-trips 0 calls nothing.
func TestUpgradeRoundTrips(t *testing.T) {
	move := func(from, to string) conversion.Func {
		return func(o map[string]any) (map[string]any, error) {
			spec, _ := o["spec"].(map[string]any)
			if v, ok := spec[from]; ok {
				delete(spec, to)
				spec[to] = v
				delete(spec, from)
			}
			return o, nil
		}
	}
	h := conversion.NewHandler(conversion.Pairs(map[conversion.Pair]conversion.Func{
		{From: "example.com/v1", To: "example.com/v2"}: move("size", "replicas"),
		{From: "example.com/v2", To: "example.com/v1"}: move("replicas", "size"),
	}))
	srv := httptest.NewTLSServer(h)
	defer srv.Close()
	crd := writeFile(t, "crd.yaml", strings.Replace(convertCRD, "%CONVERSION%",
		`conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: "https://127.0.0.1:1/convert"}}}`, 1))
	ca := writeFile(t, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	code, out, errs := runCLI(t, "upgrade", "--old", crd, "--new", crd, "--webhook-url", srv.URL+"/convert", "--webhook-ca", ca, "--round-trips", "20")
	if code != 1 {
		t.Fatalf("upgrade = %d (stderr %s), want 1\n%s", code, errs, out)
	}
	for _, w := range []string{
		"conversion round trips:",
		"BREAKS   v2 -> v1 -> v2 (20 generated objects)\n    lost: spec.size\n",
		"ok       v1 -> v2 -> v1 (20 generated objects)",
		"summary: 2 conversion round trips, 1 lossy or failing",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("upgrade output lacks %q:\n%s", w, out)
		}
	}
	code, out, errs = runCLI(t, "upgrade", "--old", crd, "--new", crd, "--round-trips", "0")
	if code != 0 || strings.Contains(out, "round trip") {
		t.Errorf("upgrade --round-trips 0 = %d (stderr %s), want 0 and no round trips\n%s", code, errs, out)
	}
}
