package crdkit

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FuzzDecodeStored: decodeStored's one-pass decode answers exactly as the
// storage codec (unstructured's JSON scheme) does: the same object, or an
// error where it fails.
func FuzzDecodeStored(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"a/v1","kind":"K","metadata":{"name":"x"},"spec":{"n":1,"f":1.5,"big":123456789012345678901,"e":1e3,"neg":-0}}`,
		`{"kind":"K","kind":"L","items":[1,2]}`, `{"kind":7}`, `{"kind":""}`, `[]`, `null`, `{`, `{"kind":"K","a":"\ud800"}`,
		`{"kind":"K","n":9223372036854775807,"m":-9223372036854775808,"o":9223372036854775808}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeStored(data)
		u := &unstructured.Unstructured{}
		werr := u.UnmarshalJSON(data)
		if (err == nil) != (werr == nil) {
			t.Fatalf("decodeStored(%q) error %v, the scheme's %v", data, err, werr)
		}
		if err != nil {
			if err.Error() != werr.Error() {
				t.Fatalf("decodeStored(%q) error %q, the scheme's %q", data, err, werr)
			}
			return
		}
		if !reflect.DeepEqual(got, u.Object) {
			t.Fatalf("decodeStored(%q) = %#v, the scheme's %#v", data, got, u.Object)
		}
	})
}
