package crdkit

import (
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/conversion"
)

// twoVersions: v1 (spec.size, default 1) and v2 (spec.replicas, default 3;
// storage), v0 defined but not served.
const twoVersions = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: things, kind: Thing}
  versions:
  - name: v0
    served: false
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {old: {type: string, default: o}}}}}}
  - name: v1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer, default: 1}}}}}}
  - name: v2
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {replicas: {type: integer, default: 3}, size: {type: integer}}}}}}
`

func loadYAML(t testing.TB, doc string) *CRD {
	t.Helper()
	crd, err := Load([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return crd
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestReadAtAnyVersion(t *testing.T) {
	crd := loadYAML(t, twoVersions)
	for _, tc := range []struct {
		name, stored, version, want, err string
	}{
		{"v1 read at v2: v1 defaults, v2 pruning",
			`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a","namespace":"n"},"spec":{"bogus":1}}`, "v2",
			`{"apiVersion":"example.com/v2","kind":"Thing","metadata":{"generation":1,"name":"a","namespace":"n"},"spec":{"size":1}}`, ""},
		{"v0 (not served) read at v1: v0 pruning and defaults, v1 pruning",
			`{"apiVersion":"example.com/v0","kind":"Thing","metadata":{"name":"a","namespace":"n","labels":{"x":1}},"spec":{"size":4}}`, "v1",
			`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"generation":1,"name":"a","namespace":"n"},"spec":{}}`, ""},
		{"v2 read at v1: no request-version defaults",
			`{"apiVersion":"example.com/v2","kind":"Thing","metadata":{"name":"a","namespace":"n","generation":5},"spec":{}}`, "v1",
			`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"generation":5,"name":"a","namespace":"n"},"spec":{}}`, ""},
		{"not served", `{"apiVersion":"example.com/v2","kind":"Thing","metadata":{"name":"a"}}`, "v0", "",
			"the server could not find the requested resource"},
		{"undefined stored version", `{"apiVersion":"example.com/v9","kind":"Thing","metadata":{"name":"a","namespace":"n"}}`, "v1", "",
			"Internal error occurred: StorageError: corrupt object, Code: 7, Key: /example.com/things/n/a, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=0: request to convert CR from an invalid group/version: example.com/v9"},
		{"no kind", `{"apiVersion":"example.com/v2","metadata":{"name":"a","namespace":"n"}}`, "v1", "",
			`Internal error occurred: StorageError: corrupt object, Code: 7, Key: /example.com/things/n/a, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=0: Object 'Kind' is missing in '{"apiVersion":"example.com/v2","metadata":{"name":"a","namespace":"n"}}'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := crd.Version(tc.version).ReadJSON([]byte(tc.stored))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("ReadJSON error = %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := jsonOf(got); s != tc.want {
				t.Errorf("ReadJSON = %s, want %s", s, tc.want)
			}
			var m map[string]any
			_ = json.Unmarshal([]byte(tc.stored), &m)
			if got2, err := crd.Version(tc.version).Read(m); err != nil || jsonOf(got2) != tc.want {
				t.Errorf("Read = %s, %v, want %s", jsonOf(got2), err, tc.want)
			}
		})
	}
}

func TestReadErrorIsInternal(t *testing.T) {
	crd := loadYAML(t, twoVersions)
	_, err := crd.Version("v1").ReadJSON([]byte(`{"apiVersion":"example.com/v9","kind":"Thing","metadata":{"name":"a"}}`), ReadOptions{Key: "/k", Revision: 7})
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "Key: /k, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=7: ") {
		t.Errorf("ReadJSON error = %v, want a 500 naming /k and revision 7", err)
	}
}

func TestConvertNone(t *testing.T) {
	crd := loadYAML(t, twoVersions)
	in := map[string]any{"apiVersion": "example.com/v1", "kind": "Thing", "metadata": map[string]any{"name": "a"}, "spec": map[string]any{"size": int64(2), "x": true}}
	got, err := crd.Convert(in, "v2")
	if err != nil {
		t.Fatal(err)
	}
	if s, want := jsonOf(got), `{"apiVersion":"example.com/v2","kind":"Thing","metadata":{"name":"a"},"spec":{"size":2}}`; s != want {
		t.Errorf("Convert = %s, want %s", s, want)
	}
	if in["apiVersion"] != "example.com/v1" {
		t.Error("Convert modified its input")
	}
	if _, err := crd.Convert(in, "v7"); err == nil || err.Error() != "request to convert CR to an invalid group/version: example.com/v7" {
		t.Errorf("Convert to v7: %v", err)
	}
	list := map[string]any{"apiVersion": "example.com/v1", "kind": "ThingList", "items": []any{in,
		map[string]any{"apiVersion": "example.com/v8", "kind": "Thing"}}}
	if _, err := crd.ConvertList(list, "v2"); err == nil || err.Error() != "request to convert CR list failed, list index 1 has invalid group/version: example.com/v8" {
		t.Errorf("ConvertList: %v", err)
	}
}

func TestConvertWebhook(t *testing.T) {
	h := conversion.NewHandler(conversion.HubAndSpoke("example.com/v2",
		map[string]conversion.Func{"example.com/v1": func(o map[string]any) (map[string]any, error) {
			spec, _ := o["spec"].(map[string]any)
			if spec["size"] == int64(13) {
				return nil, errors.New("unlucky")
			}
			spec["replicas"] = spec["size"]
			delete(spec, "size")
			spec["extra"] = "pruned"
			return o, nil
		}}, nil))
	srv := httptest.NewTLSServer(h)
	defer srv.Close()
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(twoVersions), &doc); err != nil {
		t.Fatal(err)
	}
	doc["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{
		"conversionReviewVersions": []any{"v1"},
		"clientConfig": map[string]any{"url": srv.URL,
			"caBundle": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})}}}
	raw, _ := json.Marshal(doc)
	crd := loadYAML(t, string(raw))
	got, err := crd.Version("v2").ReadJSON([]byte(`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a","namespace":"n"},"spec":{"size":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s, want := jsonOf(got), `{"apiVersion":"example.com/v2","kind":"Thing","metadata":{"generation":1,"name":"a","namespace":"n"},"spec":{"replicas":2}}`; s != want {
		t.Errorf("ReadJSON = %s, want %s", s, want)
	}
	_, err = crd.Version("v2").ReadJSON([]byte(`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a","namespace":"n"},"spec":{"size":13}}`))
	if want := "Internal error occurred: StorageError: corrupt object, Code: 7, Key: /example.com/things/n/a, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=0: conversion webhook for example.com/v1, Kind=Thing failed: unlucky"; err == nil || err.Error() != want {
		t.Errorf("ReadJSON error = %v, want %s", err, want)
	}
}
