package schema

import "testing"

func TestFormatRecognized(t *testing.T) {
	for _, tc := range []struct {
		typ, format string
		want        bool
	}{
		{"string", "", true},
		{"object", "", true},
		{"string", "date-time", true},
		{"string", "datetime", true},
		{"", "date-time", true},
		{"string", "k8s-short-name", true},
		{"string", "int32", false},
		{"string", "Date", false},
		{"string", "aaaaaaaaaaaaaaaaaaaaaaaaaa-aaaaaaaaaaaaaa", false},
		{"integer", "int32", true},
		{"integer", "int64", true},
		{"integer", "uint8", false},
		{"integer", "date", false},
		{"number", "double", true},
		{"number", "int32", false},
		{"boolean", "byte", false},
		{"array", "date", false},
	} {
		if got := FormatRecognized(tc.typ, tc.format); got != tc.want {
			t.Errorf("FormatRecognized(%q, %q) = %v, want %v", tc.typ, tc.format, got, tc.want)
		}
	}
}
