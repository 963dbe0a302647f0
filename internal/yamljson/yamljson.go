// Package yamljson converts the YAML that Kubernetes manifests are written
// in to the JSON that sigs.k8s.io/yaml.YAMLToJSONStrict gives for it, byte
// for byte, at a fraction of its cost, or says it is not sure.
//
// # What it reads
//
// Block mappings and sequences (a sequence under a key may start at the
// key's column; a mapping may start on a sequence entry's line), plain,
// single-quoted and double-quoted scalars on one line, literal and folded
// block scalars without an indentation indicator, flow sequences and flow
// mappings on one line, comments and blank lines. Plain scalars resolve as
// go-yaml v2 resolves them for an interface{} (YAML 1.1: yes, no, on, off,
// y and n are booleans; 0755 is octal; timestamps stay strings), and the
// output is what encoding/json writes for the decoded value: each
// mapping's keys sorted, <, > and & escaped.
//
// Anything else makes Convert give up (ok is false) rather than guess:
// anchors, aliases, tags, merge keys, multi-line plain or quoted scalars,
// keys that are not strings, a key given twice, tabs, carriage returns,
// control characters, a byte order mark, document markers, directives,
// NaN and infinities, a scalar at the top. The caller then uses the
// library, whose errors and warnings stay what they were.
//
// # Concurrency and cost
//
// Convert is safe for concurrent use. Its work is linear in the input
// but for sorting keys (each mapping whose keys are out of order is
// rewritten once, so a document costs its size times the depth of its
// unsorted mappings at most); nesting deeper than maxDepth gives up.
package yamljson

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"
	"unicode/utf8"
)

// maxDepth bounds the nesting of collections Convert follows.
const maxDepth = 256

// maxKey bounds a key's length in bytes: go-yaml refuses a simple key
// longer than 1024 characters.
const maxKey = 1000

// Convert appends to dst the JSON that sigs.k8s.io/yaml.YAMLToJSONStrict
// returns for the YAML document src, when src is in the subset this
// package reads (the package documentation says which) and is a mapping
// or a sequence. ok is false otherwise: dst[:len(dst)] is then returned
// and the caller converts src another way. src must end with a line end.
func Convert(dst, src []byte) (out []byte, ok bool) {
	n := len(dst)
	if len(src) == 0 || src[len(src)-1] != '\n' || !clean(src) {
		return dst, false
	}
	c := pool.Get().(*conv)
	c.src, c.out, c.depth = src, dst, 0
	if len(src) > 64<<10 {
		// A mapping's entry takes a line at least (flow mappings aside):
		// growing by appends would allocate several times the final size.
		if n := bytes.Count(src, []byte{'\n'}); cap(c.ents) < n {
			c.ents = make([]entry, 0, n)
		}
	}
	ok = c.document()
	out = c.out
	c.src, c.out = nil, nil
	c.ents = c.ents[:0]
	if cap(c.tmp) > maxPooled || cap(c.str) > maxPooled || cap(c.ents) > maxPooled/64 {
		c.tmp, c.str, c.ents = nil, nil, nil // a huge document's: not kept for the next
	}
	pool.Put(c)
	if !ok {
		return dst[:n], false
	}
	return out, true
}

// maxPooled bounds the scratch memory a pooled conv keeps, in bytes.
const maxPooled = 1 << 20

var pool = sync.Pool{New: func() any { return new(conv) }}

// conv is the state of one conversion.
type conv struct {
	src   []byte
	out   []byte
	ents  []entry // the entries of the mappings being read, innermost last
	tmp   []byte  // a mapping's entries while they are put in order
	str   []byte  // a scalar's value while it is decoded
	depth int
}

// entry is a mapping's key and where its `"key":value` is in out.
type entry struct {
	key        []byte
	start, end int
}

// asciiOK holds the ASCII bytes Convert reads: the printable ones and
// the line feed. Tabs and carriage returns are left to the library.
var asciiOK = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < 0x7f; b++ {
		t[b] = true
	}
	t['\n'] = true
	return t
}()

// clean reports whether src holds only characters go-yaml reads as
// printable and not as line breaks (other than "\n"), and no line that
// starts with a document marker ("---", "...").
func clean(src []byte) bool {
	if marker(src) {
		return false
	}
	for i := 0; i < len(src); {
		if i+8 <= len(src) {
			// Eight bytes at once while none is below ' ' (the line
			// feeds among them) or above '~': printable ASCII.
			w := binary.LittleEndian.Uint64(src[i:])
			const ones, highs = 0x0101010101010101, 0x8080808080808080
			if (w-0x20*ones)&^w&highs == 0 && (w+ones|w)&highs == 0 {
				i += 8
				continue
			}
		}
		b := src[i]
		if b < utf8.RuneSelf {
			if !asciiOK[b] {
				return false
			}
			if b == '\n' && marker(src[i+1:]) {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		// go-yaml's printable set, less U+2028 and U+2029 (line breaks
		// to it) and the characters outside the basic plane, which it
		// refuses.
		if size == 1 || r < 0xa0 || r >= 0xd800 && r < 0xe000 || r > 0xfffd || r == 0xfeff || r == 0x2028 || r == 0x2029 {
			return false
		}
		i += size
	}
	return true
}

func marker(l []byte) bool {
	return len(l) >= 3 && (l[0] == '-' && l[1] == '-' && l[2] == '-' || l[0] == '.' && l[1] == '.' && l[2] == '.')
}

// Positions are byte offsets in src. Every line ends in "\n" (Convert
// checks the last one), so src[p] at a line's content never overflows.

// nextContent returns the start and indentation of the first line from
// line start i that is neither blank nor a comment; ok is false at the end.
func (c *conv) nextContent(i int) (ls, ind int, ok bool) {
	src := c.src
	for i < len(src) {
		j := i
		for src[j] == ' ' {
			j++
		}
		if src[j] != '\n' && src[j] != '#' {
			return i, j - i, true
		}
		i = j + bytes.IndexByte(src[j:], '\n') + 1
	}
	return len(src), 0, false
}

// lineAfter returns the start of the line after the one holding p.
func (c *conv) lineAfter(p int) int {
	return p + bytes.IndexByte(c.src[p:], '\n') + 1
}

// restOfLine returns the start of the next line when what follows p on
// its line is blank or a comment after a space; ok is false otherwise.
func (c *conv) restOfLine(p int) (next int, ok bool) {
	src := c.src
	q := p
	for src[q] == ' ' {
		q++
	}
	if src[q] == '\n' {
		return q + 1, true
	}
	if src[q] == '#' && q > p {
		return c.lineAfter(q), true
	}
	return 0, false
}

// isEntry reports whether a block sequence entry ("-" then a space or the
// line end) starts at p.
func (c *conv) isEntry(p int) bool {
	return c.src[p] == '-' && (c.src[p+1] == ' ' || c.src[p+1] == '\n')
}

func (c *conv) document() bool {
	ls, ind, ok := c.nextContent(0)
	if !ok {
		return false
	}
	p := ls + ind
	var next int
	switch k := c.keyKind(p); {
	case c.isEntry(p):
		next, ok = c.sequence(p, ind)
	case k == isKey:
		next, ok = c.mapping(p, ind)
	default:
		return false // a scalar, or not sure
	}
	if !ok {
		return false
	}
	_, _, more := c.nextContent(next)
	return !more
}

// node reads the block node at p, the first content of its line, at
// column col, in a collection at column parent. It returns the start of
// the line after the node.
func (c *conv) node(p, col, parent int) (int, bool) {
	if c.isEntry(p) {
		return c.sequence(p, col)
	}
	switch c.keyKind(p) {
	case isKey:
		return c.mapping(p, col)
	case notKey:
		return c.inline(p, parent)
	}
	return 0, false
}

const (
	notKey = iota
	isKey
	unsure
)

// keyKind tells whether a mapping's key starts at p.
func (c *conv) keyKind(p int) int {
	_, _, k := c.key(p)
	return k
}

// key reads the key at p: its value, and the position after its ":".
func (c *conv) key(p int) (key []byte, after int, kind int) {
	src := c.src
	switch src[p] {
	case '\'', '"':
		v, q, ok := c.quoted(p, -1)
		if !ok {
			return nil, 0, notKey // a scalar over lines, or one inline refuses
		}
		for src[q] == ' ' {
			q++
		}
		if src[q] != ':' || src[q+1] != ' ' && src[q+1] != '\n' {
			return nil, 0, notKey
		}
		if q-p > maxKey {
			return nil, 0, unsure
		}
		if len(c.str) > 0 && len(v) > 0 && &v[0] == &c.str[0] {
			v = slices.Clone(v) // keys outlive the scratch memory
		}
		return v, q + 1, isKey
	}
	if !c.plainStart(p) {
		return nil, 0, notKey
	}
	line := src[p : p+bytes.IndexByte(src[p:], '\n')]
	if h := bytes.Index(line, []byte(" #")); h >= 0 {
		line = line[:h] // a comment: the key's ":" must come before it
	}
	for off := 0; ; {
		i := bytes.IndexByte(line[off:], ':')
		if i < 0 {
			return nil, 0, notKey
		}
		q := p + off + i
		off += i + 1
		if src[q+1] == ' ' || src[q+1] == '\n' {
			if q-p > maxKey {
				return nil, 0, unsure
			}
			e := q
			for src[e-1] == ' ' {
				e--
			}
			k := src[p:e]
			if r, _, _, _ := resolve(k); r != kindStr || string(k) == "<<" {
				return nil, 0, unsure
			}
			return k, q + 1, isKey
		}
	}
}

// plainStart reports whether a plain scalar Convert reads starts at p:
// not at an indicator (a "-" must be followed by more than a space).
func (c *conv) plainStart(p int) bool {
	switch b := c.src[p]; b {
	case '-':
		return c.src[p+1] != ' ' && c.src[p+1] != '\n'
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ', '\n':
		return false
	}
	return true
}

// mapping reads the block mapping whose first key is at p, column col.
func (c *conv) mapping(p, col int) (int, bool) {
	if c.depth++; c.depth > maxDepth {
		return 0, false
	}
	base := len(c.ents)
	start := len(c.out)
	c.out = append(c.out, '{')
	var next int
	for {
		k, q, kind := c.key(p)
		if kind != isKey {
			return 0, false
		}
		if len(c.ents) > base {
			c.out = append(c.out, ',')
		}
		e := len(c.out)
		c.out = appendString(c.out, k)
		c.out = append(c.out, ':')
		var ok bool
		if next, ok = c.value(q, col); !ok {
			return 0, false
		}
		c.ents = append(c.ents, entry{key: k, start: e, end: len(c.out)})
		ls, ind, more := c.nextContent(next)
		if !more || ind < col {
			next = ls
			break
		}
		if ind > col || c.isEntry(ls+ind) {
			return 0, false
		}
		p = ls + ind
	}
	if !c.order(start, base) {
		return 0, false
	}
	c.out = append(c.out, '}')
	c.ents = c.ents[:base]
	c.depth--
	return next, true
}

// order puts the entries of the mapping at out[start] ("{" and its
// entries) in encoding/json's order, by key; false for a key given twice.
func (c *conv) order(start, base int) bool {
	es := c.ents[base:]
	sorted := true
	for i := 1; i < len(es); i++ {
		switch bytes.Compare(es[i-1].key, es[i].key) {
		case 0:
			return false
		case 1:
			sorted = false
		}
	}
	if sorted {
		return true
	}
	slices.SortFunc(es, func(a, b entry) int { return bytes.Compare(a.key, b.key) })
	for i := 1; i < len(es); i++ {
		if bytes.Equal(es[i-1].key, es[i].key) {
			return false
		}
	}
	from := start + 1
	c.tmp = append(c.tmp[:0], c.out[from:]...)
	c.out = c.out[:from]
	for i, e := range es {
		if i > 0 {
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, c.tmp[e.start-from:e.end-from]...)
	}
	return true
}

// value reads a mapping's value: q is just after the ":" of a key at
// column col.
func (c *conv) value(q, col int) (int, bool) {
	src := c.src
	r := q
	for src[r] == ' ' {
		r++
	}
	if src[r] != '\n' && src[r] != '#' {
		return c.inline(r, col)
	}
	nl := c.lineAfter(r)
	ls, ind, more := c.nextContent(nl)
	switch {
	case !more || ind < col:
		c.out = append(c.out, "null"...)
		return ls, true
	case ind == col:
		if c.isEntry(ls + ind) {
			return c.sequence(ls+ind, col)
		}
		c.out = append(c.out, "null"...)
		return ls, true
	}
	return c.node(ls+ind, ind, col)
}

// sequence reads the block sequence whose first entry is at p, column col.
func (c *conv) sequence(p, col int) (int, bool) {
	if c.depth++; c.depth > maxDepth {
		return 0, false
	}
	src := c.src
	c.out = append(c.out, '[')
	var next int
	for n := 0; ; n++ {
		if n > 0 {
			c.out = append(c.out, ',')
		}
		r := p + 1
		for src[r] == ' ' {
			r++
		}
		var ok bool
		if src[r] == '\n' || src[r] == '#' {
			ls, ind, more := c.nextContent(c.lineAfter(r))
			if !more || ind <= col {
				c.out = append(c.out, "null"...)
				next, ok = ls, true
			} else {
				next, ok = c.node(ls+ind, ind, col)
			}
		} else {
			rc := col + r - p
			if c.isEntry(r) {
				next, ok = c.sequence(r, rc)
			} else {
				switch c.keyKind(r) {
				case isKey:
					next, ok = c.mapping(r, rc)
				case notKey:
					next, ok = c.inline(r, col)
				}
			}
		}
		if !ok {
			return 0, false
		}
		ls, ind, more := c.nextContent(next)
		if !more || ind < col || ind == col && !c.isEntry(ls+ind) {
			next = ls
			break
		}
		if ind > col {
			return 0, false
		}
		p = ls + ind
	}
	c.out = append(c.out, ']')
	c.depth--
	return next, true
}

// inline reads a scalar or flow collection at r, in a collection at
// column parent, and the rest of its line. It returns the next line's
// start.
func (c *conv) inline(r, parent int) (int, bool) {
	src := c.src
	switch src[r] {
	case '|', '>':
		return c.blockScalar(r, parent)
	case '[', '{':
		q, ok := c.flow(r)
		if !ok {
			return 0, false
		}
		return c.restOfLine(q)
	case '\'', '"':
		v, q, ok := c.quoted(r, parent)
		if !ok {
			return 0, false
		}
		c.out = appendString(c.out, v)
		return c.restOfLine(q)
	}
	if !c.plainStart(r) {
		return 0, false
	}
	q := r
	for {
		b := src[q]
		if b == '\n' || b == '#' && src[q-1] == ' ' {
			break
		}
		if b == ':' && (src[q+1] == ' ' || src[q+1] == '\n') {
			return 0, false // a mapping where a scalar was expected
		}
		q++
	}
	e := q
	for src[e-1] == ' ' {
		e--
	}
	next := c.lineAfter(q)
	v := src[r:e]
	if src[q] == '\n' {
		var ok bool
		if v, next, ok = c.continued(v, next, parent); !ok {
			return 0, false
		}
	}
	var ok bool
	if c.out, ok = appendPlain(c.out, v); !ok {
		return 0, false
	}
	return next, true
}

// continued reads the lines that continue the plain scalar v, from line
// start i: those indented more than the collection's column parent, up to
// a comment line. They fold into v as go-yaml folds them: a line break
// between two lines is a space, and n blank lines are n line breaks.
func (c *conv) continued(v []byte, i, parent int) ([]byte, int, bool) {
	src := c.src
	s := c.str[:0]
	end := i
	for {
		breaks := 0
		j := i
		for j < len(src) {
			for src[j] == ' ' {
				j++
			}
			if src[j] != '\n' {
				break
			}
			breaks++
			i = j + 1
			j = i
		}
		if j >= len(src) || j-i <= parent || src[j] == '#' {
			break
		}
		q := j
		for src[q] != '\n' {
			if src[q] == ':' && (src[q+1] == ' ' || src[q+1] == '\n') || src[q] == '#' && src[q-1] == ' ' {
				return nil, 0, false
			}
			q++
		}
		e := q
		for src[e-1] == ' ' {
			e--
		}
		if len(s) == 0 {
			s = append(s, v...)
		}
		if breaks == 0 {
			s = append(s, ' ')
		}
		for ; breaks > 0; breaks-- {
			s = append(s, '\n')
		}
		s = append(s, src[j:e]...)
		i = q + 1
		end = i
	}
	if len(s) == 0 {
		return v, end, true
	}
	c.str = s
	return s, end, true
}

// quoted reads the quoted scalar at p; it returns its value (a slice of
// src, or of c.str when it was decoded: valid until the next scalar) and
// the position after the closing quote. It spans lines only when parent,
// the column of the collection holding it, is not negative: its lines
// then fold as go-yaml folds them (a line break is a space, n blank lines
// are n line breaks, the spaces around a line break go).
func (c *conv) quoted(p, parent int) (v []byte, after int, ok bool) {
	src := c.src
	quote := src[p]
	single := quote == '\''
	q := p + 1
	for src[q] != quote && src[q] != '\\' && src[q] != '\n' {
		q++
	}
	if src[q] == quote && !(single && src[q+1] == '\'') {
		return src[p+1 : q], q + 1, true
	}
	s := append(c.str[:0], src[p+1:q]...)
	keep := len(bytes.TrimRight(s, " ")) // what a line break keeps of s
	for {
		switch b := src[q]; {
		case b == '\n':
			if parent < 0 {
				return nil, 0, false
			}
			s = s[:keep]
			breaks, i := 0, q+1
			j := i
			for j < len(src) {
				for src[j] == ' ' {
					j++
				}
				if src[j] != '\n' {
					break
				}
				breaks++
				j++
				i = j
			}
			if j >= len(src) || j-i <= parent {
				return nil, 0, false
			}
			if breaks == 0 {
				s = append(s, ' ')
			}
			for ; breaks > 0; breaks-- {
				s = append(s, '\n')
			}
			keep = len(s)
			q = j
		case b == quote && single && src[q+1] == '\'':
			s = append(s, '\'')
			keep = len(s)
			q += 2
		case b == quote:
			c.str = s
			return s, q + 1, true
		case b == '\\' && !single:
			if src[q+1] == '\n' {
				return nil, 0, false // an escaped line break
			}
			if s, q, ok = unescape(s, src, q); !ok {
				return nil, 0, false
			}
			keep = len(s)
		default:
			s = append(s, b)
			if b != ' ' {
				keep = len(s)
			}
			q++
		}
	}
}

// unescape appends the character of the escape at src[q] ("\\" and what
// follows) and returns the position after it.
func unescape(s, src []byte, q int) ([]byte, int, bool) {
	var b byte
	switch src[q+1] {
	case '0':
		b = 0
	case 'a':
		b = 7
	case 'b':
		b = 8
	case 't':
		b = 9
	case 'n':
		b = 10
	case 'v':
		b = 11
	case 'f':
		b = 12
	case 'r':
		b = 13
	case 'e':
		b = 27
	case ' ', '"', '\'', '\\':
		b = src[q+1]
	case 'N':
		return utf8.AppendRune(s, 0x85), q + 2, true
	case '_':
		return utf8.AppendRune(s, 0xa0), q + 2, true
	case 'L':
		return utf8.AppendRune(s, 0x2028), q + 2, true
	case 'P':
		return utf8.AppendRune(s, 0x2029), q + 2, true
	case 'x', 'u', 'U':
		n := 2
		if src[q+1] == 'u' {
			n = 4
		} else if src[q+1] == 'U' {
			n = 8
		}
		v := 0
		for k := q + 2; k < q+2+n; k++ {
			d := unhex(src[k])
			if d < 0 {
				return s, 0, false
			}
			v = v<<4 | d
		}
		if v >= 0xd800 && v <= 0xdfff || v > 0x10ffff {
			return s, 0, false
		}
		return utf8.AppendRune(s, rune(v)), q + 2 + n, true
	default:
		return s, 0, false
	}
	return append(s, b), q + 2, true
}

func unhex(b byte) int {
	switch {
	case '0' <= b && b <= '9':
		return int(b - '0')
	case 'a' <= b && b <= 'f':
		return int(b-'a') + 10
	case 'A' <= b && b <= 'F':
		return int(b-'A') + 10
	}
	return -1
}

// flow reads the flow collection at p, on one line; it returns the
// position after its closing bracket.
func (c *conv) flow(p int) (int, bool) {
	if c.depth++; c.depth > maxDepth {
		return 0, false
	}
	src := c.src
	closing := byte(']')
	if src[p] == '{' {
		closing = '}'
	}
	c.out = append(c.out, src[p])
	base, start := len(c.ents), len(c.out)-1
	q := p + 1
	for n := 0; ; n++ {
		for src[q] == ' ' {
			q++
		}
		if n == 0 && src[q] == closing {
			break
		}
		if n > 0 {
			c.out = append(c.out, ',')
		}
		var ok bool
		if closing == '}' {
			var k []byte
			if k, q, ok = c.flowScalar(q, true); !ok || src[q] != ':' || src[q+1] != ' ' {
				return 0, false
			}
			e := len(c.out)
			c.out = appendString(c.out, k)
			c.out = append(c.out, ':')
			for q++; src[q] == ' '; q++ {
			}
			if q, ok = c.flowValue(q); !ok {
				return 0, false
			}
			c.ents = append(c.ents, entry{key: k, start: e, end: len(c.out)})
		} else if q, ok = c.flowValue(q); !ok {
			return 0, false
		}
		for src[q] == ' ' {
			q++
		}
		if src[q] == closing {
			break
		}
		if src[q] != ',' || src[q+1] != ' ' {
			return 0, false
		}
		q++
	}
	if closing == '}' && !c.order(start, base) {
		return 0, false
	}
	c.ents = c.ents[:base]
	c.out = append(c.out, closing)
	c.depth--
	return q + 1, true
}

// flowValue reads a value in a flow collection.
func (c *conv) flowValue(q int) (int, bool) {
	if b := c.src[q]; b == '[' || b == '{' {
		return c.flow(q)
	}
	if b := c.src[q]; b == '\'' || b == '"' {
		v, q, ok := c.quoted(q, -1)
		if ok {
			c.out = appendString(c.out, v)
		}
		return q, ok
	}
	v, q, ok := c.flowScalar(q, false)
	if ok {
		c.out, ok = appendPlain(c.out, v)
	}
	return q, ok
}

// flowScalar reads a quoted scalar or a plain one made of safe characters
// in a flow collection; a key must resolve to a string.
func (c *conv) flowScalar(q int, key bool) (v []byte, after int, ok bool) {
	src := c.src
	if b := src[q]; b == '\'' || b == '"' {
		v, after, ok = c.quoted(q, -1)
		if ok && len(c.str) > 0 && len(v) > 0 && &v[0] == &c.str[0] {
			v = slices.Clone(v) // keys outlive the scratch memory
		}
		return v, after, ok && after-q <= maxKey
	}
	if !c.plainStart(q) {
		return nil, 0, false
	}
	e := q
	for {
		switch src[e] {
		case ',', ']', '}', '\n':
		case ':':
			if !key || src[e+1] != ' ' {
				return nil, 0, false
			}
		case '[', '{', '#', '?', '\'', '"':
			return nil, 0, false
		default:
			e++
			continue
		}
		break
	}
	end := e
	for src[end-1] == ' ' {
		end--
	}
	v = src[q:end]
	if key {
		if e-q > maxKey {
			return nil, 0, false
		}
		if r, _, _, _ := resolve(v); r != kindStr || string(v) == "<<" {
			return nil, 0, false
		}
	}
	return v, e, true
}

// blockScalar reads the literal or folded block scalar whose header is at
// p, in a collection at column parent; it returns the start of the first
// line after it.
func (c *conv) blockScalar(p, parent int) (int, bool) {
	src := c.src
	literal := src[p] == '|'
	chomp, increment := 0, 0
	q := p + 1
	for k := 0; k < 2; k++ {
		switch b := src[q]; {
		case chomp == 0 && (b == '-' || b == '+'):
			chomp = 1
			if b == '-' {
				chomp = -1
			}
			q++
		case increment == 0 && b >= '1' && b <= '9':
			increment = int(b - '0')
			q++
		}
	}
	next, ok := c.restOfLine(q)
	if !ok || parent < 0 {
		return 0, false
	}
	indent, breaks := 0, 0
	i := next
	if increment > 0 {
		indent = parent + increment
		for i < len(src) { // the blank lines before the first
			k := i
			for k < i+indent && src[k] == ' ' {
				k++
			}
			if src[k] != '\n' {
				break
			}
			breaks++
			i = k + 1
		}
	} else {
		// The first non-blank line's indentation, unless a blank line
		// before it has more spaces, and more than the parent's.
		for i < len(src) {
			j := i
			for src[j] == ' ' {
				j++
			}
			indent = max(indent, j-i)
			if src[j] != '\n' {
				break
			}
			breaks++
			i = j + 1
		}
		indent = max(indent, parent+1, 1)
	}
	s := c.str[:0]
	var leadingBreak, leadingBlank bool
	for i < len(src) {
		// i starts a line with at least indent spaces and content.
		j := i + indent
		if j > len(src) || !allSpaces(src[i:j]) {
			break
		}
		trailingBlank := src[j] == ' '
		if !literal && leadingBreak && !leadingBlank && !trailingBlank {
			if breaks == 0 {
				s = append(s, ' ')
			}
		} else if leadingBreak {
			s = append(s, '\n')
		}
		for ; breaks > 0; breaks-- {
			s = append(s, '\n')
		}
		leadingBlank = trailingBlank
		e := j + bytes.IndexByte(src[j:], '\n')
		s = append(s, src[j:e]...)
		leadingBreak = true
		i = e + 1
		// The blank lines after it, shorter than indent.
		for i < len(src) {
			k := i
			for k < i+indent && src[k] == ' ' {
				k++
			}
			if src[k] != '\n' {
				break
			}
			breaks++
			i = k + 1
		}
	}
	if chomp != -1 && leadingBreak {
		s = append(s, '\n')
	}
	if chomp == 1 {
		for ; breaks > 0; breaks-- {
			s = append(s, '\n')
		}
	}
	c.str = s
	c.out = appendString(c.out, s)
	return i, true
}

func allSpaces(b []byte) bool {
	for _, x := range b {
		if x != ' ' {
			return false
		}
	}
	return true
}
