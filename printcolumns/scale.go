package printcolumns

import (
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Scale returns the autoscaling/v1 Scale the server serves for a GET of obj's
// scale subresource, reading the replica counts and the label selector
// through the CRD's specReplicasPath, statusReplicasPath and
// labelSelectorPath. The paths are the dotted paths the CRD declares
// (".spec.replicas"); a leading dot is optional.
//
// As on the server:
//   - spec and status replicas must be JSON integers; they are truncated to
//     int32; a missing status value (or a missing object on the way) is 0;
//   - a missing spec value is an error: the server answers 500 with
//     `the spec replicas field "<path>" does not exist`, returned here as the
//     same *errors.StatusError;
//   - a value of the wrong type, or a non-object on the way, is an error
//     with the server's accessor message
//     (".spec.replicas accessor error: 1.5 is of the type float64, expected int64");
//   - the selector is read only when labelSelectorPath is set and not empty;
//     a missing selector is "";
//   - the Scale carries apiVersion autoscaling/v1, kind Scale, and the
//     object's name, namespace, uid, resourceVersion and creationTimestamp.
func Scale(obj map[string]any, scale apiextensionsv1.CustomResourceSubresourceScale) (*autoscalingv1.Scale, error) {
	spec, found, err := nestedInt64(obj, scale.SpecReplicasPath)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, apierrors.NewInternalError(fmt.Errorf("the spec replicas field %q does not exist", scale.SpecReplicasPath))
	}
	status, _, err := nestedInt64(obj, scale.StatusReplicasPath)
	if err != nil {
		return nil, err
	}
	var selector string
	if p := scale.LabelSelectorPath; p != nil && *p != "" {
		v, found, err := nestedValue(obj, *p)
		if err != nil {
			return nil, err
		}
		if found {
			s, ok := v.(string)
			if !ok {
				return nil, typeError(*p, v, "string")
			}
			selector = s
		}
	}
	u := unstructured.Unstructured{Object: obj}
	return &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              u.GetName(),
			Namespace:         u.GetNamespace(),
			UID:               u.GetUID(),
			ResourceVersion:   u.GetResourceVersion(),
			CreationTimestamp: u.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: int32(spec)},
		Status: autoscalingv1.ScaleStatus{Replicas: int32(status), Selector: selector},
	}, nil
}

func nestedInt64(obj map[string]any, path string) (int64, bool, error) {
	v, found, err := nestedValue(obj, path)
	if err != nil || !found {
		return 0, false, err
	}
	i, ok := v.(int64)
	if !ok {
		return 0, false, typeError(path, v, "int64")
	}
	return i, true, nil
}

// nestedValue follows a dotted path through nested objects, as the server's
// unstructured accessors do: a null on the way means not found, and any
// other non-object on the way is an error.
func nestedValue(obj map[string]any, path string) (any, bool, error) {
	rest := strings.TrimPrefix(path, ".")
	var v any = obj
	consumed := 0
	for {
		name, tail, more := strings.Cut(rest, ".")
		consumed += len(name)
		if v == nil {
			return nil, false, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%v accessor error: %v is of the type %T, expected map[string]interface{}",
				"."+strings.TrimPrefix(path, ".")[:consumed], v, v)
		}
		if v, ok = m[name]; !ok {
			return nil, false, nil
		}
		if !more {
			return v, true, nil
		}
		rest = tail
		consumed++ // the dot
	}
}

func typeError(path string, v any, want string) error {
	return fmt.Errorf("%v accessor error: %v is of the type %T, expected %s", "."+strings.TrimPrefix(path, "."), v, v, want)
}
