package structdiff

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/schema"
)

// knownDivergences are the differences from upstream that the comparisons
// above classify instead of failing on, each with a reproduction. When one
// is fixed, TestKnownDivergences fails: remove it here and drop its
// classifier (caseFolded, duplicateKeys, the empty-name checks in
// path_test.go), so that it is caught again if it comes back.
var knownDivergences = []struct {
	name  string
	check func() (ours, theirs string)
}{
	{
		// ParseProps decodes items, additionalProperties, additionalItems
		// and dependencies from the last occurrence of a duplicated key
		// only; the server's decoder decodes every occurrence and fails.
		name: `duplicate keys: {"type":"object","additionalProperties":1,"additionalProperties":false}`,
		check: func() (string, string) {
			js := []byte(`{"type":"object","additionalProperties":1,"additionalProperties":false}`)
			return crdkit(js, schema.NewPath("root")).String(), upstream(js, field.NewPath("root"), "").String()
		},
	},
}

func TestKnownDivergences(t *testing.T) {
	still := 0
	for _, k := range knownDivergences {
		ours, theirs := k.check()
		if ours == theirs {
			t.Errorf("known divergence %q is gone (both say %s): remove it and its classifier", k.name, ours)
			continue
		}
		still++
		t.Logf("%s\n    crdkit:   %s\n    upstream: %s", k.name, ours, theirs)
	}
	fmt.Printf("conformance: structural known divergences %d\n", still)
}
