package crdjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/internal/corpus"
)

// corpusCRDs returns the JSON of every CRD document of the corpus, or
// skips.
func corpusCRDs(tb testing.TB) []corpus.Doc {
	tb.Helper()
	root, ok := corpus.Root()
	if !ok {
		tb.Skip("corpus not found: set CRDKIT_CORPUS or put it at ../shared/corpus")
	}
	docs, err := corpus.Walk(filepath.Join(root, "crds"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []corpus.Doc
	for _, d := range docs {
		var tm struct{ Kind string }
		if json.Unmarshal(d.JSON, &tm) == nil && tm.Kind == "CustomResourceDefinition" {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		tb.Fatal("no CRD in the corpus")
	}
	return out
}

// check holds Decode to kjson.UnmarshalStrict on js: when Decode is sure,
// upstream must decode with no error nor strict error to an equal CRD.
// handled says whether Decode was sure.
func check(js []byte) (handled bool, err error) {
	got, ok := Decode(js)
	if !ok {
		if got != nil {
			return false, fmt.Errorf("Decode = %v, false: want nil", got)
		}
		return false, nil
	}
	want := new(apiextensionsv1.CustomResourceDefinition)
	strict, uerr := kjson.UnmarshalStrict(js, want)
	if uerr != nil {
		return true, fmt.Errorf("Decode ok, want not ok: upstream error %v", uerr)
	}
	if len(strict) > 0 {
		return true, fmt.Errorf("Decode ok, want not ok: upstream strict errors %v", strict)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if len(g) > 300 {
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			lo := max(i-100, 0)
			g, w = g[lo:min(len(g), i+100)], w[lo:min(len(w), i+100)]
		}
		return true, fmt.Errorf("Decode = %s, want %s (%#v)", g, w, reflect.DeepEqual(got.Spec, want.Spec))
	}
	return true, nil
}

// member is an object member of a JSON text: its key's opening quote,
// its value's first byte and the end of its value.
type member struct{ key, val, end int }

// members lists the object members of a valid JSON text.
func members(js []byte) []member {
	d := decoder{data: js}
	var out []member
	var walk func() bool
	walk = func() bool {
		switch d.peek() {
		case '{':
			d.i++
			for first := true; ; first = false {
				if !first && d.peek() == ',' {
					d.i++
				}
				ks := d.i
				if d.peek() == '}' {
					d.i++
					return true
				}
				ks = d.i
				_, done, ok := d.key(true)
				if !ok || done {
					return ok
				}
				vs := len(out)
				out = append(out, member{key: ks, val: d.i})
				d.ws()
				out[vs].val = d.i
				if !walk() {
					return false
				}
				out[vs].end = d.i
			}
		case '[':
			d.i++
			for first := true; ; first = false {
				if d.peek() == ']' {
					d.i++
					return true
				}
				if !first {
					if d.peek() != ',' {
						return false
					}
					d.i++
				}
				if !walk() {
					return false
				}
			}
		default:
			return d.skip()
		}
	}
	if !walk() {
		return nil
	}
	return out
}

func splice(js []byte, from, to int, with string) []byte {
	out := make([]byte, 0, len(js)+len(with))
	out = append(out, js[:from]...)
	out = append(out, with...)
	return append(out, js[to:]...)
}

var replacements = []string{
	`null`, `1`, `1.0`, `1e3`, `-0`, `-1`, `1e400`, `1e-400`, `9223372036854775807`, `9223372036854775808`,
	`-9223372036854775809`, `2147483647`, `2147483648`, `0.5`, `true`, `false`, `{}`, `[]`, `[null]`, `[1]`,
	`["a"]`, `""`, `"a\"b\\c\/d\n"`, `"\u00e9\u2028"`, `"é"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`,
	`"\ud800\u0041"`, "\"\x01\"", "\"\xff\"", "\"\xed\xa0\x80\"", `"\x"`, `{"a":null}`, `{"type":"string"}`,
	`[{"type":"string"}]`, `{"Type":"string"}`, `{"type":"string","type":"integer"}`, `01`, `1.`, `.5`, `+1`,
}

// mutations returns n variations of the valid JSON text js.
func mutations(js []byte, n int, rng *rand.Rand) [][]byte {
	ms := members(js)
	if len(ms) == 0 {
		return nil
	}
	var out [][]byte
	for len(out) < n {
		m := ms[rng.IntN(len(ms))]
		key := string(js[m.key:m.val])
		switch rng.IntN(12) {
		case 0: // drop the member (and a comma after it, if any)
			end := m.end
			for end < len(js) && (js[end] == ' ' || js[end] == '\n') {
				end++
			}
			if end < len(js) && js[end] == ',' {
				end++
			}
			out = append(out, splice(js, m.key, end, ""))
		case 1: // duplicate it
			out = append(out, splice(js, m.end, m.end, ","+string(js[m.key:m.end])))
		case 2: // rename the key
			out = append(out, splice(js, m.key+1, m.key+1, "x"))
		case 3: // change the case of its first letter
			c := js[m.key+1]
			switch {
			case 'a' <= c && c <= 'z':
				c -= 'a' - 'A'
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			}
			out = append(out, splice(js, m.key+1, m.key+2, string(c)))
		case 4, 5, 6: // replace its value
			out = append(out, splice(js, m.val, m.end, replacements[rng.IntN(len(replacements))]))
		case 7: // trailing bytes
			out = append(out, append(bytes.Clone(js), []string{" x", "}", " {}", "\n", "\x00", " null"}[rng.IntN(6)]...))
		case 8: // truncate
			out = append(out, js[:rng.IntN(len(js))])
		case 9: // a byte changed
			b := bytes.Clone(js)
			const alphabet = "{}[],:\"\\ 0a-.e\x00\xc3"
			b[rng.IntN(len(b))] = alphabet[rng.IntN(len(alphabet))]
			out = append(out, b)
		case 10: // a key copied into a sibling-less object
			out = append(out, splice(js, m.val, m.end, "{"+key+"1}"))
		case 11: // escapes in the key
			out = append(out, splice(js, m.key+1, m.key+2, fmt.Sprintf(`\u%04x`, js[m.key+1])))
		}
	}
	return out
}

// TestDecodeCorpus holds Decode to kjson.UnmarshalStrict on every corpus
// CRD (as it is, compacted and re-indented), and on mutations of them.
func TestDecodeCorpus(t *testing.T) {
	docs := corpusCRDs(t)
	nMut := 150
	if testing.Short() {
		nMut = 20
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var crds, crdsAgree, crdsHandled, muts, mutsAgree, mutsHandled int
	for _, doc := range docs {
		var compact, indented bytes.Buffer
		if err := json.Compact(&compact, doc.JSON); err != nil {
			t.Fatal(err)
		}
		if err := json.Indent(&indented, doc.JSON, "", "  "); err != nil {
			t.Fatal(err)
		}
		for i, js := range [][]byte{doc.JSON, compact.Bytes(), append([]byte(" \n\t"), append(indented.Bytes(), "\r\n"...)...)} {
			crds++
			handled, err := check(js)
			if err != nil {
				t.Errorf("Decode(%s, form %d): %v", doc.Name, i, err)
			} else {
				crdsAgree++
			}
			if !handled {
				t.Errorf("Decode(%s, form %d) = not ok, want ok (a corpus CRD)", doc.Name, i)
				continue
			}
			crdsHandled++
		}
		ms := mutations(doc.JSON, nMut, rng)
		if len(ms) == 0 {
			t.Errorf("members(%s) found none", doc.Name)
		}
		for i, js := range ms {
			muts++
			handled, err := check(js)
			if err != nil {
				t.Errorf("Decode(%s, mutation %d): %v", doc.Name, i, err)
			} else {
				mutsAgree++
			}
			if handled {
				mutsHandled++
			}
		}
	}
	fmt.Printf("conformance: crdjson.Decode equal to kjson.UnmarshalStrict %d/%d corpus CRD texts (%d documents x 3 forms; handled %d), %d/%d mutations (handled %d)\n",
		crdsAgree, crds, len(docs), crdsHandled, mutsAgree, muts, mutsHandled)
}
