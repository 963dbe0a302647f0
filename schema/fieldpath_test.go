package schema

import "testing"

// fieldPathSchema is the schema the field path cases resolve against.
const fieldPathSchema = `{"type":"object","properties":{"spec":{"type":"object","properties":{
	"a":{"type":"string"},
	"x.y":{"type":"string"},
	"it's":{"type":"boolean"},
	"m":{"type":"object","additionalProperties":{"type":"object","properties":{"x":{"type":"integer"}}}},
	"b":{"type":"object","additionalProperties":true},
	"f":{"type":"object","additionalProperties":false},
	"l":{"type":"array","items":{"type":"object","properties":{"n":{"type":"string"}}}}}}}}`

// fieldPathCases are shared with conformance/structdiff, which checks them
// against the server's ValidFieldPath.
var fieldPathCases = []struct {
	path        string
	allowArrays bool
	wantPath    string // rendered; "<nil>" for the nil path
	wantType    string // type of the node found; "<nil>" for no node
	wantErr     string
}{
	{"", true, "<nil>", "object", ""},
	{".spec", true, "spec", "object", ""},
	{".spec.a", true, "spec.a", "string", ""},
	{"['spec']['a']", true, "spec.a", "string", ""},
	{".spec['x.y']", true, "spec.x.y", "string", ""},
	{`.spec['it\'s']`, true, "spec.it's", "boolean", ""},
	{".spec.m.k", true, "spec.m[k]", "object", ""},
	{".spec.m['k'].x", true, "spec.m[k].x", "integer", ""},
	{".spec.m.k.x", true, "spec.m[k].x", "integer", ""},
	{".spec.b.k", true, "spec.b[k]", "<nil>", ""},
	{".spec.f.k", true, "spec.f[k]", "<nil>", ""},
	{".spec.l", true, "spec.l", "array", ""},
	{".spec.l.n", true, "", "", "does not refer to a valid field"},
	{".spec.nope", true, "", "", "does not refer to a valid field"},
	{".spec.a.b", true, "", "", "does not refer to a valid field"},
	{"..spec", true, "", "", "does not refer to a valid field"},
	{"spec", true, "", "", "expected [ or . but got: spec"},
	{"]", true, "", "", "expected [ or . but got: ]"},
	{".", true, "", "", "unexpected end of JSON path"},
	{".spec.", true, "", "", "unexpected end of JSON path"},
	{"[", true, "", "", "unexpected end of JSON path"},
	{"['spec'", true, "", "", "unexpected end of JSON path"},
	{"[spec]", true, "", "", "expected single quoted string but got spec"},
	{"['spec", true, "", "", "expected single quoted string but got 'spec"},
	{"[']", true, "", "", "expected single quoted string but got ']"},
	{"['spec'x", true, "", "", "expected ] but got x"},
	{`['sp\q']`, true, "", "", `invalid string literal: invalid escape char \q`},
	{`['\n']`, true, "", "", "does not refer to a valid field"},
	{"['spec']", false, "", "", "array notation is not allowed"},
	{".spec.m['k']", false, "", "", "array notation is not allowed"},
	{".spec.m.k.x", false, "spec.m[k].x", "integer", ""},
}

func TestResolveFieldPath(t *testing.T) {
	s, err := ParseProps([]byte(fieldPathSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range fieldPathCases {
		t.Run(tt.path, func(t *testing.T) {
			pth, n, err := ResolveFieldPath(s, tt.path, tt.allowArrays)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("ResolveFieldPath(%q, %v) error = %v, want %s", tt.path, tt.allowArrays, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ResolveFieldPath(%q, %v) error = %v, want none", tt.path, tt.allowArrays, err)
			}
			gotPath := "<nil>"
			if pth != nil {
				gotPath = pth.String()
			}
			gotType := "<nil>"
			if n != nil {
				gotType = n.Type
			}
			if gotPath != tt.wantPath || gotType != tt.wantType {
				t.Errorf("ResolveFieldPath(%q, %v) = %s, %s, want %s, %s", tt.path, tt.allowArrays, gotPath, gotType, tt.wantPath, tt.wantType)
			}
		})
	}
}

func TestFieldPath(t *testing.T) {
	s, err := ParseProps([]byte(fieldPathSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, wantType, wantErr string
	}{
		{".spec.a", "string", ""},
		{"['spec'].l", "array", ""},
		{".spec.z", "", "does not refer to a valid field"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			n, err := FieldPath(s, tt.path)
			got, gotErr := "", ""
			if n != nil {
				got = n.Type
			}
			if err != nil {
				gotErr = err.Error()
			}
			if got != tt.wantType || gotErr != tt.wantErr {
				t.Errorf("FieldPath(%q) = %s, %q, want %s, %q", tt.path, got, gotErr, tt.wantType, tt.wantErr)
			}
		})
	}
}

// A nil schema has no fields; the server would dereference nil here.
func TestFieldPathBelowBooleanAdditionalProperties(t *testing.T) {
	s, err := ParseProps([]byte(fieldPathSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".spec.b.k.z", ".spec.f.k['z']"} {
		if _, err := FieldPath(s, p); err == nil || err.Error() != "does not refer to a valid field" {
			t.Errorf("FieldPath(%q) error = %v, want does not refer to a valid field", p, err)
		}
	}
}
