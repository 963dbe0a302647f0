package main

import "bytes"

// typeMetaBytes is a document's type meta as scanTypeMetaBytes reads it:
// slices of the document, nil for what it does not name.
type typeMetaBytes struct {
	apiVersion, kind, name, namespace []byte
}

// scanTypeMeta reads a JSON document's type meta without decoding it: the
// top-level "apiVersion" and "kind" and metadata's "name" and "namespace",
// skipping every other value, as decodeTypeMeta reads them from valid
// JSON. It reports false (decode instead) at anything it is not sure of:
// escapes in a key or in a value it reads, a key that matches one of those
// only without regard to case, a value of theirs that is not a string, a
// metadata that is not an object. It does not check the rest of the JSON:
// see validateDoc.
func scanTypeMeta(b []byte) (typeMeta, bool) {
	tb, ok := scanTypeMetaBytes(b)
	var tm typeMeta
	if ok {
		tm.APIVersion, tm.Kind = string(tb.apiVersion), string(tb.kind)
		tm.Metadata.Name, tm.Metadata.Namespace = string(tb.name), string(tb.namespace)
	}
	return tm, ok
}

// scanTypeMetaBytes is scanTypeMeta without allocating: the values are
// slices of b.
func scanTypeMetaBytes(b []byte) (tm typeMetaBytes, ok bool) {
	s := typeMetaScanner{b: b}
	s.ws()
	if s.i >= len(b) || b[s.i] != '{' {
		return tm, false
	}
	return tm, s.object(&tm, true)
}

// typeMetaScanner is scanTypeMetaBytes's place in its document.
type typeMetaScanner struct {
	b []byte
	i int
}

func (s *typeMetaScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// str reads a string without escapes at b[i] == '"'.
func (s *typeMetaScanner) str() ([]byte, bool) {
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			return nil, false
		case '"':
			s.i = j + 1
			return s.b[start:j], true
		}
	}
	return nil, false
}

// object reads the members of the object at b[i] == '{': the document's
// (top) or its metadata's.
func (s *typeMetaScanner) object(tm *typeMetaBytes, top bool) bool {
	b := s.b
	s.i++ // '{'
	s.ws()
	if s.i < len(b) && b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.ws()
		if s.i >= len(b) || b[s.i] != '"' {
			return false
		}
		key, ok := s.str()
		if !ok {
			return false
		}
		s.ws()
		if s.i >= len(b) || b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		if s.i >= len(b) {
			return false
		}
		// A key that is one of those read only without regard to case
		// (encoding/json would take it) fails the scan.
		var dst *[]byte
		metadata := false
		if top {
			switch {
			case string(key) == "apiVersion":
				dst = &tm.apiVersion
			case string(key) == "kind":
				dst = &tm.kind
			case string(key) == "metadata":
				metadata = true
			case bytes.EqualFold(key, []byte("apiVersion")) || bytes.EqualFold(key, []byte("kind")) || bytes.EqualFold(key, []byte("metadata")):
				return false
			}
		} else {
			switch {
			case string(key) == "name":
				dst = &tm.name
			case string(key) == "namespace":
				dst = &tm.namespace
			case bytes.EqualFold(key, []byte("name")) || bytes.EqualFold(key, []byte("namespace")):
				return false
			}
		}
		switch {
		case metadata:
			if b[s.i] != '{' || !s.object(tm, false) {
				return false
			}
		case dst != nil:
			if b[s.i] != '"' {
				return false
			}
			v, ok := s.str()
			if !ok {
				return false
			}
			*dst = v
		case b[s.i] == '"':
			i := s.i + 1
			for ; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			s.i = i + 1
		default:
			if !skipJSON(b, &s.i) {
				return false
			}
		}
		s.ws()
		if s.i >= len(b) {
			return false
		}
		switch b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}
