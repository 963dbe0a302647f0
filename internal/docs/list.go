package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// maxListDepth bounds Lists of Lists.
const maxListDepth = 8

// Items expands a List document into its items, as kubectl expands what
// it reads (a List of Lists too, item by item): the items of a document
// for which isList(apiVersion, kind) holds and whose "items" is an array.
// An item that names neither apiVersion nor kind takes the List's
// apiVersion and, for a kind "<Kind>List", the kind <Kind>, as kubectl
// gives them. The items keep their bytes (duplicate keys included), the
// document's file, index, line and warnings, and their Path. It reports
// false for a document that is not a List; an item that is not an object is
// an error.
func Items(d Doc, isList func(apiVersion, kind string) bool) ([]Doc, bool, error) {
	return items(d, isList, 0)
}

func items(d Doc, isList func(apiVersion, kind string) bool, depth int) ([]Doc, bool, error) {
	if !bytes.Contains(d.JSON, []byte(`"items"`)) {
		return nil, false, nil
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if json.Unmarshal(d.JSON, &head) != nil || !isList(head.APIVersion, head.Kind) {
		return nil, false, nil
	}
	var list struct {
		Items *[]json.RawMessage `json:"items"`
	}
	if json.Unmarshal(d.JSON, &list) != nil || list.Items == nil {
		return nil, false, nil // no array of items: not a List to expand
	}
	if depth == maxListDepth {
		return nil, true, &Error{File: d.File, Line: d.Line, Err: fmt.Errorf("%s: Lists nested more than %d deep", d.Location(), maxListDepth)}
	}
	itemKind, _ := strings.CutSuffix(head.Kind, "List")
	var out []Doc
	for i, raw := range *list.Items {
		it := d
		it.Path = fmt.Sprintf("items[%d]", i)
		if d.Path != "" {
			it.Path = d.Path + "." + it.Path
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || raw[0] != '{' {
			return out, true, &Error{File: d.File, Line: d.Line, Err: fmt.Errorf("%s: not an object: %.40s", it.Location(), raw)}
		}
		it.JSON = withTypeMeta(raw, head.APIVersion, itemKind)
		sub, ok, err := items(it, isList, depth+1)
		switch {
		case err != nil:
			return out, true, err
		case ok:
			out = append(out, sub...)
		default:
			out = append(out, it)
		}
	}
	return out, true, nil
}

// withTypeMeta returns the item with the List's apiVersion and the item
// kind when it names neither (kubectl's rule); else the item as it is.
func withTypeMeta(item []byte, apiVersion, kind string) []byte {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if json.Unmarshal(item, &tm) != nil || tm.APIVersion != "" || tm.Kind != "" || kind == "" {
		return item
	}
	av, _ := json.Marshal(apiVersion)
	k, _ := json.Marshal(kind)
	ins := append(append(append(append([]byte(`"apiVersion":`), av...), `,"kind":`...), k...), ',')
	body := bytes.TrimSpace(item[1:])
	if len(body) > 0 && body[0] == '}' {
		ins = ins[:len(ins)-1]
	}
	out := make([]byte, 0, len(item)+len(ins))
	out = append(out, '{')
	out = append(out, ins...)
	return append(out, item[1:]...)
}
