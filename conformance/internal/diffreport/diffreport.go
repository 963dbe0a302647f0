// Package diffreport holds what the differential tests share to report
// disagreements: inputs cut to a readable length and a bounded list of
// failures.
package diffreport

import (
	"os"
	"testing"
)

// Truncate cuts an input to 600 bytes for a failure message, unless
// CRDKIT_FULL_INPUT is set.
func Truncate(s string) string {
	if len(s) > 600 && os.Getenv("CRDKIT_FULL_INPUT") == "" {
		return s[:600] + "..."
	}
	return s
}

// Fail fails t with the first 15 disagreements under label, and says how
// many more there are.
func Fail(t testing.TB, label string, differ []string) {
	t.Helper()
	for i, d := range differ {
		if i == 15 {
			t.Errorf("%s: %d more disagreements", label, len(differ)-15)
			break
		}
		t.Errorf("%s: %s", label, d)
	}
}
