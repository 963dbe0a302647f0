package crdkit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	kjson "sigs.k8s.io/json"
)

// The fast JSON patch: the server encodes live as JSON, applies the
// operations with the json-patch library (v4) and decodes the result.
// patchFastJSON applies them to a copy of live made by copyAsJSON, with
// the library's semantics, which differ from RFC 6902 in places:
//
//   - a path's first segment is never looked at ("a/b" is "/b"); a path
//     without "/" addresses nothing;
//   - replace of an object member that is missing adds it; copy from a
//     missing member copies null;
//   - array indexes are read by strconv.Atoi ("+1", "01"); negative ones
//     count from the end (SupportNegativeIndices; for add, -1 appends);
//   - test compares objects by members and arrays by elements, but
//     scalars by their compacted JSON text, so that 1 and 1.0, or "<"
//     in the patch and "<" in live (encoded "\u003c"), differ; a test
//     with no value passes on a missing or null member; a null array
//     element met by the comparison makes the library panic;
//   - copy counts the encoded size of each copied value against
//     AccumulatedCopySizeLimit.
//
// Any failing operation fails the patch with the server's generic 422,
// whose text does not depend on the operation, so only success and the
// resulting object need to match. Whatever could make the library do
// something else is left to it (the server's path, patchJSON): a patch
// with duplicate or unknown keys, an operation whose op, path or from is
// not a string, a value that is null (the library keeps such a node apart
// from a null member), replace or test of the whole document, more
// operations than the server takes, copies without a copy limit, and, when
// the patch tests or copies, values not written as encoding/json writes
// them or a live -0.0 (whose encoded text the copy does not keep), and a
// test whose comparison reaches a null array element. FuzzJSONPatchFast
// compares both paths.

// jsonPatchOp is one operation of a JSON patch, decoded.
type jsonPatchOp struct {
	op, path, from string
	hasPath        bool
	hasFrom        bool
	value          any
	hasValue       bool
}

// patchFastJSON is patchJSON for a JSON patch, on decoded values. It
// reports false, having changed nothing, where the server's path must
// answer.
func (p *patchRequest) patchFastJSON() bool {
	limitJSONPatchCopies()
	obj, res := applyJSONPatch(p.old, p.data)
	switch {
	case res == opUnsure:
		return false
	case res == opFailed:
		p.fail(jsonPatchApplyError(""))
		return true
	case !typeMetaDecodes(obj):
		return false
	}
	return p.finishFast(obj, nil)
}

// applyJSONPatch applies the JSON patch data to a copy of live as the
// server's path applies it to live's encoding, giving what decoding the
// result gives; opUnsure where that path must answer.
func applyJSONPatch(live map[string]any, data []byte) (map[string]any, opResult) {
	ops, ok := decodeJSONPatch(data)
	if !ok {
		return nil, opUnsure
	}
	testsOrCopies, copies := false, false
	for i := range ops {
		switch ops[i].op {
		case "test":
			testsOrCopies = true
		case "copy":
			testsOrCopies, copies = true, true
		}
	}
	limit := atomic.LoadInt64(&jsonpatch.AccumulatedCopySizeLimit)
	if copies && limit <= 0 || testsOrCopies && !jsonPatchValuesCanonical(data, ops) {
		return nil, opUnsure
	}
	var c jsonCopy
	doc, ok := c.copy(live, 0)
	if !ok || testsOrCopies && c.negZero {
		return nil, opUnsure
	}
	a := jsonPatcher{root: doc.(map[string]any), limit: limit, negative: jsonpatch.SupportNegativeIndices}
	for i := range ops {
		if res := a.apply(&ops[i]); res != opApplied {
			return nil, res
		}
	}
	return a.root, opApplied
}

// decodeJSONPatch decodes a JSON patch into its operations as the server
// decodes its values, reporting false for a patch that is not a list of
// objects of op, path, from and value alone, with op, path and from
// strings, no null value, no duplicate key anywhere, and at most
// maxJSONPatchOperations operations: the library and the strict decoder
// answer those.
func decodeJSONPatch(data []byte) ([]jsonPatchOp, bool) {
	var raw []any
	strictErrs, err := kjson.UnmarshalStrict(data, &raw)
	if err != nil || len(strictErrs) > 0 || len(raw) > maxJSONPatchOperations {
		return nil, false
	}
	ops := make([]jsonPatchOp, len(raw))
	for i, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, false
		}
		op := &ops[i]
		for k, v := range m {
			switch k {
			case "value":
				if v == nil {
					return nil, false
				}
				op.value, op.hasValue = v, true
				continue
			case "op", "path", "from":
			default:
				return nil, false
			}
			s, ok := v.(string)
			if !ok {
				return nil, false
			}
			switch k {
			case "op":
				op.op = s
			case "path":
				op.path, op.hasPath = s, true
			default:
				op.from, op.hasFrom = s, true
			}
		}
		if (op.op == "replace" || op.op == "test") && op.hasPath && op.path == "" {
			return nil, false // the library swaps or compares the whole document
		}
	}
	return ops, true
}

// jsonPatchValuesCanonical reports whether every value of the patch is
// written as encoding/json writes what the server decodes from it (keys
// sorted, no space, its escapes and number forms): the library's test
// compares scalars by text and copy counts encoded bytes, which are then
// those of the decoded values. ops is data decoded, before any operation
// ran.
func jsonPatchValuesCanonical(data []byte, ops []jsonPatchOp) bool {
	var raw []map[string]json.RawMessage
	if json.Unmarshal(data, &raw) != nil || len(raw) != len(ops) {
		return false
	}
	var buf bytes.Buffer
	for i := range ops {
		if !ops[i].hasValue {
			continue
		}
		enc, err := json.Marshal(ops[i].value)
		if err != nil {
			return false
		}
		buf.Reset()
		if json.Compact(&buf, raw[i]["value"]) != nil || !bytes.Equal(buf.Bytes(), enc) {
			return false
		}
	}
	return true
}

// opResult is what one operation did.
type opResult int

const (
	opApplied opResult = iota
	opFailed           // the library returns an error
	opUnsure           // the library might do something else (panic)
)

// jsonPatcher applies operations to root, as the library does to the
// document it decoded.
type jsonPatcher struct {
	root map[string]any
	// limit is AccumulatedCopySizeLimit, copied the accumulated size.
	limit, copied int64
	// negative is SupportNegativeIndices.
	negative bool
}

// container is an object or an array of the document, with where the
// array is held: the library replaces arrays it grows or shrinks in their
// parent.
type container struct {
	obj    map[string]any
	arr    []any
	isArr  bool
	parent map[string]any // the object holding arr at key, or nil
	key    string
	outer  []any // the array holding arr at index, when parent is nil
	index  int
}

// setArr stores a new slice for the array container.
func (c *container) setArr(a []any) {
	c.arr = a
	if c.parent != nil {
		c.parent[c.key] = a
	} else {
		c.outer[c.index] = a
	}
}

func (a *jsonPatcher) apply(op *jsonPatchOp) opResult {
	switch op.op {
	case "add":
		if !op.hasPath {
			return opFailed
		}
		c, key, ok := a.find(op.path)
		if !ok {
			return opFailed
		}
		return a.add(c, key, op.value)
	case "remove":
		if !op.hasPath {
			return opFailed
		}
		c, key, ok := a.find(op.path)
		if !ok {
			return opFailed
		}
		return a.remove(c, key)
	case "replace":
		if !op.hasPath {
			return opFailed
		}
		c, key, ok := a.find(op.path)
		if !ok {
			return opFailed
		}
		if !c.isArr {
			c.obj[key] = op.value // a missing member is added
			return opApplied
		}
		i, ok := a.index(key, len(c.arr), false)
		if !ok {
			return opFailed
		}
		c.arr[i] = op.value
		return opApplied
	case "move":
		if !op.hasFrom {
			return opFailed
		}
		c, key, ok := a.find(op.from)
		if !ok {
			return opFailed
		}
		val, ok := a.get(c, key)
		if !ok || a.remove(c, key) != opApplied || !op.hasPath {
			return opFailed
		}
		if c, key, ok = a.find(op.path); !ok {
			return opFailed
		}
		return a.add(c, key, val)
	case "copy":
		if !op.hasFrom {
			return opFailed
		}
		c, key, ok := a.find(op.from)
		if !ok {
			return opFailed
		}
		val, ok := a.get(c, key)
		if !ok || !op.hasPath {
			return opFailed
		}
		if c, key, ok = a.find(op.path); !ok {
			return opFailed
		}
		if val != nil {
			enc, err := json.Marshal(val)
			if err != nil {
				return opUnsure
			}
			a.copied += int64(len(enc))
			if a.copied > a.limit {
				return opFailed
			}
			val = deepCopyValue(val)
		}
		return a.add(c, key, val)
	case "test":
		if !op.hasPath {
			return opFailed
		}
		c, key, ok := a.find(op.path)
		if !ok {
			return opFailed
		}
		val, ok := a.get(c, key)
		switch {
		case !ok:
			return opFailed
		case val == nil:
			// A missing or null member (or null element) passes a test
			// without a value.
			if op.hasValue {
				return opFailed
			}
			return opApplied
		case !op.hasValue:
			return opFailed
		}
		switch textEqual(val, op.value) {
		case eqTrue:
			return opApplied
		case eqFalse:
			return opFailed
		}
		return opUnsure
	}
	return opFailed
}

// find is the library's findObject: the container of the path's last
// segment and that segment decoded. The path's first segment is skipped
// whatever it holds; every segment between must lead to an object or an
// array (null leads nowhere).
func (a *jsonPatcher) find(path string) (container, string, bool) {
	first := strings.IndexByte(path, '/')
	if first < 0 {
		return container{}, "", false
	}
	rest := path[first+1:]
	c := container{obj: a.root}
	for {
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			return c, decodePointerToken(rest), true
		}
		next, ok := a.get(c, decodePointerToken(rest[:slash]))
		if !ok {
			return container{}, "", false
		}
		switch t := next.(type) {
		case map[string]any:
			c = container{obj: t}
		case []any:
			nc := container{arr: t, isArr: true}
			if c.isArr {
				i, _ := a.index(decodePointerToken(rest[:slash]), len(c.arr), false)
				nc.outer, nc.index = c.arr, i
			} else {
				nc.parent, nc.key = c.obj, decodePointerToken(rest[:slash])
			}
			c = nc
		default:
			return container{}, "", false // null, or a scalar
		}
		rest = rest[slash+1:]
	}
}

// get is the library's get: an object's member (nil when missing), or an
// array's element at an index that must be in range.
func (a *jsonPatcher) get(c container, key string) (any, bool) {
	if !c.isArr {
		return c.obj[key], true
	}
	i, ok := a.index(key, len(c.arr), false)
	if !ok {
		return nil, false
	}
	return c.arr[i], true
}

// index reads key as an index into an array of n elements as the library
// does: strconv.Atoi, negative indexes from the end when allowed; for an
// insertion (add) n+1 positions.
func (a *jsonPatcher) index(key string, n int, insert bool) (int, bool) {
	i, err := strconv.Atoi(key)
	if err != nil {
		return 0, false
	}
	if insert {
		n++
	}
	if i >= n {
		return 0, false
	}
	if i < 0 {
		if !a.negative || i < -n {
			return 0, false
		}
		i += n
	}
	return i, true
}

// add is the library's add: an object's member set, or an element
// inserted ("-" appends).
func (a *jsonPatcher) add(c container, key string, val any) opResult {
	if !c.isArr {
		c.obj[key] = val
		return opApplied
	}
	i := len(c.arr)
	if key != "-" {
		var ok bool
		if i, ok = a.index(key, len(c.arr), true); !ok {
			return opFailed
		}
	}
	out := make([]any, len(c.arr)+1)
	copy(out, c.arr[:i])
	out[i] = val
	copy(out[i+1:], c.arr[i:])
	c.setArr(out)
	return opApplied
}

// remove is the library's remove: an object's member, which must be there
// (null or not), or an element at an index in range.
func (a *jsonPatcher) remove(c container, key string) opResult {
	if !c.isArr {
		if _, ok := c.obj[key]; !ok {
			return opFailed
		}
		delete(c.obj, key)
		return opApplied
	}
	i, ok := a.index(key, len(c.arr), false)
	if !ok {
		return opFailed
	}
	out := make([]any, len(c.arr)-1)
	copy(out, c.arr[:i])
	copy(out[i:], c.arr[i+1:])
	c.setArr(out)
	return opApplied
}

// decodePointerToken decodes a JSON pointer token: "~1" is "/", then "~0"
// is "~", read left to right.
func decodePointerToken(s string) string {
	if strings.IndexByte(s, '~') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && i+1 < len(s) && (s[i+1] == '0' || s[i+1] == '1') {
			if s[i+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// deepCopyValue copies a decoded value.
func deepCopyValue(x any) any {
	switch t := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopyValue(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopyValue(e)
		}
		return out
	}
	return x
}

// eqResult is what the library's test comparison gives.
type eqResult int

const (
	eqTrue eqResult = iota
	eqFalse
	eqUnsure // the library may panic (a null array element reached)
)

// textEqual is the library's test comparison of doc (a value of the
// document, not nil) with v (the operation's value), for values whose
// scalars are written as encoding/json writes them (jsonPatchValuesCanonical,
// and copyAsJSON's copy of live without -0.0): objects compare members (in
// map order, so that a null array element anywhere makes the answer
// unsure), arrays elements in order, scalars by their text, which is then
// equality of the decoded values with their types.
func textEqual(doc, v any) eqResult {
	switch d := doc.(type) {
	case map[string]any:
		o, ok := v.(map[string]any)
		if !ok || len(d) != len(o) {
			return eqFalse
		}
		res := eqTrue
		for k, dv := range d {
			ov, ok := o[k]
			switch {
			case !ok || (dv == nil) != (ov == nil):
				res = eqFalse
			case dv == nil:
			default:
				switch textEqual(dv, ov) {
				case eqUnsure:
					return eqUnsure
				case eqFalse:
					res = eqFalse
				}
			}
		}
		// A member unsure above made the answer unsure: in the library's
		// map order it may come before a member that differs.
		return res
	case []any:
		o, ok := v.([]any)
		if !ok || len(d) != len(o) {
			return eqFalse
		}
		for i := range d {
			if d[i] == nil || o[i] == nil {
				return eqUnsure
			}
			if r := textEqual(d[i], o[i]); r != eqTrue {
				return r
			}
		}
		return eqTrue
	}
	switch v.(type) {
	case map[string]any, []any:
		return eqFalse
	}
	if doc == v {
		return eqTrue
	}
	return eqFalse
}
