package schema

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkPropIndex checks that Property finds every declared name of every
// node under s and nothing else, for names close to the declared ones.
func checkPropIndex(t *testing.T, s *Schema, indexed, nodes *int) {
	t.Helper()
	if s == nil {
		return
	}
	if len(s.propNames) > 0 {
		*nodes++
		if s.index != nil {
			*indexed++
		}
	}
	for i, name := range s.propNames {
		if got := s.Property(name); got != s.propNodes[i] {
			t.Fatalf("Property(%q) = %p, want %p", name, got, s.propNodes[i])
		}
		probes := []string{"", name + "x", "x" + name, strings.ToUpper(name), strings.ToLower(name), name + "\x00"}
		if name != "" {
			probes = append(probes, name[:len(name)-1], name[:len(name)/2]+"_"+name[len(name)/2+1:])
		}
		for _, probe := range probes {
			want := s.props[probe]
			if got := s.Property(probe); got != want {
				t.Fatalf("Property(%q) on %q = %p, want %p", probe, s.propNames, got, want)
			}
		}
	}
	for _, c := range s.propNodes {
		checkPropIndex(t, c, indexed, nodes)
	}
	checkPropIndex(t, s.items, indexed, nodes)
	checkPropIndex(t, s.additional, indexed, nodes)
}

func TestPropertyIndexCorpus(t *testing.T) {
	schemas := corpusSchemas(t)
	if len(schemas) == 0 {
		t.Skip("corpus not found (set CRDKIT_CORPUS)")
	}
	var indexed, nodes int
	for name, js := range schemas {
		s, err := CompileJSON(js)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkPropIndex(t, s, &indexed, &nodes)
	}
	t.Logf("%d of %d nodes with properties have an index", indexed, nodes)
	if indexed < nodes*9/10 {
		t.Errorf("only %d of %d nodes have an index", indexed, nodes)
	}
}

// TestPropertyIndexRandom builds nodes from random and adversarial name sets
// (names that share length, first, middle and last bytes; the empty name)
// and checks every lookup against the map.
func TestPropertyIndexRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	var indexed, nodes int
	for round := range 3000 {
		n := 1 + r.IntN(60)
		props := map[string]*Props{}
		for len(props) < n {
			var k string
			switch round % 4 {
			case 0:
				k = word(1 + r.IntN(12))
			case 1: // same length and ends: only the inner bytes differ
				k = "m" + word(1) + "x" + word(3) + "s"
			case 2:
				k = fmt.Sprintf("field%d", r.IntN(1000))
			default:
				k = word(r.IntN(3)) // includes the empty name
			}
			props[k] = &Props{Type: "string"}
		}
		s, err := Compile(&Props{Type: "object", Properties: props})
		if err != nil {
			t.Fatal(err)
		}
		checkPropIndex(t, s, &indexed, &nodes)
		for range 50 {
			probe := word(r.IntN(14))
			if got, want := s.Property(probe), s.props[probe]; got != want {
				t.Fatalf("Property(%q) = %p, want %p", probe, got, want)
			}
		}
	}
	t.Logf("%d of %d random nodes have an index", indexed, nodes)
}

// BenchmarkPropertyLookup looks up, in every indexed node of the corpus
// schemas, each declared name (a copy, as a decoder's key is) and as many
// undeclared ones.
func BenchmarkPropertyLookup(b *testing.B) {
	type probe struct {
		s    *Schema
		name string
	}
	var probes []probe
	var walk func(s *Schema)
	walk = func(s *Schema) {
		if s == nil {
			return
		}
		if s.index != nil {
			for _, n := range s.propNames {
				probes = append(probes, probe{s, strings.Clone(n)}, probe{s, n + "x"})
			}
		}
		for _, c := range s.propNodes {
			walk(c)
		}
		walk(s.items)
		walk(s.additional)
	}
	for _, js := range corpusSchemas(b) {
		s, err := CompileJSON(js)
		if err != nil {
			b.Fatal(err)
		}
		walk(s)
	}
	if len(probes) == 0 {
		b.Skip("corpus not found (set CRDKIT_CORPUS)")
	}
	// index is crdkit's lookup; map is the upstream twin, the Go map of the
	// properties (upstream's schemas keep a map[string]JSONSchemaProps).
	for _, impl := range []struct {
		name string
		get  func(s *Schema, name string) *Schema
	}{
		{"index", (*Schema).Property},
		{"map", func(s *Schema, name string) *Schema { return s.props[name] }},
	} {
		b.Run(impl.name, func(b *testing.B) {
			found := 0
			for i := 0; i < b.N; i++ {
				for _, p := range probes {
					if impl.get(p.s, p.name) != nil {
						found++
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(probes)), "ns/lookup")
			if found != b.N*len(probes)/2 {
				b.Fatalf("found %d of %d", found, b.N*len(probes))
			}
		})
	}
}
