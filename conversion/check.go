package conversion

import (
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// toConvert lists the positions of the objects the server sends to the
// webhook: the items of a list whose apiVersion is not the desired one, or
// the object itself (position 0) when its group and version are not.
func toConvert(obj map[string]any, isList bool, desired string) []int {
	if !isList {
		if gvk(obj).GroupVersion().String() != desired {
			return []int{0}
		}
		return nil
	}
	var idx []int
	for i, it := range items(obj) {
		if str(it, "apiVersion") != desired {
			idx = append(idx, i)
		}
	}
	return idx
}

// items are a list's items as the server's UnstructuredList holds them.
func items(list map[string]any) []map[string]any {
	raw, _ := list["items"].([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, it := range raw {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// isEmpty reports whether obj holds only apiVersion and kind: the server
// converts such objects without calling the webhook.
func isEmpty(obj map[string]any) bool {
	if len(obj) != 2 {
		return false
	}
	_, k := obj["kind"]
	_, v := obj["apiVersion"]
	return k && v
}

// reviewRequest builds the ConversionReview the server sends, in the first
// of versions it supports.
func reviewRequest(versions []string, objs []map[string]any, desired string, uid types.UID) (req, resp runtime.Object, err error) {
	raw := make([]runtime.RawExtension, len(objs))
	for i, o := range objs {
		raw[i] = runtime.RawExtension{Object: &unstructured.Unstructured{Object: o}}
	}
	for _, v := range versions {
		switch v {
		case "v1beta1":
			return &v1beta1.ConversionReview{
				Request:  &v1beta1.ConversionRequest{Objects: raw, DesiredAPIVersion: desired, UID: uid},
				Response: &v1beta1.ConversionResponse{},
			}, &v1beta1.ConversionReview{}, nil
		case "v1":
			return &apiextensionsv1.ConversionReview{
				Request:  &apiextensionsv1.ConversionRequest{Objects: raw, DesiredAPIVersion: desired, UID: uid},
				Response: &apiextensionsv1.ConversionResponse{},
			}, &apiextensionsv1.ConversionReview{}, nil
		}
	}
	return nil, nil, errors.New("no supported conversion review versions")
}

// convertedObjects checks a decoded review response as the server does and
// returns its converted objects: v1 must be a v1 ConversionReview with a
// response for this uid; both versions must report Success.
func convertedObjects(uid types.UID, response runtime.Object) ([]runtime.RawExtension, error) {
	var result metav1.Status
	var objs []runtime.RawExtension
	switch r := response.(type) {
	case *apiextensionsv1.ConversionReview:
		want := apiextensionsv1.SchemeGroupVersion.WithKind("ConversionReview")
		if r.GroupVersionKind() != want {
			return nil, fmt.Errorf("expected webhook response of %v, got %v", want.String(), r.GroupVersionKind().String())
		}
		if r.Response == nil {
			return nil, errors.New("no response provided")
		}
		if r.Response.UID != uid {
			return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.Response.UID)
		}
		result, objs = r.Response.Result, r.Response.ConvertedObjects
	case *v1beta1.ConversionReview:
		// The server checks neither the kind nor the uid of v1beta1 answers.
		if r.Response == nil {
			return nil, errors.New("no response provided")
		}
		result, objs = r.Response.Result, r.Response.ConvertedObjects
	default:
		return nil, fmt.Errorf("unrecognized response type: %T", response)
	}
	if result.Status != metav1.StatusSuccess {
		if result.Message != "" {
			return nil, errors.New(result.Message)
		}
		return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", result.Status)
	}
	return objs, nil
}

// decodeConverted decodes one converted object as the server does.
func decodeConverted(rx runtime.RawExtension) (map[string]any, error) {
	u := unstructured.Unstructured{}
	if err := u.UnmarshalJSON(rx.Raw); err != nil {
		return nil, err
	}
	return u.Object, nil
}

// sameIdentity checks that the webhook kept kind, name, namespace and uid.
func sameIdentity(in, out map[string]any) error {
	for _, c := range [...]struct{ what, a, b string }{
		{"kind", str(in, "kind"), str(out, "kind")},
		{"name", str(in, "metadata", "name"), str(out, "metadata", "name")},
		{"namespace", str(in, "metadata", "namespace"), str(out, "metadata", "namespace")},
		{"UID", str(in, "metadata", "uid"), str(out, "metadata", "uid")},
	} {
		if c.a != c.b {
			return fmt.Errorf("must have the same %s: %v != %v", c.what, c.a, c.b)
		}
	}
	return nil
}

// RestoreMetadata replaces converted's metadata with a copy of original's,
// keeping only labels and annotations from converted, as the server does
// with a webhook's answer: labels and annotations absent or null in
// converted are deleted, their values must be strings, and changed ones
// must be valid. Every other metadata change is reverted. It modifies
// converted.
func RestoreMetadata(original, converted map[string]any) error {
	resp, found := converted["metadata"]
	if !found {
		return errors.New("missing metadata in converted object")
	}
	respMeta, ok := resp.(map[string]any)
	if !ok {
		return fmt.Errorf("invalid metadata of type %T in converted object", resp)
	}
	if om, ok := original["metadata"]; ok {
		converted["metadata"] = deepCopy(om)
	} else {
		converted["metadata"] = map[string]any{}
	}
	meta, ok := converted["metadata"].(map[string]any)
	if !ok {
		return fmt.Errorf("invalid metadata of type %T in input object", converted["metadata"])
	}
	for _, fld := range [...]string{"labels", "annotations"} {
		v, found := respMeta[fld]
		if !found || v == nil {
			delete(meta, fld)
			continue
		}
		got, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("invalid metadata.%s of type %T in converted object", fld, v)
		}
		had, ok := meta[fld].(map[string]any)
		if !ok && meta[fld] != nil {
			return fmt.Errorf("invalid metadata.%s of type %T in original object", fld, meta[fld])
		}
		changed := len(had) != len(got)
		for k, x := range got {
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("metadata.%s[%s] must be a string, but is %T in converted object", fld, k, x)
			}
			if h, ok := had[k].(string); !ok || h != s {
				changed = true
			}
		}
		if changed {
			if err := validateStrings(fld, got); err != nil {
				return err
			}
		}
		meta[fld] = got
	}
	return nil
}

// validateStrings validates labels or annotations with the server's
// validators (and its path for annotations, metadata.annotation).
func validateStrings(fld string, m map[string]any) error {
	sm := make(map[string]string, len(m))
	for k, v := range m {
		sm[k] = v.(string)
	}
	var errs field.ErrorList
	if fld == "labels" {
		errs = metav1validation.ValidateLabels(sm, field.NewPath("metadata", "labels"))
	} else {
		errs = apivalidation.ValidateAnnotations(sm, field.NewPath("metadata", "annotation"))
	}
	if len(errs) > 0 {
		return errs.ToAggregate()
	}
	return nil
}
