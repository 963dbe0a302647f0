package prune

// seg is one level of the path from the top of the pruned value to the value
// being visited: a map key, or an array index.
type seg struct {
	key   string
	index int // an array index, or -1 for a map key
}

// The path is passed down the walk as a slice by value, so that it lives in a
// buffer on the stack of the top-level call and each level appends its
// segment in place; nothing is allocated for paths until a field is removed,
// unless the object is nested deeper than the buffer.
const pathBuf = 64

func keySeg(k string) seg   { return seg{key: k, index: -1} }
func indexSeg(i int) seg    { return seg{index: i} }
func (s seg) isIndex() bool { return s.index >= 0 }

// render renders the path of key in the map at path as the server joins its
// path segments: a key is preceded by a dot unless it comes first, and an
// index is written as [i] without a dot.
func render(path []seg, key string) string {
	var small [128]byte
	return string(appendPath(small[:0], path, key))
}

// appendSeg appends the text of s, the i'th segment of a path, as render
// renders it.
func appendSeg(b []byte, i int, s seg) []byte {
	if s.isIndex() {
		b = append(b, '[')
		b = appendInt(b, s.index)
		return append(b, ']')
	}
	if i > 0 {
		b = append(b, '.')
	}
	return append(b, s.key...)
}

// appendPath appends the path of key in the map at path, as render renders
// it, to b.
func appendPath(b []byte, path []seg, key string) []byte {
	for i, s := range path {
		b = appendSeg(b, i, s)
	}
	if len(path) > 0 {
		b = append(b, '.')
	}
	return append(b, key...)
}

func appendInt(b []byte, i int) []byte {
	var d [20]byte
	j := len(d)
	for {
		j--
		d[j] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			break
		}
	}
	return append(b, d[j:]...)
}
