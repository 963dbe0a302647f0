package conversion

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The cases of the server's TestCreateConversionReviewObjects.
func TestReviewRequest(t *testing.T) {
	objs := []map[string]any{{"apiVersion": "foo/v2", "kind": "Widget"}}
	for _, tc := range []struct {
		name     string
		versions []string
		want     string // the request's type, "" for the error
	}{
		{"no supported versions", []string{"vx"}, ""},
		{"none", nil, ""},
		{"v1 first", []string{"v1", "v1beta1", "v2"}, "v1"},
		{"v1beta1 first", []string{"v1beta1", "v1", "v2"}, "v1beta1"},
		{"unknown skipped", []string{"v3", "v1beta1"}, "v1beta1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, resp, err := reviewRequest(tc.versions, objs, "foo/v1", "uid")
			if tc.want == "" {
				if err == nil || err.Error() != "no supported conversion review versions" {
					t.Fatalf("reviewRequest(%v) error = %v, want no supported conversion review versions", tc.versions, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch r := req.(type) {
			case *apiextensionsv1.ConversionReview:
				if _, ok := resp.(*apiextensionsv1.ConversionReview); tc.want != "v1" || !ok || r.Request.UID != "uid" || r.Request.DesiredAPIVersion != "foo/v1" || len(r.Request.Objects) != 1 || r.Response == nil {
					t.Errorf("reviewRequest(%v) = %#v, %T", tc.versions, r, resp)
				}
			case *v1beta1.ConversionReview:
				if _, ok := resp.(*v1beta1.ConversionReview); tc.want != "v1beta1" || !ok || r.Request.UID != "uid" || r.Request.DesiredAPIVersion != "foo/v1" || len(r.Request.Objects) != 1 || r.Response == nil {
					t.Errorf("reviewRequest(%v) = %#v, %T", tc.versions, r, resp)
				}
			default:
				t.Errorf("reviewRequest(%v) = %T", tc.versions, req)
			}
		})
	}
}

// The cases of the server's TestGetConvertedObjectsFromResponse.
func TestConvertedObjects(t *testing.T) {
	v1Object := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "foo/v1", "kind": "Widget", "metadata": map[string]any{"name": "myv1"}}}
	tm := metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"}
	ok := metav1.Status{Status: metav1.StatusSuccess}
	for _, tc := range []struct {
		name  string
		resp  runtime.Object
		nObjs int
		err   string
	}{
		{"nil response", nil, 0, "unrecognized response type: <nil>"},
		{"unknown type", &unstructured.Unstructured{}, 0, "unrecognized response type: *unstructured.Unstructured"},
		{"minimal valid v1beta1", &v1beta1.ConversionReview{Response: &v1beta1.ConversionResponse{Result: ok}}, 0, ""},
		{"valid v1beta1 with objects", &v1beta1.ConversionReview{Response: &v1beta1.ConversionResponse{Result: ok,
			ConvertedObjects: []runtime.RawExtension{{Object: v1Object}}}}, 1, ""},
		{"v1beta1, empty status", &v1beta1.ConversionReview{Response: &v1beta1.ConversionResponse{}}, 0, "response.result.status was '', not 'Success'"},
		{"v1beta1, failure status", &v1beta1.ConversionReview{Response: &v1beta1.ConversionResponse{Result: metav1.Status{Status: metav1.StatusFailure}}}, 0,
			"response.result.status was 'Failure', not 'Success'"},
		{"v1beta1, custom status", &v1beta1.ConversionReview{Response: &v1beta1.ConversionResponse{Result: metav1.Status{Status: metav1.StatusFailure, Message: "some failure message"}}}, 0,
			"some failure message"},
		{"v1beta1, no response", &v1beta1.ConversionReview{}, 0, "no response provided"},
		{"minimal valid v1", &apiextensionsv1.ConversionReview{TypeMeta: tm, Response: &apiextensionsv1.ConversionResponse{UID: "uid", Result: ok}}, 0, ""},
		{"valid v1 with objects", &apiextensionsv1.ConversionReview{TypeMeta: tm, Response: &apiextensionsv1.ConversionResponse{UID: "uid", Result: ok,
			ConvertedObjects: []runtime.RawExtension{{Object: v1Object}}}}, 1, ""},
		{"v1, no uid", &apiextensionsv1.ConversionReview{TypeMeta: tm, Response: &apiextensionsv1.ConversionResponse{Result: ok}}, 0, `expected response.uid="uid", got ""`},
		{"v1, no apiVersion", &apiextensionsv1.ConversionReview{TypeMeta: metav1.TypeMeta{Kind: "ConversionReview"}, Response: &apiextensionsv1.ConversionResponse{UID: "uid", Result: ok}}, 0,
			"expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind=ConversionReview"},
		{"v1, no kind", &apiextensionsv1.ConversionReview{TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1"}, Response: &apiextensionsv1.ConversionResponse{UID: "uid", Result: ok}}, 0,
			"expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1, Kind="},
		{"v1, mismatched apiVersion", &apiextensionsv1.ConversionReview{TypeMeta: metav1.TypeMeta{APIVersion: "foo/v1", Kind: "ConversionReview"}, Response: &apiextensionsv1.ConversionResponse{UID: "uid", Result: ok}}, 0,
			"expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got foo/v1, Kind=ConversionReview"},
		{"v1, no response", &apiextensionsv1.ConversionReview{TypeMeta: tm}, 0, "no response provided"},
		{"v1, empty status", &apiextensionsv1.ConversionReview{TypeMeta: tm, Response: &apiextensionsv1.ConversionResponse{UID: "uid"}}, 0,
			"response.result.status was '', not 'Success'"},
		{"v1, failure status", &apiextensionsv1.ConversionReview{TypeMeta: tm, Response: &apiextensionsv1.ConversionResponse{UID: "uid", Result: metav1.Status{Status: metav1.StatusFailure}}}, 0,
			"response.result.status was 'Failure', not 'Success'"},
		{"v1, custom status", &apiextensionsv1.ConversionReview{TypeMeta: tm, Response: &apiextensionsv1.ConversionResponse{UID: "uid", Result: metav1.Status{Status: metav1.StatusFailure, Message: "some failure message"}}}, 0,
			"some failure message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := convertedObjects("uid", tc.resp)
			if got := errString(err); got != tc.err {
				t.Fatalf("convertedObjects error = %q, want %q", got, tc.err)
			}
			if len(objs) != tc.nObjs {
				t.Errorf("convertedObjects = %d objects, want %d", len(objs), tc.nObjs)
			}
		})
	}
}
