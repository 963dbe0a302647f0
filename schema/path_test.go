package schema

import "testing"

func TestPathString(t *testing.T) {
	var root *Path
	shared := NewPath("spec")
	tests := []struct {
		name string
		path *Path
		want string
	}{
		{"field, index, key, field", NewPath("spec").Child("a").Index(0).Key("key").Child("b"), "spec.a[0][key].b"},
		{"nil is empty", nil, ""},
		{"several names", NewPath("spec", "template", "spec"), "spec.template.spec"},
		{"child with several names", NewPath("a").Child("b", "c"), "a.b.c"},
		{"index 0 to 9", NewPath("l").Index(9), "l[9]"},
		{"index 10", NewPath("l").Index(10), "l[10]"},
		{"large index", NewPath("l").Index(1234567), "l[1234567]"},
		{"negative index", NewPath("l").Index(-12), "l[-12]"},
		{"key is not quoted", NewPath("m").Key("a.b[c]"), "m[a.b[c]]"},
		{"empty key", NewPath("m").Key(""), "m[]"},
		{"nested keys", NewPath("properties").Key("spec").Child("properties").Key("x"), "properties[spec].properties[x]"},
		{"subscripts in a row", NewPath("a").Index(0).Index(1).Key("k"), "a[0][1][k]"},
		{"index on the nil path", root.Index(3), "[3]"},
		{"key on the nil path", root.Key("k").Child("x"), "[k].x"},
		{"child on the nil path", root.Child("a", "b"), "a.b"},
		{"shared prefix, first branch", shared.Child("x"), "spec.x"},
		{"shared prefix, second branch", shared.Child("y").Index(1), "spec.y[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.path.String(); got != tt.want {
				t.Errorf("Path(%s) = %s, want %s", tt.name, got, tt.want)
			}
		})
	}
	if got := shared.String(); got != "spec" {
		t.Errorf("Path(shared prefix after extension) = %s, want spec", got)
	}
}

func TestPathRoot(t *testing.T) {
	var root *Path
	tests := []struct {
		name string
		path *Path
		want string
	}{
		{"field", NewPath("spec").Child("a").Index(0), "spec"},
		{"nil", nil, ""},
		{"subscript at the root", root.Key("k").Child("x"), ""},
		{"single", NewPath("status"), "status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.path.Root(); got != tt.want {
				t.Errorf("Root(%s) = %s, want %s", tt.path, got, tt.want)
			}
		})
	}
}

func TestItoa(t *testing.T) {
	for _, i := range []int{0, 7, 10, 99, 100, 4096, -1, -10, 1 << 40} {
		want := fmtInt(i)
		if got := itoa(i); got != want {
			t.Errorf("itoa(%d) = %s, want %s", i, got, want)
		}
	}
}

// fmtInt is the reference for itoa.
func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	u := uint64(i)
	if neg {
		u = uint64(-i)
	}
	s := ""
	for u > 0 {
		s = string(rune('0'+u%10)) + s
		u /= 10
	}
	if neg {
		s = "-" + s
	}
	return s
}

func BenchmarkPathString(b *testing.B) {
	p := NewPath("spec").Child("template", "spec").Child("containers").Index(12).Child("ports").Key("http").Child("containerPort")
	b.ReportAllocs()
	for b.Loop() {
		_ = p.String()
	}
}
