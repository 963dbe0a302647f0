package openapidiff

import (
	"testing"

	"github.com/crdkit/crdkit"
)

// TestAccepted: the documents are only defined for CRDs the server accepts.
func TestAccepted(t *testing.T) {
	for _, c := range crds(t) {
		if _, err := crdkit.New(c); err != nil {
			t.Errorf("New(%s) = %v", c.Name, err)
			continue
		}
		if errs := crdkit.Lint(c); len(errs) > 0 {
			t.Errorf("Lint(%s) = %v", c.Name, errs)
		}
	}
}
