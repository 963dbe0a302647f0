// Package crdhead reads the head of a CustomResourceDefinition document
// (type meta, spec.group, spec.names, spec.scope, the names and served
// flags of spec.versions) without decoding the whole document: what
// routing requests to a CRD's kind needs, and far cheaper than converting
// and compiling it (a CRD is mostly its schemas).
package crdhead

import (
	"bytes"
	"slices"
	"strings"
)

// Head is what routing requests to a CRD needs from its document, with
// the JSON names of the fields it reads.
type Head struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Group string `json:"group"`
		Names struct {
			Kind       string   `json:"kind"`
			Plural     string   `json:"plural"`
			Singular   string   `json:"singular"`
			ShortNames []string `json:"shortNames"`
			ListKind   string   `json:"listKind"`
		} `json:"names"`
		Scope    string    `json:"scope"`
		Versions []Version `json:"versions"`
	} `json:"spec"`
}

// Version is a version's name and whether it is served.
type Version struct {
	Name   string `json:"name"`
	Served bool   `json:"served"`
}

// YAML reads the head of a CRD (type meta, spec.group, spec.names,
// spec.scope, the names and served flags of spec.versions) from a YAML document
// without converting the document, as the registry needs it for a CRD no
// input may ask for: a directory of CRDs is mostly schemas, and converting
// them all costs tens of milliseconds a CRD. It walks only the block
// mappings that hold those fields, skipping every other value by its
// indentation, and gives up (ok false: the caller converts the document)
// at anything whose reading it is not sure of: tabs, anchors, aliases,
// tags, quoted keys, flow collections, block or quoted scalars with
// escapes where it reads, a key given twice, values YAML would not read as
// the strings or booleans the fields are. When ok, the head is the one the
// converted document gives (cmd/crdkit's TestYAMLCRDHeadCorpus and FuzzYAMLCRDHead).
func YAML(text []byte) (h Head, ok bool) {
	ls, ok := contentLines(text)
	if !ok || len(ls) == 0 || ls[0].indent != 0 {
		return h, false
	}
	top, ok := blockMapping(ls, 0, len(ls), 0)
	if !ok {
		return h, false
	}
	for _, e := range top {
		switch e.key {
		case "apiVersion":
			h.APIVersion, ok = e.str()
		case "kind":
			h.Kind, ok = e.str()
		case "spec":
			ok = readSpec(ls, e, &h)
		}
		if !ok {
			return Head{}, false
		}
	}
	return h, true
}

func readSpec(ls []line, e entry, h *Head) bool {
	if e.value != nil {
		return false // a spec that is not a block mapping: leave it to the converter
	}
	spec, ok := e.mapping(ls)
	if !ok {
		return false
	}
	for _, e := range spec {
		switch e.key {
		case "group":
			h.Spec.Group, ok = e.str()
		case "scope":
			h.Spec.Scope, ok = e.str()
		case "names":
			ok = readNames(ls, e, h)
		case "versions":
			ok = readVersions(ls, e, h)
		}
		if !ok {
			return false
		}
	}
	return true
}

func readNames(ls []line, e entry, h *Head) bool {
	if e.value != nil {
		return false
	}
	names, ok := e.mapping(ls)
	if !ok {
		return false
	}
	n := &h.Spec.Names
	for _, e := range names {
		switch e.key {
		case "kind":
			n.Kind, ok = e.str()
		case "plural":
			n.Plural, ok = e.str()
		case "singular":
			n.Singular, ok = e.str()
		case "listKind":
			n.ListKind, ok = e.str()
		case "shortNames":
			n.ShortNames, ok = e.strings(ls)
		}
		if !ok {
			return false
		}
	}
	return true
}

func readVersions(ls []line, e entry, h *Head) bool {
	items, ok := e.sequence(ls)
	if !ok {
		return false
	}
	for _, it := range items {
		m, ok := blockMapping(ls, it.from, it.to, it.indent)
		if !ok || len(m) == 0 {
			return false
		}
		var v struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
		}
		for _, e := range m {
			switch e.key {
			case "name":
				v.Name, ok = e.str()
			case "served":
				switch string(e.value) {
				case "true":
					v.Served = true
				case "false":
				default:
					ok = false
				}
			}
			if !ok {
				return false
			}
		}
		h.Spec.Versions = append(h.Spec.Versions, v)
	}
	return true
}

// line is a line with content: its indentation and its text after it,
// without the line end and trailing spaces.
type line struct {
	indent int
	text   []byte
	// continued: the line's value goes on over the lines after it
	// (contentLines leaves them out).
	continued bool
}

// contentLines splits text into the lines that hold keys and items: not
// blank, not comments, not the content of a block scalar nor the further
// lines of a quoted or plain scalar (every line more indented than a key
// or item whose value starts on its own line is left out: whatever it is,
// it belongs to that value). It reports false on what would make the
// document's structure other than the indentation of these lines says: a
// tab in an indentation, a directive, a document marker, a quoted scalar
// that does not end, anything after one on its last line but a comment, a
// flow collection that does not end on its line.
func contentLines(text []byte) ([]line, bool) {
	// One allocation for a CRD's thousands of lines (bounded, so that a
	// text of mostly empty lines is not sized by them).
	out := make([]line, 0, min(bytes.Count(text, []byte{'\n'}), len(text)/16)+1)
	skipDeeperThan := -1
	for len(text) > 0 {
		var l []byte
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			l, text = text, nil
		}
		l = bytes.TrimRight(l, " \r")
		ind := 0
		for ind < len(l) && l[ind] == ' ' {
			ind++
		}
		if ind == len(l) {
			continue
		}
		if skipDeeperThan >= 0 && ind > skipDeeperThan {
			out[len(out)-1].continued = true
			continue
		}
		skipDeeperThan = -1
		if l[ind] == '#' {
			continue
		}
		if l[ind] == '\t' || l[ind] == '%' || bytes.Equal(l, []byte("---")) || bytes.Equal(l, []byte("...")) {
			return nil, false
		}
		out = append(out, line{indent: ind, text: l[ind:]})
		// The value on the line: after the items' dashes and the key.
		t, at, dash := l[ind:], ind, ind
		for isItem(t) {
			dash = at
			n := 1
			for n < len(t) && t[n] == ' ' {
				n++
			}
			t, at = t[n:], at+n
		}
		v, owner := t, dash // a scalar item: its further lines are deeper than its dash
		if _, kv, ok := cutKey(t); ok {
			v, owner = kv, at
		} else if len(t) > 0 && (t[0] == '"' || t[0] == '\'') {
			// A quoted key ("helm.sh/resource-policy": keep) is read as
			// such only where it is not read (blockMapping refuses it).
			if end := quotedEnd(t); end > 0 && end < len(t) && t[end] == ':' && (end+1 == len(t) || t[end+1] == ' ') {
				v, owner = bytes.TrimSpace(t[end+1:]), at
				if c := bytes.Index(v, []byte(" #")); c >= 0 && v[0] != '"' && v[0] != '\'' {
					v = bytes.TrimSpace(v[:c])
				}
				if len(v) > 0 && v[0] == '#' {
					v = nil
				}
				t = v
			}
		}
		if len(v) == 0 {
			continue
		}
		skipDeeperThan = owner
		switch v[0] {
		case '"', '\'':
			// kv is cut at a comment: take the value from the line.
			rest := t[bytes.Index(t, v[:1]):]
			end := quotedEnd(rest)
			for end < 0 && len(text) > 0 {
				// The scalar goes on, whatever the next lines' indentation.
				var next []byte
				if i := bytes.IndexByte(text, '\n'); i >= 0 {
					next, text = text[:i], text[i+1:]
				} else {
					next, text = text, nil
				}
				rest = append(append(rest[:len(rest):len(rest)], '\n'), bytes.TrimRight(next, "\r")...)
				end = quotedEnd(rest)
			}
			if end < 0 {
				return nil, false
			}
			if bytes.IndexByte(rest[:end], '\n') >= 0 {
				out[len(out)-1].continued = true
			}
			if after := bytes.TrimSpace(rest[end:]); len(after) > 0 && after[0] != '#' {
				return nil, false
			}
		case '[', '{':
			closer := map[byte]byte{'[': ']', '{': '}'}[v[0]]
			if v[len(v)-1] != closer || bytes.ContainsAny(v, "\"'#") {
				return nil, false
			}
		}
	}
	return out, true
}

// quotedEnd returns the index just past the quoted scalar at the start of
// t, or -1 when it does not end in t.
func quotedEnd(t []byte) int {
	q := t[0]
	for i := 1; i < len(t); i++ {
		switch {
		case q == '"' && t[i] == '\\':
			i++
		case t[i] == q && q == '\'' && i+1 < len(t) && t[i+1] == '\'':
			i++
		case t[i] == q:
			return i + 1
		}
	}
	return -1
}

// headKeys are the keys YAML reads. encoding/json, which reads the
// head of a converted document, matches keys without regard to case: a
// key that differs from one of these only in case makes the reading
// uncertain.
var headKeys = []string{"apiVersion", "kind", "spec", "group", "scope", "names", "plural", "singular", "listKind", "shortNames", "versions", "name", "served"}

// entry is one key of a block mapping: its inline value (nil when the
// value is on the following lines, from..to, more indented or, for a
// sequence, at the key's indentation).
type entry struct {
	key      string
	value    []byte
	from, to int
	indent   int // the mapping's
}

// blockMapping reads the lines from..to (all at indent or deeper) as a
// block mapping at indent. A key given twice, a quoted or complex key, or a
// line at indent that is not "key:" fails it.
func blockMapping(ls []line, from, to, indent int) ([]entry, bool) {
	var out []entry
	for i := from; i < to; {
		l := ls[i]
		if l.indent != indent {
			return nil, false
		}
		key, rest, ok := cutKey(l.text)
		if !ok || slices.ContainsFunc(out, func(e entry) bool { return strings.EqualFold(e.key, key) }) ||
			slices.ContainsFunc(headKeys, func(k string) bool { return k != key && strings.EqualFold(k, key) }) {
			return nil, false
		}
		e := entry{key: key, indent: indent}
		j := i + 1
		for j < to && (ls[j].indent > indent || ls[j].indent == indent && isItem(ls[j].text)) {
			j++
		}
		if len(rest) > 0 {
			e.value = rest
			if j > i+1 || l.continued {
				// A value that goes on: a block or multi-line scalar, or
				// a flow collection. Fine when it is not read.
				e.value = []byte{'|'}
			}
		}
		e.from, e.to = i+1, j
		out = append(out, e)
		i = j
	}
	return out, true
}

func isItem(t []byte) bool { return len(t) > 0 && t[0] == '-' && (len(t) == 1 || t[1] == ' ') }

// cutKey splits "key: value" (a plain key of letters, digits and ".-_/")
// into its key and its value without a trailing comment.
func cutKey(t []byte) (key string, value []byte, ok bool) {
	i := 0
	for i < len(t) && (t[i] >= 'a' && t[i] <= 'z' || t[i] >= 'A' && t[i] <= 'Z' || t[i] >= '0' && t[i] <= '9' || t[i] == '-' || t[i] == '_' || t[i] == '.' || t[i] == '/') {
		i++
	}
	if i == 0 || i >= len(t) || t[i] != ':' || i+1 < len(t) && t[i+1] != ' ' {
		return "", nil, false
	}
	value = bytes.TrimSpace(t[i+1:])
	if len(value) > 0 && value[0] == '#' {
		value = nil
	} else if c := bytes.Index(value, []byte(" #")); c >= 0 {
		value = bytes.TrimSpace(value[:c])
	}
	return string(t[:i]), value, true
}

// mapping reads the entry's value as a block mapping.
func (e entry) mapping(ls []line) ([]entry, bool) {
	if e.from == e.to {
		return nil, false
	}
	ind := ls[e.from].indent
	if ind <= e.indent {
		return nil, false
	}
	return blockMapping(ls, e.from, e.to, ind)
}

// item is one element of a block sequence whose content is a block mapping
// at indent over the lines from..to (the first line's text starts after
// its "- ").
type item struct {
	from, to, indent int
}

// sequence reads the entry's value as a block sequence of block mappings,
// rewriting each item's first line to its mapping's first key.
func (e entry) sequence(ls []line) ([]item, bool) {
	if e.value != nil || e.from == e.to {
		return nil, false
	}
	ind := ls[e.from].indent
	var out []item
	for i := e.from; i < e.to; {
		l := ls[i]
		if l.indent != ind || !isItem(l.text) {
			return nil, false
		}
		j := i + 1
		for j < e.to && ls[j].indent > ind {
			j++
		}
		rest := l.text[1:]
		k := 0
		for k < len(rest) && rest[k] == ' ' {
			k++
		}
		if k == len(rest) {
			return nil, false // "-" alone: the item starts on the next line
		}
		// The item's first key is on the "-" line, at ind+1+k.
		ls[i] = line{indent: ind + 1 + k, text: rest[k:], continued: l.continued}
		out = append(out, item{from: i, to: j, indent: ind + 1 + k})
		i = j
	}
	return out, true
}

// strings reads a block sequence of scalars, or a flow sequence of plain
// scalars on one line.
func (e entry) strings(ls []line) ([]string, bool) {
	if v := e.value; v != nil {
		if len(v) < 2 || v[0] != '[' || v[len(v)-1] != ']' {
			return nil, false
		}
		var out []string
		inner := bytes.TrimSpace(v[1 : len(v)-1])
		if len(inner) == 0 {
			return []string{}, true
		}
		for f := range bytes.SplitSeq(inner, []byte(",")) {
			s, ok := scalarString(bytes.TrimSpace(f))
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	if e.from == e.to {
		return nil, false // null: leave it to the converter
	}
	ind := ls[e.from].indent
	var out []string
	for i := e.from; i < e.to; i++ {
		l := ls[i]
		if l.indent != ind || !isItem(l.text) || l.continued {
			return nil, false
		}
		v := bytes.TrimSpace(l.text[1:])
		if c := bytes.Index(v, []byte(" #")); c >= 0 {
			v = bytes.TrimSpace(v[:c])
		}
		s, ok := scalarString(v)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// str reads the entry's value as a string scalar on its line.
func (e entry) str() (string, bool) {
	if e.value == nil || e.from != e.to {
		return "", false
	}
	return scalarString(e.value)
}

// scalarString reads a scalar that YAML reads as a string: quoted without
// escapes, or plain and neither a number, a boolean nor null, nor starting
// with an indicator.
func scalarString(v []byte) (string, bool) {
	if len(v) == 0 {
		return "", false
	}
	switch q := v[0]; q {
	case '"', '\'':
		if len(v) < 2 || v[len(v)-1] != q {
			return "", false
		}
		s := v[1 : len(v)-1]
		if bytes.IndexByte(s, q) >= 0 || bytes.IndexByte(s, '\\') >= 0 {
			return "", false
		}
		return string(s), true
	}
	for _, c := range v {
		// Only letters, digits and the punctuation of Kubernetes names:
		// nothing YAML could read as anything else, except what
		// resolvable catches.
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '/') {
			return "", false
		}
	}
	if resolvable(v) {
		return "", false
	}
	return string(v), true
}

// resolvable reports whether a plain scalar of letters, digits and "-._/"
// might be read by YAML 1.1 (go.yaml.in/yaml/v2) as other than a string: a
// number (digits, signs, dots, a base prefix, .inf, .nan, sexagesimal
// needs ':' and is excluded by the caller), a boolean (y, yes, on, true
// and their opposites in any of YAML's spellings), null, or a date. To be
// safe it refuses every scalar that starts with a digit, a sign or a dot,
// and the words YAML 1.1 gives a meaning.
func resolvable(v []byte) bool {
	switch c := v[0]; {
	case c >= '0' && c <= '9', c == '-', c == '.', c == '_', c == '/':
		return true
	}
	switch string(bytes.ToLower(v)) {
	case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
		return true
	}
	return false
}
