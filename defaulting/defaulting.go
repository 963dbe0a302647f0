package defaulting

import "github.com/crdkit/crdkit/schema"

// Apply modifies obj in place: it sets the defaults of s, as the API server
// does after decoding a custom object and after reading one from storage.
//
// At every object node, each declared property with a default is set to a
// fresh copy of that default when the key is absent, or when its value is
// null and the property is not nullable. Every present key is then walked
// with its property schema, or with the additionalProperties schema when the
// key is not a declared property; a null under a non-nullable
// additionalProperties schema becomes a copy of that schema's default. At
// every array node, a null element becomes a copy of the items default when
// items is not nullable. Defaults are set before the walk descends, so the
// defaults nested inside a default are applied too.
//
// The root's own default is not applied, x-kubernetes-preserve-unknown-fields
// and x-kubernetes-embedded-resource make no difference, and the schema's type
// is not checked against the value: a map is walked with the node's properties
// and a slice with its items, whatever the node's type says. Values of other
// Go types are left alone, and so is a nil map[string]any, which cannot take
// a key in place (the server would panic). A nil obj or a nil s does nothing.
//
// Apply allocates only for the defaults it sets: their copies, and room for
// new keys.
func Apply(obj any, s *schema.Schema) {
	if s == nil || s.Summary()&schema.HasDefaults == 0 {
		return
	}
	apply(obj, s)
}

// ApplyProperty is Apply for the one key k of the object m, a declared
// property of s: what Apply(m, s) would do there, and nothing elsewhere. A
// nil m, a nil s or a k that s does not declare does nothing.
func ApplyProperty(m map[string]any, s *schema.Schema, k string) {
	if m == nil || s == nil {
		return
	}
	if c := s.Property(k); c != nil && c.Summary()&schema.HasDefaults != 0 {
		applyProperty(m, k, c)
	}
}

// applyProperty sets key k of m, a declared property with schema c whose
// subtree holds a default, to a copy of c's default where Apply does, and
// walks its value.
func applyProperty(m map[string]any, k string, c *schema.Schema) {
	v, found := m[k]
	if def, ok := c.Default(); ok && (!found || v == nil && !c.Nullable()) {
		v, found = deepCopy(def), true
		m[k] = v
	}
	if found {
		apply(v, c)
	}
}

// apply walks v with s. s is never nil, and its subtree holds a default.
// The walk follows the schema, so its depth is bounded by the schema's.
func apply(v any, s *schema.Schema) {
	switch v := v.(type) {
	case map[string]any:
		if v != nil { // a nil map cannot take a default in place
			applyMap(v, s)
		}
	case []any:
		applyList(v, s)
	}
}

func applyMap(m map[string]any, s *schema.Schema) {
	a, _, _ := s.AdditionalProperties()
	if a != nil && a.Summary()&schema.HasDefaults == 0 {
		a = nil
	}
	own, below := s.DefaultedProperties()
	if 2*len(m) < s.NumProperties() && (a != nil || len(below) > len(m)) {
		applySparse(m, s, a, own)
		return
	}
	// Many keys for the schema's size, or few properties with a default
	// below them: look up each property whose subtree has a default, set
	// it, and walk it.
	for _, i := range below {
		k, c := s.PropertyAt(i)
		applyProperty(m, k, c)
	}
	if a == nil {
		return
	}
	declared := s.NumProperties() > 0
	for k, v := range m {
		if declared && s.Property(k) != nil {
			continue
		}
		applyAdditional(m, k, v, a)
	}
}

// applySparse handles an object with few keys for its schema: it looks up
// only the properties that have a default themselves (own), then walks the
// keys present, which is cheaper than looking up every property with a
// default somewhere below it.
func applySparse(m map[string]any, s, a *schema.Schema, own []int) {
	for _, i := range own {
		k, c := s.PropertyAt(i)
		def, _ := c.Default()
		if v, found := m[k]; !found || v == nil && !c.Nullable() {
			m[k] = deepCopy(def)
		}
	}
	for k, v := range m {
		if c := s.Property(k); c != nil {
			if c.Summary()&schema.HasDefaults != 0 {
				apply(v, c)
			}
		} else if a != nil {
			applyAdditional(m, k, v, a)
		}
	}
}

// applyAdditional handles key k of m, governed by the additionalProperties
// schema a, whose subtree has a default.
func applyAdditional(m map[string]any, k string, v any, a *schema.Schema) {
	if v == nil && !a.Nullable() {
		def, ok := a.Default()
		if !ok {
			return
		}
		v = deepCopy(def)
		m[k] = v
	}
	apply(v, a)
}

func applyList(l []any, s *schema.Schema) {
	it := s.Items()
	if it == nil || it.Summary()&schema.HasDefaults == 0 {
		return
	}
	def, ok := it.Default()
	replaceNull := ok && !it.Nullable()
	for i, v := range l {
		if v == nil && replaceNull {
			v = deepCopy(def)
			l[i] = v
		}
		apply(v, it)
	}
}

// PruneNulls modifies obj in place: it deletes every object key whose value
// is null when the key's schema (its property, or else additionalProperties)
// is not nullable and has no default, as the API server does right after
// pruning unknown fields. Array elements are never deleted, keys without a
// schema are kept, and the walk does not descend below nodes without a
// schema. A nil obj or a nil s does nothing.
//
// PruneNulls never allocates.
func PruneNulls(obj any, s *schema.Schema) {
	if s == nil {
		return
	}
	pruneNulls(obj, s)
}

// pruneNulls walks v with s, which is never nil. The walk follows the
// schema, so its depth is bounded by the schema's.
func pruneNulls(v any, s *schema.Schema) {
	if s.Summary()&schema.HasNonNullable == 0 {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		a, _, _ := s.AdditionalProperties()
		declared := s.NumProperties() > 0
		for k, x := range v {
			switch x.(type) {
			case nil, map[string]any, []any:
			default:
				continue // a scalar: nothing to delete or walk
			}
			var c *schema.Schema
			if declared {
				c = s.Property(k)
			}
			if c == nil {
				c = a
			}
			if c == nil {
				continue
			}
			if x != nil {
				pruneNulls(x, c)
			} else if _, ok := c.Default(); !ok && !c.Nullable() {
				delete(v, k)
			}
		}
	case []any:
		it := s.Items()
		if it == nil {
			return
		}
		for _, x := range v {
			switch x.(type) {
			case map[string]any, []any:
				pruneNulls(x, it)
			}
		}
	}
}

// deepCopy copies a decoded JSON value. Maps and slices are copied, typed
// nil ones stay nil; everything else is returned as is, which for the
// immutable JSON scalars is a copy.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		if v == nil {
			return v
		}
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = deepCopy(x)
		}
		return l
	}
	return v
}
