package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// appendIndentedJSON appends v as the result writer's encoder writes it
// (encoding/json, keys sorted, two spaces an indent after prefix, HTML
// not escaped) without reflection: the objects of accepted results are
// most of -o json, and encoding them here, on the worker that checked
// them, is several times cheaper. It reports false for a value holding a
// type it does not write (floats among them: their spelling is
// encoding/json's own), leaving the result writer's encoder to it.
// TestAppendIndentedJSON and FuzzAppendIndentedJSON hold it to
// encoding/json's output.
func appendIndentedJSON(b []byte, v any, prefix string) ([]byte, bool) {
	return appendIndented(b, v, prefix, 0)
}

func appendIndented(b []byte, v any, prefix string, depth int) ([]byte, bool) {
	if depth > 10000 {
		return b, false
	}
	newline := func(b []byte, d int) []byte {
		b = append(b, '\n')
		b = append(b, prefix...)
		for range d {
			b = append(b, "  "...)
		}
		return b
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case string:
		return appendJSONString(b, x), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case map[string]any:
		if len(x) == 0 {
			return append(b, "{}"...), true
		}
		// The members, sorted by key: taken with their values in one
		// pass over the map (no lookup per key after the sort).
		var small [16]member
		ms := small[:0]
		for k, v := range x {
			ms = append(ms, member{k, v})
		}
		if len(ms) <= len(small) {
			for i := 1; i < len(ms); i++ {
				for j := i; j > 0 && ms[j].k < ms[j-1].k; j-- {
					ms[j], ms[j-1] = ms[j-1], ms[j]
				}
			}
		} else {
			slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.k, b.k) })
		}
		b = append(b, '{')
		for i, m := range ms {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, depth+1)
			b = appendJSONString(b, m.k)
			b = append(b, ": "...)
			var ok bool
			if b, ok = appendIndented(b, m.v, prefix, depth+1); !ok {
				return b, false
			}
		}
		return append(newline(b, depth), '}'), true
	case []any:
		if len(x) == 0 {
			return append(b, "[]"...), true
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, depth+1)
			var ok bool
			if b, ok = appendIndented(b, e, prefix, depth+1); !ok {
				return b, false
			}
		}
		return append(newline(b, depth), ']'), true
	}
	return b, false
}

// member is a member of an object that appendIndented writes.
type member struct {
	k string
	v any
}

// appendJSONString appends s quoted as encoding/json quotes it with HTML
// escaping off; strings with anything but printable ASCII other than '"'
// and '\' go through encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}
