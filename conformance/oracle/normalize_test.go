package oracle

import (
	"encoding/json"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"object",
			`{"kind":"CronTab","metadata":{"name":"a","uid":"u","creationTimestamp":"t","resourceVersion":"1","managedFields":[{"manager":"m","time":"2026-01-01T00:00:00Z"},{"manager":"n"}],"generation":1}}`,
			`{"kind":"CronTab","metadata":{"generation":1,"managedFields":[{"manager":"m","time":"\u003ctime\u003e"},{"manager":"n"}],"name":"a"}}`},
		{"list",
			`{"kind":"CronTabList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a","uid":"u"}}]}`,
			`{"items":[{"metadata":{"name":"a"}}],"kind":"CronTabList","metadata":{}}`},
		{"table",
			`{"kind":"Table","metadata":{"resourceVersion":"5"},"columnDefinitions":[{"name":"Name","type":"string"},{"name":"Age","type":"date"}],"rows":[{"cells":["a","3s"],"object":{"metadata":{"name":"a","uid":"u"}}}]}`,
			`{"columnDefinitions":[{"name":"Name","type":"string"},{"name":"Age","type":"date"}],"kind":"Table","metadata":{},"rows":[{"cells":["a","\u003cdate\u003e"],"object":{"metadata":{"name":"a"}}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var obj map[string]any
			if err := json.Unmarshal([]byte(tc.in), &obj); err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(Normalize(obj))
			if string(got) != tc.want {
				t.Errorf("Normalize(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestSplitDocuments(t *testing.T) {
	docs, err := SplitDocuments([]byte("---\na: 1\n---\n\n---\n# comment only\n---\nb: [x]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || string(docs[0]) != `{"a":1}` || string(docs[1]) != `{"b":["x"]}` {
		t.Errorf("SplitDocuments = %q", docs)
	}
}

func ExampleSortCauses() {
	st := &metav1.Status{Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{
		{Field: "spec.b", Type: metav1.CauseTypeFieldValueInvalid, Message: "Invalid value: 2"},
		{Field: "spec.a", Type: metav1.CauseTypeFieldValueRequired, Message: "Required value"},
	}}}
	SortCauses(st)
	for _, c := range st.Details.Causes {
		fmt.Println(c.Field, c.Type)
	}
	// Output:
	// spec.a FieldValueRequired
	// spec.b FieldValueInvalid
}
