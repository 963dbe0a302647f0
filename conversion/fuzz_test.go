package conversion

import (
	"encoding/json"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
)

// FuzzHandlerReview: any body gives an answer or an error, never a panic;
// an answer is a review of the request's version and uid with a result.
func FuzzHandlerReview(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"a.io/v2","objects":[{"apiVersion":"a.io/v1","kind":"K","spec":{"a":1}}]}}`,
		`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"a.io/v1","objects":[{"apiVersion":"a.io/v2","spec":[]},null,1]}}`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":null}`,
		`[]`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	h := NewHandler(rename)
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := h.Review(body)
		if err != nil {
			return
		}
		var in, got review
		_ = kjson.UnmarshalCaseSensitivePreserveInts(body, &in)
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("answer %s does not decode: %v", out, err)
		}
		if got.APIVersion != in.APIVersion || got.Kind != "ConversionReview" || got.Response == nil || got.Response.UID != in.Request.UID {
			t.Fatalf("answer %s to %s", out, body)
		}
		switch got.Response.Result.Status {
		case "Success":
			if len(got.Response.ConvertedObjects) != len(in.Request.Objects) {
				t.Fatalf("answer %s has %d objects for %d", out, len(got.Response.ConvertedObjects), len(in.Request.Objects))
			}
		case "Failure":
		default:
			t.Fatalf("answer %s: status %q", out, got.Response.Result.Status)
		}
	})
}

// FuzzRestoreMetadata: any pair of objects gives a result or an error,
// never a panic; the original is never modified; on success only labels
// and annotations may differ from the original's metadata.
func FuzzRestoreMetadata(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"a","labels":{"a":"b"}}}`), []byte(`{"metadata":{"name":"b","labels":{"a":"c"},"annotations":{"x":"y"}}}`))
	f.Add([]byte(`{"metadata":[]}`), []byte(`{"metadata":{"labels":null}}`))
	f.Add([]byte(`{}`), []byte(`{"metadata":{"labels":{"a":1}}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var orig, conv map[string]any
		if kjson.UnmarshalCaseSensitivePreserveInts(a, &orig) != nil || kjson.UnmarshalCaseSensitivePreserveInts(b, &conv) != nil || orig == nil || conv == nil {
			return
		}
		before := deepCopy(orig)
		err := RestoreMetadata(orig, conv)
		if !reflect.DeepEqual(before, orig) {
			t.Fatalf("original modified: %v", orig)
		}
		if err != nil {
			return
		}
		om, _ := orig["metadata"].(map[string]any)
		cm := conv["metadata"].(map[string]any)
		for k, v := range cm {
			if k != "labels" && k != "annotations" && !reflect.DeepEqual(om[k], v) {
				t.Fatalf("metadata.%s = %v, original %v", k, v, om[k])
			}
		}
		for k := range om {
			if _, ok := cm[k]; !ok && k != "labels" && k != "annotations" {
				t.Fatalf("metadata.%s dropped", k)
			}
		}
	})
}

// FuzzResponse: any answer body, decoded with the server's codec, gives
// the converted object or an error, never a panic; a converted object is
// at the desired version with the original's kind, name, namespace and
// uid, and its input is not modified.
func FuzzResponse(f *testing.F) {
	codec, err := reviewCodec()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u","convertedObjects":[{"apiVersion":"a.io/v2","kind":"K","metadata":{"name":"x","labels":{"a":"b"}}}],"result":{"status":"Success"}}}`), false)
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","response":{"convertedObjects":[{"apiVersion":"a.io/v2","kind":"K","metadata":{"name":"p"}},{"apiVersion":"a.io/v2","kind":"K","metadata":{"name":"r","annotations":null}}],"result":{"status":"Success"}}}`), true)
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u","result":{"status":"Failure","message":"m"}}}`), false)
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u","convertedObjects":[{"apiVersion":"a.io/v2","kind":"K","metadata":[]}],"result":{"status":"Success"}}}`), false)
	toGV := schema.GroupVersion{Group: "a.io", Version: "v2"}
	f.Fuzz(func(t *testing.T, body []byte, isList bool) {
		in := obj(`{"apiVersion":"a.io/v1","kind":"K","metadata":{"name":"x","uid":"ux","labels":{"a":"b"}},"spec":{"n":1}}`)
		idx := []int{0}
		if isList {
			in = obj(`{"apiVersion":"a.io/v1","kind":"KList","items":[{"apiVersion":"a.io/v1","kind":"K","metadata":{"name":"p"}},{"apiVersion":"a.io/v2","kind":"K","metadata":{"name":"q"}},{"apiVersion":"a.io/v1","kind":"K","metadata":{"name":"r"}}]}`)
			idx = []int{0, 2}
		}
		before := deepCopy(in)
		for _, resp := range []runtime.Object{&apiextensionsv1.ConversionReview{}, &v1beta1.ConversionReview{}} {
			if _, _, err := codec.Decode(body, nil, resp); err != nil {
				continue
			}
			out, err := finish(in, isList, toGV, idx, "u", resp)
			if !reflect.DeepEqual(before, in) {
				t.Fatalf("input modified: %v", in)
			}
			if err != nil {
				continue
			}
			objs := []map[string]any{out}
			origs := []map[string]any{in}
			if isList {
				objs, origs = items(out), items(in)
				if len(objs) != len(origs) {
					t.Fatalf("%d items out of %d", len(objs), len(origs))
				}
			}
			for i, o := range objs {
				if str(o, "apiVersion") != "a.io/v2" || sameIdentity(origs[i], o) != nil {
					t.Fatalf("converted %v from %v", o, origs[i])
				}
			}
		}
	})
}
