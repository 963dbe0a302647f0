package openapidiff

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// valueDiffs names the schema nodes whose default, enum, example or bounds
// hold other Go values than the server's builder holds. Library users get
// the Go values, and the JSON can agree where they do not (an int64 1 and a
// float64 1 both print 1).
func valueDiffs(got, want *spec.Schema, path string, out *[]string, depth int) {
	if len(*out) > 5 || depth > 200 {
		return
	}
	if (got == nil) != (want == nil) {
		*out = append(*out, fmt.Sprintf("%s: crdkit has a schema: %t, upstream: %t", path, got != nil, want != nil))
		return
	}
	if got == nil {
		return
	}
	for _, f := range []struct {
		name string
		a, b any
	}{
		{"default", got.Default, want.Default},
		{"enum", got.Enum, want.Enum},
		{"example", got.Example, want.Example},
		{"maximum", got.Maximum, want.Maximum},
		{"minimum", got.Minimum, want.Minimum},
		{"multipleOf", got.MultipleOf, want.MultipleOf},
	} {
		if !reflect.DeepEqual(f.a, f.b) {
			*out = append(*out, fmt.Sprintf("%s/%s: crdkit %s, upstream %s", path, f.name, goValue(f.a), goValue(f.b)))
		}
	}
	keys := map[string]bool{}
	for k := range got.Properties {
		keys[k] = true
	}
	for k := range want.Properties {
		keys[k] = true
	}
	ks := make([]string, 0, len(keys))
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		a, aok := got.Properties[k]
		b, bok := want.Properties[k]
		if aok != bok {
			*out = append(*out, fmt.Sprintf("%s/properties/%s: crdkit has it: %t, upstream: %t", path, k, aok, bok))
			continue
		}
		valueDiffs(&a, &b, path+"/properties/"+k, out, depth+1)
	}
	var ai, bi *spec.Schema
	if got.Items != nil {
		ai = got.Items.Schema
	}
	if want.Items != nil {
		bi = want.Items.Schema
	}
	valueDiffs(ai, bi, path+"/items", out, depth+1)
	var aa, ba *spec.Schema
	if got.AdditionalProperties != nil {
		aa = got.AdditionalProperties.Schema
	}
	if want.AdditionalProperties != nil {
		ba = want.AdditionalProperties.Schema
	}
	valueDiffs(aa, ba, path+"/additionalProperties", out, depth+1)
	for _, j := range []struct {
		name string
		a, b []spec.Schema
	}{{"allOf", got.AllOf, want.AllOf}, {"anyOf", got.AnyOf, want.AnyOf}, {"oneOf", got.OneOf, want.OneOf}} {
		if len(j.a) != len(j.b) {
			*out = append(*out, fmt.Sprintf("%s/%s: crdkit %d schemas, upstream %d", path, j.name, len(j.a), len(j.b)))
			continue
		}
		for i := range j.a {
			valueDiffs(&j.a[i], &j.b[i], fmt.Sprintf("%s/%s/%d", path, j.name, i), out, depth+1)
		}
	}
	valueDiffs(got.Not, want.Not, path+"/not", out, depth+1)
}

// goValue prints a value with the Go type of every scalar in it.
func goValue(v any) string {
	var b strings.Builder
	writeGoValue(&b, v, 0)
	return fmt.Sprintf("%.300s", b.String())
}

func writeGoValue(b *strings.Builder, v any, depth int) {
	if depth > 50 {
		b.WriteString("…")
		return
	}
	switch x := v.(type) {
	case map[string]any:
		ks := make([]string, 0, len(x))
		for k := range x {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		b.WriteString("{")
		for i, k := range ks {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%q: ", k)
			writeGoValue(b, x[k], depth+1)
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeGoValue(b, e, depth+1)
		}
		b.WriteString("]")
	case *float64:
		if x == nil {
			b.WriteString("nil")
			return
		}
		fmt.Fprintf(b, "&float64(%v)", *x)
	case nil:
		b.WriteString("nil")
	default:
		fmt.Fprintf(b, "%T(%#v)", v, v)
	}
}

// schemaValueDiffs runs valueDiffs over every schema of two maps.
func schemaValueDiffs(got, want map[string]*spec.Schema, path string, out *[]string) {
	names := make([]string, 0, len(got))
	for k := range got {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if want[k] == nil {
			continue // the JSON comparison reports a missing schema
		}
		valueDiffs(got[k], want[k], path+"/"+k, out, 0)
	}
}

func definitionPointers(d spec.Definitions) map[string]*spec.Schema {
	out := make(map[string]*spec.Schema, len(d))
	for k := range d {
		s := d[k]
		out[k] = &s
	}
	return out
}
