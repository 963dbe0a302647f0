package crdkit

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestNewInvalidIsTheServers compares newInvalid with apimachinery's
// NewInvalid on lists with repeated errors: the same Status, byte for byte.
func TestNewInvalidIsTheServers(t *testing.T) {
	gk := runtimeschema.GroupKind{Group: "stable.example.com", Kind: "CronTab"}
	r := rand.New(rand.NewPCG(1, 2))
	// Fields and values with ": " in them: ("a: b", "c") and ("a", "b: c")
	// are one text, which the server lists once.
	keys := []string{"f0", "f1", "f2", "f3", "a: b", "a"}
	values := []any{0, 1, 2, "b: c", "c", "é\"x"}
	for n := range 80 {
		var errs field.ErrorList
		for range n {
			p := field.NewPath("spec").Child(keys[r.IntN(len(keys))])
			switch r.IntN(4) {
			case 0:
				errs = append(errs, field.Invalid(p, values[r.IntN(len(values))], "bad"))
			case 1:
				errs = append(errs, field.Required(p, ""))
			case 2:
				errs = append(errs, &field.Error{Type: field.ErrorTypeInvalid, Field: "spec.a", BadValue: values[r.IntN(len(values))]})
			default:
				errs = append(errs, field.TooLong(p, "", 3))
			}
		}
		name := fmt.Sprint("x", n, "\t\"")
		got, want := newInvalid(gk, name, errs), apierrors.NewInvalid(gk, name, errs)
		if !reflect.DeepEqual(got.ErrStatus, want.ErrStatus) {
			t.Fatalf("newInvalid(%d errors) =\n%#v\nwant\n%#v", n, got.ErrStatus, want.ErrStatus)
		}
	}
}
