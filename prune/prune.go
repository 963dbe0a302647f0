package prune

import (
	"slices"

	"github.com/crdkit/crdkit/schema"
)

// Options configure [Object] and [Copy]. The zero value prunes a value that
// is not a whole custom object and records the pruned paths.
type Options struct {
	// Root says that the value is a whole custom object (the server's
	// isResourceRoot): its apiVersion, kind and metadata are left alone, as in
	// every x-kubernetes-embedded-resource, and a nil schema counts as an
	// empty one, so every other field is removed.
	Root bool

	// NoPaths turns path recording off: dst is returned as passed. The
	// server does the same when field validation is Ignore.
	NoPaths bool
}

// Object modifies obj in place: it removes every field that the schema s
// does not allow, from obj and from the maps and slices it holds, as the API
// server does when it decodes a custom object, and appends the paths of the
// removed fields to dst.
//
// The appended paths are rendered as the server renders them ("spec.foo",
// "[1].b", "spec.list[0].x") and sorted as sort.Strings sorts them; paths
// already in dst are left as they are. A path string is built only when a
// field is removed, so an object with nothing to prune costs no allocation.
//
// A nil s allows nothing: every key of a map is removed (but see
// Options.Root). Scalars and values outside the value model are never
// changed. The package documentation describes the rules in full.
func Object(obj any, s *schema.Schema, opts Options, dst []string) []string {
	w := walker{paths: dst, track: !opts.NoPaths}
	var empty schema.Schema
	s, emb := top(s, opts, &empty)
	var buf [pathBuf]seg
	w.prune(obj, s, emb, buf[:0])
	return w.sorted(len(dst))
}

// top applies Options.Root: the server treats the resource root as an
// embedded resource and a missing schema there as an empty one.
func top(s *schema.Schema, opts Options, empty *schema.Schema) (*schema.Schema, bool) {
	if opts.Root {
		if s == nil {
			s = empty
		}
		return s, true
	}
	return s, s != nil && s.EmbeddedResource()
}

// walker carries the state of one call: the paths recorded so far.
type walker struct {
	paths []string
	track bool
}

// sorted sorts the paths appended since from, as the server sorts its list.
func (w *walker) sorted(from int) []string {
	if len(w.paths)-from > 1 {
		slices.Sort(w.paths[from:])
	}
	return w.paths
}

// record notes that key was removed from the map at path. The server does
// not report apiVersion, kind and metadata removed from the top-level map.
func (w *walker) record(path []seg, key string) {
	if w.track && (len(path) > 0 || !isMeta(key)) {
		w.paths = append(w.paths, render(path, key))
	}
}

// isMeta reports the keys that an embedded resource and the resource root
// leave to the object-metadata code.
func isMeta(k string) bool {
	return k == "apiVersion" || k == "kind" || k == "metadata"
}

// prune prunes x against s; emb says whether x is at an embedded resource
// (or the resource root) whose meta keys are left alone. The recursion only
// follows s, so its depth is bounded by the depth of the compiled schema.
func (w *walker) prune(x any, s *schema.Schema, emb bool, path []seg) {
	if s == nil {
		w.pruneAll(x, path)
		return
	}
	if s.PreserveUnknownFields() {
		w.preserve(x, s, emb, path)
		return
	}
	switch x := x.(type) {
	case map[string]any:
		w.pruneMap(x, s, emb, path)
	case []any:
		w.pruneList(x, s, path)
	}
}

// pruneMap is prune for a map and a non-nil schema without
// x-kubernetes-preserve-unknown-fields. It dispatches on the type of each
// value itself, so that the scalars most values are cost no call.
func (w *walker) pruneMap(x map[string]any, s *schema.Schema, emb bool, path []seg) {
	addl, _, addlSet := s.AdditionalProperties()
	for k, v := range x {
		if emb && isMeta(k) {
			continue
		}
		c := s.Property(k)
		if c == nil {
			if !addlSet {
				if w.track {
					w.record(path, k)
				}
				delete(x, k)
				continue
			}
			// Even additionalProperties: false keeps the key; a nil
			// schema then empties the maps below it.
			c = addl
		}
		switch t := v.(type) {
		case map[string]any:
			if c == nil || c.PreserveUnknownFields() {
				w.prune(v, c, c != nil && c.EmbeddedResource(), append(path, keySeg(k)))
			} else {
				w.pruneMap(t, c, c.EmbeddedResource(), append(path, keySeg(k)))
			}
		case []any:
			if c == nil || c.PreserveUnknownFields() {
				w.prune(v, c, false, append(path, keySeg(k)))
			} else {
				w.pruneList(t, c, append(path, keySeg(k)))
			}
		}
	}
}

// pruneList is prune for an array and a non-nil schema without
// x-kubernetes-preserve-unknown-fields.
func (w *walker) pruneList(x []any, s *schema.Schema, path []seg) {
	items := s.Items()
	if items == nil || items.PreserveUnknownFields() {
		for i, v := range x {
			if isContainer(v) {
				w.prune(v, items, items != nil && items.EmbeddedResource(), append(path, indexSeg(i)))
			}
		}
		return
	}
	emb := items.EmbeddedResource()
	for i, v := range x {
		switch t := v.(type) {
		case map[string]any:
			w.pruneMap(t, items, emb, append(path, indexSeg(i)))
		case []any:
			w.pruneList(t, items, append(path, indexSeg(i)))
		}
	}
}

// key prunes the value v of key k against c, skipping scalars.
func (w *walker) key(v any, c *schema.Schema, path []seg, k string) {
	if isContainer(v) {
		w.prune(v, c, c != nil && c.EmbeddedResource(), append(path, keySeg(k)))
	}
}

// preserve handles x-kubernetes-preserve-unknown-fields: unknown keys stay,
// declared properties and additionalProperties are pruned as usual, and the
// elements of an array are preserved against the items schema (all of an
// element is kept when there is none).
func (w *walker) preserve(x any, s *schema.Schema, emb bool, path []seg) {
	switch x := x.(type) {
	case map[string]any:
		addl, _, addlSet := s.AdditionalProperties()
		if !addlSet && s.NumProperties() == 0 {
			return
		}
		for k, v := range x {
			if emb && isMeta(k) {
				continue
			}
			if c := s.Property(k); c != nil {
				w.key(v, c, path, k)
			} else if addlSet {
				w.key(v, addl, path, k)
			}
		}
	case []any:
		items := s.Items()
		if items == nil {
			return
		}
		emb := items.EmbeddedResource()
		for i, v := range x {
			if isContainer(v) {
				w.preserve(v, items, emb, append(path, indexSeg(i)))
			}
		}
	}
}

// pruneAll prunes x against no schema: maps lose every key. Arrays nested in
// arrays are not bounded by the schema's depth, so they are walked with an
// explicit stack instead of recursion.
func (w *walker) pruneAll(x any, path []seg) {
	switch x := x.(type) {
	case map[string]any:
		w.clearMap(x, path)
	case []any:
		var buf [8]cursor
		stack := append(buf[:0], cursor{a: x})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.i == len(top.a) {
				stack = stack[:len(stack)-1]
				continue
			}
			top.i++
			switch e := top.a[top.i-1].(type) {
			case map[string]any:
				if w.track && len(e) > 0 {
					w.recordAll(e, nestedPath(path, stack))
				}
				clear(e)
			case []any:
				stack = append(stack, cursor{a: e})
			}
		}
	}
}

// nestedPath extends path by the indexes of the elements the cursors visit.
// It is called only for a map that has keys to remove.
func nestedPath(path []seg, stack []cursor) []seg {
	for _, c := range stack {
		path = append(path, indexSeg(c.i-1))
	}
	return path
}

// clearMap removes every key of m, at path.
func (w *walker) clearMap(m map[string]any, path []seg) {
	w.recordAll(m, path)
	clear(m)
}

// cursor is an array being walked with an explicit stack; i is one past the
// element being visited.
type cursor struct {
	a []any
	i int
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}
