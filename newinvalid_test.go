package crdkit

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestNewInvalidIsTheServers compares newInvalid with apimachinery's
// NewInvalid on lists with repeated errors: the same Status, byte for byte.
func TestNewInvalidIsTheServers(t *testing.T) {
	gks := []runtimeschema.GroupKind{{Group: "stable.example.com", Kind: "CronTab"}, {Kind: "Pod"}, {}}
	r := rand.New(rand.NewPCG(1, 2))
	// Fields and values with ": " in them: ("a: b", "c") and ("a", "b: c")
	// are one text, which the server lists once.
	keys := []string{"f0", "f1", "f2", "f3", "a: b", "a"}
	values := []any{0, 1, 2, "b: c", "c", "é\"x"}
	for n := range 120 {
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
		if n%7 == 3 {
			name = ""
		}
		gk := gks[n%len(gks)]
		got, want := newInvalid(gk, name, errs), apierrors.NewInvalid(gk, name, errs)
		if !reflect.DeepEqual(got.ErrStatus, want.ErrStatus) {
			t.Fatalf("newInvalid(%d errors) =\n%#v\nwant\n%#v", n, got.ErrStatus, want.ErrStatus)
		}
	}
}

// FuzzNewInvalid compares newInvalid with the server's NewInvalid on error
// lists made from the input: fields, values and details cut from it, so
// that texts repeat and run into each other.
func FuzzNewInvalid(f *testing.F) {
	f.Add("CronTab", "a: b|c|a|b: c|x|x", uint16(0x1234))
	f.Add("", "", uint16(0))
	f.Add("Pod", "é\"|\xff|f0|f0|f0", uint16(0xffff))
	f.Fuzz(func(t *testing.T, kind, data string, shape uint16) {
		parts := strings.Split(data, "|")
		var errs field.ErrorList
		for i := 0; i+1 < len(parts) && len(errs) < 64; i += 2 {
			p := field.NewPath(parts[i])
			switch (int(shape) >> (i % 14)) & 3 {
			case 0:
				errs = append(errs, field.Invalid(p, parts[i+1], "bad"))
			case 1:
				errs = append(errs, field.Required(p, parts[i+1]))
			case 2:
				errs = append(errs, &field.Error{Type: field.ErrorTypeInvalid, Field: parts[i], BadValue: len(parts[i+1])})
			default:
				errs = append(errs, field.TypeInvalid(p, parts[i+1], parts[i]))
			}
		}
		gk := runtimeschema.GroupKind{Group: data[:len(data)/3], Kind: kind}
		got, want := newInvalid(gk, kind, errs), apierrors.NewInvalid(gk, kind, errs)
		if !reflect.DeepEqual(got.ErrStatus, want.ErrStatus) {
			t.Fatalf("newInvalid =\n%#v\nwant\n%#v", got.ErrStatus, want.ErrStatus)
		}
	})
}
