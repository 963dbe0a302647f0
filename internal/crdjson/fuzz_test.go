package crdjson

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/crdkit/crdkit/internal/corpus"
)

// FuzzDecode holds Decode to kjson.UnmarshalStrict on any input: when
// Decode is sure, upstream decodes without an error or a strict error to an
// equal CRD.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(wrapSchema(`{"type":"object","properties":{"a":{"type":"integer","minimum":1,"default":1}},"required":[]}`)))
	f.Add([]byte(wrapSchema(`{"items":[{"enum":["a","b"]}],"additionalProperties":false,"x-kubernetes-validations":[{"rule":"true"}]}`)))
	f.Add([]byte(`{"metadata":{"creationTimestamp":null,"labels":{"a":"b"}},"status":{"conditions":[],"storedVersions":[]}}`))
	if _, ok := corpus.Root(); ok {
		for _, d := range corpusCRDs(f) {
			var b bytes.Buffer
			if json.Compact(&b, d.JSON) == nil && b.Len() < 64<<10 {
				f.Add(b.Bytes())
			}
		}
	}
	f.Fuzz(func(t *testing.T, js []byte) {
		if _, err := check(js); err != nil {
			t.Fatalf("Decode(%q): %v", js, err)
		}
	})
}
