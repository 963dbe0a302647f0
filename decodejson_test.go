package crdkit

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestDecodeJSON(t *testing.T) {
	v := loadExample(t).Version("v1")
	in := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","bogus":1,"uid":"u"},
	        "spec":{"cronSpec":"nonsense","extra":true,"replicas":null},"status":{"a":1}}`
	for _, tc := range []struct {
		name     string
		in       string
		mode     FieldValidation
		object   string
		warnings []string
		code     int32
	}{
		{"warn", in, Warn, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","uid":"u"},"spec":{"cronSpec":"nonsense","replicas":1}}`,
			[]string{`unknown field "metadata.bogus"`, `unknown field "spec.extra"`, `unknown field "status"`}, 0},
		{"ignore", in, Ignore, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","uid":"u"},"spec":{"cronSpec":"nonsense","replicas":1}}`, nil, 0},
		{"strict", in, Strict, "", nil, 400},
		{"other-version", `{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"x"}}`, Warn, "", nil, 400},
		{"not-json", `{`, Warn, "", nil, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := v.DecodeJSON([]byte(tc.in), CreateOptions{FieldValidation: tc.mode})
			if st := res.Status(); (st == nil && tc.code != 0) || (st != nil && st.Code != tc.code) {
				t.Fatalf("DecodeJSON(%s) = %v, want code %d", tc.name, res.Err, tc.code)
			}
			if tc.code != 0 {
				return
			}
			got, _ := json.Marshal(res.Object)
			if string(got) != tc.object || !reflect.DeepEqual(res.Warnings, tc.warnings) {
				t.Errorf("DecodeJSON(%s) = %s %q, want %s %q", tc.name, got, res.Warnings, tc.object, tc.warnings)
			}
			// The create continues from here: its object is the decoded one
			// after the strategy's steps.
			if c := v.CreateJSON([]byte(tc.in), CreateOptions{FieldValidation: tc.mode}); c.Err == nil {
				t.Errorf("CreateJSON accepted a cronSpec the pattern refuses")
			}
		})
	}
}
