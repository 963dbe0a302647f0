package schema

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
)

// FieldPath resolves a rule's fieldPath (".spec.a", "['x']") against the
// structural schema s, with the server's grammar and error texts (the CEL
// ValidFieldPath helper). It returns the schema node the path names. The
// server's helper does not check that s is structural; callers do.
func FieldPath(s *Props, jsonPath string) (*Props, error) {
	_, n, err := ResolveFieldPath(s, jsonPath, true)
	return n, err
}

// ResolveFieldPath is FieldPath that also returns the field path the JSON
// path names (nil for the empty path). With allowArrays false, the bracket
// notation is refused ("array notation is not allowed"), as for selectable
// fields.
func ResolveFieldPath(s *Props, jsonPath string, allowArrays bool) (*Path, *Props, error) {
	var pth *Path
	step := func(name string) error {
		if s == nil {
			return errNotAField
		}
		if len(s.Properties) > 0 {
			pth = childOf(pth, name)
		} else if s.AdditionalProperties != nil {
			pth = keyOf(pth, name)
		}
		var err error
		s, err = fieldPathStep(s, name)
		return err
	}
	toks := splitFieldPath(jsonPath)
	for i := 0; i < len(toks); i++ {
		switch toks[i] {
		case "[":
			if !allowArrays {
				return nil, nil, errors.New("array notation is not allowed")
			}
			i++
			if i >= len(toks) {
				return nil, nil, errors.New("unexpected end of JSON path")
			}
			t := toks[i]
			if len(t) < 2 || t[0] != '\'' || t[len(t)-1] != '\'' {
				return nil, nil, fmt.Errorf("expected single quoted string but got %s", t)
			}
			name, err := unescapeSingleQuote(t[1 : len(t)-1])
			if err != nil {
				return nil, nil, fmt.Errorf("invalid string literal: %w", err)
			}
			if err := step(name); err != nil {
				return nil, nil, err
			}
			i++
			if i >= len(toks) {
				return nil, nil, errors.New("unexpected end of JSON path")
			}
			if toks[i] != "]" {
				return nil, nil, fmt.Errorf("expected ] but got %s", toks[i])
			}
		case ".":
			i++
			if i >= len(toks) {
				return nil, nil, errors.New("unexpected end of JSON path")
			}
			if err := step(toks[i]); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, fmt.Errorf("expected [ or . but got: %s", toks[i])
		}
	}
	return pth, s, nil
}

func childOf(p *Path, name string) *Path {
	if p == nil {
		return NewPath(name)
	}
	return p.Child(name)
}

func keyOf(p *Path, k string) *Path {
	return p.Key(k) // a nil parent makes the subscript the root, as upstream
}

// Root returns the first element of p (its field name, or "" for a
// subscript at the root).
func (p *Path) Root() string {
	if p == nil {
		return ""
	}
	for p.parent != nil {
		p = p.parent
	}
	if p.sub {
		return ""
	}
	return p.name
}

var errNotAField = errors.New("does not refer to a valid field")

func fieldPathStep(s *Props, name string) (*Props, error) {
	switch {
	case s == nil:
		return nil, errNotAField
	case len(s.Properties) > 0:
		f, ok := s.Properties[name]
		if !ok {
			return nil, errNotAField
		}
		return f, nil
	case s.AdditionalProperties != nil:
		return s.AdditionalProperties.Schema, nil
	}
	return nil, errNotAField
}

// splitFieldPath splits a path into '.', '[' and ']' tokens and the text
// between them; a token that starts with a single quote runs to the next
// unescaped single quote.
func splitFieldPath(p string) []string {
	var toks []string
	for len(p) > 0 {
		if p[0] == '\'' {
			end := -1
			for i := 1; i < len(p); i++ {
				if p[i] == '\'' && p[i-1] != '\\' {
					end = i
					break
				}
			}
			if end < 0 {
				toks = append(toks, p)
				break
			}
			toks = append(toks, p[:end+1])
			p = p[end+1:]
			continue
		}
		i := 0
		for i < len(p) && p[i] != '.' && p[i] != '[' && p[i] != ']' {
			i++
		}
		if i == 0 {
			i = 1
		}
		toks = append(toks, p[:i])
		p = p[i:]
	}
	return toks
}

var escapes = regexp.MustCompile(`\\.`)

func unescapeSingleQuote(s string) (string, error) {
	var err error
	out := escapes.ReplaceAllStringFunc(s, func(m string) string {
		switch m[1] {
		case 'a':
			return "\a"
		case 'b':
			return "\b"
		case 'f':
			return "\f"
		case 'n':
			return "\n"
		case 'r':
			return "\r"
		case 't':
			return "\t"
		case 'v':
			return "\v"
		case '\'':
			return "'"
		case '\\':
			return "\\"
		}
		err = fmt.Errorf("invalid escape char %s", m)
		return ""
	})
	return out, err
}

func sortStrings(s []string) { sort.Strings(s) }
