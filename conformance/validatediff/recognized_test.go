package validatediff

import (
	"fmt"
	"slices"
	"testing"

	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/crdkit/crdkit/schema"
)

// TestFormatRecognizedAgrees compares schema.FormatRecognized with the
// server's GetUnrecognizedFormats at its default compatibility version (what
// its CRD strategy warns about) over every format name the server knows,
// spelling variants and unknown names, on every type.
func TestFormatRecognizedAgrees(t *testing.T) {
	names := []string{"", "foo", "int32", "int64", "float", "double", "int", "integer", "quantity", "url", "ip",
		"Date", "DATE", "date_time", "date--time", "-date-time-", "datetime", "date-time", "k8s-short-name", "k8sshortname",
		"k8s-long-name", "k8s--long-name", "uuid-4", "uuid4", "isbn-10", "credit-card", "hex-color", "rgb-color", "bson-object-id",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a-a-a-a-a-a-a-a-a-a-a-a-a-a-a-a-a-a-a", "int-32", "flo-at"}
	for n := range formatSeeds {
		names = append(names, n)
	}
	slices.Sort(names)
	cv := environment.DefaultCompatibilityVersion()
	agree, total := 0, 0
	for _, typ := range []string{"", "string", "integer", "number", "boolean", "object", "array", "null", "String"} {
		for _, f := range names {
			total++
			up := len(apiservervalidation.GetUnrecognizedFormats(&spec.Schema{SchemaProps: spec.SchemaProps{Format: f, Type: []string{typ}}}, cv)) == 0
			if got := schema.FormatRecognized(typ, f); got != up {
				t.Errorf("FormatRecognized(%q, %q) = %v, want %v", typ, f, got, up)
				continue
			}
			agree++
		}
	}
	fmt.Printf("conformance: format-recognized %d/%d cases agree\n", agree, total)
}
