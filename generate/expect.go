package generate

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit"
)

// Outcome is what the server is expected to answer for a case, as far as
// the generator states it.
type Outcome int

const (
	// Unstated: the answer depends on details the generator does not model
	// (nulls, number spellings, metadata, type meta, JSON syntax, several
	// breaks at once).
	Unstated Outcome = iota
	// Accepted: a create with field validation Warn or Ignore succeeds,
	// unless one of the case's Rules refuses it.
	Accepted
	// Refused: a create is refused with a 422 whose causes include one at
	// Expectation.Field of Expectation.Type.
	Refused
)

func (o Outcome) String() string {
	switch o {
	case Accepted:
		return "accepted"
	case Refused:
		return "refused"
	}
	return "unstated"
}

// Expectation is the generator's statement about a case.
type Expectation struct {
	Outcome Outcome
	// Field is the cause's field in the server's notation (spec.ports[0].name,
	// spec.labels.key for an additionalProperties key), Type its reason;
	// both empty unless Outcome is Refused.
	Field string
	Type  field.ErrorType
}

func (e Expectation) String() string {
	if e.Outcome != Refused {
		return e.Outcome.String()
	}
	return "refused: " + e.Field + " " + string(e.Type)
}

var accepted = Expectation{Outcome: Accepted}

func refused(path []any, t field.ErrorType) Expectation {
	return Expectation{Outcome: Refused, Field: serverField(path), Type: t}
}

// Rule is an x-kubernetes-validations rule at a value of an object. The
// generator does not solve CEL rules: an object it means to be valid may
// still be refused by one of them.
type Rule struct {
	Field string // the value's field in the server's notation; "" for the root
	Rule  string
}

// serverField renders a path of keys and indices as the server names the
// field of an OpenAPI validation error: keys joined by dots (map keys
// included), indices in brackets.
func serverField(path []any) string {
	var b []byte
	for _, e := range path {
		switch x := e.(type) {
		case string:
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, x...)
		case int:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(x), 10)
			b = append(b, ']')
		}
	}
	return string(b)
}

// rulesIn lists the rules of the schema nodes at which v (the root object)
// has a value, in walk order.
func (g *Generator) rulesIn(v any) []Rule {
	var out []Rule
	g.collectRules(g.root, v, nil, &out, 0)
	return out
}

func (g *Generator) collectRules(n *node, v any, path []any, out *[]Rule, depth int) {
	if n == nil || depth > maxSchemaDepth {
		return
	}
	for _, r := range n.rules {
		*out = append(*out, Rule{Field: serverField(path), Rule: r})
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range n.names {
			if cv, ok := x[k]; ok && !(depth == 0 && k == "metadata") {
				g.collectRules(n.props[k], cv, appendPath(path, k), out, depth+1)
			}
		}
		if n.addl != nil {
			for _, k := range sortedKeys(x) {
				if n.props[k] == nil {
					g.collectRules(n.addl, x[k], appendPath(path, k), out, depth+1)
				}
			}
		}
	case []any:
		for i, e := range x {
			g.collectRules(n.items, e, appendPath(path, i), out, depth+1)
		}
	}
}

// Rules lists the CEL rules of the object obj of this generator's CRD
// version, at the values obj has.
func (g *Generator) Rules(obj map[string]any) []Rule { return g.rulesIn(obj) }

// maxValidTries bounds the objects Valid and FromBytes try before giving
// up on the CEL rules.
const maxValidTries = 16

// Valid returns an object meant to be valid, as Object does; for a
// generator made by ForVersion it tries up to 16 objects and returns the
// first the version's create accepts, so that CEL rules hold where random
// choices satisfy them. unsatisfied lists the rules at the object's values
// when no object was accepted (for a generator made by New: always, as
// nothing checks them).
func (g *Generator) Valid(seed uint64, name string) (obj map[string]any, unsatisfied []Rule) {
	return g.valid(func(try uint64) *rand.Rand { return g.rand(seed ^ try<<40) }, name)
}

func (g *Generator) valid(source func(try uint64) *rand.Rand, name string) (map[string]any, []Rule) {
	first := g.objectFrom(source(0), name, g.opts.OptionalRatio)
	if g.v == nil {
		return first, g.rulesIn(first)
	}
	opts := crdkit.CreateOptions{FieldValidation: crdkit.Ignore, ManagedFields: crdkit.ManagedFields{Omit: true}}
	for try := uint64(0); try < maxValidTries; try++ {
		obj := first
		if try > 0 {
			obj = g.objectFrom(source(try), name, g.opts.OptionalRatio)
		}
		if res := g.v.Create(obj, opts); res.Err == nil {
			return obj, nil
		}
	}
	return first, g.rulesIn(first)
}

// FromBytes turns fuzzer input into an object of the CRD version: every
// random choice of the generator reads the next eight bytes of data (then a
// source seeded with its hash), so that a
// coverage-guided fuzzer mutating data explores objects. The object is
// meant to be valid as Object's are; for a generator made by ForVersion it
// is one the version's create accepts whenever one of up to 16 objects
// derived from data is. The same data gives the same object. Use it in a
// go test -fuzz target to feed a reconciler or webhook valid objects of
// your own CRD.
func (g *Generator) FromBytes(data []byte) map[string]any {
	h := fnv.New64a()
	h.Write(data)
	sum := h.Sum64()
	obj, _ := g.valid(func(try uint64) *rand.Rand {
		if try == 0 {
			return rand.New(&byteSource{data: data, rest: rand.NewPCG(sum, 0)})
		}
		return rand.New(rand.NewPCG(sum, try))
	}, "fuzz")
	return obj
}

// byteSource is a rand.Source reading its values from fuzzer input, then
// from a PCG seeded with the input's hash (a constant source would make
// math/rand's rejection sampling loop forever).
type byteSource struct {
	data []byte
	rest *rand.PCG
}

func (s *byteSource) Uint64() uint64 {
	if len(s.data) == 0 {
		return s.rest.Uint64()
	}
	var b [8]byte
	n := copy(b[:], s.data)
	s.data = s.data[n:]
	return binary.LittleEndian.Uint64(b[:])
}
