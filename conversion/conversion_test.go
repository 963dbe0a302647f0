package conversion

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kjson "sigs.k8s.io/json"
)

func obj(s string) map[string]any {
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

func TestNone(t *testing.T) {
	o := obj(`{"apiVersion":"a.io/v1","kind":"K","spec":{"x":1}}`)
	None(o, "a.io/v2")
	if want := obj(`{"apiVersion":"a.io/v2","kind":"K","spec":{"x":1}}`); !reflect.DeepEqual(o, want) {
		t.Errorf("None = %v, want %v", o, want)
	}
	l := obj(`{"apiVersion":"a.io/v1","kind":"KList","items":[{"apiVersion":"a.io/v1","kind":"K"},{"apiVersion":"a.io/v2","kind":"K"},7]}`)
	NoneList(l, "a.io/v2")
	if want := obj(`{"apiVersion":"a.io/v2","kind":"KList","items":[{"apiVersion":"a.io/v2","kind":"K"},{"apiVersion":"a.io/v2","kind":"K"},7]}`); !reflect.DeepEqual(l, want) {
		t.Errorf("NoneList = %v, want %v", l, want)
	}
}

func TestToConvert(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		list bool
		want []int
	}{
		{"object at another version", `{"apiVersion":"a.io/v1","kind":"K"}`, false, []int{0}},
		{"object at the version", `{"apiVersion":"a.io/v2","kind":"K"}`, false, nil},
		{"object with an apiVersion that does not parse", `{"apiVersion":"a/b/c","kind":"K"}`, false, []int{0}},
		{"list, some at the version", `{"items":[{"apiVersion":"a.io/v1"},{"apiVersion":"a.io/v2"},{"apiVersion":"a.io/v3"}]}`, true, []int{0, 2}},
		{"list, all at the version", `{"items":[{"apiVersion":"a.io/v2"}]}`, true, nil},
		{"empty list", `{"items":[]}`, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := toConvert(obj(tc.in), tc.list, "a.io/v2"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("toConvert(%s) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

// The cases of the server's TestRestoreObjectMeta, and a few more.
func TestRestoreMetadata(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		original, converted, out string
		err                      string
	}{
		{"no converted metadata", `{"metadata":{},"spec":{}}`, `{"spec":{}}`, `{"spec":{}}`, "missing metadata in converted object"},
		{"invalid converted metadata", `{"metadata":{},"spec":{}}`, `{"metadata":["foo"]}`, `{"metadata":["foo"]}`, "invalid metadata of type []interface {} in converted object"},
		{"no original metadata", `{"spec":{}}`, `{"metadata":{},"spec":{}}`, `{"metadata":{},"spec":{}}`, ""},
		{"invalid original metadata", `{"metadata":["foo"]}`, `{"metadata":{},"spec":{}}`, `{"metadata":["foo"],"spec":{}}`, "invalid metadata of type []interface {} in input object"},
		{"changed labels, annotations and others",
			`{"metadata":{"foo":"bar","labels":{"a":"A","b":"B"},"annotations":{"a":"1","b":"2"}},"spec":{}}`,
			`{"metadata":{"foo":"BAR","labels":{"a":"AA","b":"B"},"annotations":{"a":"1","b":"22"}},"spec":{}}`,
			`{"metadata":{"foo":"bar","labels":{"a":"AA","b":"B"},"annotations":{"a":"1","b":"22"}},"spec":{}}`, ""},
		{"added labels and annotations",
			`{"metadata":{"foo":"bar"},"spec":{}}`,
			`{"metadata":{"foo":"bar","labels":{"a":"AA","b":"B"},"annotations":{"a":"1","b":"22"}},"spec":{}}`,
			`{"metadata":{"foo":"bar","labels":{"a":"AA","b":"B"},"annotations":{"a":"1","b":"22"}},"spec":{}}`, ""},
		{"added labels and annotations, null before",
			`{"metadata":{"foo":"bar","labels":null,"annotations":null},"spec":{}}`,
			`{"metadata":{"foo":"bar","labels":{"a":"AA","b":"B"},"annotations":{"a":"1","b":"22"}},"spec":{}}`,
			`{"metadata":{"foo":"bar","labels":{"a":"AA","b":"B"},"annotations":{"a":"1","b":"22"}},"spec":{}}`, ""},
		{"removed labels and annotations",
			`{"metadata":{"foo":"bar","labels":{"a":"AA","b":"B"},"annotations":{"a":"1","b":"22"}},"spec":{}}`,
			`{"metadata":{"foo":"bar"},"spec":{}}`,
			`{"metadata":{"foo":"bar"},"spec":{}}`, ""},
		{"null labels and annotations",
			`{"metadata":{"foo":"bar","labels":{"a":"AA"},"annotations":{"a":"1"}},"spec":{}}`,
			`{"metadata":{"foo":"bar","labels":null,"annotations":null},"spec":{}}`,
			`{"metadata":{"foo":"bar"},"spec":{}}`, ""},
		{"null label values", `{"metadata":{"foo":"bar"}}`,
			`{"metadata":{"labels":{"a":null,"b":"B"}}}`, ``, "metadata.labels[a] must be a string, but is <nil> in converted object"},
		{"invalid label key", `{"metadata":{}}`, `{"metadata":{"labels":{"some/non-qualified/label":"x"}}}`, ``,
			`metadata.labels: Invalid value: "some/non-qualified/label": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`},
		{"invalid annotation key", `{"metadata":{}}`, `{"metadata":{"annotations":{"a b":"x"}}}`, ``,
			`metadata.annotation: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{"invalid label value", `{"metadata":{}}`, `{"metadata":{"labels":{"foo":"üäö"}}}`, ``,
			`metadata.labels: Invalid value: "üäö": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
		{"too big label value", `{"metadata":{}}`, `{"metadata":{"labels":{"foo":"` + strings.Repeat("x", 64) + `"}}}`, ``,
			`metadata.labels: Invalid value: "` + strings.Repeat("x", 64) + `": must be no more than 63 bytes`},
		{"too big annotations", `{"metadata":{}}`, `{"metadata":{"annotations":{"foo":"` + strings.Repeat("x", 256*(1<<10)+1) + `"}}}`, ``,
			`metadata.annotation: Too long: may not be more than 262144 bytes`},
		{"invalid labels unchanged are not validated", `{"metadata":{"labels":{"a b":"x"}}}`, `{"metadata":{"labels":{"a b":"x"}}}`, `{"metadata":{"labels":{"a b":"x"}}}`, ""},
		{"labels of the wrong type", `{"metadata":{}}`, `{"metadata":{"labels":"x"}}`, ``, "invalid metadata.labels of type string in converted object"},
		{"original labels of the wrong type", `{"metadata":{"labels":"x"}}`, `{"metadata":{"labels":{}}}`, ``, "invalid metadata.labels of type string in original object"},
		{"finalizers and owners reverted", `{"metadata":{"name":"a","finalizers":["f"],"generation":3}}`,
			`{"metadata":{"name":"a","finalizers":["g"],"generation":4,"ownerReferences":[{}]}}`,
			`{"metadata":{"name":"a","finalizers":["f"],"generation":3}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, conv := obj(tc.original), obj(tc.converted)
			err := RestoreMetadata(orig, conv)
			if got := errString(err); got != tc.err {
				t.Fatalf("RestoreMetadata error = %q, want %q", got, tc.err)
			}
			if tc.out != "" && !reflect.DeepEqual(conv, obj(tc.out)) {
				t.Errorf("RestoreMetadata = %v, want %s", conv, tc.out)
			}
			if !reflect.DeepEqual(orig, obj(tc.original)) {
				t.Errorf("RestoreMetadata modified the original: %v", orig)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// testCRD is a CRD whose webhook is srv.
func testCRD(srv *httptest.Server, versions ...string) *apiextensionsv1.CustomResourceDefinition {
	u := srv.URL + "/convert"
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return &apiextensionsv1.CustomResourceDefinition{
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "a.io",
			Conversion: &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{
					ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &u, CABundle: ca},
					ConversionReviewVersions: versions,
				},
			},
		},
	}
}

// rename is a v1 ↔ v2 converter: spec.a in v1 is spec.b in v2.
var rename = Pairs(map[Pair]Func{
	{"a.io/v1", "a.io/v2"}: func(o map[string]any) (map[string]any, error) {
		spec, _ := o["spec"].(map[string]any)
		if spec != nil {
			spec["b"] = spec["a"]
			delete(spec, "a")
		}
		return o, nil
	},
	{"a.io/v2", "a.io/v1"}: func(o map[string]any) (map[string]any, error) {
		spec, _ := o["spec"].(map[string]any)
		if spec != nil {
			spec["a"] = spec["b"]
			delete(spec, "b")
		}
		return o, nil
	},
})

func TestWebhookThroughHandler(t *testing.T) {
	for _, rv := range [][]string{{"v1"}, {"v1beta1"}, {"v2", "v1beta1", "v1"}} {
		t.Run(strings.Join(rv, ","), func(t *testing.T) {
			var mu sync.Mutex
			var seen []review
			h := NewHandler(rename)
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var rv review
				_ = json.Unmarshal(body, &rv)
				mu.Lock()
				seen = append(seen, rv)
				mu.Unlock()
				r.Body = io.NopCloser(strings.NewReader(string(body)))
				h.ServeHTTP(w, r)
			}))
			defer srv.Close()
			wh, err := NewWebhook(testCRD(srv, rv...), WebhookOptions{})
			if err != nil {
				t.Fatal(err)
			}
			in := obj(`{"apiVersion":"a.io/v1","kind":"K","metadata":{"name":"x","namespace":"ns","uid":"u","generation":2},"spec":{"a":5}}`)
			got, err := wh.Convert(context.Background(), in, "a.io/v2")
			if err != nil {
				t.Fatal(err)
			}
			want := obj(`{"apiVersion":"a.io/v2","kind":"K","metadata":{"name":"x","namespace":"ns","uid":"u","generation":2},"spec":{"b":5}}`)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Convert = %v, want %v", got, want)
			}
			if !reflect.DeepEqual(in, obj(`{"apiVersion":"a.io/v1","kind":"K","metadata":{"name":"x","namespace":"ns","uid":"u","generation":2},"spec":{"a":5}}`)) {
				t.Errorf("Convert modified its input: %v", in)
			}
			list := obj(`{"apiVersion":"a.io/v1","kind":"KList","items":[
				{"apiVersion":"a.io/v2","kind":"K","metadata":{"name":"p"},"spec":{"b":1}},
				{"apiVersion":"a.io/v1","kind":"K","metadata":{"name":"q"},"spec":{"a":2}}]}`)
			gotList, err := wh.ConvertList(context.Background(), list, "a.io/v2")
			if err != nil {
				t.Fatal(err)
			}
			wantList := obj(`{"apiVersion":"a.io/v2","kind":"KList","items":[
				{"apiVersion":"a.io/v2","kind":"K","metadata":{"name":"p"},"spec":{"b":1}},
				{"apiVersion":"a.io/v2","kind":"K","metadata":{"name":"q"},"spec":{"b":2}}]}`)
			if !reflect.DeepEqual(gotList, wantList) {
				t.Errorf("ConvertList = %v, want %v", gotList, wantList)
			}
			// Nothing to convert: no call.
			if _, err := wh.Convert(context.Background(), want, "a.io/v2"); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != 2 {
				t.Fatalf("%d calls, want 2", len(seen))
			}
			wantAV := "apiextensions.k8s.io/" + map[string]string{"v1": "v1", "v1beta1": "v1beta1", "v2": "v1beta1"}[rv[0]]
			for _, s := range seen {
				if s.APIVersion != wantAV || s.Kind != "ConversionReview" || s.Request == nil || s.Request.UID == "" || s.Request.DesiredAPIVersion != "a.io/v2" {
					t.Errorf("request %+v, want a %s ConversionReview to a.io/v2 with a uid", s, wantAV)
				}
			}
			if seen[0].Request.UID == seen[1].Request.UID {
				t.Errorf("two requests with uid %s", seen[0].Request.UID)
			}
			if n := len(seen[1].Request.Objects); n != 1 {
				t.Errorf("list request sent %d objects, want the 1 not at a.io/v2", n)
			}
		})
	}
}

// answer is a misbehaving webhook: it answers the review with the response
// edit makes of a correct one.
func answer(edit func(resp map[string]any, req *reviewRequestW)) http.HandlerFunc {
	h := NewHandler(rename)
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in review
		_ = json.Unmarshal(body, &in)
		good, err := h.Review(body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var resp map[string]any
		_ = json.Unmarshal(good, &resp)
		edit(resp, in.Request)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}
}

func convertedAt(resp map[string]any, i int) map[string]any {
	return resp["response"].(map[string]any)["convertedObjects"].([]any)[i].(map[string]any)
}

func TestWebhookMisbehaving(t *testing.T) {
	const gvk = "a.io/v1, Kind=K"
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
		err  string
	}{
		{"wrong uid", answer(func(r map[string]any, _ *reviewRequestW) { r["response"].(map[string]any)["uid"] = "other" }),
			`conversion webhook for ` + gvk + ` failed: expected response.uid="%UID%", got "other"`},
		{"no response", answer(func(r map[string]any, _ *reviewRequestW) { delete(r, "response") }),
			`conversion webhook for ` + gvk + ` failed: no response provided`},
		{"failure with message", answer(func(r map[string]any, _ *reviewRequestW) {
			r["response"].(map[string]any)["result"] = map[string]any{"status": "Failure", "message": "no way"}
		}), `conversion webhook for ` + gvk + ` failed: no way`},
		{"failure without message", answer(func(r map[string]any, _ *reviewRequestW) {
			r["response"].(map[string]any)["result"] = map[string]any{"status": "Failure"}
		}), `conversion webhook for ` + gvk + ` failed: response.result.status was 'Failure', not 'Success'`},
		{"wrong count", answer(func(r map[string]any, _ *reviewRequestW) {
			resp := r["response"].(map[string]any)
			resp["convertedObjects"] = append(resp["convertedObjects"].([]any), map[string]any{})
		}), `conversion webhook for ` + gvk + ` returned 2 objects, expected 1`},
		{"wrong apiVersion", answer(func(r map[string]any, _ *reviewRequestW) { convertedAt(r, 0)["apiVersion"] = "a.io/v3" }),
			`conversion webhook for ` + gvk + ` returned invalid object at index 0: invalid groupVersion (expected a.io/v2, received a.io/v3)`},
		{"changed kind", answer(func(r map[string]any, _ *reviewRequestW) { convertedAt(r, 0)["kind"] = "L" }),
			`conversion webhook for ` + gvk + ` returned invalid object at index 0: invalid kind (expected K, received L)`},
		{"changed name", answer(func(r map[string]any, _ *reviewRequestW) {
			convertedAt(r, 0)["metadata"].(map[string]any)["name"] = "y"
		}),
			`conversion webhook for ` + gvk + ` returned invalid object: must have the same name: x != y`},
		{"changed uid", answer(func(r map[string]any, _ *reviewRequestW) { convertedAt(r, 0)["metadata"].(map[string]any)["uid"] = "v" }),
			`conversion webhook for ` + gvk + ` returned invalid object: must have the same UID: u != v`},
		{"invalid label", answer(func(r map[string]any, _ *reviewRequestW) {
			convertedAt(r, 0)["metadata"].(map[string]any)["labels"] = map[string]any{"a": "-"}
		}), `conversion webhook for ` + gvk + ` returned invalid metadata: metadata.labels: Invalid value: "-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
		{"v1beta1 answer to a v1 request", answer(func(r map[string]any, _ *reviewRequestW) { r["apiVersion"] = "apiextensions.k8s.io/v1beta1" }),
			`conversion webhook for ` + gvk + ` failed: converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion`},
		{"HTTP 500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) },
			`conversion webhook for ` + gvk + ` failed: an error on the server ("boom") has prevented the request from succeeding`},
		{"oversized", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"x":"` + strings.Repeat("x", 2000) + `"}`))
		}, `conversion webhook for ` + gvk + ` failed: unexpected error when reading response body. Please retry. Original error: conversion webhook response too large`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var uid string
			var mu sync.Mutex
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var in review
				if json.Unmarshal(body, &in) == nil && in.Request != nil {
					mu.Lock()
					uid = in.Request.UID
					mu.Unlock()
				}
				r.Body = io.NopCloser(strings.NewReader(string(body)))
				tc.h(w, r)
			}))
			defer srv.Close()
			wh, err := NewWebhook(testCRD(srv, "v1"), WebhookOptions{MaxResponseBytes: 1000})
			if err != nil {
				t.Fatal(err)
			}
			in := obj(`{"apiVersion":"a.io/v1","kind":"K","metadata":{"name":"x","namespace":"ns","uid":"u"},"spec":{"a":5}}`)
			_, err = wh.Convert(context.Background(), in, "a.io/v2")
			mu.Lock()
			want := strings.ReplaceAll(tc.err, "%UID%", uid)
			mu.Unlock()
			if got := errString(err); got != want {
				t.Errorf("Convert error = %q, want %q", got, want)
			}
		})
	}
}

func TestWebhookTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	wh, err := NewWebhook(testCRD(srv, "v1"), WebhookOptions{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = wh.Convert(context.Background(), obj(`{"apiVersion":"a.io/v1","kind":"K","metadata":{"name":"x"}}`), "a.io/v2")
	if err == nil || !strings.HasPrefix(err.Error(), "conversion webhook for a.io/v1, Kind=K failed: ") {
		t.Errorf("Convert error = %v, want a failed call", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Convert took %v with a 200ms timeout", d)
	}
}

func TestWebhookService(t *testing.T) {
	srv := httptest.NewTLSServer(NewHandler(rename))
	defer srv.Close()
	crd := testCRD(srv, "v1")
	path, port := "/convert", int32(8443)
	crd.Spec.Conversion.Webhook.ClientConfig.URL = nil
	crd.Spec.Conversion.Webhook.ClientConfig.Service = &apiextensionsv1.ServiceReference{Namespace: "ns", Name: "hook", Path: &path, Port: &port}
	if _, err := NewWebhook(crd, WebhookOptions{}); err == nil {
		t.Error("NewWebhook without a resolver for a service: no error")
	}
	var asked []string
	var mu sync.Mutex
	// httptest's certificate is for example.com; the server name the
	// server uses for services is <name>.<namespace>.svc, so it is refused
	// unless the resolver's answer is not checked against it: check that
	// the refusal names that server name, which proves the resolver ran.
	wh, err := NewWebhook(crd, WebhookOptions{Resolver: func(ns, name string, p int32) (*url.URL, error) {
		mu.Lock()
		asked = append(asked, ns+"/"+name)
		mu.Unlock()
		if p != port {
			return nil, errors.New("wrong port")
		}
		return url.Parse(srv.URL)
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = wh.Convert(context.Background(), obj(`{"apiVersion":"a.io/v1","kind":"K","metadata":{"name":"x"}}`), "a.io/v2")
	if err == nil || !strings.Contains(err.Error(), "hook.ns.svc") {
		t.Errorf("Convert error = %v, want a certificate refusal for hook.ns.svc", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) == 0 || asked[0] != "ns/hook" {
		t.Errorf("resolver asked %v, want ns/hook", asked)
	}
}

func TestWebhookConcurrent(t *testing.T) {
	srv := httptest.NewTLSServer(NewHandler(rename))
	defer srv.Close()
	wh, err := NewWebhook(testCRD(srv, "v1"), WebhookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				out, err := wh.Convert(context.Background(), obj(`{"apiVersion":"a.io/v1","kind":"K","metadata":{"name":"x"},"spec":{"a":1}}`), "a.io/v2")
				if err != nil || out["spec"].(map[string]any)["b"] != int64(1) {
					t.Errorf("Convert = %v, %v", out, err)
				}
			}
		}()
	}
	wg.Wait()
}

func TestHandlerRefuses(t *testing.T) {
	h := NewHandler(rename)
	h.MaxRequestBytes = 100
	for _, tc := range []struct {
		name, method, body string
		code               int
	}{
		{"GET", "GET", ``, 405},
		{"not JSON", "POST", `nope`, 400},
		{"not a review", "POST", `{"apiVersion":"v1","kind":"Pod"}`, 400},
		{"no request", "POST", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}`, 400},
		{"too large", "POST", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","x":"` + strings.Repeat("x", 100) + `"}`, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, "/", strings.NewReader(tc.body)))
			if rec.Code != tc.code {
				t.Errorf("ServeHTTP(%s %s) = %d, want %d", tc.method, tc.body, rec.Code, tc.code)
			}
		})
	}
}

func TestHandlerAnswers(t *testing.T) {
	boom := func(map[string]any, string) (map[string]any, error) { return nil, errors.New("boom") }
	panics := func(map[string]any, string) (map[string]any, error) { panic("oops") }
	hub := HubAndSpoke("a.io/v2", map[string]Func{"a.io/v1": func(o map[string]any) (map[string]any, error) { o["hub"] = true; return o, nil }},
		map[string]Func{"a.io/v3": func(o map[string]any) (map[string]any, error) { o["v3"] = true; return o, nil }})
	for _, tc := range []struct {
		name    string
		convert ConvertFunc
		in      string
		want    string
	}{
		{"v1beta1 answered in v1beta1", rename,
			`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","request":{"uid":"u1","desiredAPIVersion":"a.io/v2","objects":[{"apiVersion":"a.io/v1","kind":"K","spec":{"a":1}}]}}`,
			`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","response":{"uid":"u1","convertedObjects":[{"apiVersion":"a.io/v2","kind":"K","spec":{"b":1}}],"result":{"status":"Success"}}}`},
		{"objects at the desired version kept", boom,
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u1","desiredAPIVersion":"a.io/v2","objects":[{"apiVersion":"a.io/v2","kind":"K"}]}}`,
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u1","convertedObjects":[{"apiVersion":"a.io/v2","kind":"K"}],"result":{"status":"Success"}}}`},
		{"error to Failure", boom,
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u1","desiredAPIVersion":"a.io/v2","objects":[{"apiVersion":"a.io/v1","kind":"K"}]}}`,
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u1","convertedObjects":null,"result":{"status":"Failure","message":"boom"}}}`},
		{"panic to Failure", panics,
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u1","desiredAPIVersion":"a.io/v2","objects":[{"apiVersion":"a.io/v1","kind":"K"}]}}`,
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u1","convertedObjects":null,"result":{"status":"Failure","message":"conversion failed: oops"}}}`},
		{"missing pair", rename,
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u1","desiredAPIVersion":"a.io/v9","objects":[{"apiVersion":"a.io/v1","kind":"K"}]}}`,
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u1","convertedObjects":null,"result":{"status":"Failure","message":"no conversion from \"a.io/v1\" to \"a.io/v9\""}}}`},
		{"hub and spoke", hub,
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u1","desiredAPIVersion":"a.io/v3","objects":[{"apiVersion":"a.io/v1","kind":"K"}]}}`,
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u1","convertedObjects":[{"apiVersion":"a.io/v3","hub":true,"kind":"K","v3":true}],"result":{"status":"Success"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewHandler(tc.convert).Review([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("Review = %s, want %s", got, tc.want)
			}
		})
	}
}
