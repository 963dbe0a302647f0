package crdhead

import (
	"slices"
	"strings"
)

// JSON reads the head of a CRD from a JSON document without decoding the
// rest: it reads the objects that hold the head's fields and skips every
// other value by its brackets and strings, without checking it. It gives
// up (ok false: the caller decodes the document) at what it is not sure
// of: a document that is not one JSON object, a key with escapes or
// bytes past ASCII, a key
// given twice or that differs from a head key only in case, a head value
// that is not an ASCII string without escapes (or, for served, true or false).
// The rest of the document is not validated: text that is not JSON past
// the head is read as the head says, and the document's full decoding
// tells otherwise.
func JSON(text []byte) (h Head, ok bool) {
	p := &jsonReader{b: text}
	ok = p.object(func(key string) bool {
		switch key {
		case "apiVersion":
			return p.str(&h.APIVersion)
		case "kind":
			return p.str(&h.Kind)
		case "spec":
			return p.object(func(key string) bool {
				switch key {
				case "group":
					return p.str(&h.Spec.Group)
				case "scope":
					return p.str(&h.Spec.Scope)
				case "names":
					n := &h.Spec.Names
					return p.object(func(key string) bool {
						switch key {
						case "kind":
							return p.str(&n.Kind)
						case "plural":
							return p.str(&n.Plural)
						case "singular":
							return p.str(&n.Singular)
						case "listKind":
							return p.str(&n.ListKind)
						case "shortNames":
							n.ShortNames = []string{}
							return p.array(func() bool {
								var s string
								ok := p.str(&s)
								n.ShortNames = append(n.ShortNames, s)
								return ok
							})
						}
						return p.skip()
					})
				case "versions":
					h.Spec.Versions = []Version{}
					return p.array(func() bool {
						var v Version
						ok := p.object(func(key string) bool {
							switch key {
							case "name":
								return p.str(&v.Name)
							case "served":
								return p.boolean(&v.Served)
							}
							return p.skip()
						})
						h.Spec.Versions = append(h.Spec.Versions, v)
						return ok
					})
				}
				return p.skip()
			})
		}
		return p.skip()
	})
	p.ws()
	if !ok || p.i != len(p.b) {
		return Head{}, false
	}
	return h, true
}

type jsonReader struct {
	b []byte
	i int
}

func (p *jsonReader) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek skips white space and reports whether the next byte is c.
func (p *jsonReader) peek(c byte) bool {
	p.ws()
	return p.i < len(p.b) && p.b[p.i] == c
}

// rawString reads a string, reporting whether it holds escapes.
func (p *jsonReader) rawString() (s []byte, escaped, ok bool) {
	if !p.peek('"') {
		return nil, false, false
	}
	p.i++
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			s = p.b[start:p.i]
			p.i++
			return s, escaped, true
		case c == '\\':
			escaped = true
			p.i += 2
		case c < 0x20:
			return nil, false, false
		default:
			p.i++
		}
	}
	return nil, false, false
}

// str reads a string without escapes into s.
func (p *jsonReader) str(s *string) bool {
	raw, escaped, ok := p.rawString()
	if !ok || escaped {
		return false
	}
	for _, c := range raw {
		if c >= 0x80 {
			return false // invalid UTF-8 is decoded to U+FFFD: leave it to the decoder
		}
	}
	*s = string(raw)
	return true
}

func (p *jsonReader) boolean(b *bool) bool {
	p.ws()
	switch {
	case strings.HasPrefix(string(p.b[p.i:min(p.i+5, len(p.b))]), "true"):
		*b, p.i = true, p.i+4
	case strings.HasPrefix(string(p.b[p.i:min(p.i+5, len(p.b))]), "false"):
		*b, p.i = false, p.i+5
	default:
		return false
	}
	return true
}

// isHeadKeyFold reports a key that differs from a head key only in case.
func isHeadKeyFold(key string) bool {
	return slices.ContainsFunc(headKeys, func(k string) bool { return k != key && strings.EqualFold(k, key) })
}

// object reads an object, calling value for each key to read its value.
func (p *jsonReader) object(value func(key string) bool) bool {
	if !p.peek('{') {
		return false
	}
	p.i++
	var seen []string
	if p.peek('}') {
		p.i++
		return true
	}
	for {
		var key string
		if !p.str(&key) {
			return false
		}
		if slices.Contains(seen, key) || isHeadKeyFold(key) {
			return false
		}
		seen = append(seen, key)
		if !p.peek(':') {
			return false
		}
		p.i++
		if !value(key) {
			return false
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling item for each element.
func (p *jsonReader) array(item func() bool) bool {
	if !p.peek('[') {
		return false
	}
	p.i++
	if p.peek(']') {
		p.i++
		return true
	}
	for {
		if !item() {
			return false
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

// skip passes over a value it does not read: a string, or a container by
// its brackets (strings in it skipped as strings), or a literal up to the
// next delimiter.
func (p *jsonReader) skip() bool {
	p.ws()
	if p.i >= len(p.b) {
		return false
	}
	switch p.b[p.i] {
	case '"':
		_, _, ok := p.rawString()
		return ok
	case '{', '[':
		depth := 0
		for p.i < len(p.b) {
			switch p.b[p.i] {
			case '"':
				if _, _, ok := p.rawString(); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					p.i++
					return true
				}
			}
			p.i++
		}
		return false
	case '}', ']', ',', ':':
		return false
	}
	start := p.i
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return p.i > start
		case '{', '[', '"', ':':
			return false
		}
		p.i++
	}
	return p.i > start
}
