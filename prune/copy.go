package prune

import "github.com/crdkit/crdkit/schema"

// Copy is Object without the mutation: it returns a pruned copy of obj and
// leaves obj unchanged. The copy shares no map or slice with obj; scalars,
// and values outside the value model, are shared as they are. The paths are
// appended to dst exactly as Object appends them.
//
// Copy builds the pruned value in one walk, without copying what it prunes,
// so it is cheaper than a deep copy followed by Object.
func Copy(obj any, s *schema.Schema, opts Options, dst []string) (any, []string) {
	w := walker{paths: dst, track: !opts.NoPaths}
	var empty schema.Schema
	s, emb := top(s, opts, &empty)
	var buf [pathBuf]seg
	out := w.copyPrune(obj, s, emb, buf[:0])
	return out, w.sorted(len(dst))
}

// copyPrune returns the pruned copy of x; it mirrors prune.
func (w *walker) copyPrune(x any, s *schema.Schema, emb bool, path []seg) any {
	if s == nil {
		return w.copyAll(x, path)
	}
	if s.PreserveUnknownFields() {
		return w.copyPreserve(x, s, emb, path)
	}
	switch x := x.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		addl, _, addlSet := s.AdditionalProperties()
		for k, v := range x {
			if emb && isMeta(k) {
				out[k] = deepCopy(v)
			} else if c := s.Property(k); c != nil {
				out[k] = w.copyKey(v, c, path, k)
			} else if addlSet {
				out[k] = w.copyKey(v, addl, path, k)
			} else if w.track {
				w.record(path, k)
			}
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		items := s.Items()
		emb := items != nil && items.EmbeddedResource()
		out := make([]any, len(x))
		for i, v := range x {
			if isContainer(v) {
				v = w.copyPrune(v, items, emb, append(path, indexSeg(i)))
			}
			out[i] = v
		}
		return out
	}
	return x
}

func (w *walker) copyKey(v any, c *schema.Schema, path []seg, k string) any {
	if !isContainer(v) {
		return v
	}
	return w.copyPrune(v, c, c != nil && c.EmbeddedResource(), append(path, keySeg(k)))
}

// copyPreserve mirrors preserve.
func (w *walker) copyPreserve(x any, s *schema.Schema, emb bool, path []seg) any {
	switch x := x.(type) {
	case map[string]any:
		addl, _, addlSet := s.AdditionalProperties()
		if x == nil || (!addlSet && s.NumProperties() == 0) {
			return deepCopy(x)
		}
		out := make(map[string]any, len(x))
		for k, v := range x {
			if emb && isMeta(k) {
				out[k] = deepCopy(v)
			} else if c := s.Property(k); c != nil {
				out[k] = w.copyKey(v, c, path, k)
			} else if addlSet {
				out[k] = w.copyKey(v, addl, path, k)
			} else {
				out[k] = deepCopy(v)
			}
		}
		return out
	case []any:
		items := s.Items()
		if x == nil || items == nil {
			return deepCopy(x)
		}
		emb := items.EmbeddedResource()
		out := make([]any, len(x))
		for i, v := range x {
			if isContainer(v) {
				v = w.copyPreserve(v, items, emb, append(path, indexSeg(i)))
			}
			out[i] = v
		}
		return out
	}
	return x
}

// copyAll mirrors pruneAll: maps become empty maps, and arrays nested in
// arrays are copied with an explicit stack.
func (w *walker) copyAll(x any, path []seg) any {
	switch x := x.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		w.recordAll(x, path)
		return map[string]any{}
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		stack := []copyCursor{{cursor: cursor{a: x}, out: out}}
		var cursors []cursor
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.i == len(top.a) {
				stack = stack[:len(stack)-1]
				continue
			}
			top.i++
			i := top.i - 1
			switch e := top.a[i].(type) {
			case map[string]any:
				if e == nil {
					top.out[i] = e
					continue
				}
				if w.track && len(e) > 0 {
					cursors = cursors[:0]
					for _, c := range stack {
						cursors = append(cursors, c.cursor)
					}
					w.recordAll(e, nestedPath(path, cursors))
				}
				top.out[i] = map[string]any{}
			case []any:
				if e == nil {
					top.out[i] = e
					continue
				}
				o := make([]any, len(e))
				top.out[i] = o
				stack = append(stack, copyCursor{cursor: cursor{a: e}, out: o})
			default:
				top.out[i] = e
			}
		}
		return out
	}
	return x
}

// recordAll records every key of m, at path, as removed.
func (w *walker) recordAll(m map[string]any, path []seg) {
	if w.track {
		for k := range m {
			w.paths = append(w.paths, render(path, k))
		}
	}
}

type copyCursor struct {
	cursor
	out []any
}

// deepCopy copies the maps and slices of v with an explicit stack, since a
// preserved subtree may be nested far deeper than the schema.
func deepCopy(v any) any {
	root := shallow(v)
	if !isContainer(v) {
		return root
	}
	type pair struct{ src, dst any }
	stack := []pair{{v, root}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch src := p.src.(type) {
		case map[string]any:
			dst := p.dst.(map[string]any)
			for k, e := range src {
				c := shallow(e)
				dst[k] = c
				if isContainer(e) {
					stack = append(stack, pair{e, c})
				}
			}
		case []any:
			dst := p.dst.([]any)
			for i, e := range src {
				c := shallow(e)
				dst[i] = c
				if isContainer(e) {
					stack = append(stack, pair{e, c})
				}
			}
		}
	}
	return root
}

// shallow returns an empty map or a slice of the same length for a map or a
// slice (nil stays nil), and v itself otherwise.
func shallow(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		return make(map[string]any, len(v))
	case []any:
		if v == nil {
			return v
		}
		return make([]any, len(v))
	}
	return v
}
