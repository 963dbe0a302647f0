package gen

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdkit/crdkit/generate"
)

type (
	// Generator is generate.Generator.
	Generator = generate.Generator
	// Options is generate.Options.
	Options = generate.Options
	// Case is generate.Case.
	Case = generate.Case
	// Number is generate.Number.
	Number = generate.Number
	// Member is generate.Member.
	Member = generate.Member
	// OrderedObject is generate.OrderedObject.
	OrderedObject = generate.OrderedObject
)

// Mutations and MultiErrorMutations are generate's.
var (
	Mutations           = generate.Mutations
	MultiErrorMutations = generate.MultiErrorMutations
)

// New is generate.New.
func New(crd *apiextensionsv1.CustomResourceDefinition, version string, opts Options) (*Generator, error) {
	return generate.New(crd, version, opts)
}

// Marshal is generate.Marshal.
func Marshal(v any) ([]byte, error) { return generate.Marshal(v) }
