package benchmarks

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/util/jsonpath"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/printcolumns"
)

// pcBenchCase is one CRD version's printer columns with the objects to
// render through them.
type pcBenchCase struct {
	name    string // CRD name
	columns []apiextensionsv1.CustomResourceColumnDefinition
	objects []pcBenchObject
}

type pcBenchObject struct {
	name string
	obj  map[string]any
}

// pcBenchCronTab is the documentation's CronTab, always available.
func pcBenchCronTab() pcBenchCase {
	cols := []apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Spec", Type: "string", JSONPath: ".spec.cronSpec"},
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	}
	obj := map[string]any{
		"apiVersion": "stable.example.com/v1",
		"kind":       "CronTab",
		"metadata":   map[string]any{"name": "my-new-cron-object", "namespace": "default", "creationTimestamp": "2024-05-01T10:00:00Z"},
		"spec":       map[string]any{"cronSpec": "* * * * */5", "image": "my-awesome-cron-image", "replicas": int64(1)},
	}
	return pcBenchCase{name: "crontabs.stable.example.com", columns: cols, objects: []pcBenchObject{{"my-new-cron-object", obj}}}
}

// pcBenchCases returns the CronTab case and, when the corpus is present, one
// case per corpus CRD with printer columns (its first version that has
// columns), with the corpus objects of that kind and a generated object that
// has a value at every column path.
func pcBenchCases(tb testing.TB) []pcBenchCase {
	cases := []pcBenchCase{pcBenchCronTab()}
	dir, ok := corpus.Root()
	if !ok {
		tb.Logf("corpus not found (set CRDKIT_CORPUS): only the CronTab case runs")
		return cases
	}
	objsByGK := map[string][]pcBenchObject{}
	for _, raw := range corpusDocs(tb, filepath.Join(dir, "objects")) {
		var obj map[string]any
		if utiljson.Unmarshal(raw, &obj) != nil {
			continue
		}
		apiVersion, _ := obj["apiVersion"].(string)
		kind, _ := obj["kind"].(string)
		group, _, _ := strings.Cut(apiVersion, "/")
		name := "object"
		if md, ok := obj["metadata"].(map[string]any); ok {
			if n, ok := md["name"].(string); ok {
				name = n
			}
		}
		objsByGK[group+"/"+kind] = append(objsByGK[group+"/"+kind], pcBenchObject{name, obj})
	}
	for _, raw := range corpusDocs(tb, filepath.Join(dir, "crds")) {
		var crd apiextensionsv1.CustomResourceDefinition
		if json.Unmarshal(raw, &crd) != nil || crd.Kind != "CustomResourceDefinition" {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if len(v.AdditionalPrinterColumns) == 0 {
				continue
			}
			c := pcBenchCase{name: crd.Name, columns: v.AdditionalPrinterColumns}
			c.objects = append(c.objects, objsByGK[crd.Spec.Group+"/"+crd.Spec.Names.Kind]...)
			c.objects = append(c.objects, pcBenchObject{"generated", pcBenchFull(crd.Spec.Names.Kind, v.AdditionalPrinterColumns)})
			cases = append(cases, c)
			break
		}
	}
	return cases
}

// pcBenchFull builds an object with a value of the column's type at the end
// of every column path: nested objects for fields, three-element lists for
// indexes, and for filters a list whose last element matches.
func pcBenchFull(kind string, cols []apiextensionsv1.CustomResourceColumnDefinition) map[string]any {
	obj := map[string]any{
		"apiVersion": "example.com/v1",
		"kind":       kind,
		"metadata": map[string]any{
			"name": "generated", "namespace": "default", "uid": "0f2a6c51-6c1b-4a5e-9a52-4c1f6f1c2b11",
			"resourceVersion": "123456", "generation": int64(3), "creationTimestamp": "2024-05-01T10:00:00Z",
			"labels": map[string]any{"app.kubernetes.io/name": "demo", "app.kubernetes.io/part-of": "bench"},
		},
	}
	for _, c := range cols {
		var leaf any
		switch c.Type {
		case "integer":
			leaf = int64(3)
		case "number":
			leaf = 2.5
		case "boolean":
			leaf = true
		case "date":
			leaf = "2024-05-01T10:00:00Z"
		default:
			leaf = "value-of-" + c.Name
		}
		pcBenchPlant(obj, c.JSONPath, leaf)
	}
	return obj
}

func pcBenchPlant(obj map[string]any, path string, leaf any) {
	p, err := jsonpath.Parse("plant", "{"+path+"}")
	if err != nil || len(p.Root.Nodes) != 1 {
		return
	}
	list, ok := p.Root.Nodes[0].(*jsonpath.ListNode)
	if !ok {
		return
	}
	var cur any = obj
	set := func(any) {}
	for _, node := range list.Nodes {
		switch n := node.(type) {
		case *jsonpath.FieldNode:
			m, ok := cur.(map[string]any)
			if !ok {
				m = map[string]any{}
				set(m)
			}
			key := n.Value
			set = func(v any) { m[key] = v }
			cur = m[key]
		case *jsonpath.ArrayNode, *jsonpath.FilterNode:
			l, ok := cur.([]any)
			if !ok {
				l = []any{
					map[string]any{"type": "Other", "status": "Unknown", "reason": "Waiting"},
					map[string]any{"type": "Another", "status": "False", "message": "not yet"},
					map[string]any{},
				}
				set(l)
			}
			at := len(l) - 1
			if f, ok := node.(*jsonpath.FilterNode); ok && len(f.Left.Nodes) == 1 && len(f.Right.Nodes) == 1 {
				lf, lok := f.Left.Nodes[0].(*jsonpath.FieldNode)
				rt, rok := f.Right.Nodes[0].(*jsonpath.TextNode)
				if lok && rok {
					// Reuse the element the filter selects, or add one.
					at = -1
					for i, e := range l {
						if m, ok := e.(map[string]any); ok && m[lf.Value] == rt.Text {
							at = i
						}
					}
					if at < 0 {
						l = append(l, map[string]any{lf.Value: rt.Text})
						set(l)
						at = len(l) - 1
					}
				}
			}
			elem, ok := l[at].(map[string]any)
			if !ok {
				elem = map[string]any{}
				l[at] = elem
			}
			lst, i := l, at
			set = func(v any) { lst[i] = v }
			cur = elem
		default:
			return
		}
	}
	set(leaf)
}

// pcBenchName makes a name usable as a sub-benchmark name.
func pcBenchName(s string) string {
	return strings.NewReplacer("/", "_", " ", "_").Replace(s)
}

var pcBenchSink *metav1.Table

// BenchmarkTable renders one object's table, as the server does for a GET
// with `as=Table`, with crdkit (columns compiled once) and with the server's
// table convertor (built once from the same columns).
func BenchmarkTable(b *testing.B) {
	for _, c := range pcBenchCases(b) {
		mine, err := printcolumns.Compile(c.columns)
		if err != nil {
			b.Fatalf("%s: %v", c.name, err)
		}
		theirs, err := tableconvertor.New(c.columns)
		if err != nil {
			b.Fatalf("%s: %v", c.name, err)
		}
		b.Run(pcBenchName(c.name), func(b *testing.B) {
			for _, o := range c.objects {
				b.Run(pcBenchName(o.name), func(b *testing.B) {
					b.Run("crdkit", func(b *testing.B) {
						b.ReportAllocs()
						for b.Loop() {
							t, err := mine.ObjectTable(o.obj, printcolumns.TableOptions{})
							if err != nil {
								b.Fatal(err)
							}
							pcBenchSink = t
						}
					})
					b.Run("upstream", func(b *testing.B) {
						b.ReportAllocs()
						for b.Loop() {
							pcBenchSink = pcBenchUpstream(b, theirs, o.obj)
						}
					})
				})
			}
		})
	}
}

func pcBenchUpstream(tb testing.TB, conv rest.TableConvertor, obj map[string]any) *metav1.Table {
	t, err := conv.ConvertToTable(context.Background(), &unstructured.Unstructured{Object: obj}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// TestTableBenchInputs checks that both implementations give the same table
// for every benchmark input (ages aside), and that the generated objects
// fill their columns, so the benchmark compares equal, non-trivial work.
func TestTableBenchInputs(t *testing.T) {
	for _, c := range pcBenchCases(t) {
		mine, err := printcolumns.Compile(c.columns)
		if err != nil {
			t.Fatal(err)
		}
		theirs, _ := tableconvertor.New(c.columns)
		for _, o := range c.objects {
			got, err := mine.ObjectTable(o.obj, printcolumns.TableOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := pcBenchUpstream(t, theirs, o.obj)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s/%s: table differs:\n got %#v\nwant %#v", c.name, o.name, got.Rows[0].Cells, want.Rows[0].Cells)
			}
			if o.name == "generated" {
				for i, cell := range got.Rows[0].Cells {
					if cell == nil {
						t.Errorf("%s/generated: column %s is empty", c.name, got.ColumnDefinitions[i].Name)
					}
				}
			}
		}
	}
}
