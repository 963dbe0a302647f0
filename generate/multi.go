package generate

import (
	"fmt"
	"strings"
)

// MultiErrorMutations lists the mutation kinds of the cases that break
// several things at once, so that the order in which a validator reports
// its errors shows: at one value, at sibling values and at different depths.
// Cases appends Options.MultiErrors of them, chosen round-robin over this
// list, after the cases of Mutations.
//
//   - xof-type: a value of the wrong type where the schema has anyOf, allOf,
//     oneOf or not, or is int-or-string (the type error, the junctor's own
//     error and those of its branches); a string that breaks an allOf
//     branch's length or pattern.
//   - bounds-items: a list over maxItems (or under minItems) with a broken
//     element; an object over maxProperties with a broken value.
//   - required-depths: a required property removed from an object and one
//     from an object inside it; two required properties of one object.
//   - list-duplicates-items: a duplicate in a set or map list and a broken
//     element.
//   - embedded-schema: an embedded resource with invalid metadata, an
//     invalid apiVersion and no kind; or with invalid metadata and a
//     schema error beside it or inside it.
//   - additional-properties: several keys under additionalProperties with
//     values of the wrong type, and one missing what its schema requires.
//   - siblings: two or three properties of one object of the wrong type.
//   - parent-child: a broken property inside an object that also lacks a
//     required property or breaks a property count.
var MultiErrorMutations = []string{
	"xof-type", "bounds-items", "required-depths", "list-duplicates-items",
	"embedded-schema", "additional-properties", "siblings", "parent-child",
}

// multiCandidates adds the candidates of MultiErrorMutations at every site
// of every base. It uses its own random source, so that the cases of
// Mutations do not change.
func (g *Generator) multiCandidates(bases []map[string]any, sites [][]site, add func(candidate)) {
	st := &state{r: g.rand(0x5eed0de7), opts: g.opts, ratio: g.opts.OptionalRatio}
	for b := range bases {
		for _, s := range sites[b] {
			if s.absent || s.n == nil {
				continue
			}
			g.multiSiteCandidates(st, b, s, add)
		}
	}
}

func (g *Generator) multiSiteCandidates(st *state, b int, s site, add func(candidate)) {
	n := s.n
	put := func(m, what string, v any) {
		path := s.field
		if what != "" {
			path += "=" + what
		}
		add(candidate{mutation: m, path: path, base: b, apply: setter(s.path, v)})
	}
	typ := n.effectiveType()
	junctors := len(n.s.AnyOf) > 0 || len(n.s.AllOf) > 0 || len(n.s.OneOf) > 0 || n.s.Not != nil
	if len(s.path) > 0 && (junctors || n.intOrString) {
		if w, ok := wrongType(typ); ok {
			put("xof-type", "wrong-type", w)
		} else {
			for _, w := range []any{int64(12345), "text", true, map[string]any{"k": "v"}, []any{"x"}} {
				if kindName(w) != kindName(s.v) {
					put("xof-type", "wrong-"+kindName(w), w)
					break
				}
			}
		}
		if n.intOrString {
			put("xof-type", "float", 1.5)
			put("xof-type", "object", map[string]any{"k": int64(1)})
		}
	}
	if str, ok := s.v.(string); ok && len(s.path) > 0 {
		for i, br := range n.s.AllOf {
			switch {
			case br.MinLength != nil && *br.MinLength > 0 && *br.MinLength < 1<<16:
				put("xof-type", fmt.Sprintf("allOf%d-minLength", i), strings.Repeat("a", int(*br.MinLength)-1))
			case br.MaxLength != nil && *br.MaxLength < 1<<16:
				put("xof-type", fmt.Sprintf("allOf%d-maxLength", i), str+strings.Repeat("a", int(*br.MaxLength)+1))
			case br.Pattern != "":
				put("xof-type", fmt.Sprintf("allOf%d-pattern", i), "crdkit invalid !")
			}
		}
	}

	if arr, ok := s.v.([]any); ok && n.items != nil {
		if bad, ok := st.brokenValue(n.items); ok {
			if n.s.MaxItems != nil && *n.s.MaxItems < 64 {
				long := deepCopy(arr).([]any)
				for i := 0; len(long) <= int(*n.s.MaxItems) && i < 200; i++ {
					v, _ := st.value(n.items, 4)
					long = append(long, v)
				}
				long[len(long)-1] = bad
				put("bounds-items", "maxItems", long)
			}
			if n.s.MinItems != nil && *n.s.MinItems > 1 && int(*n.s.MinItems) <= len(arr)+1 {
				short := deepCopy(arr).([]any)[:int(*n.s.MinItems)-1]
				short[0] = bad
				put("bounds-items", "minItems", short)
			}
			if len(arr) > 0 && (n.listType == "set" || n.listType == "map") {
				l := append(deepCopy(arr).([]any), deepCopy(arr[0]), bad)
				put("list-duplicates-items", "", l)
				if len(arr) > 1 {
					l := append(deepCopy(arr).([]any), deepCopy(arr[1]), deepCopy(arr[0]))
					l[0] = bad
					put("list-duplicates-items", "first-broken", l)
				}
			}
		}
	}

	obj, ok := s.v.(map[string]any)
	if !ok {
		return
	}
	keys := sortedKeys(obj)
	if n.s.MaxProperties != nil && *n.s.MaxProperties < 64 && len(s.path) > 0 {
		big := deepCopy(obj).(map[string]any)
		broke := false
		for i := 0; len(big) <= int(*n.s.MaxProperties) && i < 100; i++ {
			if n.addl != nil {
				v, ok := st.brokenValue(n.addl)
				if !ok || broke {
					v, _ = st.value(n.addl, 4)
				}
				broke = broke || ok
				big[fmt.Sprintf("extra-%d", i)] = v
			} else {
				big[fmt.Sprintf("extra%d", i)] = "x"
			}
		}
		put("bounds-items", "maxProperties", big)
	}

	// Required at several depths, and two at one level.
	var req []string
	for _, k := range keys {
		if n.required[k] && !(len(s.path) == 0 && (k == "apiVersion" || k == "kind" || k == "metadata")) {
			req = append(req, k)
		}
	}
	if len(req) >= 2 {
		add(candidate{mutation: "required-depths", path: joinField(s.field, req[0]) + "+" + req[1], base: b,
			apply: deleter(appendPath(s.path, req[0]), appendPath(s.path, req[1]))})
	}
	if len(req) > 0 {
		for _, k := range keys {
			c := n.props[k]
			if c == nil || k == req[0] {
				continue
			}
			// The child object: the property's value, or the first element
			// of its list.
			cpath, cfield := appendPath(s.path, k), joinField(s.field, k)
			child, ok := obj[k].(map[string]any)
			if l, isList := obj[k].([]any); isList && len(l) > 0 && c.items != nil {
				child, ok = l[0].(map[string]any)
				c, cpath, cfield = c.items, appendPath(cpath, 0), cfield+"[0]"
			}
			if !ok {
				continue
			}
			for _, ck := range sortedKeys(child) {
				if c.required[ck] {
					add(candidate{mutation: "required-depths", path: joinField(s.field, req[0]) + "+" + joinField(cfield, ck), base: b,
						apply: deleter(appendPath(s.path, req[0]), appendPath(cpath, ck))})
					break
				}
			}
		}
	}

	// Broken values at sibling properties.
	var broken []string
	var values []any
	for _, k := range keys {
		c := n.props[k]
		if c == nil || (len(s.path) == 0 && (k == "apiVersion" || k == "kind" || k == "metadata")) {
			continue
		}
		if w, ok := wrongType(c.effectiveType()); ok {
			broken, values = append(broken, k), append(values, w)
		}
	}
	if len(broken) >= 2 {
		k := min(len(broken), 2+st.r.IntN(2))
		start := st.r.IntN(len(broken) - k + 1)
		ks, vs := broken[start:start+k], values[start:start+k]
		add(candidate{mutation: "siblings", path: s.field + "=" + strings.Join(ks, "+"), base: b, apply: func(o map[string]any) any {
			for i, k := range ks {
				set(o, appendPath(s.path, k), deepCopy(vs[i]))
			}
			return o
		}})
	}

	// A broken property with a broken parent.
	if len(broken) > 0 && len(s.path) > 0 {
		k, w := broken[0], values[0]
		if len(req) > 0 && req[0] != k {
			r := req[0]
			add(candidate{mutation: "parent-child", path: joinField(s.field, k) + "+required-" + r, base: b, apply: func(o map[string]any) any {
				set(o, appendPath(s.path, k), deepCopy(w))
				del(o, appendPath(s.path, r))
				return o
			}})
		}
		if n.s.MinProperties != nil && *n.s.MinProperties > 1 {
			add(candidate{mutation: "parent-child", path: joinField(s.field, k) + "+minProperties", base: b,
				apply: setter(s.path, map[string]any{k: w})})
		}
	}

	// Several keys under additionalProperties.
	if n.addl != nil {
		var entries []Member
		if w, ok := wrongType(n.addl.effectiveType()); ok {
			entries = append(entries, Member{"crdkit-b", w}, Member{"crdkit-a", w})
		}
		if bad, ok := st.brokenValue(n.addl); ok {
			entries = append(entries, Member{"crdkit-c", bad})
		}
		if len(n.addl.required) > 0 {
			entries = append(entries, Member{"crdkit-d", map[string]any{}})
		}
		if len(entries) >= 2 {
			add(candidate{mutation: "additional-properties", path: s.field, base: b, apply: func(o map[string]any) any {
				cur, _ := get(o, s.path).(map[string]any)
				if cur == nil {
					return o
				}
				for _, e := range entries {
					cur[e.Key] = deepCopy(e.Value)
				}
				return o
			}})
		}
	}

	if n.embedded {
		md := appendPath(s.path, "metadata")
		withMeta := func(o map[string]any) {
			if _, ok := get(o, md).(map[string]any); !ok {
				set(o, md, map[string]any{})
			}
		}
		add(candidate{mutation: "embedded-schema", path: s.field + "=labels-invalid+kind-missing+apiVersion-invalid", base: b, apply: func(o map[string]any) any {
			withMeta(o)
			set(o, appendPath(md, "labels"), map[string]any{"bad key!": "v", "ok": "v"})
			set(o, appendPath(md, "name"), "a/b")
			set(o, appendPath(s.path, "apiVersion"), "a/b/c")
			del(o, appendPath(s.path, "kind"))
			return o
		}})
		// Embedded errors come after the schema's: break a sibling of the
		// embedded resource, or a property inside it.
		var at []any
		var w any
		if p := s.parent; p != nil {
			for _, k := range p.names {
				if k == s.path[len(s.path)-1] || p.props[k] == nil {
					continue
				}
				if v, ok := wrongType(p.props[k].effectiveType()); ok {
					at, w = appendPath(s.path[:len(s.path)-1], k), v
					break
				}
			}
		}
		for _, k := range keys {
			if c := n.props[k]; at == nil && c != nil && k != "apiVersion" && k != "kind" && k != "metadata" {
				if v, ok := wrongType(c.effectiveType()); ok {
					at, w = appendPath(s.path, k), v
				}
			}
		}
		if at != nil {
			add(candidate{mutation: "embedded-schema", path: s.field + "=name-invalid+" + pathString(at), base: b, apply: func(o map[string]any) any {
				withMeta(o)
				set(o, appendPath(md, "name"), "a/b")
				set(o, appendPath(md, "namespace"), "Bad_NS")
				set(o, at, deepCopy(w))
				return o
			}})
		}
	}
}

// brokenValue returns a value for n with an error inside, and itself of
// the right type when it can: an object with its first property that can
// take one of the wrong type, or else a value of the wrong type.
func (st *state) brokenValue(n *node) (any, bool) {
	if n.effectiveType() == "object" && n.props != nil {
		st.nodes = 0
		if v, ok := st.value(n, 4); ok {
			if obj, ok := v.(map[string]any); ok {
				for _, k := range n.names {
					if w, ok := wrongType(n.props[k].effectiveType()); ok {
						obj[k] = w
						return obj, true
					}
				}
			}
		}
	}
	return wrongType(n.effectiveType())
}

// deleter returns an apply function that removes the map keys at paths.
func deleter(paths ...[]any) func(map[string]any) any {
	return func(o map[string]any) any {
		for _, p := range paths {
			del(o, p)
		}
		return o
	}
}

func kindName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case int64, float64, Number:
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

// pathString renders a path of keys and indexes as a field path.
func pathString(p []any) string {
	var b strings.Builder
	for _, e := range p {
		switch e := e.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", e)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, e)
		}
	}
	return b.String()
}
