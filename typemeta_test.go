package crdkit

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestValidateTypeMeta checks the apiVersion comparison, done piece by
// piece, against the whole string it stands for.
func TestValidateTypeMeta(t *testing.T) {
	crd := loadExample(t)
	for _, v := range crd.Versions() {
		want := crd.Group() + "/" + v.Name()
		for _, av := range []string{want, "", crd.Group(), want + "x", want[:len(want)-1], v.Name(), "/" + v.Name(),
			crd.Group() + "." + v.Name(), "x" + want[1:], want[:len(crd.Group())] + "/" + "x" + v.Name()[1:]} {
			errs := v.validateTypeMeta(map[string]any{"kind": crd.Kind(), "apiVersion": av})
			var exp field.ErrorList
			if av != want {
				exp = field.ErrorList{field.Invalid(field.NewPath("apiVersion"), av, "must be "+want)}
			}
			if errs.ToAggregate() == nil && exp.ToAggregate() == nil {
				continue
			}
			if errs.ToAggregate() == nil || exp.ToAggregate() == nil || errs.ToAggregate().Error() != exp.ToAggregate().Error() {
				t.Errorf("validateTypeMeta(%q) = %v, want %v", av, errs, exp)
			}
		}
	}
}
