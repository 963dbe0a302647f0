package rules

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"k8s.io/apimachinery/pkg/api/equality"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
)

// The values rules see. toVal is the server's UnstructuredToVal
// (k8s.io/apiserver/pkg/cel/common) with the same value types and the same
// behaviour, method for method, for objects and lists; scalars, nulls,
// int-or-string and preserved unknown values are converted by the server's
// function itself. What differs is speed: the server unescapes a CEL field
// name with a regular expression on every field access and looks property
// schemas up through freshly built maps, while these values use the
// unescaped and escaped names and the child nodes prepared once per schema
// node by newNode. The rarely used list concatenations (Add) are the
// server's own.

// names is what a node with properties precomputes for its values: the
// server's Unescape of every property name and of its escaped form (a
// field access passes the escaped form, an equality check the property name
// itself), and the server's Escape of every property name.
type names struct {
	unescaped map[string]unescaped
	escaped   map[string]string // property name → escaped, when it can be escaped
}

type unescaped struct {
	name string
	ok   bool
}

// lazyNames are the names of props, built on first use: a CRD check
// converts few values (its defaults), a node's names are needed only to
// convert values. Safe for concurrent use.
type lazyNames struct {
	once  sync.Once
	props map[string]common.Schema
	v     *names
}

// newLazyNames is nil when props is (newNames is then nil too).
func newLazyNames(props map[string]common.Schema) *lazyNames {
	if props == nil {
		return nil
	}
	return &lazyNames{props: props}
}

func (l *lazyNames) get() *names {
	if l == nil {
		return nil
	}
	l.once.Do(func() { l.v = newNames(l.props) })
	return l.v
}

func newNames(props map[string]common.Schema) *names {
	if props == nil {
		return nil
	}
	nm := &names{unescaped: make(map[string]unescaped, 2*len(props)), escaped: make(map[string]string, len(props))}
	add := func(s string) {
		if _, done := nm.unescaped[s]; !done {
			u, ok := apiservercel.Unescape(s)
			nm.unescaped[s] = unescaped{u, ok}
		}
	}
	for p := range props {
		add(p)
		if e, ok := apiservercel.Escape(p); ok {
			nm.escaped[p] = e
			add(e)
		}
	}
	return nm
}

func (nm *names) unescape(s string) (string, bool) {
	if u, ok := nm.unescaped[s]; ok {
		return u.name, u.ok
	}
	return apiservercel.Unescape(s)
}

func (nm *names) escape(p string) (string, bool) {
	if e, ok := nm.escaped[p]; ok {
		return e, true
	}
	return apiservercel.Escape(p)
}

// serverValues makes toVal the server's converter, for tests that compare
// the two. Only tests set it, before any evaluation.
var serverValues = false

// toVal converts v, a value of schema n, for CEL.
func toVal(v any, n *node) ref.Val {
	if v == nil || n.IsXIntOrString() || serverValues {
		return common.UnstructuredToVal(v, n)
	}
	switch n.typ {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return common.UnstructuredToVal(v, n)
		}
		if n.IsXEmbeddedResource() || n.props != nil {
			if n.IsXEmbeddedResource() {
				n = n.WithTypeAndObjectMeta().(*node)
			}
			return &objectVal{value: m, n: n, kind: byProperty}
		}
		if n.addl != nil && n.addl.schema != nil {
			return &objectVal{value: m, n: n, kind: byAdditional}
		}
		return &objectVal{value: m, n: n, kind: noProperty}
	case "array":
		l, ok := v.([]any)
		if !ok || n.items == nil {
			return common.UnstructuredToVal(v, n)
		}
		typed := listVal{elements: l, items: n.items, n: n}
		switch n.XListType() {
		case "map":
			return &mapListVal{listVal: typed}
		case "set":
			return &setListVal{listVal: typed}
		case "", "atomic":
			return &typed
		}
		return common.UnstructuredToVal(v, n)
	}
	return common.UnstructuredToVal(v, n)
}

// propKind is how an object finds the schema of a key.
type propKind uint8

const (
	byProperty   propKind = iota // properties (and embedded resources)
	byAdditional                 // additionalProperties
	noProperty                   // neither: no key has a schema
)

// objectVal is the server's unstructuredMap.
type objectVal struct {
	value map[string]any
	n     *node
	kind  propKind
}

var _ traits.Mapper = (*objectVal)(nil)

func (t *objectVal) propSchema(key string) (*node, bool) {
	switch t.kind {
	case byProperty:
		if c, ok := t.n.props[key]; ok {
			return c.(*node), true
		}
	case byAdditional:
		return t.n.addl.schema, true
	}
	return nil, false
}

func (t *objectVal) isObject() bool { return t.n.props != nil }

func (t *objectVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if typeDesc.Kind() == reflect.Map {
		return t.value, nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", t.Type(), typeDesc)
}

func (t *objectVal) ConvertToType(typeValue ref.Type) ref.Val {
	switch typeValue {
	case types.MapType:
		return t
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", t.Type(), typeValue.TypeName())
}

func (t *objectVal) Equal(other ref.Val) ref.Val {
	oMap, isMap := other.(traits.Mapper)
	if !isMap {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if t.Size() != oMap.Size() {
		return types.False
	}
	for key, value := range t.value {
		if _, ok := t.propSchema(key); ok {
			v, found := t.Find(types.String(key))
			ov, oFound := oMap.Find(types.String(key))
			if found != oFound {
				return types.False
			}
			if !found {
				continue
			}
			if eq := v.Equal(ov); eq != types.True {
				return eq
			}
		} else {
			ou, ok := other.(*objectVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(other)
			}
			if ov, ok := ou.value[key]; ok {
				if !equality.Semantic.DeepEqual(value, ov) {
					return types.False
				}
			}
		}
	}
	return types.True
}

func (t *objectVal) Type() ref.Type { return types.MapType }
func (t *objectVal) Value() any     { return t.value }

func (t *objectVal) Contains(key ref.Val) ref.Val {
	v, found := t.Find(key)
	if v != nil && types.IsUnknownOrError(v) {
		return v
	}
	return types.Bool(found)
}

func (t *objectVal) Get(key ref.Val) ref.Val {
	if v, found := t.Find(key); found {
		return v
	}
	return types.ValOrErr(key, "no such key: %v", key)
}

func (t *objectVal) Iterator() traits.Iterator {
	isObject := t.isObject()
	keys := make([]ref.Val, len(t.value)) // as the server's: unfilled slots stay nil
	i := 0
	for k := range t.value {
		if _, ok := t.propSchema(k); ok {
			mapKey := k
			if isObject {
				if e, ok := t.n.names.get().escape(k); ok {
					mapKey = e
				}
			}
			keys[i] = types.String(mapKey)
			i++
		}
	}
	return &objectIterator{objectVal: t, keys: keys}
}

type objectIterator struct {
	*objectVal
	keys []ref.Val
	idx  int
}

func (it *objectIterator) HasNext() ref.Val { return types.Bool(it.idx < len(it.keys)) }

func (it *objectIterator) Next() ref.Val {
	k := it.keys[it.idx]
	it.idx++
	return k
}

func (t *objectVal) Size() ref.Val { return types.Int(len(t.value)) }

func (t *objectVal) Find(key ref.Val) (ref.Val, bool) {
	isObject := t.isObject()
	ks, ok := key.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(key), true
	}
	k := string(ks)
	if isObject {
		if k, ok = t.n.names.get().unescape(k); !ok {
			return nil, false
		}
	}
	if v, ok := t.value[k]; ok {
		if isObject && v == nil {
			return nil, false
		}
		if ps, ok := t.propSchema(k); ok {
			return toVal(v, ps), true
		}
	}
	return nil, false
}

// listVal is the server's unstructuredList (atomic lists).
type listVal struct {
	elements []any
	items    *node
	n        *node // the list's schema, for the server's own Add
}

var _ traits.Lister = (*listVal)(nil)

func (t *listVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if typeDesc.Kind() == reflect.Slice {
		if t.items.Type() == "string" {
			var result []string
			for _, e := range t.elements {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("expected all elements to be of type string, but got %T", e)
				}
				result = append(result, s)
			}
			return result, nil
		}
		return t.elements, nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", t.Type(), typeDesc)
}

func (t *listVal) ConvertToType(typeValue ref.Type) ref.Val {
	switch typeValue {
	case types.ListType:
		return t
	case types.TypeType:
		return types.ListType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", t.Type(), typeValue.TypeName())
}

func (t *listVal) Equal(other ref.Val) ref.Val {
	oList, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	sz := types.Int(len(t.elements))
	if sz != oList.Size() {
		return types.False
	}
	for i := types.Int(0); i < sz; i++ {
		if eq := t.Get(i).Equal(oList.Get(i)); eq != types.True {
			return eq
		}
	}
	return types.True
}

func (t *listVal) Type() ref.Type { return types.ListType }
func (t *listVal) Value() any     { return t.elements }

// Add is the server's.
func (t *listVal) Add(other ref.Val) ref.Val { return serverAdd(t.elements, t.n, other) }

func serverAdd(elements []any, n *node, other ref.Val) ref.Val {
	if a, ok := common.UnstructuredToVal(elements, n).(traits.Adder); ok {
		return a.Add(other)
	}
	return types.MaybeNoSuchOverloadErr(other)
}

func (t *listVal) Contains(val ref.Val) ref.Val {
	if types.IsUnknownOrError(val) {
		return val
	}
	var err ref.Val
	for _, e := range t.elements {
		cmp := toVal(e, t.items).Equal(val)
		b, ok := cmp.(types.Bool)
		if !ok && err == nil {
			err = types.MaybeNoSuchOverloadErr(cmp)
		}
		if b == types.True {
			return types.True
		}
	}
	if err != nil {
		return err
	}
	return types.False
}

func (t *listVal) Get(idx ref.Val) ref.Val {
	iv, isInt := idx.(types.Int)
	if !isInt {
		return types.ValOrErr(idx, "unsupported index: %v", idx)
	}
	i := int(iv)
	if i < 0 || i >= len(t.elements) {
		return types.NewErr("index out of bounds: %v", idx)
	}
	return toVal(t.elements[i], t.items)
}

func (t *listVal) Iterator() traits.Iterator {
	items := make([]ref.Val, len(t.elements))
	for i, e := range t.elements {
		items[i] = toVal(e, t.items)
	}
	return &listIterator{listVal: t, items: items}
}

type listIterator struct {
	*listVal
	items []ref.Val
	idx   int
}

func (it *listIterator) HasNext() ref.Val { return types.Bool(it.idx < len(it.items)) }

func (it *listIterator) Next() ref.Val {
	v := it.items[it.idx]
	it.idx++
	return v
}

func (t *listVal) Size() ref.Val { return types.Int(len(t.elements)) }

// mapListVal is the server's unstructuredMapList (list-type=map).
type mapListVal struct {
	listVal
	once      sync.Once
	mapOfList map[any]any
}

func (t *mapListVal) keyProps() []string { return t.n.escapedMapKeys }

func (t *mapListVal) getMap() map[any]any {
	t.once.Do(func() {
		t.mapOfList = make(map[any]any, len(t.elements))
		for _, e := range t.elements {
			t.mapOfList[t.toMapKey(e)] = e
		}
	})
	return t.mapOfList
}

func (t *mapListVal) toMapKey(element any) any {
	obj, ok := element.(map[string]any)
	if !ok {
		return types.NewErr("unexpected data format for element of array with x-kubernetes-list-type=map: %T", element)
	}
	keys := t.keyProps()
	switch len(keys) {
	case 1:
		return obj[keys[0]]
	case 2:
		return [2]any{obj[keys[0]], obj[keys[1]]}
	case 3:
		return [3]any{obj[keys[0]], obj[keys[1]], obj[keys[2]]}
	}
	key := make([]any, len(keys))
	for i, kf := range keys {
		key[i] = obj[kf]
	}
	return fmt.Sprintf("%#v", key)
}

func (t *mapListVal) Equal(other ref.Val) ref.Val {
	oList, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if types.Int(len(t.elements)) != oList.Size() {
		return types.False
	}
	tMap := t.getMap()
	seen := make(map[any]struct{}, len(tMap))
	for it := oList.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		k := t.toMapKey(v.Value())
		tv, ok := tMap[k]
		if !ok {
			return types.False
		}
		if eq := toVal(tv, t.items).Equal(v); eq != types.True {
			return eq
		}
		seen[k] = struct{}{}
	}
	return types.Bool(len(seen) == len(tMap))
}

// Add is the server's.
func (t *mapListVal) Add(other ref.Val) ref.Val { return serverAdd(t.elements, t.n, other) }

// setListVal is the server's unstructuredSetList (list-type=set): its
// equality and Add are the server's own.
type setListVal struct {
	listVal
	once   sync.Once
	server ref.Val
}

func (t *setListVal) serverVal() ref.Val {
	t.once.Do(func() { t.server = common.UnstructuredToVal(t.elements, t.n) })
	return t.server
}

func (t *setListVal) Equal(other ref.Val) ref.Val { return t.serverVal().Equal(other) }

func (t *setListVal) Add(other ref.Val) ref.Val {
	if a, ok := t.serverVal().(traits.Adder); ok {
		return a.Add(other)
	}
	return types.MaybeNoSuchOverloadErr(other)
}
