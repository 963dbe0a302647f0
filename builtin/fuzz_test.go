package builtin

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// FuzzCheck: no input makes Check panic (which it would answer with a
// 500), for any kind it serves and any
// mode; a refusal is always a Status.
func FuzzCheck(f *testing.F) {
	c := New()
	files, _ := filepath.Glob("../conformance/builtindiff/testdata/*")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if js, err := yaml.YAMLToJSON(data); err == nil {
			f.Add(js, uint8(0), uint8(0))
		}
	}
	f.Add([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a","labels":{"a":1}}}`), uint8(1), uint8(2))
	f.Add([]byte(`{"metadata":{"generateName":"x-","finalizers":["a","a"]},"spec":{"replicas":1e400}}`), uint8(5), uint8(1))
	f.Add([]byte(`[]`), uint8(3), uint8(0))
	f.Add([]byte(``), uint8(3), uint8(0))
	ks := c.Kinds()
	modes := []string{"Strict", "Warn", "Ignore", ""}
	f.Fuzz(func(t *testing.T, body []byte, k, m uint8) {
		gvk := ks[int(k)%len(ks)]
		apiVersion, kind := gvk.ToAPIVersionAndKind()
		res := c.Check(body, apiVersion, kind, Options{FieldValidation: modes[int(m)%len(modes)]})
		if res.Err != nil && res.Status() == nil {
			t.Fatalf("Check(%q) = %v, not a Status", body, res.Err)
		}
		if st := res.Status(); st != nil && st.Code == 500 {
			t.Fatalf("Check(%q) = %v: a panic recovered", body, res.Err)
		}
	})
}
