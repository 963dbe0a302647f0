package prune

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/crdkit/crdkit/schema"
)

// decode decodes JSON as the API server does: integral numbers become int64,
// other numbers float64.
func decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errTrailing
	}
	return numbers(v), nil
}

var errTrailing = errors.New("trailing data after the JSON value")

func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	}
	return v
}

func mustDecode(t testing.TB, data []byte) any {
	t.Helper()
	v, err := decode(data)
	if err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

func mustCompile(t testing.TB, data []byte) *schema.Schema {
	t.Helper()
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	s, err := schema.CompileJSON(data)
	if err != nil {
		t.Fatalf("compile %s: %v", data, err)
	}
	return s
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// tableCase is one entry of testdata/cases.json. The conformance module
// checks every entry against the server's pruning package.
type tableCase struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Root   bool            `json:"root"`
	Object json.RawMessage `json:"object"`
	Want   json.RawMessage `json:"want"`
	Pruned []string        `json:"pruned"`
}

func loadCases(t testing.TB) []tableCase {
	t.Helper()
	data, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []tableCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func samePaths(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// reference is a plain transcription of the pruning rules, kept as simple as
// possible: the optimised walks are fuzzed against it.
func reference(obj any, s *schema.Schema, root bool) []string {
	r := &refWalker{}
	emb := false
	if root {
		if s == nil {
			s = &schema.Schema{}
		}
		emb = true
	} else if s != nil {
		emb = s.EmbeddedResource()
	}
	r.prune(obj, s, emb, "", false)
	sort.Strings(r.paths)
	return r.paths
}

type refWalker struct{ paths []string }

func join(parent string, nested bool, k string) string {
	if !nested {
		return k
	}
	return parent + "." + k
}

func index(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

func isMetaKey(k string) bool {
	return k == "apiVersion" || k == "kind" || k == "metadata"
}

// prune prunes x at path p; nested says whether p is below the top (an empty
// key makes an empty path that is nested all the same).
func (r *refWalker) prune(x any, s *schema.Schema, emb bool, p string, nested bool) {
	if s != nil && s.PreserveUnknownFields() {
		r.skip(x, s, emb, p, nested)
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			if s == nil {
				r.paths = append(r.paths, join(p, nested, k))
				delete(x, k)
				continue
			}
			if emb && isMetaKey(k) {
				continue
			}
			addl, _, addlSet := s.AdditionalProperties()
			if c := s.Property(k); c != nil {
				r.prune(v, c, c.EmbeddedResource(), join(p, nested, k), true)
			} else if addlSet {
				r.prune(v, addl, addl != nil && addl.EmbeddedResource(), join(p, nested, k), true)
			} else {
				if !isMetaKey(k) || nested {
					r.paths = append(r.paths, join(p, nested, k))
				}
				delete(x, k)
			}
		}
	case []any:
		var items *schema.Schema
		if s != nil {
			items = s.Items()
		}
		for i, v := range x {
			r.prune(v, items, items != nil && items.EmbeddedResource(), index(p, i), true)
		}
	}
}

func (r *refWalker) skip(x any, s *schema.Schema, emb bool, p string, nested bool) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			if emb && isMetaKey(k) {
				continue
			}
			addl, _, addlSet := s.AdditionalProperties()
			if c := s.Property(k); c != nil {
				r.prune(v, c, c.EmbeddedResource(), join(p, nested, k), true)
			} else if addlSet {
				r.prune(v, addl, addl != nil && addl.EmbeddedResource(), join(p, nested, k), true)
			}
		}
	case []any:
		items := s.Items()
		for i, v := range x {
			r.skip(v, items, items != nil && items.EmbeddedResource(), index(p, i), true)
		}
	}
}

// deepCopyJSON is a plain recursive deep copy for the tests.
func deepCopyJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopyJSON(e)
		}
		return m
	case []any:
		if v == nil {
			return v
		}
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = deepCopyJSON(e)
		}
		return l
	}
	return v
}

// skipUnlessPoolsReuse skips an allocation count that depends on JSON's
// scratch coming back from its sync.Pool: the race detector makes a pool
// drop what is put in it at random, and a call that gets a new scratch
// makes its stacks again. Such counts are checked without the detector.
func skipUnlessPoolsReuse(t *testing.T) {
	var p sync.Pool
	for range 100 {
		x := new(int)
		p.Put(x)
		if p.Get() != x {
			t.Skip("sync.Pool drops items (race detector): allocation counts are not meaningful")
		}
	}
}
