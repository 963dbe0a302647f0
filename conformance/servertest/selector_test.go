package servertest

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/oracle"
)

// TestServerSelectors sends list requests with label and field selectors
// for every corpus CRD's storage version, and for a copy of each CRD with
// selectableFields added (the string, integer and boolean fields of the
// schema, those the objects hold first), and compares them with crdkit's
// Version.List given the server's unfiltered list: the names returned, in
// order, or the refusal (code and message, "field label not supported"
// among them). Three objects per CRD, in a fresh namespace, differ in
// labels and in the selectable fields' values (changed, removed).
func TestServerSelectors(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	start := time.Now()
	b := setup(t)
	agr := newAgreement()
	defer agr.report(t)
	t.Logf("setup %v", time.Since(start))
	var originals, copies []*apiextensionsv1.CustomResourceDefinition
	var fieldsOf [][]string
	for i := range b.corpus {
		r := b.results[1+i]
		if !r.Established || r.CRD == nil {
			continue
		}
		originals = append(originals, r.CRD)
		c := regrouped(r.CRD, fmt.Sprintf("s%d.select.crdkit.example", i))
		var added []string
		var storage *apiextensionsv1.CustomResourceValidation
		for vi := range c.Spec.Versions {
			v := &c.Spec.Versions[vi]
			if v.Storage && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
				base, _ := validBase(t, r.CRD, v.Name)
				added = selectableCandidates(v.Schema.OpenAPIV3Schema, base)
				storage = v.Schema
			}
		}
		// The fields go to every version of the storage version's schema:
		// versions of one schema keep their selectable fields together.
		for vi := range c.Spec.Versions {
			v := &c.Spec.Versions[vi]
			if storage == nil || !reflect.DeepEqual(v.Schema, storage) {
				continue
			}
			v.SelectableFields = nil
			for _, p := range added {
				v.SelectableFields = append(v.SelectableFields, apiextensionsv1.SelectableField{JSONPath: "." + p})
			}
		}
		copies = append(copies, c)
		fieldsOf = append(fieldsOf, added)
	}
	t.Logf("copies prepared %v", time.Since(start))
	ictx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	installed, err := srv.InstallCRDs(ictx, copies)
	t.Logf("copies installed %v", time.Since(start))
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		var names []string
		for _, r := range installed {
			if r.CRD != nil {
				names = append(names, r.CRD.Name)
			}
		}
		t.Logf("compared %v", time.Since(start))
		dctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_ = srv.DeleteCRDs(dctx, names...)
		t.Logf("copies deleted %v", time.Since(start))
	}()
	t.Run("crds", func(t *testing.T) {
		for i, crd := range originals {
			t.Run(crd.Name, func(t *testing.T) {
				t.Parallel()
				selectCRD(t, agr, "list", crd, crd, fmt.Sprintf("select-%d", i), nil)
			})
			res := installed[i]
			if !res.Established || res.CRD == nil {
				agr.skip(fmt.Sprintf("copy of %s with selectable fields %q not established: %d %v", crd.Name, fieldsOf[i], res.Code, res.Status))
				continue
			}
			t.Run(res.CRD.Name, func(t *testing.T) {
				t.Parallel()
				selectCRD(t, agr, "list-selectable", crd, res.CRD, fmt.Sprintf("select-copy-%d", i), fieldsOf[i])
			})
		}
	})
}

// selectableCandidates lists up to 8 paths (without the leading dot) of
// string, integer and boolean fields of a schema, outside metadata and
// arrays, those base holds first.
func selectableCandidates(root *apiextensionsv1.JSONSchemaProps, base map[string]any) []string {
	var held, other []string
	var walk func(s *apiextensionsv1.JSONSchemaProps, at []string, v any, depth int)
	walk = func(s *apiextensionsv1.JSONSchemaProps, at []string, v any, depth int) {
		if depth > 5 || len(held) >= 8 {
			return
		}
		switch s.Type {
		case "string", "integer", "boolean":
			if !s.XIntOrString && len(at) > 0 {
				p := strings.Join(at, ".")
				if v != nil {
					held = append(held, p)
				} else {
					other = append(other, p)
				}
			}
			return
		}
		m, _ := v.(map[string]any)
		for _, k := range sortedPropNames(s) {
			if depth == 0 && (k == "metadata" || k == "apiVersion" || k == "kind") || !plainName(k) {
				continue
			}
			p := s.Properties[k]
			walk(&p, append(slices.Clone(at), k), m[k], depth+1)
		}
	}
	walk(root, nil, base, 0)
	out := append(held, other...)
	if len(out) > 8 {
		out = out[:8]
	}
	return out
}

// plainName is a property name a field selector can name.
func plainName(k string) bool {
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return k != ""
}

// selectCRD creates three objects of the storage version of crd (original
// gives the generator's schema) and compares list requests.
func selectCRD(t *testing.T, agr *agreement, capability string, original, crd *apiextensionsv1.CustomResourceDefinition, ns string, added []string) {
	ck := loadCrdkit(t, crd)
	if ck == nil {
		return
	}
	var version string
	var selectable []string
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			version = v.Name
			for _, sf := range v.SelectableFields {
				selectable = append(selectable, strings.TrimPrefix(sf.JSONPath, "."))
			}
		}
	}
	base, _ := validBase(t, original, version)
	if base == nil {
		agr.skip(capability + ": no valid object the server accepts")
		return
	}
	base["apiVersion"] = crd.Spec.Group + "/" + version
	labelSets := []map[string]any{{"app": "a", "tier": "1"}, {"app": "b", "tier": "2"}, nil}
	for i, ls := range labelSets {
		obj := deepCopyJSON(base)
		md, _ := obj["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			obj["metadata"] = md
		}
		if _, set := md["namespace"]; set {
			md["namespace"] = ns
		}
		delete(md, "labels")
		if ls != nil {
			md["labels"] = ls
		}
		name := fmt.Sprintf("sel-%d", i)
		// The second object has the selectable values changed, the third
		// none of them; each falls back to the base when refused.
		variant := deepCopyJSON(obj)
		for _, p := range selectable {
			path := strings.Split(p, ".")
			parent, ok := lookupPath(variant, path[:len(path)-1]).(map[string]any)
			if !ok || parent[path[len(path)-1]] == nil {
				continue
			}
			switch last := path[len(path)-1]; i {
			case 1:
				parent[last] = changedValue(parent[last])
			case 2:
				delete(parent, last)
			}
		}
		if live, _ := createObject(t, crd, version, ns, name, variant); live == nil {
			if live, _ := createObject(t, crd, version, ns, name, obj); live == nil {
				agr.skip(capability + ": create refused")
				return
			}
		}
	}
	all := listed(t, crd, version, ns, nil)
	if all == nil {
		return
	}
	items := jsonInt64(all.Body)["items"].([]any)
	objs := make([]map[string]any, len(items))
	for i, it := range items {
		objs[i] = it.(map[string]any)
	}
	var cases []crdkit.ListOptions
	for _, l := range metaCases(added == nil, []string{"", "app=a", "app!=a", "app in (a,b)", "app notin (a)", "app", "!app", "tier>1", "tier<2", "app=a,tier", "app==",
		"app=x y", "a!b", "tier>x", "=x", "app in (a", strings.Repeat("k", 64) + "=v"}) {
		cases = append(cases, crdkit.ListOptions{LabelSelector: l})
	}
	for _, f := range metaCases(added == nil, []string{"metadata.name=sel-1", "metadata.name!=sel-1", "metadata.namespace=" + ns, "metadata.namespace!=" + ns,
		"metadata.name=sel-0,metadata.name=sel-1", `metadata.name=sel\,1`, "metadata.name", "metadata.name>x", "spec=x", "spec.zzUnknown=x", "status.phase!=", ".metadata.name=sel-0"}) {
		cases = append(cases, crdkit.ListOptions{FieldSelector: f})
	}
	if added == nil {
		cases = append(cases, crdkit.ListOptions{LabelSelector: "app", FieldSelector: "metadata.name!=sel-0"},
			crdkit.ListOptions{LabelSelector: "a!b", FieldSelector: "spec.zzUnknown=x"})
	}
	for _, p := range selectable {
		var values []string
		for _, o := range objs {
			if v := lookupPath(o, strings.Split(p, ".")); v != nil {
				values = append(values, fmt.Sprint(v))
			}
		}
		if len(values) > 0 {
			v := values[0]
			cases = append(cases, crdkit.ListOptions{FieldSelector: p + "=" + v}, crdkit.ListOptions{FieldSelector: p + "!=" + v},
				crdkit.ListOptions{FieldSelector: p + "=0" + v}, crdkit.ListOptions{FieldSelector: p + "=" + strings.ToUpper(v)})
			values = slices.Compact(slices.Sorted(slices.Values(values[1:])))
			for _, v := range values {
				cases = append(cases, crdkit.ListOptions{FieldSelector: p + "=" + v})
			}
		}
		cases = append(cases, crdkit.ListOptions{FieldSelector: p + "="}, crdkit.ListOptions{FieldSelector: p + "!="})
		if len(values) > 0 {
			cases = append(cases, crdkit.ListOptions{FieldSelector: p + "=" + values[0] + ",metadata.name!=sel-0", LabelSelector: "app"})
		}
	}
	for _, opts := range cases {
		q := url.Values{}
		if opts.LabelSelector != "" {
			q.Set("labelSelector", opts.LabelSelector)
		}
		if opts.FieldSelector != "" {
			q.Set("fieldSelector", opts.FieldSelector)
		}
		sr := listed(t, crd, version, ns, q)
		if sr == nil {
			return
		}
		o := opts
		if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
			o.Namespace = ns
		}
		got, err := ck.Version(version).List(objs, o)
		desc := fmt.Sprintf("%s %s labelSelector=%q fieldSelector=%q (selectable %q)", crd.Name, version, opts.LabelSelector, opts.FieldSelector, selectable)
		kind := strings.SplitN(opts.LabelSelector+opts.FieldSelector, "=", 2)[0]
		if sr.Code != 200 {
			ok := err != nil && sr.Status != nil && err.Error() == sr.Status.Message && sr.Code == 400
			agr.record(capability+"-refusal", kind, ok, fmt.Sprintf("%s\n  server: %d %v\n  crdkit: %v", desc, sr.Code, sr.Status, err))
			continue
		}
		var want, names []string
		for _, it := range jsonInt64(sr.Body)["items"].([]any) {
			want = append(want, it.(map[string]any)["metadata"].(map[string]any)["name"].(string))
		}
		for _, o := range got {
			names = append(names, o["metadata"].(map[string]any)["name"].(string))
		}
		agr.record(capability+"-items", kind, err == nil && slices.Equal(names, want),
			fmt.Sprintf("%s\n  server: %q\n  crdkit: %q %v", desc, want, names, err))
	}
}

// metaCases is cs when on, else nothing: the label and metadata cases
// run on the original CRDs only.
func metaCases(on bool, cs []string) []string {
	if on {
		return cs
	}
	return nil
}

// lookupPath follows path through nested objects (nil where it ends).
func lookupPath(obj map[string]any, path []string) any {
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

// listed sends a list request in ns (for a namespaced CRD) with query q.
func listed(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, version, ns string, q url.Values) *oracle.Result {
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := srv.DoRaw(rctx, oracle.RawRequest{Method: "GET", CRD: crd.Name, Version: version, Namespace: ns, Query: q})
	if err != nil {
		t.Errorf("%s: list: %v", crd.Name, err)
		return nil
	}
	return &r
}
