package crdkit

import (
	"strings"
	"testing"
)

// TestCreateJSONHostileInput feeds the create pipeline inputs meant to
// break it: it must answer (an object or a Status), never panic or hang.
func TestCreateJSONHostileInput(t *testing.T) {
	v := loadExample(t).Version("v1")
	head := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"},"spec":`
	deep := strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
	deeper := strings.Repeat(`[`, 20000) + strings.Repeat("]", 20000)
	huge := "[" + strings.TrimSuffix(strings.Repeat(`"x",`, 200000), ",") + "]"
	for _, tc := range []struct {
		name     string
		body     string
		wantCode int32 // 0: accepted
	}{
		{"10,000-deep object under spec", head + deep + "}", 0},
		{"20,000-deep arrays under spec", head + deeper + "}", 400},
		{"huge unknown array", head + `{"image":"i","junk":` + huge + "}}", 0},
		{"non-UTF-8 string", head + "{\"image\":\"\xff\xfe\"}}", 0},
		{"integer beyond int64", head + `{"replicas":99999999999999999999}}`, 422},
		{"number beyond float64", head + `{"replicas":1e999}}`, 400},
		{"empty body", ``, 400},
		{"not JSON", `{"apiVersion":`, 400},
		{"array", `[]`, 400},
		{"null", `null`, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := v.CreateJSON([]byte(tc.body), CreateOptions{FieldValidation: Strict})
			var code int32
			if st := res.Status(); st != nil {
				code = st.Code
			}
			if tc.wantCode == 0 && res.Err != nil && code != 400 {
				t.Errorf("CreateJSON = %v, want an answer without a server error", res.Err)
			}
			if tc.wantCode != 0 && code != tc.wantCode {
				t.Errorf("CreateJSON code = %d (%v), want %d", code, res.Err, tc.wantCode)
			}
		})
	}
}

// FuzzCreateJSON runs arbitrary bodies through the whole create pipeline in
// every field-validation mode: an answer, never a panic.
func FuzzCreateJSON(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","labels":{"a":"b"}},"spec":{"cronSpec":"* * * * */5","replicas":3,"x":null}}`))
	f.Add([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","finalizers":["a"]},"spec":{"replicas":"3","replicas":1}}`))
	f.Add([]byte(`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"generateName":"g-"},"spec":{"a":[1,{"b":null}]}}`))
	crd := loadExample(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, name := range []string{"v1", "v1beta1"} {
			for _, m := range []FieldValidation{Ignore, Warn, Strict} {
				res := crd.Version(name).CreateJSON(body, CreateOptions{FieldValidation: m})
				if res.Err == nil && res.Object == nil {
					t.Fatalf("CreateJSON(%q) gave neither an object nor an error", body)
				}
			}
		}
	})
}
