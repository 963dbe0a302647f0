package servertest

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/oracle"
	"github.com/crdkit/crdkit/conversion"
)

// hookBehaviours edit the answer of a crdkit Handler (nil: as it is).
var hookBehaviours = map[string]func(resp map[string]any){
	"good":      nil,
	"wrong-uid": func(r map[string]any) { r["response"].(map[string]any)["uid"] = "nope" },
	"failure": func(r map[string]any) {
		r["response"].(map[string]any)["result"] = map[string]any{"status": "Failure", "message": "refused by the hook"}
	},
	"extra-object": func(r map[string]any) { hookResp(r)["convertedObjects"] = append(hookObjs(r), map[string]any{}) },
	"wrong-apiversion": func(r map[string]any) {
		eachHookObj(r, func(o map[string]any) { o["apiVersion"] = "webhook.crdkit.dev/v9" })
	},
	"changed-name": func(r map[string]any) {
		eachHookObj(r, func(o map[string]any) { o["metadata"].(map[string]any)["name"] = "other" })
	},
	"changed-uid": func(r map[string]any) {
		eachHookObj(r, func(o map[string]any) { o["metadata"].(map[string]any)["uid"] = "other" })
	},
	"invalid-label": func(r map[string]any) {
		eachHookObj(r, func(o map[string]any) { o["metadata"].(map[string]any)["labels"] = map[string]any{"a b": "c"} })
	},
	"changed-finalizers": func(r map[string]any) {
		eachHookObj(r, func(o map[string]any) {
			o["metadata"].(map[string]any)["finalizers"] = []any{"example.com/hook"}
			o["metadata"].(map[string]any)["labels"] = map[string]any{"converted": "yes"}
		})
	},
	"extra-fields": func(r map[string]any) {
		eachHookObj(r, func(o map[string]any) { o["spec"].(map[string]any)["added"] = "pruned"; o["junk"] = 1 })
	},
}

// requestUID matches a ConversionReview uid, new on every call.
var requestUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func hookResp(r map[string]any) map[string]any { return r["response"].(map[string]any) }
func hookObjs(r map[string]any) []any {
	l, _ := hookResp(r)["convertedObjects"].([]any)
	return l
}
func eachHookObj(r map[string]any, f func(map[string]any)) {
	for _, o := range hookObjs(r) {
		f(o.(map[string]any))
	}
}

// hookServer serves every behaviour at /<name>, and /http-500 and
// /not-json.
func hookServer(t *testing.T) *httptest.Server {
	h := conversion.NewHandler(conversion.Pairs(map[conversion.Pair]conversion.Func{
		{From: "webhook.crdkit.dev/v1", To: "webhook.crdkit.dev/v2"}: moveSpec("a", "b"),
		{From: "webhook.crdkit.dev/v2", To: "webhook.crdkit.dev/v1"}: moveSpec("b", "a"),
	}))
	mux := http.NewServeMux()
	for name, edit := range hookBehaviours {
		mux.HandleFunc("/"+name, func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			out, err := h.Review(body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			if edit != nil {
				var m map[string]any
				_ = json.Unmarshal(out, &m)
				edit(m)
				out, _ = json.Marshal(m)
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(out)
		})
	}
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		// Past the clients' timeout; the handler returns when the client
		// gives up and closes the connection (noticed once the body is read).
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(conversion.DefaultTimeout + 10*time.Second):
		}
		http.Error(w, "too late", 500)
	})
	mux.HandleFunc("/http-500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "hook down", 500) })
	mux.HandleFunc("/not-json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "<html>")
	})
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// hookCRD is a two-version CRD (v1, and v2 for storage; different
// schemas and defaults) of group webhook.crdkit.dev whose conversion
// webhook is url, with review version rv.
func hookCRD(plural, kind, rv, url string, ca []byte) []byte {
	doc := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + ".webhook.crdkit.dev"},
		"spec": map[string]any{
			"group": "webhook.crdkit.dev", "scope": "Namespaced",
			"names": map[string]any{"plural": plural, "kind": kind},
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"conversionReviewVersions": []any{rv},
				"clientConfig":             map[string]any{"url": url, "caBundle": ca}}},
			"versions": []any{
				map[string]any{"name": "v1", "served": true, "storage": false, "schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object", "properties": map[string]any{
						"a": map[string]any{"type": "integer", "default": 1}}}}}}},
				map[string]any{"name": "v2", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object", "properties": map[string]any{
						"b": map[string]any{"type": "integer"}, "c": map[string]any{"type": "string", "default": "cee"}}}}}}},
			},
		},
	}
	b, _ := json.Marshal(doc)
	return b
}

func moveSpec(from, to string) conversion.Func {
	return func(o map[string]any) (map[string]any, error) {
		if spec, ok := o["spec"].(map[string]any); ok {
			if v, ok := spec[from]; ok {
				spec[to] = v
				delete(spec, from)
			}
		}
		return o, nil
	}
}

// TestServerWebhook installs one Webhook-strategy CRD per behaviour, all
// calling a crdkit Handler (or a misbehaving edit of it) over TLS with the
// caBundle, writes objects into etcd at v1 and v2, GETs them at both
// versions, and compares with crdkit's read path calling the same webhook
// through its client.
func TestServerWebhook(t *testing.T) {
	hooks := hookServer(t)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hooks.Certificate().Raw})
	paths := []string{"http-500", "not-json"}
	for name := range hookBehaviours {
		paths = append(paths, name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var docs [][]byte
	for i, p := range paths {
		for _, rv := range []string{"v1", "v1beta1"} {
			docs = append(docs, hookCRD(fmt.Sprintf("hooks%d%s", i, rv), fmt.Sprintf("Hook%d%s", i, rv), rv, hooks.URL+"/"+p, ca))
		}
	}
	results, err := srv.InstallRawCRDs(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	a := newAgreement()
	for i, r := range results {
		if r.CRD == nil || !r.Established {
			t.Fatalf("CRD %d not installed: %+v", i, r.Status)
		}
		behaviour := paths[i/2]
		ck := loadCrdkit(t, r.CRD)
		if ck == nil {
			continue
		}
		hook, err := conversion.NewWebhook(r.CRD, conversion.WebhookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		kind := r.CRD.Spec.Names.Kind
		for _, body := range []string{
			`{"apiVersion":"webhook.crdkit.dev/v1","kind":"` + kind + `","metadata":{"name":"created","namespace":"default","labels":{"app":"y"}},"spec":{"a":3,"unknown":1}}`,
			`{"apiVersion":"webhook.crdkit.dev/v1","kind":"` + kind + `","metadata":{"name":"empty","namespace":"default"}}`,
			`{"apiVersion":"webhook.crdkit.dev/v2","kind":"` + kind + `","metadata":{"name":"at-storage","namespace":"default"},"spec":{"b":1}}`,
		} {
			var head struct{ APIVersion string }
			_ = json.Unmarshal([]byte(body), &head)
			version := strings.TrimPrefix(head.APIVersion, "webhook.crdkit.dev/")
			res, err := srv.DryRunCreate(ctx, r.CRD.Name, version, []byte(body), oracle.Warn)
			if err != nil {
				t.Fatal(err)
			}
			got := ck.Version(version).CreateJSON([]byte(body), crdkit.CreateOptions{Convert: crdkit.ConvertOptions{Webhook: hook}})
			sample := fmt.Sprintf("%s (%s) create %s\n  server: %d %s\n  crdkit: %s %v", behaviour, r.CRD.Spec.Conversion.Webhook.ConversionReviewVersions,
				body, res.Code, truncate(string(res.Body), 800), mustJSON(got.Object), got.Err)
			if res.Allowed() {
				a.record("webhook-server-create-object", behaviour, got.Err == nil &&
					reflect.DeepEqual(oracle.Normalize(res.Object), oracle.Normalize(jsonRoundTrip(got.Object))), sample)
				continue
			}
			st := got.Status()
			a.record("webhook-server-create-error", behaviour, st != nil && res.Status != nil && int(st.Code) == res.Code && st.Reason == res.Status.Reason &&
				requestUID.ReplaceAllString(st.Message, "UID") == requestUID.ReplaceAllString(res.Status.Message, "UID"), sample)
		}
		for _, stored := range []string{
			`{"apiVersion":"webhook.crdkit.dev/v1","kind":"` + kind + `","metadata":{"name":"one","namespace":"default","uid":"u1","labels":{"app":"x"},"finalizers":["example.com/f"]},"spec":{"a":5,"junk":true}}`,
			`{"apiVersion":"webhook.crdkit.dev/v2","kind":"` + kind + `","metadata":{"name":"two","namespace":"default","generation":2},"spec":{"b":7}}`,
			`{"apiVersion":"webhook.crdkit.dev/v1","kind":"` + kind + `","metadata":{"name":"three","namespace":"default","labels":{"a":1}},"spec":{}}`,
		} {
			var head struct{ Metadata struct{ Name string } }
			_ = json.Unmarshal([]byte(stored), &head)
			key, rev, err := srv.PutStored(ctx, r.CRD.Name, "default", head.Metadata.Name, []byte(stored))
			if err != nil {
				t.Fatal(err)
			}
			for _, at := range []string{"v1", "v2"} {
				res, err := srv.Do(ctx, oracle.Request{Op: oracle.OpGet, CRD: r.CRD.Name, Version: at, Namespace: "default", Name: head.Metadata.Name})
				if err != nil {
					t.Fatal(err)
				}
				got, gerr := ck.Version(at).ReadJSON([]byte(stored), crdkit.ReadOptions{Key: key, Revision: rev,
					ConvertOptions: crdkit.ConvertOptions{Webhook: hook}})
				sample := fmt.Sprintf("%s (%s) %s read at %s\n  server: %d %s\n  crdkit: %s %v", behaviour, r.CRD.Spec.Conversion.Webhook.ConversionReviewVersions,
					head.Metadata.Name, at, res.Code, truncate(string(res.Body), 800), mustJSON(got), gerr)
				if res.Code == 200 {
					a.record("webhook-server-read-object", behaviour, gerr == nil &&
						reflect.DeepEqual(oracle.Normalize(res.Object), oracle.Normalize(jsonRoundTrip(got))), sample)
					continue
				}
				st, ok := gerr.(apierrors.APIStatus)
				a.record("webhook-server-read-error", behaviour, ok && res.Status != nil && int(st.Status().Code) == res.Code &&
					requestUID.ReplaceAllString(st.Status().Message, "UID") == requestUID.ReplaceAllString(res.Status.Message, "UID"), sample)
			}
		}
	}
	a.report(t)
}

// TestServerWebhookSlow points the server and crdkit's client at a webhook
// that answers after their timeout (30 s, fixed in the server): a create
// at v1 (converted to v2 for storage) and a GET at v1 of an object stored
// at v2, for review versions v1 and v1beta1, all at once so that the test
// takes one timeout. The server's errors (code, reason, message with the
// request's URL) must be crdkit's, up to net/http's text for the timeout,
// which varies from call to call on both sides: "context deadline
// exceeded", the same followed by " (Client.Timeout exceeded while awaiting
// headers)", or "net/http: request canceled" followed by it. Both are
// client-go's rest client with a 30 s timeout, which arms two 30 s timers
// (the request context's and http.Client's); which fires first, and whether
// the second has fired when the error is built, decides the text. The test
// logs how many messages agree byte for byte.
func TestServerWebhookSlow(t *testing.T) {
	hooks := hookServer(t)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hooks.Certificate().Raw})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rvs := []string{"v1", "v1beta1"}
	var docs [][]byte
	for _, rv := range rvs {
		docs = append(docs, hookCRD("slowhooks"+rv, "SlowHook"+rv, rv, hooks.URL+"/slow", ca))
	}
	results, err := srv.InstallRawCRDs(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	a := newAgreement()
	var wg sync.WaitGroup
	var checks []func() // after the calls
	var same, compared int
	exact := func(ok bool) {
		compared++
		if ok {
			same++
		}
	}
	start := time.Now()
	for i, r := range results {
		if r.CRD == nil || !r.Established {
			t.Fatalf("CRD %d not installed: %+v", i, r.Status)
		}
		ck := loadCrdkit(t, r.CRD)
		if ck == nil {
			continue
		}
		hook, err := conversion.NewWebhook(r.CRD, conversion.WebhookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		kind := r.CRD.Spec.Names.Kind
		body := `{"apiVersion":"webhook.crdkit.dev/v1","kind":"` + kind + `","metadata":{"name":"created","namespace":"default"},"spec":{"a":3}}`
		stored := `{"apiVersion":"webhook.crdkit.dev/v2","kind":"` + kind + `","metadata":{"name":"stored","namespace":"default"},"spec":{"b":7}}`
		key, rev, err := srv.PutStored(ctx, r.CRD.Name, "default", "stored", []byte(stored))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.DeleteStored(context.Background(), r.CRD.Name, "default", "stored") })
		var res, read oracle.Result
		var got crdkit.Result
		var gotRead map[string]any
		var resErr, readErr, gerr error
		wg.Add(4)
		go func() {
			defer wg.Done()
			res, resErr = srv.DryRunCreate(ctx, r.CRD.Name, "v1", []byte(body), oracle.Warn)
		}()
		go func() {
			defer wg.Done()
			got = ck.Version("v1").CreateJSON([]byte(body), crdkit.CreateOptions{Convert: crdkit.ConvertOptions{Webhook: hook}})
		}()
		go func() {
			defer wg.Done()
			read, readErr = srv.Do(ctx, oracle.Request{Op: oracle.OpGet, CRD: r.CRD.Name, Version: "v1", Namespace: "default", Name: "stored"})
		}()
		go func() {
			defer wg.Done()
			gotRead, gerr = ck.Version("v1").ReadJSON([]byte(stored), crdkit.ReadOptions{Key: key, Revision: rev,
				ConvertOptions: crdkit.ConvertOptions{Webhook: hook}})
		}()
		checks = append(checks, func() {
			if resErr != nil || readErr != nil {
				t.Errorf("server: %v, %v", resErr, readErr)
				return
			}
			rv := r.CRD.Spec.Conversion.Webhook.ConversionReviewVersions
			sample := fmt.Sprintf("slow (%s) create\n  server: %d %s\n  crdkit: %s %v", rv, res.Code, truncate(string(res.Body), 800), mustJSON(got.Object), got.Err)
			st := got.Status()
			a.record("webhook-server-slow-create-error", "slow", !res.Allowed() && st != nil && res.Status != nil && int(st.Code) == res.Code &&
				st.Reason == res.Status.Reason && timeoutText(st.Message) == timeoutText(res.Status.Message), sample)
			exact(st != nil && res.Status != nil && st.Message == res.Status.Message)
			sample = fmt.Sprintf("slow (%s) read at v1\n  server: %d %s\n  crdkit: %s %v", rv, read.Code, truncate(string(read.Body), 800), mustJSON(gotRead), gerr)
			rst, ok := gerr.(apierrors.APIStatus)
			a.record("webhook-server-slow-read-error", "slow", read.Code != 200 && ok && read.Status != nil && int(rst.Status().Code) == read.Code &&
				rst.Status().Reason == read.Status.Reason && timeoutText(rst.Status().Message) == timeoutText(read.Status.Message), sample)
			exact(ok && read.Status != nil && rst.Status().Message == read.Status.Message)
		})
	}
	wg.Wait()
	t.Logf("the slow calls took %v", time.Since(start).Round(time.Second))
	for _, check := range checks {
		check()
	}
	t.Logf("%d of %d slow-webhook messages agree byte for byte (the others differ in net/http's timeout text)", same, compared)
	a.report(t)
}

// slowTimeout is net/http's text for a request its client's timeout ended,
// in any of the forms it takes.
var slowTimeout = regexp.MustCompile(`(net/http: request canceled|context deadline exceeded)( \(Client\.Timeout exceeded while awaiting headers\))?`)

// timeoutText is msg with net/http's timeout text in one form; a message
// without it is returned as is (and then only matches itself).
func timeoutText(msg string) string {
	return slowTimeout.ReplaceAllString(msg, "TIMEOUT")
}
