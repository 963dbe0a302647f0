package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// start runs the program on a free loopback port and returns its base URL
// and a client trusting its certificate; the server stops with the test.
func start(t testing.TB) (string, *http.Client) {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	var out bytes.Buffer
	go func() {
		done <- run(ctx, []string{"--crds", "../crontab/crd.yaml", "--addr", "127.0.0.1:0", "--ca-out", ca}, &out, ready)
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("run: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not start in 20s")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run after shutdown: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop in 10s")
		}
	})
	pemCert, err := os.ReadFile(ca)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemCert) {
		t.Fatal("no certificate in --ca-out")
	}
	if !strings.Contains(out.String(), "serving /validate and /mutate on https://127.0.0.1:") {
		t.Errorf("output = %q", out.String())
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: 16}}
	return "https://" + addr, client
}

func reviewOf(object string) []byte {
	return []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","namespace":"default","object":` + object + `}}`)
}

func send(t testing.TB, c *http.Client, url string, body []byte) *admissionv1.AdmissionResponse {
	t.Helper()
	r := sendQuiet(c, url, body)
	if r == nil {
		t.Fatalf("POST %s failed", url)
	}
	return r
}

// sendQuiet posts a review and returns its response, nil on any failure.
func sendQuiet(c *http.Client, url string, body []byte) *admissionv1.AdmissionResponse {
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		return nil
	}
	var rv admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &rv); err != nil || rv.Response == nil || rv.Response.UID != "u" {
		return nil
	}
	return rv.Response
}

const (
	cronTab    = `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *","image":"i"}}`
	badCronTab = `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"every minute"}}`
	frozen     = `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a","annotations":{"policy.example.com/frozen":"true"}},"spec":{}}`
)

func bundle(ms ...string) string {
	return `{"apiVersion":"fleet.example.com/v1","kind":"Work","metadata":{"name":"w","namespace":"edge"},"spec":{"manifests":[` + strings.Join(ms, ",") + `]}}`
}

func TestWebhook(t *testing.T) {
	base, c := start(t)
	if r := send(t, c, base+"/validate", reviewOf(cronTab)); !r.Allowed {
		t.Errorf("a valid CronTab denied: %+v", r.Result)
	}
	r := send(t, c, base+"/validate", reviewOf(bundle(cronTab, badCronTab)))
	if r.Allowed || r.Result.Code != 422 || !strings.Contains(r.Result.Message, `spec.cronSpec in body should match`) {
		t.Errorf("a Work with a bad CronTab: %+v", r.Result)
	}
	r = send(t, c, base+"/validate", reviewOf(bundle(cronTab, frozen)))
	if r.Allowed || r.Result.Code != 403 || r.Result.Message != `manifest "/spec/manifests/1" is frozen (policy.example.com/frozen)` {
		t.Errorf("a Work with a frozen CronTab: %+v", r.Result)
	}
	r = send(t, c, base+"/mutate", reviewOf(bundle(cronTab)))
	if want := `[{"op":"add","path":"/spec/manifests/0/spec/replicas","value":1}]`; !r.Allowed || string(r.Patch) != want {
		t.Errorf("mutate = %s, want %s", r.Patch, want)
	}
	resp, err := c.Get(base + "/validate")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("GET = %d, want 405", resp.StatusCode)
	}
}

func TestRunRefuses(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--crds", "../crontab/crd.yaml", "--addr", "0.0.0.0:0"},
		{"--crds", "missing.yaml"},
	} {
		if err := run(context.Background(), args, io.Discard, nil); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}
