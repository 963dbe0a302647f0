package upgrade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// A Change is one difference between two revisions of a CRD, classified
// as sigs.k8s.io/crdify classifies schema changes, plus what it does not
// look at (rules, list and map types, nullable, preserve-unknown-fields,
// served, deprecated and storage).
type Change struct {
	// Version is the version the change is in ("" for the CRD as a whole).
	Version string `json:"version,omitempty"`
	// Path is the field, as an object path (spec.ports[*].name), "" for a
	// version or the CRD itself.
	Path string `json:"path,omitempty"`
	// Kind names the change, for example "field removed", "enum narrowed",
	// "maximum tightened", "rule added".
	Kind string `json:"kind"`
	// Old and New are the values before and after, where there are some.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Breaking says that objects the server accepted before can be
	// refused or lose data after the change.
	Breaking bool `json:"breaking"`
}

func (c Change) String() string {
	var b strings.Builder
	if c.Path != "" {
		b.WriteString(c.Path)
		b.WriteString(": ")
	}
	b.WriteString(c.Kind)
	switch {
	case c.Old != "" && c.New != "":
		fmt.Fprintf(&b, " (%s -> %s)", c.Old, c.New)
	case c.Old != "":
		fmt.Fprintf(&b, " (was %s)", c.Old)
	case c.New != "":
		fmt.Fprintf(&b, " (%s)", c.New)
	}
	return b.String()
}

// Changes lists the differences between the live revision of a CRD and the
// next one: scope, versions (removed, no longer served, deprecated,
// storage moved), and, for each version of next that live defines, its
// schema, node by node along properties, items and additionalProperties.
// The order is deterministic: CRD-wide changes, then versions in next's
// order, paths in name order.
func Changes(live, next *apiextensionsv1.CustomResourceDefinition) []Change {
	var out []Change
	if live.Spec.Scope != next.Spec.Scope {
		out = append(out, Change{Kind: "scope changed", Old: string(live.Spec.Scope), New: string(next.Spec.Scope), Breaking: true})
	}
	liveVersions := map[string]*apiextensionsv1.CustomResourceDefinitionVersion{}
	for i := range live.Spec.Versions {
		liveVersions[live.Spec.Versions[i].Name] = &live.Spec.Versions[i]
	}
	nextVersions := map[string]bool{}
	for i := range next.Spec.Versions {
		nextVersions[next.Spec.Versions[i].Name] = true
	}
	for _, v := range live.Spec.Versions {
		if !nextVersions[v.Name] {
			out = append(out, Change{Version: v.Name, Kind: "version removed", Breaking: v.Served || slices.Contains(live.Status.StoredVersions, v.Name)})
		}
	}
	for i := range next.Spec.Versions {
		nv := &next.Spec.Versions[i]
		lv := liveVersions[nv.Name]
		if lv == nil {
			out = append(out, Change{Version: nv.Name, Kind: "version added"})
			continue
		}
		if lv.Served && !nv.Served {
			out = append(out, Change{Version: nv.Name, Kind: "no longer served", Breaking: true})
		}
		if !lv.Served && nv.Served {
			out = append(out, Change{Version: nv.Name, Kind: "served"})
		}
		if !lv.Deprecated && nv.Deprecated {
			out = append(out, Change{Version: nv.Name, Kind: "deprecated"})
		}
		if lv.Deprecated && !nv.Deprecated {
			out = append(out, Change{Version: nv.Name, Kind: "no longer deprecated"})
		}
		if lv.Storage != nv.Storage {
			k := "no longer the storage version"
			if nv.Storage {
				k = "made the storage version (objects stored at the old one stay there until rewritten)"
			}
			out = append(out, Change{Version: nv.Name, Kind: k})
		}
		var ls, ns *apiextensionsv1.JSONSchemaProps
		if lv.Schema != nil {
			ls = lv.Schema.OpenAPIV3Schema
		}
		if nv.Schema != nil {
			ns = nv.Schema.OpenAPIV3Schema
		}
		d := differ{version: nv.Name}
		d.node("", ls, ns, 0)
		out = append(out, d.out...)
	}
	return out
}

type differ struct {
	version string
	out     []Change
}

func (d *differ) add(path, kind, old, new string, breaking bool) {
	d.out = append(d.out, Change{Version: d.version, Path: path, Kind: kind, Old: old, New: new, Breaking: breaking})
}

func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// node compares one schema node; path is the object path of its values.
func (d *differ) node(path string, o, n *apiextensionsv1.JSONSchemaProps, depth int) {
	if o == nil || n == nil || depth > 1000 {
		return
	}
	if o.Type != n.Type {
		d.add(path, "type changed", o.Type, n.Type, true)
	}
	d.enum(path, o.Enum, n.Enum)
	d.bound(path, "maximum", fptr(o.Maximum), fptr(n.Maximum), true)
	d.bound(path, "minimum", fptr(o.Minimum), fptr(n.Minimum), false)
	if o.ExclusiveMaximum != n.ExclusiveMaximum {
		d.add(path, "exclusiveMaximum changed", fmt.Sprint(o.ExclusiveMaximum), fmt.Sprint(n.ExclusiveMaximum), n.ExclusiveMaximum)
	}
	if o.ExclusiveMinimum != n.ExclusiveMinimum {
		d.add(path, "exclusiveMinimum changed", fmt.Sprint(o.ExclusiveMinimum), fmt.Sprint(n.ExclusiveMinimum), n.ExclusiveMinimum)
	}
	d.bound(path, "maxLength", iptr(o.MaxLength), iptr(n.MaxLength), true)
	d.bound(path, "minLength", iptr(o.MinLength), iptr(n.MinLength), false)
	d.bound(path, "maxItems", iptr(o.MaxItems), iptr(n.MaxItems), true)
	d.bound(path, "minItems", iptr(o.MinItems), iptr(n.MinItems), false)
	d.bound(path, "maxProperties", iptr(o.MaxProperties), iptr(n.MaxProperties), true)
	d.bound(path, "minProperties", iptr(o.MinProperties), iptr(n.MinProperties), false)
	if o.MultipleOf == nil && n.MultipleOf != nil || o.MultipleOf != nil && n.MultipleOf != nil && *o.MultipleOf != *n.MultipleOf {
		d.add(path, "multipleOf changed", fptr(o.MultipleOf), fptr(n.MultipleOf), true)
	}
	if o.Pattern != n.Pattern {
		switch {
		case o.Pattern == "":
			d.add(path, "pattern added", "", n.Pattern, true)
		case n.Pattern == "":
			d.add(path, "pattern removed", o.Pattern, "", false)
		default:
			d.add(path, "pattern changed", o.Pattern, n.Pattern, true)
		}
	}
	if o.Format != n.Format {
		d.add(path, "format changed", o.Format, n.Format, n.Format != "")
	}
	d.defaults(path, o.Default, n.Default)
	if o.Nullable != n.Nullable {
		if n.Nullable {
			d.add(path, "made nullable", "", "", false)
		} else {
			d.add(path, "no longer nullable (nulls are dropped)", "", "", true)
		}
	}
	if pb(o.XPreserveUnknownFields) != pb(n.XPreserveUnknownFields) {
		if pb(n.XPreserveUnknownFields) {
			d.add(path, "unknown fields preserved", "", "", false)
		} else {
			d.add(path, "unknown fields no longer preserved (they are pruned)", "", "", true)
		}
	}
	if o.XIntOrString != n.XIntOrString {
		d.add(path, "x-kubernetes-int-or-string changed", fmt.Sprint(o.XIntOrString), fmt.Sprint(n.XIntOrString), true)
	}
	if o.XEmbeddedResource != n.XEmbeddedResource {
		d.add(path, "x-kubernetes-embedded-resource changed", fmt.Sprint(o.XEmbeddedResource), fmt.Sprint(n.XEmbeddedResource), true)
	}
	if ps(o.XListType) != ps(n.XListType) {
		d.add(path, "list type changed", ps(o.XListType), ps(n.XListType), ps(n.XListType) == "set" || ps(n.XListType) == "map")
	}
	if !slices.Equal(o.XListMapKeys, n.XListMapKeys) {
		d.add(path, "list map keys changed", strings.Join(o.XListMapKeys, ","), strings.Join(n.XListMapKeys, ","), true)
	}
	if ps(o.XMapType) != ps(n.XMapType) {
		d.add(path, "map type changed", ps(o.XMapType), ps(n.XMapType), false)
	}
	d.rules(path, o.XValidations, n.XValidations)
	for _, r := range n.Required {
		if slices.Contains(o.Required, r) {
			continue
		}
		_, existed := o.Properties[r]
		p, has := n.Properties[r]
		switch {
		case existed:
			d.add(child(path, r), "made required", "", "", true)
		case has && p.Default != nil:
			d.add(child(path, r), "required field added, with a default", "", "", false)
		default:
			d.add(child(path, r), "required field added", "", "", true)
		}
	}
	for _, r := range o.Required {
		if !slices.Contains(n.Required, r) {
			d.add(child(path, r), "no longer required", "", "", false)
		}
	}
	for _, k := range sortedKeys(o.Properties, n.Properties) {
		op, inO := o.Properties[k]
		np, inN := n.Properties[k]
		switch {
		case inO && !inN:
			if !pb(n.XPreserveUnknownFields) {
				d.add(child(path, k), "field removed (stored values are pruned)", "", "", true)
			} else {
				d.add(child(path, k), "field removed (kept as an unknown field)", "", "", false)
			}
		case !inO && inN:
			if !slices.Contains(n.Required, k) {
				d.add(child(path, k), "field added", "", "", false)
			}
		default:
			d.node(child(path, k), &op, &np, depth+1)
		}
	}
	if o.Items != nil && n.Items != nil {
		d.node(path+"[*]", o.Items.Schema, n.Items.Schema, depth+1)
	}
	if o.AdditionalProperties != nil && n.AdditionalProperties != nil {
		d.node(path+"[*]", o.AdditionalProperties.Schema, n.AdditionalProperties.Schema, depth+1)
	}
}

func (d *differ) enum(path string, o, n []apiextensionsv1.JSON) {
	os, ns := jsonSet(o), jsonSet(n)
	switch {
	case len(o) == 0 && len(n) == 0:
	case len(o) == 0:
		d.add(path, "enum added", "", strings.Join(ns, ","), true)
	case len(n) == 0:
		d.add(path, "enum removed", strings.Join(os, ","), "", false)
	default:
		var removed, added []string
		for _, v := range os {
			if !slices.Contains(ns, v) {
				removed = append(removed, v)
			}
		}
		for _, v := range ns {
			if !slices.Contains(os, v) {
				added = append(added, v)
			}
		}
		if len(removed) > 0 {
			d.add(path, "enum narrowed", strings.Join(removed, ","), "", true)
		}
		if len(added) > 0 {
			d.add(path, "enum widened", "", strings.Join(added, ","), false)
		}
	}
}

// bound compares a numeric limit; upper says that a lower value tightens.
func (d *differ) bound(path, name, o, n string, upper bool) {
	if o == n {
		return
	}
	switch {
	case o == "":
		d.add(path, name+" added", "", n, true)
	case n == "":
		d.add(path, name+" removed", o, "", false)
	default:
		of, _ := strconv.ParseFloat(o, 64)
		nf, _ := strconv.ParseFloat(n, 64)
		if (nf < of) == upper {
			d.add(path, name+" tightened", o, n, true)
		} else {
			d.add(path, name+" loosened", o, n, false)
		}
	}
}

func (d *differ) defaults(path string, o, n *apiextensionsv1.JSON) {
	switch {
	case o == nil && n == nil:
	case o == nil:
		d.add(path, "default added", "", string(n.Raw), false)
	case n == nil:
		d.add(path, "default removed", string(o.Raw), "", true)
	default:
		if !jsonEqual(o.Raw, n.Raw) {
			d.add(path, "default changed", string(o.Raw), string(n.Raw), true)
		}
	}
}

func (d *differ) rules(path string, o, n []apiextensionsv1.ValidationRule) {
	key := func(r apiextensionsv1.ValidationRule) string { return r.Rule }
	for _, r := range n {
		i := slices.IndexFunc(o, func(x apiextensionsv1.ValidationRule) bool { return key(x) == key(r) })
		switch {
		case i < 0:
			d.add(path, "rule added", "", r.Rule, true)
		case !ruleEqual(o[i], r):
			d.add(path, "rule message or options changed", "", r.Rule, false)
		}
	}
	for _, r := range o {
		if !slices.ContainsFunc(n, func(x apiextensionsv1.ValidationRule) bool { return key(x) == key(r) }) {
			d.add(path, "rule removed", r.Rule, "", false)
		}
	}
}

func ruleEqual(a, b apiextensionsv1.ValidationRule) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func jsonSet(l []apiextensionsv1.JSON) []string {
	out := make([]string, 0, len(l))
	for _, v := range l {
		out = append(out, canonicalJSON(v.Raw))
	}
	return out
}

func canonicalJSON(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func jsonEqual(a, b []byte) bool { return canonicalJSON(a) == canonicalJSON(b) }

func sortedKeys(a, b map[string]apiextensionsv1.JSONSchemaProps) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func fptr(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

func iptr(i *int64) string {
	if i == nil {
		return ""
	}
	return strconv.FormatInt(*i, 10)
}

func pb(b *bool) bool { return b != nil && *b }
func ps(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
