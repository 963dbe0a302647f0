package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/internal/docs"
)

// liveSet holds the live objects of --old, by API group, kind, namespace
// and name.
type liveSet map[string]map[string]any

func liveKey(group, kind, namespace, name string) string {
	return group + "\x00" + kind + "\x00" + namespace + "\x00" + name
}

// groupOf is the group of an apiVersion ("" for the core group).
func groupOf(apiVersion string) string {
	if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// loadLive reads the live objects of the --old paths: objects as
// `kubectl get -o json` (or -o yaml) prints them, one per document or as
// the items of a List (kind List or <Kind>List, expanded as validate
// expands Lists).
func loadLive(paths []string) (liveSet, error) {
	set := liveSet{}
	if len(paths) == 0 {
		return set, nil
	}
	files, err := docs.Files(paths)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		ds, err := docs.Read(f.Path)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			items, ok, err := docs.Items(d, func(_, kind string) bool { return strings.HasSuffix(kind, "List") })
			if err != nil {
				return nil, err
			}
			if !ok {
				items = []docs.Doc{d}
			}
			for _, it := range items {
				var o map[string]any
				if err := kjson.UnmarshalCaseSensitivePreserveInts(it.JSON, &o); err != nil || o == nil {
					return nil, &docs.Error{File: it.File, Line: it.Line, Err: fmt.Errorf("%s: not a live object: %v", it.Location(), err)}
				}
				av, _ := o["apiVersion"].(string)
				kind, _ := o["kind"].(string)
				md, _ := o["metadata"].(map[string]any)
				name, _ := md["name"].(string)
				ns, _ := md["namespace"].(string)
				set[liveKey(groupOf(av), kind, ns, name)] = o
			}
		}
	}
	return set, nil
}

// withResourceVersion returns js with metadata.resourceVersion set to rv
// when it has none, editing the bytes so that everything else (duplicate
// keys included) reaches the server's decoder as written.
func withResourceVersion(js []byte, rv string) []byte {
	var has struct {
		Metadata struct {
			ResourceVersion *string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(js, &has) == nil && has.Metadata.ResourceVersion != nil {
		return js
	}
	field, _ := json.Marshal(rv)
	entry := append([]byte(`"resourceVersion":`), field...)
	dec := json.NewDecoder(bytes.NewReader(js))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return js
	}
	open := int(dec.InputOffset())
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return js
		}
		if key, _ := t.(string); key == "metadata" {
			v, err := dec.Token()
			if err != nil || v != json.Delim('{') {
				return js // not an object: the server refuses it as it is
			}
			at := int(dec.InputOffset())
			if dec.More() {
				entry = append(entry, ',')
			}
			return splice(js, at, entry)
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return js
		}
	}
	md := append(append([]byte(`"metadata":{`), entry...), '}')
	if bytes.TrimSpace(js[open:])[0] != '}' {
		md = append(md, ',')
	}
	return splice(js, open, md)
}

func splice(b []byte, at int, ins []byte) []byte {
	out := make([]byte, 0, len(b)+len(ins))
	out = append(out, b[:at]...)
	out = append(out, ins...)
	return append(out, b[at:]...)
}
