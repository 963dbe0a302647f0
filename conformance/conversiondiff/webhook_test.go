package conversiondiff

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
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	upstream "k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/util/webhook"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/conversion"
)

const group = "conv.crdkit.dev"

// rename is the well-behaved webhook's conversion: between v1 and v2,
// spec.a becomes spec.b and back; the hub v2 also converts to v3 (spec.c).
var rename = conversion.HubAndSpoke(group+"/v2",
	map[string]conversion.Func{
		group + "/v1": move("a", "b"),
		group + "/v3": move("c", "b"),
	},
	map[string]conversion.Func{
		group + "/v1": move("b", "a"),
		group + "/v3": move("b", "c"),
	})

func move(from, to string) conversion.Func {
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

// behaviour is a test webhook: it answers a review body.
type behaviour struct {
	name string
	// edit changes the well-behaved answer (decoded) in place.
	edit func(resp map[string]any)
	// serve replaces the whole handler.
	serve http.HandlerFunc
}

func converted(resp map[string]any) []any {
	r, _ := resp["response"].(map[string]any)
	l, _ := r["convertedObjects"].([]any)
	return l
}

// eachConverted edits every converted object.
func eachConverted(f func(o map[string]any)) func(map[string]any) {
	return func(resp map[string]any) {
		for _, o := range converted(resp) {
			if m, ok := o.(map[string]any); ok {
				f(m)
			}
		}
	}
}

func meta(o map[string]any) map[string]any {
	m, _ := o["metadata"].(map[string]any)
	if m == nil {
		m = map[string]any{}
		o["metadata"] = m
	}
	return m
}

func response(resp map[string]any) map[string]any {
	r, _ := resp["response"].(map[string]any)
	if r == nil {
		r = map[string]any{}
		resp["response"] = r
	}
	return r
}

var behaviours = []behaviour{
	{name: "good"},
	{name: "wrong-uid", edit: func(r map[string]any) { response(r)["uid"] = "not-the-uid" }},
	{name: "empty-uid", edit: func(r map[string]any) { delete(response(r), "uid") }},
	{name: "no-response", edit: func(r map[string]any) { delete(r, "response") }},
	{name: "failure-message", edit: func(r map[string]any) {
		response(r)["result"] = map[string]any{"status": "Failure", "message": "the webhook says no"}
		delete(response(r), "convertedObjects")
	}},
	{name: "failure-no-message", edit: func(r map[string]any) { response(r)["result"] = map[string]any{"status": "Failure"} }},
	{name: "no-status", edit: func(r map[string]any) { response(r)["result"] = map[string]any{} }},
	{name: "extra-object", edit: func(r map[string]any) {
		response(r)["convertedObjects"] = append(converted(r), map[string]any{"apiVersion": group + "/v2", "kind": "Thing"})
	}},
	{name: "no-objects", edit: func(r map[string]any) { response(r)["convertedObjects"] = []any{} }},
	{name: "null-objects", edit: func(r map[string]any) { response(r)["convertedObjects"] = nil }},
	{name: "wrong-apiversion", edit: eachConverted(func(o map[string]any) { o["apiVersion"] = group + "/v9" })},
	{name: "other-group", edit: eachConverted(func(o map[string]any) { o["apiVersion"] = "other.dev/v2" })},
	{name: "no-apiversion", edit: eachConverted(func(o map[string]any) { delete(o, "apiVersion") })},
	{name: "changed-kind", edit: eachConverted(func(o map[string]any) { o["kind"] = "Other" })},
	{name: "no-kind", edit: eachConverted(func(o map[string]any) { delete(o, "kind") })},
	{name: "changed-name", edit: eachConverted(func(o map[string]any) { meta(o)["name"] = "renamed" })},
	{name: "changed-namespace", edit: eachConverted(func(o map[string]any) { meta(o)["namespace"] = "elsewhere" })},
	{name: "changed-uid", edit: eachConverted(func(o map[string]any) { meta(o)["uid"] = "other-uid" })},
	{name: "invalid-label", edit: eachConverted(func(o map[string]any) { meta(o)["labels"] = map[string]any{"bad key!": "v"} })},
	{name: "invalid-label-value", edit: eachConverted(func(o map[string]any) { meta(o)["labels"] = map[string]any{"k": "-bad-"} })},
	{name: "label-not-string", edit: eachConverted(func(o map[string]any) { meta(o)["labels"] = map[string]any{"k": 1} })},
	{name: "labels-not-map", edit: eachConverted(func(o map[string]any) { meta(o)["labels"] = []any{"k"} })},
	{name: "invalid-annotation", edit: eachConverted(func(o map[string]any) { meta(o)["annotations"] = map[string]any{"a b": "v"} })},
	{name: "added-labels", edit: eachConverted(func(o map[string]any) {
		meta(o)["labels"] = map[string]any{"added": "yes", "app": "x"}
		meta(o)["annotations"] = map[string]any{"note": "converted"}
	})},
	{name: "removed-labels", edit: eachConverted(func(o map[string]any) { delete(meta(o), "labels"); delete(meta(o), "annotations") })},
	{name: "null-labels", edit: eachConverted(func(o map[string]any) { meta(o)["labels"] = nil; meta(o)["annotations"] = nil })},
	{name: "changed-finalizers", edit: eachConverted(func(o map[string]any) {
		meta(o)["finalizers"] = []any{"example.com/added"}
		meta(o)["generation"] = 99
		meta(o)["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "X", "name": "y", "uid": "z"}}
	})},
	{name: "extra-fields", edit: eachConverted(func(o map[string]any) {
		o["status"] = map[string]any{"added": true}
		o["topLevel"] = "x"
	})},
	{name: "no-metadata", edit: eachConverted(func(o map[string]any) { delete(o, "metadata") })},
	{name: "metadata-not-map", edit: eachConverted(func(o map[string]any) { o["metadata"] = "x" })},
	{name: "object-not-object", edit: func(r map[string]any) {
		l := converted(r)
		for i := range l {
			l[i] = "a string"
		}
	}},
	{name: "review-kind", edit: func(r map[string]any) { r["kind"] = "AdmissionReview" }},
	{name: "review-v1beta1", edit: func(r map[string]any) { r["apiVersion"] = "apiextensions.k8s.io/v1beta1" }},
	{name: "review-v1", edit: func(r map[string]any) { r["apiVersion"] = "apiextensions.k8s.io/v1" }},
	{name: "review-other-group", edit: func(r map[string]any) { r["apiVersion"] = "example.com/v1" }},
	{name: "no-type-meta", edit: func(r map[string]any) { delete(r, "apiVersion"); delete(r, "kind") }},
	{name: "not-json", serve: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "this is not JSON")
	}},
	{name: "empty-body", serve: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
	}},
	{name: "text-plain", serve: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "hello")
	}},
	{name: "http-500", serve: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "internal trouble", 500) }},
	{name: "http-403-status", serve: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(403)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden by the hook","reason":"Forbidden","code":403}`)
	}},
	{name: "http-404", serve: http.NotFound},
	{name: "redirect-307", serve: func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/good", http.StatusTemporaryRedirect)
	}},
	{name: "redirect-302", serve: func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/good", http.StatusFound) }},
}

// server serves every behaviour at /<name>.
func server(t *testing.T) *httptest.Server {
	h := conversion.NewHandler(rename)
	mux := http.NewServeMux()
	for _, b := range behaviours {
		b := b
		mux.HandleFunc("/"+b.name, func(w http.ResponseWriter, r *http.Request) {
			if b.serve != nil {
				b.serve(w, r)
				return
			}
			body, _ := io.ReadAll(r.Body)
			good, err := h.Review(body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if b.edit != nil {
				var resp map[string]any
				_ = json.Unmarshal(good, &resp)
				b.edit(resp)
				good, _ = json.Marshal(resp)
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(good)
		})
	}
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// crdFor is a CRD calling srv at path with review versions rv.
func crdFor(srv *httptest.Server, path string, rv []string) *apiextensionsv1.CustomResourceDefinition {
	url := srv.URL + path
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: group,
		Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Kind: "Thing", ListKind: "ThingList"},
		Scope: apiextensionsv1.NamespaceScoped,
		Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
			Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: ca},
				ConversionReviewVersions: rv,
			}},
	}}
	crd.Name = "things." + group
	for _, v := range []string{"v1", "v2", "v3"} {
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: true, Storage: v == "v2"})
	}
	return crd
}

// sides are the two converters for one CRD.
type sides struct {
	up  runtime.ObjectConvertor
	our *conversion.Webhook
}

func newSides(t *testing.T, factory *upstream.CRConverterFactory, crd *apiextensionsv1.CustomResourceDefinition) sides {
	t.Helper()
	up, _, err := factory.NewConverter(crd)
	if err != nil {
		t.Fatal(err)
	}
	our, err := conversion.NewWebhook(crd, conversion.WebhookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sides{up, our}
}

func newFactory(t *testing.T) *upstream.CRConverterFactory {
	t.Helper()
	f, err := upstream.NewCRConverterFactory(webhook.NewDefaultServiceResolver(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// uuidRE matches the request uids in error texts.
var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// outcome is what one side answered: an error text or an object.
type outcome struct {
	err string
	obj map[string]any
}

func (o outcome) String() string {
	if o.err != "" {
		return "error: " + o.err
	}
	b, _ := json.Marshal(o.obj)
	return string(b)
}

func upstreamConvert(up runtime.ObjectConvertor, in map[string]any, isList bool, to string) outcome {
	gv, _ := schema.ParseGroupVersion(to)
	var obj runtime.Object
	if isList {
		l := &unstructured.UnstructuredList{}
		if err := l.UnmarshalJSON(mustJSON(in)); err != nil {
			return outcome{err: "bad list: " + err.Error()}
		}
		obj = l
	} else {
		obj = &unstructured.Unstructured{Object: in}
	}
	out, err := up.ConvertToVersion(obj, gv)
	if err != nil {
		return outcome{err: uuidRE.ReplaceAllString(err.Error(), "UID")}
	}
	switch o := out.(type) {
	case *unstructured.Unstructured:
		return outcome{obj: roundTrip(o.Object)}
	case *unstructured.UnstructuredList:
		return outcome{obj: roundTrip(o.UnstructuredContent())}
	}
	return outcome{err: fmt.Sprintf("unexpected %T", out)}
}

func crdkitConvert(our *conversion.Webhook, in map[string]any, isList bool, to string) outcome {
	var out map[string]any
	var err error
	if isList {
		out, err = our.ConvertList(context.Background(), in, to)
	} else {
		out, err = our.Convert(context.Background(), in, to)
	}
	if err != nil {
		return outcome{err: uuidRE.ReplaceAllString(err.Error(), "UID")}
	}
	return outcome{obj: roundTrip(out)}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func roundTrip(m map[string]any) map[string]any {
	var out map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(mustJSON(m), &out); err != nil {
		panic(err)
	}
	return out
}

func parse(s string) map[string]any {
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

// The inputs each behaviour converts: a single object, and a list with one
// item already at the desired version.
const (
	single = `{"apiVersion":"conv.crdkit.dev/v1","kind":"Thing","metadata":{"name":"x","namespace":"ns","uid":"u-1","generation":3,
		"labels":{"app":"x"},"annotations":{"keep":"me"},"finalizers":["example.com/f"]},"spec":{"a":1,"other":[1,2]}}`
	list = `{"apiVersion":"conv.crdkit.dev/v1","kind":"ThingList","metadata":{"resourceVersion":"7"},"items":[
		{"apiVersion":"conv.crdkit.dev/v1","kind":"Thing","metadata":{"name":"p","namespace":"ns","uid":"u-p","labels":{"app":"p"}},"spec":{"a":1}},
		{"apiVersion":"conv.crdkit.dev/v2","kind":"Thing","metadata":{"name":"q","namespace":"ns","uid":"u-q"},"spec":{"b":2}},
		{"apiVersion":"conv.crdkit.dev/v3","kind":"Thing","metadata":{"name":"r","namespace":"ns","uid":"u-r"},"spec":{"c":3}}]}`
)

// TestWebhookMisbehaving: every behaviour, both review versions, a single
// object and a list, through both converters.
func TestWebhookMisbehaving(t *testing.T) {
	srv := server(t)
	factory := newFactory(t)
	counts := map[string][2]int{}
	for _, b := range behaviours {
		for _, rv := range [][]string{{"v1"}, {"v1beta1"}, {"v0", "v1beta1", "v1"}} {
			s := newSides(t, factory, crdFor(srv, "/"+b.name, rv))
			for _, in := range []struct {
				name   string
				doc    string
				isList bool
			}{{"object", single, false}, {"list", list, true}} {
				up := upstreamConvert(s.up, parse(in.doc), in.isList, group+"/v2")
				our := crdkitConvert(s.our, parse(in.doc), in.isList, group+"/v2")
				line := "webhook-misbehaving-object"
				if up.err != "" {
					line = "webhook-misbehaving-error"
				}
				c := counts[line]
				c[1]++
				if reflect.DeepEqual(up, our) {
					c[0]++
				} else {
					t.Errorf("%s, reviews %v, %s:\n  upstream: %s\n  crdkit:   %s", b.name, rv, in.name, up, our)
				}
				counts[line] = c
			}
		}
	}
	for _, line := range []string{"webhook-misbehaving-error", "webhook-misbehaving-object"} {
		fmt.Printf("conformance: %s %d/%d (%d behaviours x 3 review-version lists x object and list)\n", line, counts[line][0], counts[line][1], len(behaviours))
	}
}
