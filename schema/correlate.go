package schema

import (
	"fmt"
	"reflect"
	"strings"
)

// Correlated is a value of an update paired with the value it replaces, as
// the server's ratcheting pairs them (k8s.io/apiserver's CorrelatedObject):
// an object's property with the old object's property of the same name
// (declared, or under an additionalProperties schema), a list-type=map
// item with the old item that has the same keys (the first one, when the
// old list repeats them), and nothing else: items of atomic and set lists,
// and values without a schema, have no counterpart.
//
// Children and equality are computed on demand and cached, so a Correlated
// costs nothing until a check asks for it, and asking again is free. A
// Correlated is not safe for concurrent use: make one per update. The nil
// *Correlated is valid and stands for a value without a counterpart.
type Correlated struct {
	s        *Schema
	new, old any

	eq      int8 // 0 not computed, 1 equal, -1 not equal
	mapList *MapList
	keyed   map[string]*Correlated
	indexed map[int]*Correlated
}

// Correlate pairs new with old under schema s, the root of an update.
func Correlate(s *Schema, new, old any) *Correlated {
	return &Correlated{s: s, new: new, old: old}
}

// New returns the new value.
func (c *Correlated) New() any {
	if c == nil {
		return nil
	}
	return c.new
}

// Old returns the old value it is paired with.
func (c *Correlated) Old() any {
	if c == nil {
		return nil
	}
	return c.old
}

// Schema returns the schema of the value.
func (c *Correlated) Schema() *Schema {
	if c == nil {
		return nil
	}
	return c.s
}

// Key returns the property k of the new value paired with the old value's
// property k, or nil when either value is not an object, either lacks k,
// or the schema has no schema for k.
func (c *Correlated) Key(k string) *Correlated {
	if c == nil || c.s == nil {
		return nil
	}
	if ch, ok := c.keyed[k]; ok {
		return ch
	}
	nm, ok1 := c.new.(map[string]any)
	om, ok2 := c.old.(map[string]any)
	if !ok1 || !ok2 {
		return nil
	}
	nv, ok1 := nm[k]
	ov, ok2 := om[k]
	if !ok1 || !ok2 {
		return nil
	}
	ps := c.s.Property(k)
	if ps == nil {
		ps = c.s.additional
	}
	if ps == nil {
		return nil
	}
	if c.keyed == nil {
		c.keyed = make(map[string]*Correlated, len(nm))
	}
	ch := &Correlated{s: ps, new: nv, old: ov}
	c.keyed[k] = ch
	return ch
}

// Index returns item i of the new list paired with the old item that has
// the same map keys, or nil when the lists are not both lists, i is out of
// range, the list is not a list-type=map list, no old item has those keys,
// or the schema has no items.
func (c *Correlated) Index(i int) *Correlated {
	if c == nil || c.s == nil {
		return nil
	}
	if ch, ok := c.indexed[i]; ok {
		return ch
	}
	ol, ok1 := c.old.([]any)
	nl, ok2 := c.new.([]any)
	if !ok1 || !ok2 || i < 0 || i >= len(nl) || c.s.listType != "map" {
		return nil
	}
	if c.mapList == nil {
		c.mapList = NewMapList(c.s, ol)
	}
	ov := c.mapList.Get(nl[i])
	if ov == nil || c.s.items == nil {
		return nil
	}
	if c.indexed == nil {
		c.indexed = make(map[int]*Correlated, len(nl))
	}
	ch := &Correlated{s: c.s.items, new: nl[i], old: ov}
	c.indexed[i] = ch
	return ch
}

// Equal reports whether the new value is unchanged from the old one, as
// the server's ratcheting decides it (CachedDeepEqual): objects are equal
// when every property pairs (so a property without a schema makes them
// unequal) and every pair is equal; list-type=map lists when every item
// pairs with an equal old item, whatever the order; other lists and
// scalars by deep equality. A nil Correlated is never equal.
func (c *Correlated) Equal() bool {
	if c == nil {
		return false
	}
	if c.eq == 0 {
		c.eq = -1
		if c.equal() {
			c.eq = 1
		}
	}
	return c.eq == 1
}

func (c *Correlated) equal() bool {
	if c.new == nil || c.old == nil {
		return c.new == nil && c.old == nil
	}
	ol, oIsList := c.old.([]any)
	nl, nIsList := c.new.([]any)
	om, oIsMap := c.old.(map[string]any)
	nm, nIsMap := c.new.(map[string]any)
	if oIsList != nIsList || oIsMap != nIsMap {
		return false
	}
	switch {
	case oIsList:
		if len(ol) != len(nl) {
			return false
		}
		for i := range nl {
			ch := c.Index(i)
			if ch == nil {
				if c.mapList == nil {
					return deepEqual(ol, nl)
				}
				return false
			}
			if !ch.Equal() {
				return false
			}
		}
		return true
	case oIsMap:
		if len(om) != len(nm) {
			return false
		}
		for k := range nm {
			ch := c.Key(k)
			if ch == nil || !ch.Equal() {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(c.old, c.new)
}

// MapList looks up the items of a list-type=map list by their map keys, as
// the server's MapList does: keys are compared with their Go types (an
// int64 1 and a float64 1 differ; with several keys, floats are compared
// as formatted with %f), an item whose key is missing or not a scalar has
// no key, and the first of repeated keys wins. Items are keyed lazily.
// A MapList is not safe for concurrent use.
type MapList struct {
	keys    []string
	keyed   map[any]map[string]any
	pending []any
}

// NewMapList returns the lookup for items under the list schema s; it finds
// nothing unless s is an array with list-type=map and map keys.
func NewMapList(s *Schema, items []any) *MapList {
	if s == nil || s.typ != "array" || s.listType != "map" || len(s.listMapKeys) == 0 || len(items) == 0 {
		return &MapList{}
	}
	return &MapList{keys: s.listMapKeys, keyed: map[any]map[string]any{}, pending: items}
}

// Get returns the first item with the same keys as x, or nil.
func (l *MapList) Get(x any) any {
	if l == nil || l.keyed == nil {
		return nil
	}
	m, ok := x.(map[string]any)
	if !ok {
		return nil
	}
	key, ok := l.compositeKey(m)
	if !ok {
		return nil
	}
	if item, ok := l.keyed[key]; ok {
		return item
	}
	for len(l.pending) > 0 {
		item := l.pending[0]
		l.pending = l.pending[1:]
		im, ok := item.(map[string]any)
		if !ok {
			continue
		}
		ik, ok := l.compositeKey(im)
		if !ok {
			continue
		}
		if _, seen := l.keyed[ik]; !seen {
			l.keyed[ik] = im
		}
		if ik == key {
			return im
		}
	}
	return nil
}

func (l *MapList) compositeKey(m map[string]any) (any, bool) {
	if len(l.keys) == 1 {
		v, ok := m[l.keys[0]]
		if !ok {
			return nil, false
		}
		switch v.(type) {
		case bool, float64, int64, string:
			return v, true
		}
		return nil, false
	}
	var b strings.Builder
	for _, k := range l.keys {
		v, ok := m[k]
		if !ok {
			return nil, false
		}
		switch t := v.(type) {
		case bool:
			fmt.Fprintf(&b, "\x00%t", t)
		case float64:
			fmt.Fprintf(&b, "\x00%f", t)
		case int64:
			fmt.Fprintf(&b, "\x00%d", t)
		case string:
			fmt.Fprintf(&b, "\x00%q", t)
		default:
			return nil, false
		}
	}
	return b.String(), true
}
