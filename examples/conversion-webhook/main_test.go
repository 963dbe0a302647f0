package main

import (
	"encoding/json"
	"net"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conversion"
)

// TestWebhook starts the webhook on 127.0.0.1 over TLS and reads the
// stored objects through crdkit's read path with the CRD's webhook
// strategy, as a GET at each version would return them.
func TestWebhook(t *testing.T) {
	cert, caPEM, err := selfSigned()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(cert)
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })

	data, err := os.ReadFile("crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd, err := crdkit.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	hook, err := conversion.NewWebhook(crd.Definition(), conversion.WebhookOptions{URL: "https://" + ln.Addr().String() + "/convert", CABundle: caPEM})
	if err != nil {
		t.Fatal(err)
	}
	opts := crdkit.ReadOptions{ConvertOptions: crdkit.ConvertOptions{Webhook: hook}}
	stored, err := os.ReadFile("stored.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var objs [][]byte
	for _, doc := range strings.Split(string(stored), "\n---\n") {
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, js)
	}
	for _, tc := range []struct {
		obj     int
		version string
		want    string
	}{
		{0, "v1", `{"apiVersion":"convert.example.com/v1","kind":"CronJob","metadata":{"generation":3,"labels":{"team":"a"},"name":"nightly","namespace":"default"},"spec":{"cronSpec":"0 2 * * *","replicas":2}}`},
		{0, "v2", `{"apiVersion":"convert.example.com/v2","kind":"CronJob","metadata":{"generation":3,"labels":{"team":"a"},"name":"nightly","namespace":"default"},"spec":{"replicas":2,"schedule":"0 2 * * *","suspend":false}}`},
		{1, "v2", `{"apiVersion":"convert.example.com/v2","kind":"CronJob","metadata":{"generation":1,"name":"legacy","namespace":"default"},"spec":{"replicas":1,"schedule":"*/5 * * * *"}}`},
	} {
		got, err := crd.Version(tc.version).ReadJSON(objs[tc.obj], opts)
		if err != nil {
			t.Fatalf("read %d at %s: %v", tc.obj, tc.version, err)
		}
		if b, _ := json.Marshal(got); string(b) != tc.want {
			t.Errorf("read %d at %s = %s, want %s", tc.obj, tc.version, b, tc.want)
		}
	}
	suspended := []byte(`{"apiVersion":"convert.example.com/v2","kind":"CronJob","metadata":{"name":"s","namespace":"default"},"spec":{"suspend":true}}`)
	_, err = crd.Version("v1").ReadJSON(suspended, opts)
	if err == nil || !strings.HasSuffix(err.Error(), "conversion webhook for convert.example.com/v2, Kind=CronJob failed: a suspended CronJob has no v1 form") {
		t.Errorf("read of a suspended CronJob at v1: %v, want the webhook's refusal", err)
	}
}
