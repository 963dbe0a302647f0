package crdkit

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/util/jsonpath"
)

// ListOptions are the options of a list request (GET of a collection) that
// select objects.
type ListOptions struct {
	// Namespace is the request's namespace for a namespaced CRD
	// (/namespaces/NS/...); empty lists every namespace.
	Namespace string
	// LabelSelector is the labelSelector query parameter (kubectl -l).
	LabelSelector string
	// FieldSelector is the fieldSelector query parameter (kubectl
	// --field-selector): metadata.name, metadata.namespace (namespaced CRDs)
	// and the version's selectableFields.
	FieldSelector string
}

// Selector is a list request's label and field selectors compiled for one
// version, matched as the server's registry matches custom resources
// (research/upstream.md §11.3). Safe for concurrent use.
type Selector struct {
	v         *Version
	namespace string
	labels    []labelRequirement // all must match; none selects everything
	fields    []fieldRequirement
}

// labelRequirement is one term of a label selector, as labels.Parse read
// it.
type labelRequirement struct {
	key    string
	op     selection.Operator
	values []string // In, NotIn, Equals, NotEquals
	num    int64    // GreaterThan, LessThan
}

// matches is labels.Requirement.Matches on an object's labels (nil when
// it has none, or any that is not a string).
func (r *labelRequirement) matches(l map[string]any) bool {
	x, ok := l[r.key]
	v, _ := x.(string)
	switch r.op {
	case selection.In, selection.Equals, selection.DoubleEquals:
		return ok && slices.Contains(r.values, v)
	case selection.NotIn, selection.NotEquals:
		return !ok || !slices.Contains(r.values, v)
	case selection.Exists:
		return ok
	case selection.DoesNotExist:
		return !ok
	case selection.GreaterThan, selection.LessThan:
		if !ok {
			return false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		return r.op == selection.GreaterThan && n > r.num || r.op == selection.LessThan && n < r.num
	}
	return false
}

// fieldRequirement is one term of a field selector: the field's value
// compared with value.
type fieldRequirement struct {
	field    *selectableField // nil for metadata.name and metadata.namespace
	name     string           // metadata.name, metadata.namespace or the selectable field's name
	value    string
	notEqual bool
}

// selectableField is a version's selectableFields entry, compiled: the
// field names of its path, or, for a path the server's JSONPath reads
// otherwise than as a chain of fields, the path itself (evaluated with the
// server's JSONPath on each object), or why the server cannot parse it.
type selectableField struct {
	name     string   // the path without its leading dot: the field selector's label
	path     []string // the field names, when the path is a plain chain
	jsonPath string   // else the path, as the server evaluates it
	err      error    // the server's parse error
}

// compileSelectableFields compiles a version's selectableFields as the
// server's strategy does (jsonpath "{" + path + "}", missing keys allowed).
func compileSelectableFields(sfs []apiextensionsv1.SelectableField) []selectableField {
	out := make([]selectableField, len(sfs))
	for i, sf := range sfs {
		f := selectableField{name: strings.TrimPrefix(sf.JSONPath, ".")}
		p, err := jsonpath.Parse("selectableField", "{"+sf.JSONPath+"}")
		switch {
		case err != nil:
			f.err = err
		default:
			f.path = plainFieldChain(p)
			if f.path == nil {
				f.jsonPath = sf.JSONPath
			}
		}
		out[i] = f
	}
	return out
}

// plainFieldChain returns the field names of a parsed path that is one
// action holding only fields, or nil.
func plainFieldChain(p *jsonpath.Parser) []string {
	if len(p.Root.Nodes) != 1 {
		return nil
	}
	list, ok := p.Root.Nodes[0].(*jsonpath.ListNode)
	if !ok || len(list.Nodes) == 0 {
		return nil
	}
	path := make([]string, 0, len(list.Nodes))
	for _, n := range list.Nodes {
		f, ok := n.(*jsonpath.FieldNode)
		if !ok || f.Value == "*" || f.Value == "" {
			return nil
		}
		path = append(path, f.Value)
	}
	return path
}

// Selector compiles a list request's options for this version: the label
// selector as the server parses it (labels.Parse), the field selector
// (fields.ParseSelector), each of whose fields must be metadata.name,
// metadata.namespace (for a namespaced CRD) or one of the version's
// selectableFields, named by its path without the leading dot. A selector
// the server refuses gives its 400 (an *apierrors.StatusError) with the
// server's message, for example "field label not supported: spec.color".
func (v *Version) Selector(opts ListOptions) (*Selector, error) {
	s := &Selector{v: v}
	if v.crd.Namespaced() {
		s.namespace = opts.Namespace
	}
	ls, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	reqs, _ := ls.Requirements()
	for _, r := range reqs {
		lr := labelRequirement{key: r.Key(), op: r.Operator(), values: r.ValuesUnsorted()}
		if lr.op == selection.GreaterThan || lr.op == selection.LessThan {
			if len(lr.values) != 1 {
				lr.op = "" // matches nothing, as the server's requirement
			} else if lr.num, err = strconv.ParseInt(lr.values[0], 10, 64); err != nil {
				lr.op = ""
			}
		}
		s.labels = append(s.labels, lr)
	}
	fs, err := fields.ParseSelector(opts.FieldSelector)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	for _, r := range fs.Requirements() {
		fr := fieldRequirement{name: r.Field, value: r.Value, notEqual: r.Operator == selection.NotEquals}
		switch {
		case r.Field == "metadata.name", r.Field == "metadata.namespace" && v.crd.Namespaced():
		default:
			for i := range v.selectable {
				if v.selectable[i].name == r.Field {
					fr.field = &v.selectable[i]
					break
				}
			}
			if fr.field == nil {
				return nil, apierrors.NewBadRequest("field label not supported: " + r.Field)
			}
		}
		s.fields = append(s.fields, fr)
	}
	return s, nil
}

// Matches reports whether the server's list would return obj (an object
// as the server holds it at this version): in the request's namespace,
// its labels matched by the label selector, each field selector term met.
// A field missing from obj (or null, or under a value that is not an
// object) has the value ""; a string is itself, an integer its decimal
// digits, a boolean "true" or "false". An object whose labels are not all
// strings has no labels, as the server reads it. It does not modify obj.
func (s *Selector) Matches(obj map[string]any) bool {
	md, _ := obj["metadata"].(map[string]any)
	if s.namespace != "" {
		if ns, _ := md["namespace"].(string); ns != s.namespace {
			return false
		}
	}
	if len(s.labels) > 0 {
		l, _ := md["labels"].(map[string]any)
		for _, x := range l {
			if _, ok := x.(string); !ok {
				l = nil
				break
			}
		}
		for i := range s.labels {
			if !s.labels[i].matches(l) {
				return false
			}
		}
	}
	for i := range s.fields {
		if !s.fields[i].matches(obj, md) {
			return false
		}
	}
	return true
}

// matches reports whether obj meets the term.
func (r *fieldRequirement) matches(obj, md map[string]any) bool {
	var eq bool
	switch {
	case r.field == nil:
		v, _ := md[r.name[len("metadata."):]].(string)
		eq = v == r.value
	case r.field.path != nil:
		eq = valueEquals(lookup(obj, r.field.path), r.value)
	default:
		eq = r.field.evaluate(obj) == r.value
	}
	return eq != r.notEqual
}

// lookup follows path through nested objects: nil where the path ends
// early, as the server's JSONPath finds nothing there.
func lookup(obj map[string]any, path []string) any {
	var cur any = obj
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// valueEquals reports whether fmt.Sprint of a field's value (nil: "") is
// want, without formatting the common kinds.
func valueEquals(v any, want string) bool {
	switch t := v.(type) {
	case nil:
		return want == ""
	case string:
		return t == want
	case bool:
		return strconv.FormatBool(t) == want
	case int64:
		var buf [20]byte
		return string(strconv.AppendInt(buf[:0], t, 10)) == want
	}
	return fmt.Sprint(v) == want
}

// evaluate is the server's JSONPath evaluation of a path that is not a
// plain chain of fields: the single result formatted with fmt.Sprint, ""
// for none.
func (f *selectableField) evaluate(obj map[string]any) string {
	if f.err != nil {
		return ""
	}
	p := jsonpath.New("selectableField")
	p.AllowMissingKeys(true)
	if err := p.Parse("{" + f.jsonPath + "}"); err != nil {
		return ""
	}
	results, err := p.FindResults(obj)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return ""
	}
	v := results[0][0].Interface()
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// List returns the objects of objs the server's list request with opts
// returns, in its order (by storage key: namespace, then name), or the
// server's 400 for a selector it refuses. objs are the objects as the
// server holds them at this version (as GET returns them); they are
// returned, not copied.
func (v *Version) List(objs []map[string]any, opts ListOptions) ([]map[string]any, error) {
	s, err := v.Selector(opts)
	if err != nil {
		return nil, err
	}
	return s.Select(nil, objs), nil
}

// Select appends to dst the objects of objs that match, in the server's
// order (by storage key), and returns the extended slice.
func (s *Selector) Select(dst, objs []map[string]any) []map[string]any {
	start := len(dst)
	for _, o := range objs {
		if s.Matches(o) {
			dst = append(dst, o)
		}
	}
	sortByKey(dst[start:])
	return dst
}

// sortByKey sorts objects by storage key, stably. Objects already in key
// order (a store kept sorted) cost one pass; otherwise the keys are read
// once, not at every comparison.
func sortByKey(objs []map[string]any) {
	sorted := true
	for i := 1; i < len(objs) && sorted; i++ {
		an, ans := objectKey(objs[i-1])
		bn, bns := objectKey(objs[i])
		sorted = compareKeys(ans, an, bns, bn) <= 0
	}
	if sorted {
		return
	}
	type keyed struct {
		name, namespace string
		obj             map[string]any
	}
	ks := make([]keyed, len(objs))
	for i, o := range objs {
		ks[i].name, ks[i].namespace = objectKey(o)
		ks[i].obj = o
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		return compareKeys(a.namespace, a.name, b.namespace, b.name)
	})
	for i := range ks {
		objs[i] = ks[i].obj
	}
}

// compareKeys compares the storage keys ans/an and bns/bn as strings,
// without building them.
func compareKeys(ans, an, bns, bn string) int {
	la, lb := len(ans)+1+len(an), len(bns)+1+len(bn)
	at := func(ns, name string, i int) byte {
		switch {
		case i < len(ns):
			return ns[i]
		case i == len(ns):
			return '/'
		}
		return name[i-len(ns)-1]
	}
	for i := 0; i < la && i < lb; i++ {
		if x, y := at(ans, an, i), at(bns, bn, i); x != y {
			return cmp.Compare(x, y)
		}
	}
	return cmp.Compare(la, lb)
}

// objectKey returns an object's name and namespace.
func objectKey(obj map[string]any) (name, namespace string) {
	md, _ := obj["metadata"].(map[string]any)
	name, _ = md["name"].(string)
	namespace, _ = md["namespace"].(string)
	return name, namespace
}
