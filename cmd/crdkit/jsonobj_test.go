package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/crdkit/crdkit/internal/corpus"
)

// indentedByEncoder is how the result writer's encoder writes v under
// prefix.
func indentedByEncoder(v any, prefix string) []byte {
	var buf bytes.Buffer
	_ = newIndentEncoder(&buf, prefix).Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// decodeForWriter decodes JSON as the results hold it: integers as int64,
// other numbers as float64.
func decodeForWriter(js []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	var conv func(any) any
	conv = func(v any) any {
		switch x := v.(type) {
		case json.Number:
			if i, err := x.Int64(); err == nil {
				return i
			}
			f, _ := x.Float64()
			return f
		case map[string]any:
			for k, e := range x {
				x[k] = conv(e)
			}
		case []any:
			for i, e := range x {
				x[i] = conv(e)
			}
		}
		return v
	}
	return conv(v), true
}

func checkIndented(t *testing.T, name string, v any) {
	got, ok := appendIndentedJSON(nil, v, "      ")
	if !ok {
		return
	}
	if want := indentedByEncoder(v, "      "); !bytes.Equal(got, want) {
		t.Errorf("appendIndentedJSON(%s) = %s, want %s", name, got, want)
	}
}

// TestAppendIndentedJSON writes every corpus object, and values of every
// kind, as encoding/json writes them.
func TestAppendIndentedJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"empty map", map[string]any{}},
		{"empty list", []any{}},
		{"scalars", map[string]any{"b": true, "n": nil, "i": int64(-5), "j": 7, "s": "a\"b\\c\n\u2028<&>é\x01", "z": []any{map[string]any{}, []any{"x"}}}},
		{"float", map[string]any{"f": 1.5}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkIndented(t, tc.name, tc.v) })
	}
	root, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found: set CRDKIT_CORPUS or put it at ../shared/corpus")
	}
	ds, err := corpus.Walk(filepath.Join(root, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if v, ok := decodeForWriter(d.JSON); ok {
			checkIndented(t, d.Name, v)
		}
	}
}

// FuzzAppendIndentedJSON: whatever the JSON, a value appendIndentedJSON
// writes is written as encoding/json writes it.
func FuzzAppendIndentedJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,"x\u2028",{"b":null}],"c":true,"d":"é"}`))
	f.Add([]byte(`"\ud800"`))
	f.Fuzz(func(t *testing.T, js []byte) {
		if v, ok := decodeForWriter(js); ok {
			checkIndented(t, "fuzz", v)
		}
	})
}
