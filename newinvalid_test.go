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
	for n := range 40 {
		var errs field.ErrorList
		for range n {
			p := field.NewPath("spec").Child(fmt.Sprint("f", r.IntN(4)))
			switch r.IntN(3) {
			case 0:
				errs = append(errs, field.Invalid(p, r.IntN(3), "bad"))
			case 1:
				errs = append(errs, field.Required(p, ""))
			default:
				errs = append(errs, field.TooLong(p, "", 3))
			}
		}
		got, want := newInvalid(gk, "x", errs), apierrors.NewInvalid(gk, "x", errs)
		if !reflect.DeepEqual(got.ErrStatus, want.ErrStatus) {
			t.Fatalf("newInvalid(%d errors) =\n%#v\nwant\n%#v", n, got.ErrStatus, want.ErrStatus)
		}
	}
}
