package main

import (
	"encoding/json"
	"testing"
)

var typeMetaCases = []struct {
	name, js string
	ok       bool
}{
	{"plain", `{"apiVersion":"a/v1","kind":"K","metadata":{"name":"n","namespace":"ns","labels":{"x":"y"}},"spec":{"a":[1,{"b":"}"}]}}`, true},
	{"spaces", " {\n \"kind\" : \"K\" ,\"spec\": 5, \"metadata\" : { } }\n", true},
	{"duplicate", `{"kind":"A","kind":"B","metadata":{"name":"a"},"metadata":{"namespace":"b"}}`, true},
	{"escaped value", `{"kind":"K\u0041"}`, false},
	{"case-folded key", `{"Kind":"K"}`, false},
	{"not a string", `{"kind":5}`, false},
	{"null", `{"kind":null}`, false},
	{"metadata not an object", `{"metadata":"x"}`, false},
	{"empty", `{}`, true},
	{"escaped other value", `{"spec":"a\"b","kind":"K"}`, true},
}

// TestScanTypeMeta: what scanTypeMeta reads is what encoding/json reads.
func TestScanTypeMeta(t *testing.T) {
	for _, tc := range typeMetaCases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := scanTypeMeta([]byte(tc.js))
			if ok != tc.ok {
				t.Fatalf("scanTypeMeta(%s) ok = %v, want %v", tc.js, ok, tc.ok)
			}
			if want := decodeTypeMeta([]byte(tc.js)); ok && got != want {
				t.Errorf("scanTypeMeta(%s) = %+v, want %+v", tc.js, got, want)
			}
		})
	}
}

// FuzzScanTypeMeta: on valid JSON, a type meta scanTypeMeta reads is the
// one encoding/json reads.
func FuzzScanTypeMeta(f *testing.F) {
	for _, tc := range typeMetaCases {
		f.Add([]byte(tc.js))
	}
	f.Fuzz(func(t *testing.T, js []byte) {
		got, ok := scanTypeMeta(js)
		if !ok || !json.Valid(js) {
			return
		}
		if want := decodeTypeMeta(js); got != want {
			t.Errorf("scanTypeMeta(%q) = %+v, want %+v", js, got, want)
		}
	})
}
