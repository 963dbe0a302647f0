package printcolumns

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var testNow = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// decode reads JSON the way the server decodes custom objects: integral
// numbers become int64, other numbers float64.
func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	m, _ := numbers(v).(map[string]any)
	return m
}

func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

func compileOne(t testing.TB, typ, path string) *Columns {
	t.Helper()
	c, err := Compile([]apiextensionsv1.CustomResourceColumnDefinition{{Name: "C", Type: typ, JSONPath: path}})
	if err != nil {
		t.Fatalf("Compile(%q) = %v", path, err)
	}
	return c
}

const cellObject = `{
	"metadata": {"name": "x", "creationTimestamp": "2024-05-01T10:00:00Z", "labels": {"b": "2", "a": "1"}},
	"spec": {
		"s": "text", "i": 42, "f": 3.7, "neg": -3.7, "big": 1e21, "t": true, "n": null, "z": 0,
		"list": ["x", 2, {"k": "v"}], "empty": [], "obj": {"z": 1, "a": "b"},
		"dates": {"past": "2024-04-28T08:00:00Z", "soon": "2024-05-01T12:00:01Z", "later": "2024-05-01T12:00:02Z",
			"zero": "0001-01-01T00:00:00Z", "empty": "", "null": "null", "bad": "yesterday", "offset": "2024-05-01T13:59:00+02:00"},
		"conditions": [
			{"type": "Progressing", "status": "True"},
			{"type": "Ready", "status": "False", "reason": "Waiting"},
			{"type": "Ready", "status": "True"}
		],
		"mixed": [{"type": "Ready", "status": "True"}, {"type": 7}],
		"numbers": [{"n": 1, "v": "one"}, {"n": 2.5, "v": "two and a half"}, {"n": 3, "v": "three"}],
		"grid": [[1, 2], [3, 4]],
		"dotted": {"a.b": "escaped"}
	}
}`

func TestCells(t *testing.T) {
	obj := decode(t, cellObject)
	tests := []struct {
		typ, path string
		want      any
	}{
		{"string", ".spec.s", "text"},
		{"string", ".spec.i", "42"},
		{"string", ".spec.f", "3.7"},
		{"string", ".spec.big", "1e+21"},
		{"string", ".spec.t", "true"},
		{"string", ".spec.n", "<no value>"},
		{"string", ".spec.list", `["x",2,{"k":"v"}]`},
		{"string", ".spec.empty", `[]`},
		{"string", ".spec.obj", `{"a":"b","z":1}`},
		{"string", ".metadata.labels", `{"a":"1","b":"2"}`},
		{"string", ".spec.missing", nil},
		{"string", ".spec.s.deeper", nil},
		{"string", ".spec.list[0]", "x"},
		{"string", ".spec.list[-1]", `{"k":"v"}`},
		{"string", ".spec.list[*]", "x"},
		{"string", ".spec.list[1:]", "2"},
		{"string", ".spec.list[5]", nil},  // out of range: error
		{"string", ".spec.empty[0]", nil}, // out of range: error
		{"string", ".spec.empty[*]", nil},
		{"string", ".spec.s[0]", nil}, // not an array: error
		{"string", ".spec.n[0]", nil}, // null: skipped
		{"string", ".spec.grid[1][0]", "3"},
		{"string", ".spec.grid[*][1]", "2"},
		{"string", ".spec.list[0:0]", nil},
		{"string", ".spec.list[::0]", nil}, // step 0: error
		{"string", ".spec.list[::2]", "x"},
		{"string", `.spec.conditions[?(@.type=="Ready")].status`, "False"},
		{"string", `.spec.conditions[?(@.type == 'Ready')].reason`, "Waiting"},
		{"string", `.spec.conditions[?(@.type!="Ready")].type`, "Progressing"},
		{"string", `.spec.conditions[?(@.type=="Gone")].status`, nil},
		{"string", `.spec.conditions[?(@.reason)].type`, "Ready"},
		{"string", `.spec.mixed[?(@.type=="Ready")].status`, nil}, // int vs string: error
		{"string", `.spec.numbers[?(@.n==3)].v`, nil},             // 2.5 == 3 mixes float and int: error
		{"string", `.spec.numbers[?(@.v=="three")].n`, "3"},
		{"string", `.spec.numbers[?(@.n>1)].v`, nil}, // 2.5 is a float: error
		{"string", `.spec.numbers[?(@.n==2.5)].v`, nil},
		{"string", `.spec.n[?(@.x)]`, nil},   // filter on null: error
		{"string", `.spec.obj[?(@.x)]`, nil}, // filter on an object: error
		{"string", `.spec.obj.*`, nil},       // wildcard on an object: evaluated upstream, order random
		{"string", `.spec.dotted.a\.b`, "escaped"},
		{"string", `.spec.conditions..type`, "Progressing"}, // recursive descent, upstream engine
		{"string", `.spec.list[0,1]`, "x"},                  // union, upstream engine
		{"string", ``, nil},                                 // whole object: compared below
		{"integer", ".spec.i", int64(42)},
		{"integer", ".spec.f", int64(3)},
		{"integer", ".spec.neg", int64(-3)},
		{"integer", ".spec.s", nil},
		{"integer", ".spec.t", nil},
		{"integer", ".spec.n", nil},
		{"integer", ".spec.list", nil},
		{"number", ".spec.i", float64(42)},
		{"number", ".spec.f", 3.7},
		{"number", ".spec.s", nil},
		{"boolean", ".spec.t", true},
		{"boolean", ".spec.z", nil},
		{"boolean", ".spec.s", nil},
		{"date", ".metadata.creationTimestamp", "120m"},
		{"date", ".spec.dates.past", "3d4h"},
		{"date", ".spec.dates.soon", "0s"},
		{"date", ".spec.dates.later", "<invalid>"},
		{"date", ".spec.dates.zero", "<unknown>"},
		{"date", ".spec.dates.empty", "<unknown>"},
		{"date", ".spec.dates.null", "<unknown>"},
		{"date", ".spec.dates.bad", "<invalid>"},
		{"date", ".spec.dates.offset", "60s"},
		{"date", ".spec.i", nil},
		{"date", ".spec.n", nil},
		{"date", ".spec.missing", nil},
		{"unknown", ".spec.s", nil},
		{"", ".spec.s", nil},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.path, func(t *testing.T) {
			c := compileOne(t, tt.typ, tt.path)
			row := c.Row(nil, obj, testNow)
			if len(row) != 2 || row[0] != "x" {
				t.Fatalf("Row = %#v, want name x and one cell", row)
			}
			got := row[1]
			if tt.path == "" {
				want, _ := json.Marshal(obj)
				tt.want = string(want)
			}
			if tt.path == ".spec.obj.*" {
				if got != "1" && got != "b" {
					t.Errorf("cell(%s %s) = %#v, want one of the values", tt.typ, tt.path, got)
				}
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cell(%s %s) = %#v, want %#v", tt.typ, tt.path, got, tt.want)
			}
		})
	}
}

func TestCellsNonJSONTypes(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{"name": 7},
		"spec": map[string]any{
			"int":    3,
			"labels": map[string]string{"b": "2", "a": "1"},
			"list":   []string{"p", "q"},
			"num":    json.Number("12"),
			"ptr":    &struct{ X int }{X: 1},
		},
	}
	tests := []struct {
		typ, path string
		want      any
	}{
		{"string", ".spec.int", "3"},
		{"integer", ".spec.int", nil},
		{"string", ".spec.labels", `{"a":"1","b":"2"}`},
		{"string", ".spec.labels.a", "1"},
		{"string", ".spec.list[1]", "q"},
		{"integer", ".spec.num", int64(12)},
		{"number", ".spec.num", float64(12)},
		{"string", ".spec.num", "12"},
		{"string", ".spec.ptr.X", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.path, func(t *testing.T) {
			row := compileOne(t, tt.typ, tt.path).Row(nil, obj, testNow)
			if row[0] != "" {
				t.Errorf("name cell = %#v, want \"\" for a non-string name", row[0])
			}
			if !reflect.DeepEqual(row[1], tt.want) {
				t.Errorf("cell(%s %s) = %#v, want %#v", tt.typ, tt.path, row[1], tt.want)
			}
		})
	}
}

// programPaths are paths that compile to programs, each run against objects
// shaped to reach every branch of the evaluator.
var programPaths = []string{
	".spec", ".spec.a", ".spec.a.b", ".spec.list[0]", ".spec.list[-1]", ".spec.list[*]", ".spec.list[1:]",
	".spec.list[:2]", ".spec.list[::2]", ".spec.list[0:0]", ".spec.list[-1:]", ".spec.list[3]", ".spec.list[*].a",
	".spec.list[*][0]", ".spec.list[*][0:0]", ".spec.list[*][1]", ".spec.list[*].a[0]", ".spec.list[1:0]",
	`.spec.list[?(@.a=="x")].b`, `.spec.list[?(@.a)].b`, `.spec.list[?(@)]`, `.spec.list[?(@.a==@.b)].a`,
	`.spec.list[?(@.a<"m")].a`, `.spec.list[?(@.n>=2)].n`, `.spec.list[?(@.n<2)].n`, `.spec.list[?(@.n<=2)].n`,
	`.spec.list[?(@.n>2)].n`, `.spec.list[?(@.n!=2)].n`, `.spec.list[?(@.n==2.5)].n`, `.spec.list[?(@.t==true)].t`,
	`.spec.list[?(@.t<true)].t`, `.spec.list[?(@.a=<"x")].a`, `.spec.list[?(@.a.b=="x")].a`, `.spec.list[?(@.a== )]`,
	`.spec.list[?(@.a=="x")][?(@.b)]`, ".", "",
}

var programObjects = []string{
	`{}`,
	`{"spec": null}`,
	`{"spec": "s"}`,
	`{"spec": {"a": {"b": 1}, "list": null}}`,
	`{"spec": {"a": [1], "list": "str"}}`,
	`{"spec": {"list": {"a": "x"}}}`,
	`{"spec": {"list": []}}`,
	`{"spec": {"list": [null, 1, "x", {"a": "x", "b": "y"}, [1, 2], {"a": "x", "b": null}]}}`,
	`{"spec": {"list": [{"a": "x", "b": 1}, {"a": "y"}, {"a": "a", "b": "a"}, {"a": {"b": "x"}}]}}`,
	`{"spec": {"list": [{"n": 1}, {"n": 2}, {"n": 3}, {"n": null}]}}`,
	`{"spec": {"list": [{"n": 1}, {"n": 2.5}]}}`,
	`{"spec": {"list": [{"t": true}, {"t": false}]}}`,
	`{"spec": {"list": [[], [1], [1, 2], null, [[3]]]}}`,
	`{"spec": {"list": [[1, 2], []]}}`,
	`{"spec": {"list": [{"a": [5, 6]}, {"a": []}, {"a": "no"}]}}`,
	`{"spec": {"list": [{"a": "x", "b": [{"z": 1}]}, {"a": "x", "b": []}]}}`,
	`{"spec": {"list": [{"a": 1}, {"a": "x"}]}}`,
}

func TestProgramMatchesUpstream(t *testing.T) {
	for _, path := range programPaths {
		c := compileOne(t, "string", path)
		col := &c.cols[0]
		if col.prog == nil {
			t.Errorf("path %q did not compile to a program", path)
			continue
		}
		for _, src := range programObjects {
			obj := decode(t, src)
			got, gotFound, ok := col.prog.run(obj)
			if !ok {
				t.Errorf("program(%q) on %s fell back to the upstream engine", path, src)
				continue
			}
			want, wantFound := col.find(obj)
			if gotFound != wantFound || !reflect.DeepEqual(got, want) {
				t.Errorf("program(%q) on %s = %#v, %v; upstream engine %#v, %v", path, src, got, gotFound, want, wantFound)
			}
		}
	}
}

func TestCompile(t *testing.T) {
	doc := metav1.ObjectMeta{}.SwaggerDoc()
	nameCol := metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: doc["name"]}
	ageCol := metav1.TableColumnDefinition{Name: "Age", Type: "date", Description: doc["creationTimestamp"]}
	tests := []struct {
		name     string
		cols     []apiextensionsv1.CustomResourceColumnDefinition
		want     []metav1.TableColumnDefinition
		wantErr  string
		errIndex int
	}{
		{name: "default", cols: nil, want: []metav1.TableColumnDefinition{nameCol, ageCol}},
		{name: "empty", cols: []apiextensionsv1.CustomResourceColumnDefinition{}, want: []metav1.TableColumnDefinition{nameCol, ageCol}},
		{
			name: "descriptions, formats and priorities",
			cols: []apiextensionsv1.CustomResourceColumnDefinition{
				{Name: "Replicas", Type: "integer", Format: "int32", JSONPath: ".spec.replicas", Priority: 1},
				{Name: "Ready", Type: "string", Description: "Ready condition", JSONPath: `.status.conditions[?(@.type=="Ready")].status`},
			},
			want: []metav1.TableColumnDefinition{
				nameCol,
				{Name: "Replicas", Type: "integer", Format: "int32", Priority: 1, Description: "Custom resource definition column (in JSONPath format): .spec.replicas"},
				{Name: "Ready", Type: "string", Description: "Ready condition"},
			},
		},
		{
			name: "partial on a parse error",
			cols: []apiextensionsv1.CustomResourceColumnDefinition{
				{Name: "A", Type: "string", JSONPath: ".a"},
				{Name: "B", Type: "string", JSONPath: ".b["},
				{Name: "C", Type: "string", JSONPath: ".c"},
			},
			want: []metav1.TableColumnDefinition{
				nameCol,
				{Name: "A", Type: "string", Description: "Custom resource definition column (in JSONPath format): .a"},
			},
			wantErr:  `unrecognized column definition ".b["`,
			errIndex: 1,
		},
		{
			name:     "first column bad",
			cols:     []apiextensionsv1.CustomResourceColumnDefinition{{Name: "A", Type: "string", JSONPath: `.a[?(@.x=="y"`}},
			want:     []metav1.TableColumnDefinition{nameCol},
			wantErr:  `unrecognized column definition ".a[?(@.x==\"y\""`,
			errIndex: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compile(tt.cols)
			if c == nil {
				t.Fatalf("Compile returned no columns")
			}
			got := c.Definitions()
			for i := range got {
				if i < len(tt.want) && tt.want[i].Description == "" && got[i].Name == "Age" {
					tt.want[i].Description = got[i].Description
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Definitions() = %#v, want %#v", got, tt.want)
			}
			if c.Len() != len(tt.want) || len(c.cols)+1 != len(tt.want) {
				t.Errorf("Len() = %d with %d programs, want %d", c.Len(), len(c.cols), len(tt.want))
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Compile() error = %v", err)
				}
				return
			}
			var ce *ColumnError
			if !errors.As(err, &ce) || err.Error() != tt.wantErr || ce.Index != tt.errIndex || ce.Unwrap() == nil {
				t.Errorf("Compile() error = %v (%#v), want %s at %d", err, err, tt.wantErr, tt.errIndex)
			}
			// The partial columns still render.
			if row := c.Row(nil, map[string]any{"a": "A"}, testNow); len(row) != c.Len() {
				t.Errorf("Row() = %v, want %d cells", row, c.Len())
			}
		})
	}
}

func TestDefinitionsCopy(t *testing.T) {
	c := compileOne(t, "string", ".a")
	c.Definitions()[1].Name = "changed"
	tbl, _ := c.Table(nil, TableOptions{})
	tbl.ColumnDefinitions[1].Name = "changed"
	if got := c.Definitions()[1].Name; got != "C" {
		t.Errorf("Definitions()[1].Name = %q after caller mutation, want C", got)
	}
}

func TestScaleColumns(t *testing.T) {
	sel := ".status.selector"
	tests := []struct {
		scale *apiextensionsv1.CustomResourceSubresourceScale
		want  []string
	}{
		{nil, []string{"Age"}},
		{&apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.r", StatusReplicasPath: ".status.r", LabelSelectorPath: &sel}, []string{"Desired", "Available", "Age"}},
		{&apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.r"}, []string{"Desired", "Age"}},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range ScaleColumns(tt.scale) {
			got = append(got, c.Name)
			if c.Name == "Desired" && c.JSONPath != ".spec.replicas" || c.Name == "Available" && c.JSONPath != ".status.replicas" {
				t.Errorf("column %s reads %s", c.Name, c.JSONPath)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ScaleColumns(%+v) = %v, want %v", tt.scale, got, tt.want)
		}
	}
}

func TestTable(t *testing.T) {
	c, err := Compile([]apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Spec", Type: "string", JSONPath: ".spec.cronSpec"},
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas", Priority: 1},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	})
	if err != nil {
		t.Fatal(err)
	}
	a := decode(t, `{"metadata": {"name": "a", "resourceVersion": "7", "continue": "c", "remainingItemCount": 3,
		"creationTimestamp": "2024-05-01T11:00:00Z"}, "spec": {"cronSpec": "* * * * *", "replicas": 2}}`)
	b := decode(t, `{"metadata": {"name": "b"}, "spec": {}}`)
	now := func() time.Time { return testNow }
	remaining := int64(5)

	t.Run("list", func(t *testing.T) {
		tbl, _ := c.Table([]map[string]any{a, b}, TableOptions{Now: now, ListMeta: metav1.ListMeta{ResourceVersion: "99", Continue: "next", RemainingItemCount: &remaining}})
		want := &metav1.Table{
			ListMeta:          metav1.ListMeta{ResourceVersion: "99", Continue: "next", RemainingItemCount: &remaining},
			ColumnDefinitions: c.Definitions(),
			Rows: []metav1.TableRow{
				{Cells: []any{"a", "* * * * *", int64(2), "60m"}, Object: rawObject(a)},
				{Cells: []any{"b", nil, nil, nil}, Object: rawObject(b)},
			},
		}
		if !reflect.DeepEqual(tbl, want) {
			t.Errorf("Table() = %#v, want %#v", tbl, want)
		}
		if tbl.RemainingItemCount == &remaining {
			t.Errorf("Table() shares RemainingItemCount with the options")
		}
	})
	t.Run("no headers, empty", func(t *testing.T) {
		tbl, _ := c.Table(nil, TableOptions{NoHeaders: true})
		if tbl.ColumnDefinitions != nil || tbl.Rows == nil || len(tbl.Rows) != 0 {
			t.Errorf("Table(nil, NoHeaders) = %#v, want no definitions and empty non-nil rows", tbl)
		}
	})
	t.Run("object", func(t *testing.T) {
		tbl, _ := c.ObjectTable(a, TableOptions{Now: now})
		three := int64(3)
		want := &metav1.Table{
			ListMeta:          metav1.ListMeta{ResourceVersion: "7", Continue: "c", RemainingItemCount: &three},
			ColumnDefinitions: c.Definitions(),
			Rows:              []metav1.TableRow{{Cells: []any{"a", "* * * * *", int64(2), "60m"}, Object: rawObject(a)}},
		}
		if !reflect.DeepEqual(tbl, want) {
			t.Errorf("ObjectTable() = %#v, want %#v", tbl, want)
		}
	})
	t.Run("objects with items are lists", func(t *testing.T) {
		list := decode(t, `{"metadata": {"name": "outer"}, "items": [{"metadata": {"name": "i1"}}, {"items": [{"metadata": {"name": "i2"}}]}, {"items": {}}]}`)
		tbl, err := c.Table([]map[string]any{a, list, b}, TableOptions{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		var names []any
		for _, r := range tbl.Rows {
			names = append(names, r.Cells[0])
		}
		// {"items": {}} is not a list: it gets a row of its own.
		if want := []any{"a", "i1", "i2", "", "b"}; !reflect.DeepEqual(names, want) {
			t.Errorf("row names = %v, want %v", names, want)
		}
		bad := decode(t, `{"items": [{"metadata": {}}, "x"]}`)
		if _, err := c.Table([]map[string]any{a, bad}, TableOptions{Now: now}); !errors.Is(err, ErrItemNotObject) || err.Error() != "items member is not an object: map[string]interface {}" {
			t.Errorf("Table() error = %v, want ErrItemNotObject", err)
		}
		if _, err := c.ObjectTable(bad, TableOptions{Now: now}); !errors.Is(err, ErrItemNotObject) {
			t.Errorf("ObjectTable() error = %v, want ErrItemNotObject", err)
		}
		tbl, err = c.ObjectTable(decode(t, `{"items": []}`), TableOptions{Now: now})
		if err != nil || len(tbl.Rows) != 0 || tbl.Rows == nil {
			t.Errorf("ObjectTable(empty items) = %#v, %v, want no rows", tbl, err)
		}
	})
	t.Run("rows do not alias", func(t *testing.T) {
		tbl, _ := c.Table([]map[string]any{a, b}, TableOptions{Now: now})
		tbl.Rows[0].Cells = append(tbl.Rows[0].Cells, "extra")
		if tbl.Rows[1].Cells[0] != "b" {
			t.Errorf("appending to row 0 changed row 1: %#v", tbl.Rows[1].Cells)
		}
		if tbl.Rows[0].Object.Object.(*unstructured.Unstructured).Object["metadata"].(map[string]any)["name"] != "a" {
			t.Errorf("row 0 does not embed object a")
		}
	})
}

func rawObject(obj map[string]any) runtime.RawExtension {
	return runtime.RawExtension{Object: &unstructured.Unstructured{Object: obj}}
}

func TestPrint(t *testing.T) {
	defs := []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Ready", Type: "string"},
		{Name: "Retries", Type: "integer", Priority: 1},
		{Name: "Age", Type: "string"},
	}
	ns := func(name, namespace string) runtime.RawExtension {
		return rawObject(map[string]any{"metadata": map[string]any{"name": name, "namespace": namespace}})
	}
	rows := []metav1.TableRow{
		{Cells: []any{"test1", "1/1", int64(5), "20h"}},
		{Cells: []any{"a-longer-name", nil, 3.5, "2d"}},
	}
	tests := []struct {
		name  string
		table metav1.Table
		opts  PrintOptions
		want  string
	}{
		{"standard", metav1.Table{ColumnDefinitions: defs, Rows: rows}, PrintOptions{},
			"NAME            READY   AGE\ntest1           1/1     20h\na-longer-name           2d\n"},
		{"wide", metav1.Table{ColumnDefinitions: defs, Rows: rows}, PrintOptions{Wide: true},
			"NAME            READY   RETRIES   AGE\ntest1           1/1     5         20h\na-longer-name           3.5       2d\n"},
		{"no headers", metav1.Table{ColumnDefinitions: defs, Rows: rows}, PrintOptions{NoHeaders: true},
			"test1           1/1   20h\na-longer-name         2d\n"},
		{"missing text", metav1.Table{ColumnDefinitions: defs, Rows: rows}, PrintOptions{Missing: "<none>"},
			"NAME            READY    AGE\ntest1           1/1      20h\na-longer-name   <none>   2d\n"},
		{"no rows", metav1.Table{ColumnDefinitions: defs}, PrintOptions{}, ""},
		{"short name column", metav1.Table{ColumnDefinitions: defs[:2], Rows: []metav1.TableRow{{Cells: []any{"a", "b", "extra"}}}}, PrintOptions{},
			"NAME   READY\na      b\n"},
		{"line breaks and escapes", metav1.Table{ColumnDefinitions: defs[:2], Rows: []metav1.TableRow{
			{Cells: []any{"x", "first line\nsecond"}},
			{Cells: []any{"y", "red \x1b[31m!"}},
			{Cells: []any{"z", "a\rb"}},
			{Cells: []any{"w", true}},
		}}, PrintOptions{},
			"NAME   READY\nx      first line...\ny      red ^[[31m!\nz      a...\nw      true\n"},
		{"namespaces", metav1.Table{ColumnDefinitions: defs[:2], Rows: []metav1.TableRow{
			{Cells: []any{"a", "yes"}, Object: (ns("a", "default"))},
			{Cells: []any{"b", "no"}, Object: (ns("b", "kube-system"))},
			{Cells: []any{"c", "?"}},
		}}, PrintOptions{WithNamespace: true},
			"NAMESPACE     NAME   READY\ndefault       a      yes\nkube-system   b      no\n              c      ?\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Print(&buf, &tt.table, tt.opts); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("Print() =\n%q\nwant\n%q", buf.String(), tt.want)
			}
		})
	}
}

func TestValidateColumn(t *testing.T) {
	base := field.NewPath("spec", "versions").Index(2).Child("additionalPrinterColumns").Index(1)
	tests := []struct {
		name string
		col  apiextensionsv1.CustomResourceColumnDefinition
		want []string
	}{
		{"valid", apiextensionsv1.CustomResourceColumnDefinition{Name: "A", Type: "integer", Format: "int32", JSONPath: ".spec.a"}, nil},
		{"valid filter", apiextensionsv1.CustomResourceColumnDefinition{Name: "A", Type: "date", JSONPath: `.status.conditions[?(@.type=="Ready")].lastTransitionTime`}, nil},
		{"valid dot", apiextensionsv1.CustomResourceColumnDefinition{Name: "A", Type: "string", JSONPath: "."}, nil},
		{"empty", apiextensionsv1.CustomResourceColumnDefinition{}, []string{
			"spec.versions[2].additionalPrinterColumns[1].name: Required value",
			"spec.versions[2].additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string",
			"spec.versions[2].additionalPrinterColumns[1].JSONPath: Required value",
		}},
		{"bad type, format and path", apiextensionsv1.CustomResourceColumnDefinition{Name: "A", Type: "object", Format: "uuid", JSONPath: "spec.a"}, []string{
			`spec.versions[2].additionalPrinterColumns[1].type: Invalid value: "object": must be one of boolean,date,integer,number,string`,
			`spec.versions[2].additionalPrinterColumns[1].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password`,
			`spec.versions[2].additionalPrinterColumns[1].JSONPath: Invalid value: "spec.a": must be a simple json path starting with .`,
		}},
		{"case matters", apiextensionsv1.CustomResourceColumnDefinition{Name: "A", Type: "String", JSONPath: "$.a"}, []string{
			`spec.versions[2].additionalPrinterColumns[1].type: Invalid value: "String": must be one of boolean,date,integer,number,string`,
			`spec.versions[2].additionalPrinterColumns[1].JSONPath: Invalid value: "$.a": must be a simple json path starting with .`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateColumn(tt.col, base)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ValidateColumn() =\n%v\nwant\n%v", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestValidateVersions(t *testing.T) {
	bad := []apiextensionsv1.CustomResourceColumnDefinition{{Name: "A", Type: "string", JSONPath: "a"}}
	good := []apiextensionsv1.CustomResourceColumnDefinition{{Name: "A", Type: "string", JSONPath: ".a"}}
	tests := []struct {
		name     string
		versions []apiextensionsv1.CustomResourceDefinitionVersion
		want     []string
	}{
		{"none", nil, nil},
		{"single version hoisted", []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", AdditionalPrinterColumns: bad}},
			[]string{"spec.additionalPrinterColumns[0].JSONPath"}},
		{"identical versions hoisted", []apiextensionsv1.CustomResourceDefinitionVersion{
			{Name: "v1", AdditionalPrinterColumns: bad}, {Name: "v2", AdditionalPrinterColumns: bad}},
			[]string{"spec.additionalPrinterColumns[0].JSONPath"}},
		{"differing versions", []apiextensionsv1.CustomResourceDefinitionVersion{
			{Name: "v1", AdditionalPrinterColumns: good}, {Name: "v2", AdditionalPrinterColumns: bad}, {Name: "v3", AdditionalPrinterColumns: bad}},
			[]string{"spec.versions[1].additionalPrinterColumns[0].JSONPath", "spec.versions[2].additionalPrinterColumns[0].JSONPath"}},
		{"nil and empty are equal", []apiextensionsv1.CustomResourceDefinitionVersion{
			{Name: "v1"}, {Name: "v2", AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{}}}, nil},
		{"one version without columns", []apiextensionsv1.CustomResourceDefinitionVersion{
			{Name: "v1"}, {Name: "v2", AdditionalPrinterColumns: bad}},
			[]string{"spec.versions[1].additionalPrinterColumns[0].JSONPath"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range ValidateVersions(tt.versions, field.NewPath("spec")) {
				got = append(got, e.Field)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ValidateVersions() fields = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestScale(t *testing.T) {
	sel := ".status.selector"
	empty := ""
	full := apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: &sel}
	tests := []struct {
		name                   string
		obj                    string
		scale                  apiextensionsv1.CustomResourceSubresourceScale
		spec, status           int32
		selector, err          string
		wantName, wantUID, wRV string
	}{
		{name: "all set", obj: `{"metadata": {"name": "a", "namespace": "ns", "uid": "u1", "resourceVersion": "9", "creationTimestamp": "2024-05-01T10:00:00Z"},
			"spec": {"replicas": 3}, "status": {"replicas": 2, "selector": "app=a"}}`, scale: full, spec: 3, status: 2, selector: "app=a",
			wantName: "a", wantUID: "u1", wRV: "9"},
		{name: "no status", obj: `{"metadata": {"name": "a"}, "spec": {"replicas": 3}}`, scale: full, spec: 3, wantName: "a"},
		{name: "null status", obj: `{"spec": {"replicas": 3}, "status": null}`, scale: full, spec: 3},
		{name: "no spec replicas", obj: `{"spec": {}}`, scale: full, err: `Internal error occurred: the spec replicas field ".spec.replicas" does not exist`},
		{name: "float replicas", obj: `{"spec": {"replicas": 1.5}}`, scale: full, err: ".spec.replicas accessor error: 1.5 is of the type float64, expected int64"},
		{name: "null replicas", obj: `{"spec": {"replicas": null}}`, scale: full, err: ".spec.replicas accessor error: <nil> is of the type <nil>, expected int64"},
		{name: "spec not an object", obj: `{"spec": "x"}`, scale: full, err: ".spec.replicas accessor error: x is of the type string, expected map[string]interface{}"},
		{name: "status not an object", obj: `{"spec": {"replicas": 1}, "status": [1]}`, scale: full, err: ".status.replicas accessor error: [1] is of the type []interface {}, expected map[string]interface{}"},
		{name: "selector not a string", obj: `{"spec": {"replicas": 1}, "status": {"selector": {"a": 1}}}`, scale: full, err: ".status.selector accessor error: map[a:1] is of the type map[string]interface {}, expected string"},
		{name: "int32 truncation", obj: `{"spec": {"replicas": 4294967297}, "status": {"replicas": -1}}`, scale: full, spec: 1, status: -1},
		{name: "no selector path", obj: `{"spec": {"replicas": 1}, "status": {"selector": 5}}`,
			scale: apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: &empty}, spec: 1},
		{name: "deep paths without dot", obj: `{"spec": {"a": {"b": 6}}, "status": {"c": {"d": 5}}}`,
			scale: apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: "spec.a.b", StatusReplicasPath: ".status.c.d"}, spec: 6, status: 5},
		{name: "deep error path", obj: `{"spec": {"a": {"b": 6}}, "status": {"c": 1}}`,
			scale: apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.a.b", StatusReplicasPath: ".status.c.d"}, err: ".status.c.d accessor error: 1 is of the type int64, expected map[string]interface{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Scale(decode(t, tt.obj), tt.scale)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("Scale() error = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Scale() error = %v", err)
			}
			if s.APIVersion != "autoscaling/v1" || s.Kind != "Scale" || s.Spec.Replicas != tt.spec || s.Status.Replicas != tt.status ||
				s.Status.Selector != tt.selector || s.Name != tt.wantName || string(s.UID) != tt.wantUID || s.ResourceVersion != tt.wRV {
				t.Errorf("Scale() = %+v", s)
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	c, err := Compile([]apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "A", Type: "string", JSONPath: ".spec.s"},
		{Name: "B", Type: "string", JSONPath: `.spec.conditions[?(@.type=="Ready")].status`},
		{Name: "C", Type: "string", JSONPath: ".spec.conditions..type"},
		{Name: "D", Type: "string", JSONPath: ".spec.list[0,1]"},
		{Name: "E", Type: "string", JSONPath: ".spec.list}{range .spec.list[*]}{@}{end"},
		{Name: "F", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	})
	if err != nil {
		t.Fatal(err)
	}
	obj := decode(t, cellObject)
	want := c.Row(nil, obj, testNow)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if got := c.Row(nil, obj, testNow); !reflect.DeepEqual(got, want) {
					t.Errorf("concurrent Row() = %#v, want %#v", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestRowAllocs(t *testing.T) {
	c, err := Compile([]apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Spec", Type: "string", JSONPath: ".spec.cronSpec"},
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "Ready", Type: "string", JSONPath: `.status.conditions[?(@.type=="Ready")].status`},
		{Name: "Paused", Type: "boolean", JSONPath: ".spec.paused"},
	})
	if err != nil {
		t.Fatal(err)
	}
	obj := decode(t, `{"metadata": {"name": "a"}, "spec": {"cronSpec": "* * * * *", "replicas": 3, "paused": false},
		"status": {"conditions": [{"type": "Synced", "status": "True"}, {"type": "Ready", "status": "False"}]}}`)
	dst := make([]any, 0, 8)
	allocs := testing.AllocsPerRun(100, func() { dst = c.Row(dst[:0], obj, testNow) })
	if allocs != 0 {
		t.Errorf("Row() allocates %v times per object, want 0", allocs)
	}
}

func BenchmarkRow(b *testing.B) {
	c, err := Compile([]apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Spec", Type: "string", JSONPath: ".spec.cronSpec"},
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "Ready", Type: "string", JSONPath: `.status.conditions[?(@.type=="Ready")].status`},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	})
	if err != nil {
		b.Fatal(err)
	}
	obj := decode(b, `{"metadata": {"name": "a", "creationTimestamp": "2024-05-01T10:00:00Z"}, "spec": {"cronSpec": "* * * * *", "replicas": 3},
		"status": {"conditions": [{"type": "Synced", "status": "True"}, {"type": "Ready", "status": "False"}]}}`)
	dst := make([]any, 0, 8)
	b.ReportAllocs()
	for b.Loop() {
		dst = c.Row(dst[:0], obj, testNow)
	}
}

func FuzzCells(f *testing.F) {
	for _, o := range programObjects {
		f.Add(o, programPaths[len(o)%len(programPaths)])
	}
	f.Add(cellObject, `.spec.conditions[?(@.type=="Ready")].status`)
	f.Add(cellObject, `.spec.list[-1:]`)
	f.Add(cellObject, `.spec..k`)
	f.Add(`{"a": [1, 2, 3]}`, `.a[1:3:2]`)
	f.Fuzz(func(t *testing.T, src, path string) {
		d := json.NewDecoder(strings.NewReader(src))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return
		}
		obj, ok := numbers(v).(map[string]any)
		if !ok {
			return
		}
		cols := make([]apiextensionsv1.CustomResourceColumnDefinition, 0, 5)
		for _, typ := range []string{"string", "integer", "number", "boolean", "date"} {
			cols = append(cols, apiextensionsv1.CustomResourceColumnDefinition{Name: typ, Type: typ, JSONPath: path})
		}
		c, err := Compile(cols)
		if err != nil {
			return
		}
		row := c.Row(nil, obj, testNow)
		if len(row) != 6 {
			t.Fatalf("Row() has %d cells, want 6", len(row))
		}
		tbl, err := c.Table([]map[string]any{obj}, TableOptions{Now: func() time.Time { return testNow }})
		if err != nil {
			if !errors.Is(err, ErrItemNotObject) {
				t.Fatalf("Table() error = %v", err)
			}
			return
		}
		if err := Print(&bytes.Buffer{}, tbl, PrintOptions{Wide: true}); err != nil {
			t.Fatal(err)
		}
		col := &c.cols[0]
		if col.prog == nil {
			return // evaluated by the upstream engine itself
		}
		got, gotFound, valid := col.prog.run(obj)
		if !valid {
			t.Fatalf("program(%q) on %s fell back on JSON input", path, src)
		}
		want, wantFound := col.find(obj)
		if gotFound != wantFound || !reflect.DeepEqual(got, want) {
			t.Fatalf("program(%q) on %s = %#v, %v; upstream engine %#v, %v", path, src, got, gotFound, want, wantFound)
		}
		_ = fmt.Sprint(row)
	})
}
