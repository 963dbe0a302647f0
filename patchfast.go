package crdkit

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	kjson "sigs.k8s.io/json"
)

// The fast merge patch: the server encodes live as JSON, merges the patch
// into it with the json-patch library and decodes the result. patchFast
// does the same on the decoded values: a copy of live in the values the
// JSON round trip gives (copyAsJSON), the patch decoded as the server's
// decoder decodes the patched document's values, merged with the
// library's rules (mergeObject), then the update's decoding steps on the
// object. Where the answer would quote the patched document (a decoding
// error, strict errors in Strict), or live holds what the JSON round trip
// changes in other ways, the request takes the server's path instead
// (patchJSON), which FuzzPatchFast compares with this one.

// patchFast is patchJSON for a merge patch that is a JSON object (and for
// a JSON patch, patchFastJSON), without encoding live or decoding the
// patched document. It reports false, having changed nothing, where the
// server's path must answer.
func (p *patchRequest) patchFast() bool {
	if p.typ == JSONPatch {
		return p.patchFastJSON()
	}
	if p.typ != MergePatch || len(p.data) == 0 || p.data[0] != '{' && !isSpaceThenBrace(p.data) {
		return false
	}
	var patch map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(p.data, &patch); err != nil || patch == nil {
		return false
	}
	var applied []string
	if p.mode != Ignore {
		errs, err := kjson.UnmarshalStrict(p.data, &map[string]any{})
		if err != nil {
			return false
		}
		for _, e := range errs {
			applied = append(applied, e.Error())
		}
	}
	doc, ok := copyAsJSON(p.old, 0)
	if !ok {
		return false
	}
	obj := doc.(map[string]any)
	mergeObject(obj, patch)
	if !typeMetaDecodes(obj) {
		return false
	}
	return p.finishFast(obj, applied)
}

// finishFast takes obj, the patched object made on decoded values, through
// the update's decoding steps (the patch's own strict errors applied),
// then the field manager's update. It reports false, having changed
// nothing, where the answer would quote the patched document.
func (p *patchRequest) finishFast(obj map[string]any, applied []string) bool {
	r := p.request
	saved := *r
	r.obj, r.raw, r.appliedStrict, r.fast, r.patchFast = obj, nil, applied, true, true
	r.decode()            // the type meta of the object (it decodes)
	r.coerce()            // root metadata, prune, non-nullable nulls, embedded resources
	r.defaultOwnVersion() // defaults of the object's own version
	r.fieldValidation()   // unknown fields of the object, duplicates of the patch
	if r.patchSlow {
		// The answer quotes the patched document: the server's path,
		// from the request as it was.
		*r = saved
		return false
	}
	r.patchFast = false
	p.manageFields() // the field manager's update
	return true
}

// errPatchSlow fails a fast patch whose answer the server's path must give.
var errPatchSlow = errors.New("crdkit: the patch takes the server's path")

func isSpaceThenBrace(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// copyAsJSON copies a decoded value into what encoding it with
// encoding/json and decoding the text as the server's decoder does
// (integers as int64) gives: a float64 the encoder writes as an integer
// literal comes back as an int64. It reports false for what the round
// trip changes otherwise or refuses (strings that are not UTF-8, NaN and
// infinities, Go types outside the value model), and past maxWalkDepth.
func copyAsJSON(x any, depth int) (any, bool) {
	var c jsonCopy
	return c.copy(x, depth)
}

// jsonCopy is copyAsJSON's walk; negZero records a -0.0 met, which the
// encoder writes "-0" and the copy holds as the integer 0 (what the
// decoder reads), so that the copy's encoding is one byte shorter.
type jsonCopy struct {
	negZero bool
}

func (c *jsonCopy) copy(x any, depth int) (any, bool) {
	if depth > maxWalkDepth {
		return nil, false
	}
	switch t := x.(type) {
	case nil, bool, int64:
		return t, true
	case string:
		return t, utf8.ValidString(t)
	case float64:
		switch {
		case math.IsNaN(t) || math.IsInf(t, 0):
			return nil, false
		case t == math.Trunc(t) && math.Abs(t) < 1e21:
			// encoding/json writes it without a fraction or exponent;
			// the decoder reads an integer literal that fits as int64.
			if t == 0 && math.Signbit(t) {
				c.negZero = true // written "-0"
			}
			if math.Abs(t) <= 1<<53 {
				return int64(t), true
			}
			// Past 2^53 the encoder writes the shortest digits that
			// read back as t, padded with zeros, which may not be t's
			// own integer.
			n, err := strconv.ParseInt(strconv.FormatFloat(t, 'f', -1, 64), 10, 64)
			if err != nil {
				return nil, false // a literal past int64: the decoder's float64 of it may differ
			}
			return n, true
		}
		return t, true
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			v, ok := c.copy(e, depth+1)
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if !utf8.ValidString(k) {
				return nil, false
			}
			v, ok := c.copy(e, depth+1)
			if !ok {
				return nil, false
			}
			out[k] = v
		}
		return out, true
	}
	return nil, false
}

// mergeObject merges the merge patch p into doc, in place, as the
// json-patch library's mergeDocs does: a null deletes; a key doc lacks (or
// holds null) takes the patch's value with its nulls pruned; two objects
// merge; an object replaced by a non-object takes it as it is; anything
// else replaced by the patch's value with its nulls pruned. p's values
// are taken, not copied (p is the caller's own decoded patch).
func mergeObject(doc, p map[string]any) {
	for k, v := range p {
		if v == nil {
			delete(doc, k)
			continue
		}
		cur, ok := doc[k]
		if !ok || cur == nil {
			pruneNulls(v)
			doc[k] = v
			continue
		}
		cm, curObj := cur.(map[string]any)
		if !curObj {
			pruneNulls(v)
			doc[k] = v
			continue
		}
		pm, patchObj := v.(map[string]any)
		if !patchObj {
			doc[k] = v
			continue
		}
		mergeObject(cm, pm)
	}
}

// pruneNulls removes, in place, the null members of the objects in v, at
// any depth; nulls in arrays stay.
func pruneNulls(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
				continue
			}
			pruneNulls(e)
		}
	case []any:
		for _, e := range t {
			if e != nil {
				pruneNulls(e)
			}
		}
	}
}
