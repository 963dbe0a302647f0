package schema

import "strings"

// Path is an immutable field path that renders exactly as the API server's
// field paths do: "spec.ports[0].name", "properties[spec].type". The nil
// *Path is the empty root. Paths share their prefixes, so building a child is
// one small allocation and rendering happens only when an error is recorded.
type Path struct {
	parent *Path
	name   string // a field name, or the text of a subscript
	sub    bool   // name is a subscript: [name]
}

// NewPath returns a root path made of the given field names.
func NewPath(name string, more ...string) *Path {
	p := &Path{name: name}
	for _, m := range more {
		p = &Path{parent: p, name: m}
	}
	return p
}

// Child returns p extended by the given field names.
func (p *Path) Child(name string, more ...string) *Path {
	c := &Path{parent: p, name: name}
	for _, m := range more {
		c = &Path{parent: c, name: m}
	}
	return c
}

// Index returns p subscripted by an array index.
func (p *Path) Index(i int) *Path {
	return &Path{parent: p, name: itoa(i), sub: true}
}

// Key returns p subscripted by a map key (rendered without quotes, as the
// server does).
func (p *Path) Key(k string) *Path {
	return &Path{parent: p, name: k, sub: true}
}

// String renders the path as the server does.
func (p *Path) String() string {
	if p == nil {
		return ""
	}
	var elems []*Path
	for q := p; q != nil; q = q.parent {
		elems = append(elems, q)
	}
	var b strings.Builder
	for i := len(elems) - 1; i >= 0; i-- {
		e := elems[i]
		if e.sub {
			b.WriteByte('[')
			b.WriteString(e.name)
			b.WriteByte(']')
			continue
		}
		if e.name == "" {
			// An empty field name renders as an empty subscript, as the
			// server's field.Path does.
			b.WriteString("[]")
			continue
		}
		if e.parent != nil {
			b.WriteByte('.')
		}
		b.WriteString(e.name)
	}
	return b.String()
}

func itoa(i int) string {
	if i >= 0 && i < 10 {
		return string(rune('0' + i))
	}
	var buf [20]byte
	n := len(buf)
	neg := i < 0
	u := uint64(i)
	if neg {
		u = uint64(-i)
	}
	for u >= 10 {
		n--
		buf[n] = byte('0' + u%10)
		u /= 10
	}
	n--
	buf[n] = byte('0' + u)
	if neg {
		n--
		buf[n] = '-'
	}
	return string(buf[n:])
}
