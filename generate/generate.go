package generate

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdkit/crdkit"
)

// Options configure a [Generator]. Zero fields take the documented defaults.
type Options struct {
	// Seed selects the generated objects; the same seed, CRD and version give
	// the same cases byte for byte. Default 1.
	Seed uint64
	// MaxDepth is the depth below which only required properties are
	// generated (the root object is depth 0). Default 8.
	MaxDepth int
	// MaxNodes is a soft budget of values per object; once spent, only
	// required properties and minimum item counts are generated. Default 300.
	MaxNodes int
	// MaxItems is how many list elements or map entries are generated beyond
	// the schema's minimum. Default 2.
	MaxItems int
	// OptionalRatio is the probability of generating an optional property
	// near the root; it decays by 0.75 per level below depth 2. Default 0.6.
	OptionalRatio float64
	// Cases is the number of cases Cases returns at most. Default 150.
	Cases int
	// Namespace of namespaced objects. Default "default".
	Namespace string
	// MultiErrors is the number of cases with several errors at once (see
	// MultiErrorMutations) that Cases appends after the Options.Cases
	// cases, which stay as they are without them. Default 0.
	MultiErrors int
	// RuleBreaks is the number of "break-rule" cases Cases appends, last,
	// for a generator made by ForVersion: each gives one value that has
	// x-kubernetes-validations rules a new random value that breaks one of
	// them (and nothing else, by the version's create). Default 0.
	RuleBreaks int
	// SkipStatus leaves the root status out of objects and of mutations:
	// a create drops it when the version has a status subresource. The
	// "status" mutation kind still sends one.
	SkipStatus bool
}

func (o Options) withDefaults() Options {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 8
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = 300
	}
	if o.MaxItems <= 0 {
		o.MaxItems = 2
	}
	if o.OptionalRatio <= 0 {
		o.OptionalRatio = 0.6
	}
	if o.Cases <= 0 {
		o.Cases = 150
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	return o
}

// Generator generates objects and cases for one version of a CRD. It is
// immutable after New and safe for concurrent use.
type Generator struct {
	opts       Options
	crdName    string
	group      string
	version    string
	kind       string
	namespaced bool
	others     []string // other served versions
	root       *node
	seed       uint64 // opts.Seed mixed with CRD name and version
	statusSub  bool   // the version has a status subresource: a create drops status
	v          *crdkit.Version
}

// ForVersion compiles the schema of a loaded CRD version. Its generator
// also has [Generator.Valid] and [Generator.FromBytes] check objects with
// v's create pipeline, so that they satisfy CEL rules too where a retry
// finds an object that does.
func ForVersion(v *crdkit.Version, opts Options) (*Generator, error) {
	if v == nil {
		return nil, errors.New("generate: nil Version")
	}
	g, err := New(v.CRD().Definition(), v.Name(), opts)
	if err != nil {
		return nil, err
	}
	g.v = v
	return g, nil
}

// New compiles the openAPIV3Schema of version of crd. A version without a
// schema is generated as a free-form object.
func New(crd *apiextensionsv1.CustomResourceDefinition, version string, opts Options) (*Generator, error) {
	if crd == nil {
		return nil, errors.New("generate: nil CRD")
	}
	g := &Generator{
		opts:       opts.withDefaults(),
		crdName:    crd.Name,
		group:      crd.Spec.Group,
		version:    version,
		kind:       crd.Spec.Names.Kind,
		namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
	}
	var schema *apiextensionsv1.JSONSchemaProps
	found := false
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if v.Name == version {
			found = true
			g.statusSub = v.Subresources != nil && v.Subresources.Status != nil
			if v.Schema != nil {
				schema = v.Schema.OpenAPIV3Schema
			}
		} else if v.Served {
			g.others = append(g.others, v.Name)
		}
	}
	if !found {
		return nil, fmt.Errorf("generate: CRD %s has no version %q", crd.Name, version)
	}
	if schema == nil {
		t := true
		schema = &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &t}
	}
	g.root = compile(schema.DeepCopy(), 0)
	h := fnv.New64a()
	h.Write([]byte(crd.Name + "/" + version))
	g.seed = g.opts.Seed ^ h.Sum64()
	return g, nil
}

// APIVersion is the group/version of generated objects.
func (g *Generator) APIVersion() string { return g.group + "/" + g.version }

// Kind of generated objects.
func (g *Generator) Kind() string { return g.kind }

// Namespaced reports whether generated objects carry a namespace.
func (g *Generator) Namespaced() bool { return g.namespaced }

func (g *Generator) rand(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(g.seed, stream))
}

// Object generates an object meant to be valid for the schema: typed values
// within bounds, enums, formats, patterns (strings are generated from the
// regular expression and checked with Go's regexp, as the server does),
// lengths, item and property counts, unique set and map list elements,
// required properties and a chosen oneOf/anyOf branch (checked with the
// server's OpenAPI validator). Optional properties whose constraints the
// generator cannot satisfy are left out. CEL rules are not considered. The
// result has apiVersion, kind and metadata (name, and namespace when
// namespaced); seed selects the object.
func (g *Generator) Object(seed uint64, name string) map[string]any {
	return g.object(seed, name, g.opts.OptionalRatio)
}

func (g *Generator) object(seed uint64, name string, ratio float64) map[string]any {
	return g.objectFrom(g.rand(seed), name, ratio)
}

func (g *Generator) objectFrom(r *rand.Rand, name string, ratio float64) map[string]any {
	st := &state{r: r, opts: g.opts, ratio: ratio}
	v, _ := st.objectValue(g.rootForObjects(), 0)
	obj, _ := v.(map[string]any)
	if obj == nil {
		obj = map[string]any{}
	}
	obj["apiVersion"] = g.APIVersion()
	obj["kind"] = g.kind
	md := map[string]any{"name": name}
	if g.namespaced {
		md["namespace"] = g.opts.Namespace
	}
	obj["metadata"] = md
	return obj
}

// rootForObjects is the root node without the properties the generator
// sets itself.
func (g *Generator) rootForObjects() *node {
	r := *g.root
	r.embedded = false
	r.preserve = false
	skip := func(k string) bool {
		return k == "apiVersion" || k == "kind" || k == "metadata" || (g.opts.SkipStatus && k == "status")
	}
	r.names = nil
	for _, k := range g.root.names {
		if !skip(k) {
			r.names = append(r.names, k)
		}
	}
	r.required = map[string]bool{}
	for k := range g.root.required {
		if !skip(k) {
			r.required[k] = true
		}
	}
	r.validator = nil
	return &r
}
