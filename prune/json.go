package prune

import (
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/crdkit/crdkit/internal/box"
	"github.com/crdkit/crdkit/schema"
)

// JSON decodes the JSON object data and prunes it against s, in one pass:
// the result is what Object leaves of the value the API server's decoder
// (sigs.k8s.io/json with integers kept) builds from data, and the paths are
// those Object appends to dst. What pruning removes is never built: its
// syntax is checked and it is skipped.
//
// The value model is the server decoder's: map[string]any, []any, string,
// bool, nil, int64 for a number written without a fraction that fits in
// 64 bits, float64 for any other number.
//
// ok is false when JSON gives up, and obj and paths are then nil (dst is
// not returned). It gives up on everything where the server's decoder
// would fail or would have to repair the input, and on some inputs where
// it would not: data that is not one JSON object, any syntax error, a key
// repeated in any object (pruned or not), invalid UTF-8 or an escaped lone
// surrogate in a string, a number out of the range of float64, nesting
// deeper than 512 objects and arrays, and an object with more than 1,024
// keys that pruning removes. The caller then decodes data another way and
// reports the server's error.
//
// Nothing JSON returns shares data, which the caller may change or reuse
// as soon as JSON returns. The keys of declared properties are the
// schema's own strings; the other keys and the strings of obj are copied
// into chunks of text (an eighth of data, doubling), so a string kept
// keeps its chunk in memory. Likewise its strings, numbers and arrays are
// put in interfaces a chunk at a time (internal/box), so a value kept
// keeps its chunk in memory; the paths are cut from one string, which
// stays in memory as long as any of them does.
func JSON(data []byte, s *schema.Schema, opts Options, dst []string) (obj map[string]any, paths []string, ok bool) {
	obj, paths, _, ok = JSONNulls(data, s, opts, dst)
	return obj, paths, ok
}

// JSONNulls is JSON that also reports whether obj holds a nil anywhere:
// whether data has the literal null where pruning keeps it. A caller that
// drops nulls can leave that out when there is none, without a walk of obj
// or a search of data.
func JSONNulls(data []byte, s *schema.Schema, opts Options, dst []string) (obj map[string]any, paths []string, nulls, ok bool) {
	sc := scratchPool.Get().(*scratch)
	obj, paths, nulls, ok = decodeWith(sc, data, s, opts, dst)
	scratchPool.Put(sc)
	return obj, paths, nulls, ok
}

// decodeWith is JSONNulls with the scratch sc, which it leaves emptied.
func decodeWith(sc *scratch, data []byte, s *schema.Schema, opts Options, dst []string) (obj map[string]any, paths []string, nulls, ok bool) {
	// The decoder reads data in place; what the result keeps of it is
	// copied (keep).
	d := decoder{s: unsafe.String(unsafe.SliceData(data), len(data)), track: !opts.NoPaths}
	d.box.Hint(len(data))
	d.take(sc)
	defer d.give(sc)
	if d.path == nil {
		d.path = make([]seg, 0, 16)
	}
	var empty schema.Schema
	s, emb := top(s, opts, &empty)
	if d.peek() != '{' {
		return nil, nil, false, false
	}
	v := d.value(s, emb)
	d.ws()
	if d.bad || d.i != len(d.s) {
		return nil, nil, false, false
	}
	obj, _ = v.(map[string]any)
	return obj, d.paths(dst), d.nulls, true
}

// scratch holds a decoder's stacks and buffers between calls: only the
// decoder reads and writes them during a call, and nothing it returns
// shares them. Those holding pointers are cleared when put back, so that
// the pool keeps no value alive; any grown large is dropped.
type scratch struct {
	path    []seg
	members []member
	elems   []any
	keys    []string
	ptext   []byte
	pseg    []int
	ptxt    []byte
	ends    []int
	runs    []int
	sorted  []string
	buf     []byte
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

const maxScratch = 4096

// take starts d with the scratch of sc.
func (d *decoder) take(sc *scratch) {
	d.path, d.members, d.elems, d.keys = sc.path, sc.members, sc.elems, sc.keys
	d.ptext, d.pseg, d.ptxt, d.ends, d.buf = sc.ptext, sc.pseg, sc.ptxt, sc.ends, sc.buf
	d.runs, d.sorted = sc.runs, sc.sorted
}

// give puts d's scratch back in sc, emptied.
func (d *decoder) give(sc *scratch) {
	if d.bad {
		// A give-up can leave elements anywhere below the capacities.
		d.hw = marks{cap(d.path), cap(d.members), cap(d.elems), cap(d.keys)}
	}
	sc.path = reuse(d.path, d.hw.path)
	sc.members = reuse(d.members, d.hw.members)
	sc.elems = reuse(d.elems, d.hw.elems)
	sc.keys = reuse(d.keys, d.hw.keys)
	sc.ptext = reuseFlat(d.ptext)
	sc.pseg = reuseFlat(d.pseg)
	sc.ends = reuseFlat(d.ends)
	sc.runs = reuseFlat(d.runs)
	// paths cleared what it put in sorted.
	sc.sorted = d.sorted[:0]
	if cap(d.sorted) > maxScratch {
		sc.sorted = nil
	}
	sc.ptxt = d.ptxt[:0]
	if cap(d.ptxt) > maxPathText {
		sc.ptxt = nil
	}
	sc.buf = reuseFlat(d.buf)
}

// reuse empties s for the next call: its elements are zeroed up to hw, the
// most it held during the call (those above were zeroed when it was put
// back before), and it is dropped when it has grown large.
func reuse[S ~[]E, E any](s S, hw int) S {
	if cap(s) > maxScratch {
		return nil
	}
	clear(s[:max(hw, len(s))])
	return s[:0]
}

// marks are the most elements each stack of a decoder held: what give
// zeroes. A stack's length is taken where it is cut back, which every
// element pushed reaches unless the call gives up.
type marks struct {
	path, members, elems, keys int
}

// popKeys cuts d.keys back to mark.
func (d *decoder) popKeys(mark int) {
	d.hw.keys = max(d.hw.keys, len(d.keys))
	d.keys = d.keys[:mark]
}

// reuseFlat is reuse for elements without pointers, which need no zeroing.
func reuseFlat[S ~[]E, E any](s S) S {
	if cap(s) > maxScratch*8 {
		return nil
	}
	return s[:0]
}

// maxJSONDepth bounds the nesting JSON decodes itself; the server's decoder
// allows 10,000 levels.
const maxJSONDepth = 512

// maxSkippedKeys bounds the keys of one object that JSON checks for
// duplicates without building the object (a quadratic check).
const maxSkippedKeys = 1024

// decoder is the state of one JSON call. It reads s, the caller's input
// seen as a string, so that strings without escapes are slices of it while
// it decodes; those the result keeps are copied into text (keep).
type decoder struct {
	s     string
	text  []byte // the chunk kept strings are copied into; never grown
	i     int    // the next byte to read
	bad   bool   // gave up: the results are discarded
	depth int
	track bool // record the pruned paths
	nulls bool // a null was kept
	path  []seg
	// The pruned paths: each is rendered into ptxt, one after the other,
	// and ends where it ends. At the end ptxt is made into one string that
	// all the paths are sliced from (one allocation of the exact size; the
	// buffer is reused by the next call), so that recording a path
	// allocates nothing and writes no pointer.
	ptxt []byte
	ends []int
	// runs holds the index in ends of each path recorded that comes
	// before the one recorded before it: where each sorted run after the
	// first starts (and the one before it ends). sorted is scratch for
	// merging the runs.
	runs   []int
	sorted []string
	// ptext is the text of the first nr segments of path, and pseg where
	// the text of each ends.
	ptext []byte
	pseg  []int
	nr    int
	// members and elems are stacks of the members and elements of the
	// objects and arrays being decoded, each put in a map or slice of its
	// exact size at the closing bracket: every array, and the objects kept
	// whole or preserved (which can be large; a schema-directed object is
	// built in its map directly). A give-up can leave members above an
	// outer object's mark; the result is discarded then.
	members []member
	elems   []any
	box     box.Slab
	// keys holds the keys of the objects being skipped or emptied, to
	// find duplicates among keys that are not put in a map.
	keys []string
	buf  []byte // scratch for unescaping
	hw   marks
}

// fail gives up: every loop stops at the end of the input.
func (d *decoder) fail() {
	d.bad = true
	d.i = len(d.s)
}

func (d *decoder) ws() {
	// Every byte above a space ends white space: one comparison when
	// there is none, as between the tokens of compact JSON.
	if d.i < len(d.s) && d.s[d.i] > ' ' {
		return
	}
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end.
func (d *decoder) peek() byte {
	if d.i < len(d.s) {
		if c := d.s[d.i]; c > ' ' {
			return c
		}
	}
	d.ws()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

// enter consumes the opening bracket of an object or array; it fails
// beyond the depth JSON decodes.
func (d *decoder) enter() bool {
	d.i++
	d.depth++
	if d.depth > maxJSONDepth {
		d.fail()
		return false
	}
	return true
}

// more is called after a member or element: it consumes the comma and
// reports true, or consumes the closing bracket and reports false.
func (d *decoder) more(closing byte) bool {
	switch d.peek() {
	case ',':
		d.i++
		return true
	case closing:
		d.i++
		d.depth--
		return false
	}
	d.fail()
	return false
}

// first is called after an opening bracket: it reports whether the object
// or array has a member, consuming the closing bracket when it has none.
func (d *decoder) first(closing byte) bool {
	if d.peek() == closing {
		d.i++
		d.depth--
		return false
	}
	return !d.bad
}

// key reads a member's key and its colon.
func (d *decoder) key() string {
	if d.peek() != '"' {
		d.fail()
		return ""
	}
	k := d.str()
	if d.i < len(d.s) && d.s[d.i] == ':' {
		d.i++
		return k
	}
	if d.peek() != ':' {
		d.fail()
		return ""
	}
	d.i++
	return k
}

// distinct records k among the keys of the object whose keys start at
// mark in d.keys, failing when it is there already.
func (d *decoder) distinct(mark int, k string) {
	if d.keys == nil {
		d.keys = make([]string, 0, 16)
	}
	keys := d.keys[mark:]
	if len(keys) >= maxSkippedKeys {
		d.fail()
		return
	}
	for _, o := range keys {
		if o == k {
			d.fail()
			return
		}
	}
	n := len(d.keys)
	if n == cap(d.keys) {
		d.keys = slices.Grow(d.keys, max(n, 16))
	}
	d.keys = d.keys[:n+1] // lengthened, not rewritten (put)
	d.keys[n] = k
}

// minText is the smallest chunk of text keep makes.
const minText = 256

// keep returns the string s for the result. A string of the input (a
// slice of d.s) is copied into the text chunk, a new one when it is full:
// the input is the caller's, and the result must not share it. Any other
// string (unescaped, a schema's name, "") is returned as it is.
func (d *decoder) keep(s string) string {
	off := uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.StringData(d.s)))
	if len(s) == 0 || off >= uintptr(len(d.s)) {
		return s
	}
	if cap(d.text)-len(d.text) < len(s) {
		d.newText(len(s))
	}
	i := len(d.text)
	d.text = d.text[:i+len(s)] // lengthened, not rewritten (put)
	copy(d.text[i:], s)
	return unsafe.String(&d.text[i], len(s))
}

// newText starts a chunk of text that holds at least need bytes. Chunks
// double from an eighth of the input, but none is larger than the rest of
// the input could fill: all kept strings after the one that needs it come
// after it. The bytes written to a chunk are never changed.
func (d *decoder) newText(need int) {
	n := max(2*cap(d.text), len(d.s)>>3, minText)
	n = max(min(n, len(d.s)-d.i+need), need)
	d.text = make([]byte, 0, n)
}

// name is the key of a declared property for the map built: the schema's
// copy of it when Schema.PropertyName gave one, else k kept.
func (d *decoder) name(declared, k string) string {
	if declared != "" {
		return declared
	}
	return d.keep(k)
}

// set sets m[k] = v, failing when k was set already.
func (d *decoder) set(m map[string]any, k string, v any) {
	n := len(m)
	m[k] = v
	if len(m) == n {
		d.fail()
	}
}

// member is a decoded member of an object.
type member struct {
	k string
	v any
}

// put adds the member k: v to the object being decoded. The stacks are
// lengthened in place (s = s[:n+1]) rather than appended to: an append
// writes the slice's pointer back on every call, and a pointer written
// while the collector marks passes its write barrier even when unchanged.
func (d *decoder) put(k string, v any) {
	n := len(d.members)
	if n == cap(d.members) {
		d.members = slices.Grow(d.members, max(n, 16))
	}
	d.members = d.members[:n+1]
	d.members[n] = member{k, v}
}

// push adds the element v to the array being decoded, as put does.
func (d *decoder) push(v any) {
	n := len(d.elems)
	if n == cap(d.elems) {
		d.elems = slices.Grow(d.elems, max(n, 16))
	}
	d.elems = d.elems[:n+1]
	d.elems[n] = v
}

// enterPath adds the segment g to d.path, as put does.
func (d *decoder) enterPath(g seg) {
	n := len(d.path)
	if n == cap(d.path) {
		d.path = slices.Grow(d.path, max(n, 16))
	}
	d.path = d.path[:n+1]
	d.path[n] = g
}

// mapFrom makes the map of the members put since mark and pops them,
// failing when a key repeats.
func (d *decoder) mapFrom(mark int) map[string]any {
	ms := d.members[mark:]
	m := make(map[string]any, len(ms))
	for _, e := range ms {
		m[e.k] = e.v
	}
	if len(m) != len(ms) {
		d.fail()
	}
	d.hw.members = max(d.hw.members, len(d.members))
	d.members = d.members[:mark]
	return m
}

// sliceFrom makes the array of the elements pushed since mark, boxed, and
// pops them.
func (d *decoder) sliceFrom(mark int) any {
	out := make([]any, len(d.elems)-mark)
	copy(out, d.elems[mark:])
	d.hw.elems = max(d.hw.elems, len(d.elems))
	d.elems = d.elems[:mark]
	d.box.Pos = d.i
	return d.box.Slice(out)
}

// record notes that key was removed from the map at d.path, as
// walker.record does: the top-level apiVersion, kind and metadata are
// not reported.
func (d *decoder) record(key string) {
	if d.track && (len(d.path) > 0 || !isMeta(key)) {
		d.addPath(key)
	}
}

// maxPathText bounds the buffer of path text kept for the next call.
const maxPathText = 1 << 20

// addPath renders the path of key at d.path into d.ptxt.
func (d *decoder) addPath(key string) {
	// The text of d.path, rendered into d.ptext as far as it is still the
	// same.
	if d.pseg == nil {
		d.ptext, d.pseg = make([]byte, 0, 128), make([]int, 0, 16)
	}
	t := d.ptext[:0]
	if d.nr > 0 {
		t = d.ptext[:d.pseg[d.nr-1]]
	}
	// The previous path starts with t too (its first nr segments are
	// these): whether it comes before this one is decided by the bytes
	// after t.
	same := len(t)
	d.pseg = d.pseg[:d.nr]
	for i := d.nr; i < len(d.path); i++ {
		t = appendSeg(t, i, d.path[i])
		d.pseg = append(d.pseg, len(t))
	}
	d.ptext, d.nr = t, len(d.path)
	if d.ends == nil {
		d.ends = make([]int, 0, 32)
	}
	lo := len(d.ptxt)
	b := append(d.ptxt, t...)
	if len(d.path) > 0 {
		b = append(b, '.')
	}
	b = append(b, key...)
	if n := len(d.ends); n > 0 {
		plo := 0
		if n > 1 {
			plo = d.ends[n-2]
		}
		if less(b[lo+same:], b[plo+same:lo]) {
			d.runs = append(d.runs, n)
		}
	}
	d.ptxt = b
	d.ends = append(d.ends, len(b))
}

// less reports whether x sorts before y, byte by byte: here they differ
// within a few bytes, sooner than a call to the runtime's compare returns.
func less(x, y []byte) bool {
	i := 0
	for i < len(x) && i < len(y) && x[i] == y[i] {
		i++
	}
	return i < len(y) && (i == len(x) || x[i] < y[i])
}

// pop leaves the last segment of d.path.
func (d *decoder) pop() {
	n := len(d.path) - 1
	d.hw.path = max(d.hw.path, n+1)
	d.path = d.path[:n]
	d.nr = min(d.nr, n)
}

// paths returns the list of paths, those recorded (appended to dst)
// sorted.
func (d *decoder) paths(dst []string) []string {
	if len(d.ends) == 0 {
		return dst
	}
	all, lo := string(d.ptxt), 0
	out := slices.Grow(dst, len(d.ends))
	for _, hi := range d.ends {
		out = append(out, all[lo:hi])
		lo = hi
	}
	// The paths come in the order of the input, which is often sorted
	// already (encoders such as encoding/json write keys sorted) or made
	// of a few sorted runs (an index of two digits after one of one):
	// addPath compares each with the one before, from where they differ,
	// and the runs are merged.
	if len(d.runs) > 0 {
		list := out[len(dst):]
		d.sorted = slices.Grow(d.sorted[:0], len(list))[:len(list)]
		mergeRuns(list, d.sorted, append(d.runs, len(list)))
		clear(d.sorted)
	}
	return out
}

// mergeRuns sorts a, made of sorted runs, the first of which starts at 0,
// and each of the others where the one before it ends; ends holds where
// each ends (the last at len(a)) and is overwritten. tmp is scratch of
// a's length. Neighbouring runs are merged in pairs until one is left: a
// comparison sort's work when every run is one path long, and less the
// fewer there are.
func mergeRuns(a, tmp []string, ends []int) {
	src, dst := a, tmp
	for len(ends) > 1 {
		w, lo := 0, 0
		for i := 0; i < len(ends); i += 2 {
			if i+1 == len(ends) {
				// An odd run out is carried over as it is.
				copy(dst[lo:], src[lo:ends[i]])
				ends[w] = ends[i]
				w++
				break
			}
			mid, hi := ends[i], ends[i+1]
			merge(dst[lo:hi], src[lo:mid], src[mid:hi])
			ends[w] = hi
			w++
			lo = hi
		}
		ends = ends[:w]
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

// merge writes the sorted x and y, merged, to dst.
func merge(dst, x, y []string) {
	i, j, k := 0, 0, 0
	for i < len(x) && j < len(y) {
		if y[j] < x[i] {
			dst[k] = y[j]
			j++
		} else {
			dst[k] = x[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], x[i:])
	copy(dst[k:], y[j:])
}

// value decodes the next value and prunes it against s as prune does.
func (d *decoder) value(s *schema.Schema, emb bool) any {
	if s == nil {
		return d.all()
	}
	if s.PreserveUnknownFields() {
		return d.preserve(s, emb)
	}
	switch d.peek() {
	case '{':
		return d.object(s, emb)
	case '[':
		if !d.enter() {
			return nil
		}
		items := s.Items()
		iemb := items != nil && items.EmbeddedResource()
		mark := len(d.elems)
		if d.first(']') {
			for n := 0; ; n++ {
				var v any
				switch d.peek() {
				case '{', '[':
					d.enterPath(indexSeg(n))
					v = d.value(items, iemb)
					d.pop()
				default:
					v = d.scalar() // as in child
				}
				d.push(v)
				if !d.more(']') {
					break
				}
			}
		}
		return d.sliceFrom(mark)
	}
	return d.scalar()
}

// object is value for an object under s, a schema without
// x-kubernetes-preserve-unknown-fields: pruneMap.
func (d *decoder) object(s *schema.Schema, emb bool) any {
	if !d.enter() {
		return nil
	}
	if !d.first('}') {
		return map[string]any{}
	}
	addl, _, addlSet := s.AdditionalProperties()
	if addlSet || s.NumProperties() > mapGroup {
		return d.largeObject(s, addl, emb, addlSet)
	}
	m := map[string]any{}
	mark := len(d.keys)
	for {
		k := d.key()
		if d.bad {
			return nil
		}
		switch name, c := s.PropertyName(k); {
		case emb && isMeta(k):
			d.set(m, d.keep(k), d.any())
		case c != nil:
			d.set(m, d.name(name, k), d.child(c, k))
		default:
			d.distinct(mark, k)
			d.record(k)
			d.skip()
		}
		if !d.more('}') {
			break
		}
	}
	d.popKeys(mark)
	return m
}

// mapGroup is the number of keys a Go map holds before it grows past its
// first group of slots.
const mapGroup = 8

// largeObject is object for an object that may keep more keys than one
// group of a map holds: its members are collected and put in a map of
// their number, which saves growing the map (and rehashing it) on the way.
func (d *decoder) largeObject(s, addl *schema.Schema, emb, addlSet bool) any {
	mark, kmark := len(d.members), len(d.keys)
	for {
		k := d.key()
		if d.bad {
			return nil
		}
		switch name, c := s.PropertyName(k); {
		case emb && isMeta(k):
			d.put(d.keep(k), d.any())
		case c != nil:
			d.put(d.name(name, k), d.child(c, k))
		case addlSet:
			d.put(d.keep(k), d.child(addl, k))
		default:
			d.distinct(kmark, k)
			d.record(k)
			d.skip()
		}
		if !d.more('}') {
			break
		}
	}
	d.popKeys(kmark)
	return d.mapFrom(mark)
}

// child decodes the value of key k against c.
func (d *decoder) child(c *schema.Schema, k string) any {
	// Every schema keeps a scalar as it is (value, preserve and all
	// decode it with scalar), and nothing under it is pruned: its path is
	// not needed.
	switch d.peek() {
	case '{', '[':
	default:
		return d.scalar()
	}
	d.enterPath(keySeg(k))
	v := d.value(c, c != nil && c.EmbeddedResource())
	d.pop()
	return v
}

// preserve decodes the next value under s, a schema with
// x-kubernetes-preserve-unknown-fields, as prune's preserve prunes it.
func (d *decoder) preserve(s *schema.Schema, emb bool) any {
	switch d.peek() {
	case '{':
		addl, _, addlSet := s.AdditionalProperties()
		if !addlSet && s.NumProperties() == 0 {
			return d.any()
		}
		if !d.enter() {
			return nil
		}
		mark := len(d.members)
		if !d.first('}') {
			return d.mapFrom(mark)
		}
		for {
			k := d.key()
			if d.bad {
				return nil
			}
			switch name, c := s.PropertyName(k); {
			case emb && isMeta(k):
				d.put(d.keep(k), d.any())
			case c != nil:
				d.put(d.name(name, k), d.child(c, k))
			case addlSet:
				d.put(d.keep(k), d.child(addl, k))
			default:
				d.put(d.keep(k), d.any())
			}
			if !d.more('}') {
				break
			}
		}
		return d.mapFrom(mark)
	case '[':
		items := s.Items()
		if items == nil {
			return d.any()
		}
		if !d.enter() {
			return nil
		}
		iemb := items.EmbeddedResource()
		mark := len(d.elems)
		if d.first(']') {
			for n := 0; ; n++ {
				var v any
				switch d.peek() {
				case '{', '[':
					d.enterPath(indexSeg(n))
					v = d.preserve(items, iemb)
					d.pop()
				default:
					v = d.scalar()
				}
				d.push(v)
				if !d.more(']') {
					break
				}
			}
		}
		return d.sliceFrom(mark)
	}
	return d.scalar()
}

// all decodes the next value under no schema (pruneAll): objects lose
// every key, arrays keep their elements, pruned the same way.
func (d *decoder) all() any {
	switch d.peek() {
	case '{':
		if !d.enter() {
			return nil
		}
		if d.first('}') {
			mark := len(d.keys)
			for {
				k := d.key()
				if d.bad {
					return nil
				}
				d.distinct(mark, k)
				if d.track {
					d.addPath(k)
				}
				d.skip()
				if !d.more('}') {
					break
				}
			}
			d.popKeys(mark)
		}
		return map[string]any{}
	case '[':
		if !d.enter() {
			return nil
		}
		mark := len(d.elems)
		if d.first(']') {
			for n := 0; ; n++ {
				var v any
				switch d.peek() {
				case '{', '[':
					d.enterPath(indexSeg(n))
					v = d.all()
					d.pop()
				default:
					v = d.scalar()
				}
				d.push(v)
				if !d.more(']') {
					break
				}
			}
		}
		return d.sliceFrom(mark)
	}
	return d.scalar()
}

// any decodes the next value whole, as the server's decoder does.
func (d *decoder) any() any {
	switch d.peek() {
	case '{':
		if !d.enter() {
			return nil
		}
		mark := len(d.members)
		if d.first('}') {
			for {
				k := d.key()
				if d.bad {
					return nil
				}
				d.put(d.keep(k), d.any())
				if !d.more('}') {
					break
				}
			}
		}
		return d.mapFrom(mark)
	case '[':
		if !d.enter() {
			return nil
		}
		mark := len(d.elems)
		if d.first(']') {
			for {
				v := d.any()
				d.push(v)
				if !d.more(']') {
					break
				}
			}
		}
		return d.sliceFrom(mark)
	}
	return d.scalar()
}

// skip checks the syntax of the next value and skips it, failing where
// decoding it would fail or lose a duplicate key.
func (d *decoder) skip() {
	switch d.peek() {
	case '{':
		if !d.enter() || !d.first('}') {
			return
		}
		mark := len(d.keys)
		for {
			k := d.key()
			if d.bad {
				return
			}
			d.distinct(mark, k)
			d.skip()
			if !d.more('}') {
				break
			}
		}
		d.popKeys(mark)
	case '[':
		if !d.enter() || !d.first(']') {
			return
		}
		for {
			d.skip()
			if !d.more(']') {
				break
			}
		}
	case '"':
		d.str()
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		d.number(false)
	default:
		d.literal()
	}
}

// scalar decodes a string, number, true, false or null.
func (d *decoder) scalar() any {
	switch d.peek() {
	case '"':
		str := d.keep(d.str())
		d.box.Pos = d.i
		return d.box.String(str)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return d.number(true)
	}
	v := d.literal()
	if v == nil {
		d.nulls = true // or a give-up, which discards it
	}
	return v
}

func (d *decoder) literal() any {
	rest := d.s[d.i:]
	switch {
	case len(rest) >= 4 && rest[:4] == "null":
		d.i += 4
		return nil
	case len(rest) >= 4 && rest[:4] == "true":
		d.i += 4
		return true
	case len(rest) >= 5 && rest[:5] == "false":
		d.i += 5
		return false
	}
	d.fail()
	return nil
}

// number reads a number: an int64 when it has no fraction and fits (the
// server's decoder tries strconv.ParseInt on any number without a '.'),
// else a float64. When value is false only its syntax and range are
// checked.
func (d *decoder) number(value bool) any {
	s, j := d.s, d.i
	neg := s[j] == '-'
	if neg {
		j++
	}
	start := j
	var n uint64
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		for ; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
			n = n*10 + uint64(s[j]-'0')
		}
	default:
		d.fail()
		return nil
	}
	digits := j - start
	frac, exp := false, false
	if j < len(s) && s[j] == '.' {
		frac = true
		j++
		k := j
		for ; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
		}
		if j == k {
			d.fail()
			return nil
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		exp = true
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for ; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
		}
		if j == k {
			d.fail()
			return nil
		}
	}
	lit := s[d.i:j]
	d.i = j
	d.box.Pos = j
	if !frac && !exp && digits <= 18 {
		if !value {
			return nil
		}
		if neg {
			return d.box.Int64(-int64(n))
		}
		return d.box.Int64(int64(n))
	}
	if !frac {
		if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
			if !value {
				return nil
			}
			return d.box.Int64(i)
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		d.fail()
		return nil
	}
	if !value {
		return nil
	}
	return d.box.Float64(f)
}

// str reads a string at the opening quote. Without escapes it is a slice
// of the input; with them it is unescaped into a new string.
func (d *decoder) str() string {
	// The common case, a string of plain bytes ending before the last
	// eight bytes of the input, is this loop; the rest is strFrom's.
	s := d.s
	start := d.i + 1
	for j := start; j+8 <= len(s); j += 8 {
		if m := special(load8(s, j)); m != 0 {
			j += bits.TrailingZeros64(m) >> 3
			if s[j] == '"' {
				d.i = j + 1
				return s[start:j]
			}
			return d.strFrom(start, j)
		}
	}
	return d.strFrom(start, start)
}

// strFrom finishes str for the string that starts at start, whose bytes
// before j are plain.
func (d *decoder) strFrom(start, j int) string {
	s := d.s
	for j < len(s) {
		// Most bytes are printable ASCII other than a quote or backslash:
		// skip them eight at a time, then one at a time near the end.
		for j+8 <= len(s) {
			if m := special(load8(s, j)); m != 0 {
				j += bits.TrailingZeros64(m) >> 3
				goto found
			}
			j += 8
		}
		for j < len(s) && plainByte[s[j]] {
			j++
		}
		if j == len(s) {
			break
		}
	found:
		c := s[j]
		switch {
		case c == '"':
			d.i = j + 1
			return s[start:j]
		case c == '\\':
			return d.unescape(start, j)
		case c < 0x20:
			d.fail()
			return ""
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && size == 1 {
				d.fail()
				return ""
			}
			j += size
		}
	}
	d.fail()
	return ""
}

// load8 reads the eight bytes at s[j:] as a little-endian word (one load).
func load8(s string, j int) uint64 {
	s = s[j : j+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

const (
	lsb = 0x0101010101010101 // the low bit of each byte of a word
	msb = 0x8080808080808080 // the high bit of each byte
)

// special marks, with the high bit of its byte, each byte of the word x
// that is not plainByte: a quote, a backslash, a control byte or a byte
// of a multi-byte UTF-8 sequence. Only the lowest mark is exact: a
// subtraction borrows from the byte above a marked one only, so bytes
// above the first marked byte can be marked wrongly. Callers use the
// lowest.
func special(x uint64) uint64 {
	q := x ^ (lsb * '"')  // zero bytes where x has a quote
	b := x ^ (lsb * '\\') // zero bytes where x has a backslash
	// A byte c < 0x80 gets its high bit from q-1, b-1 or c-0x20 only when
	// it is a quote, a backslash or below 0x20 (or a borrow came from
	// below); every byte >= 0x80 has it already.
	return ((q - lsb) | (b - lsb) | (x - lsb*0x20) | x) & msb
}

// plainByte holds the bytes a string can hold as they are: printable ASCII
// other than a quote or a backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// unescape finishes a string that starts at start and has an escape at j.
func (d *decoder) unescape(start, j int) string {
	s := d.s
	b := append(d.buf[:0], s[start:j]...)
	for j < len(s) {
		c := s[j]
		switch {
		case c == '"':
			d.i = j + 1
			d.buf = b
			return string(b)
		case c == '\\':
			if j+1 >= len(s) {
				d.fail()
				return ""
			}
			j += 2
			switch s[j-1] {
			case '"', '\\', '/':
				b = append(b, s[j-1])
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(s, j)
				j += 4
				if r >= 0xd800 && r < 0xdc00 {
					// A high surrogate must come with a low one.
					var lo rune = -1
					if j+1 < len(s) && s[j] == '\\' && s[j+1] == 'u' {
						lo = hex4(s, j+2)
					}
					if lo < 0xdc00 || lo >= 0xe000 {
						d.fail()
						return ""
					}
					j += 6
					r = (r-0xd800)<<10 | (lo - 0xdc00) + 0x10000
				} else if r < 0 || (r >= 0xdc00 && r < 0xe000) {
					d.fail()
					return ""
				}
				b = utf8.AppendRune(b, r)
			default:
				d.fail()
				return ""
			}
		case c < 0x20:
			d.fail()
			return ""
		case c < utf8.RuneSelf:
			b = append(b, c)
			j++
		default:
			r, size := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && size == 1 {
				d.fail()
				return ""
			}
			b = append(b, s[j:j+size]...)
			j += size
		}
	}
	d.fail()
	return ""
}

// hex4 is the value of the four hex digits at s[j:], or -1.
func hex4(s string, j int) rune {
	if j+4 > len(s) {
		return -1
	}
	var r rune
	for _, c := range []byte(s[j : j+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
