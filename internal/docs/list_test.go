package docs

import (
	"encoding/json"
	"strings"
	"testing"
)

func isTestList(_, kind string) bool { return kind == "List" || kind == "ThingList" }

func TestItems(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     string
		isList bool
		want   []string // path=JSON of each item
		err    string
	}{
		{"not a List", `{"kind":"Thing","items":[{"a":1}]}`, false, nil, ""},
		{"no items", `{"kind":"List"}`, false, nil, ""},
		{"items not an array", `{"kind":"List","items":{"a":1}}`, false, nil, ""},
		{"empty", `{"kind":"List","items":[]}`, true, nil, ""},
		{"items keep their bytes", `{"apiVersion":"v1","kind":"List","items":[{"kind":"T","a":1,"a":2}, {"apiVersion":"x/v1"}]}`, true,
			[]string{`items[0]={"kind":"T","a":1,"a":2}`, `items[1]={"apiVersion":"x/v1"}`}, ""},
		{"type meta from the List", `{"apiVersion":"x/v1","kind":"ThingList","items":[{"metadata":{"name":"a"}},{ }]}`, true,
			[]string{`items[0]={"apiVersion":"x/v1","kind":"Thing","metadata":{"name":"a"}}`, `items[1]={"apiVersion":"x/v1","kind":"Thing" }`}, ""},
		{"nested", `{"kind":"List","items":[{"kind":"List","items":[{"kind":"A"}]},{"kind":"B"}]}`, true,
			[]string{`items[0].items[0]={"kind":"A"}`, `items[1]={"kind":"B"}`}, ""},
		{"an item that is not an object", `{"kind":"List","items":[{"kind":"A"},3]}`, true, []string{`items[0]={"kind":"A"}`}, "f.yaml:4: f.yaml#0.items[1]: not an object: 3"},
		{"too deep", strings.Repeat(`{"kind":"List","items":[`, 10) + `{}` + strings.Repeat(`]}`, 10), true, nil, "nested more than 8 deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items, ok, err := Items(Doc{File: "f.yaml", Line: 4, JSON: []byte(tc.in)}, isTestList)
			if ok != tc.isList || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Items(%s) = %v, %v; want %v, %q", tc.in, ok, err, tc.isList, tc.err)
			}
			var got []string
			for _, it := range items {
				got = append(got, it.Path+"="+string(it.JSON))
				if it.File != "f.yaml" || it.Line != 4 {
					t.Errorf("item %s: file %s line %d, want the List's", it.Path, it.File, it.Line)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("Items(%s) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzItems(f *testing.F) {
	for _, s := range []string{`{"kind":"List","items":[{"a":1},{}]}`, `{"apiVersion":"x/v1","kind":"ThingList","items":[{ },{"metadata":{}}]}`, `{"kind":"List","items":[1]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		items, _, err := Items(Doc{File: "f", JSON: []byte(in)}, isTestList)
		if err != nil || !json.Valid([]byte(in)) {
			return
		}
		for _, it := range items {
			if !json.Valid(it.JSON) {
				t.Fatalf("Items(%s): item %s is not JSON: %s", in, it.Path, it.JSON)
			}
		}
	})
}

func TestConvertDuplicateKeys(t *testing.T) {
	c := Chunk{File: "f.yaml", Line: 3, Text: []byte("a: 1\nb:\n  c: 1\n  c: 2\na: 3\n")}
	js, warnings, err := c.Convert()
	if err != nil {
		t.Fatal(err)
	}
	if string(js) != `{"a":3,"b":{"c":2}}` {
		t.Errorf("Convert = %s, want the last values, as kubectl reads YAML", js)
	}
	want := []string{`line 4: key "c" already set in map`, `line 5: key "a" already set in map`}
	if strings.Join(warnings, "|") != strings.Join(want, "|") {
		t.Errorf("Convert warnings = %q, want %q", warnings, want)
	}
}
