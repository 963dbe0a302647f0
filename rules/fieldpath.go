package rules

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var errNotAField = errors.New("does not refer to a valid field")

// resolveFieldPath resolves a rule's fieldPath (".a.b", "['a.b']", or a
// mix) against n, as the server's ValidFieldPath does, with its error texts.
// Names go through properties when n has any and through
// additionalProperties otherwise. It returns the path and the node reached
// (nil past an additionalProperties without a schema).
func resolveFieldPath(jsonPath string, n *node) (*field.Path, *node, error) {
	var p *field.Path
	toks := fieldPathTokens(jsonPath)
	step := func(name string) error {
		if n == nil {
			return errNotAField
		}
		switch {
		case n.props != nil:
			p = p.Child(name)
			c, ok := n.props[name]
			if !ok {
				return errNotAField
			}
			n = c.(*node)
		case n.addl != nil:
			p = p.Key(name)
			n = n.addl.schema
		default:
			return errNotAField
		}
		return nil
	}
	for i := 0; i < len(toks); i++ {
		switch toks[i] {
		case "[":
			i++
			if i == len(toks) {
				return nil, nil, errors.New("unexpected end of JSON path")
			}
			t := toks[i]
			if len(t) < 2 || t[0] != '\'' || t[len(t)-1] != '\'' {
				return nil, nil, fmt.Errorf("expected single quoted string but got %s", t)
			}
			name, err := unescapeQuoted(t[1 : len(t)-1])
			if err != nil {
				return nil, nil, fmt.Errorf("invalid string literal: %w", err)
			}
			if err := step(name); err != nil {
				return nil, nil, err
			}
			i++
			if i == len(toks) {
				return nil, nil, errors.New("unexpected end of JSON path")
			}
			if toks[i] != "]" {
				return nil, nil, fmt.Errorf("expected ] but got %s", toks[i])
			}
		case ".":
			i++
			if i == len(toks) {
				return nil, nil, errors.New("unexpected end of JSON path")
			}
			if err := step(toks[i]); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, fmt.Errorf("expected [ or . but got: %s", toks[i])
		}
	}
	return p, n, nil
}

// fieldPathTokens splits a field path into the delimiters '.', '[' and ']',
// single-quoted strings (a quote not preceded by a backslash ends one; an
// unterminated one runs to the end) and the text between delimiters.
func fieldPathTokens(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		j := i + 1
		switch s[i] {
		case '\'':
			for j = i + 1; j < len(s); j++ {
				if s[j] == '\'' && s[j-1] != '\\' {
					break
				}
			}
			if j < len(s) {
				j++
			}
		case '.', '[', ']':
		default:
			for j < len(s) && s[j] != '.' && s[j] != '[' && s[j] != ']' {
				j++
			}
		}
		toks = append(toks, s[i:j])
		i = j
	}
	return toks
}

// unescapeQuoted resolves the escapes of a single-quoted name: \a \b \f \n
// \r \t \v \' and \\. Any other escaped character is an error (the last one
// found is reported, as the server's replacement loop does); a backslash
// before a line break or at the end stays as it is.
func unescapeQuoted(s string) (string, error) {
	var err error
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) || s[i+1] == '\n' {
			out = append(out, c)
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i+1:])
		switch s[i+1] {
		case 'a':
			out = append(out, '\a')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'v':
			out = append(out, '\v')
		case '\'':
			out = append(out, '\'')
		case '\\':
			out = append(out, '\\')
		default:
			err = fmt.Errorf("invalid escape char %s", s[i:i+1+size])
		}
		i += size
	}
	return string(out), err
}
