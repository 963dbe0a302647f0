package fieldmanager

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// newManager is a Manager for a small CronTab-like resource whose types
// are deduced from the objects (no models), as the server does when it has
// none.
func newManager(t *testing.T, models map[string]*spec.Schema) *Manager {
	t.Helper()
	m, err := New(Options{Group: "stable.example.com", Kind: "CronTab", Models: models,
		Versions: []Version{{Name: "v1", Status: true}, {Name: "v2"}}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func entries2(obj map[string]any) []any {
	md, _ := obj["metadata"].(map[string]any)
	l, _ := md["managedFields"].([]any)
	return l
}

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func TestUpdateRecordsManager(t *testing.T) {
	m := newManager(t, nil)
	obj := decode(t, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"x":"1"}}`)
	out, err := m.Update("v1", Main, nil, obj, "me", t0)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(entries2(out))
	want := `[{"apiVersion":"stable.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{".":{},"f:x":{}}},"manager":"me","operation":"Update","time":"2026-03-04T05:06:07Z"}]`
	if string(got) != want {
		t.Errorf("Update managedFields = %s, want %s", got, want)
	}
}

// TestClockKeepsUntouchedTimes: an entry the request does not touch keeps
// its time, a touched one gets now, and the order is the server's.
func TestClockKeepsUntouchedTimes(t *testing.T) {
	m := newManager(t, nil)
	live := decode(t, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a","uid":"u","managedFields":[
		{"manager":"old","operation":"Update","apiVersion":"stable.example.com/v1","time":"2020-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:x":{}}}}]},"spec":{"x":"1"}}`)
	obj := decode(t, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a","uid":"u"},"spec":{"x":"1","y":"2"}}`)
	out, err := m.Update("v1", Main, live, obj, "new", t0)
	if err != nil {
		t.Fatal(err)
	}
	es := entries2(out)
	if len(es) != 2 {
		t.Fatalf("entries = %v, want 2", es)
	}
	first, second := es[0].(map[string]any), es[1].(map[string]any)
	if first["manager"] != "old" || first["time"] != "2020-01-01T00:00:00Z" || second["manager"] != "new" || second["time"] != "2026-03-04T05:06:07Z" {
		t.Errorf("entries = %v, want old's kept at 2020, then new's at now", es)
	}
	// A time before the old entry's sorts first, as the server would sort it.
	out, _ = m.Update("v1", Main, live, decode(t, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a","uid":"u"},"spec":{"x":"1","y":"2"}}`), "new", time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC))
	if es := entries2(out); es[0].(map[string]any)["manager"] != "new" {
		t.Errorf("entries = %v, want new's (2019) first", es)
	}
	if got, _ := json.Marshal(live); !json.Valid(got) || entries2(live)[0].(map[string]any)["time"] != "2020-01-01T00:00:00Z" {
		t.Errorf("live modified: %s", got)
	}
}

func TestApplyConflictAndForce(t *testing.T) {
	m := newManager(t, nil)
	cfg := func(x string) map[string]any {
		return decode(t, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"x":"`+x+`"}}`)
	}
	live, err := m.Apply("v1", Main, nil, cfg("1"), "a", false, t0)
	if err != nil {
		t.Fatal(err)
	}
	live["metadata"].(map[string]any)["uid"] = "u"
	before, _ := json.Marshal(live)
	_, err = m.Apply("v1", Main, live, cfg("2"), "b", false, t0)
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.Status().Code != 409 || se.Status().Message != `Apply failed with 1 conflict: conflict with "a": .spec.x` {
		t.Fatalf("Apply by b = %v, want the 409 naming a", err)
	}
	out, err := m.Apply("v1", Main, live, cfg("2"), "b", true, t0)
	if err != nil || out["spec"].(map[string]any)["x"] != "2" {
		t.Fatalf("forced Apply = %v, %v", out, err)
	}
	if after, _ := json.Marshal(live); string(after) != string(before) {
		t.Errorf("live modified:\n%s\n%s", before, after)
	}
}

func TestNoManager(t *testing.T) {
	m := newManager(t, nil)
	if _, err := m.Update("v2", Status, nil, map[string]any{}, "x", t0); !errors.Is(err, ErrNoManager) {
		t.Errorf("Update on v2's /status = %v, want ErrNoManager (v2 has no status subresource)", err)
	}
	if _, err := m.Apply("v9", Main, nil, map[string]any{}, "x", false, t0); !errors.Is(err, ErrNoManager) {
		t.Errorf("Apply on v9 = %v, want ErrNoManager", err)
	}
}

// TestWithOwnEntries: the copy shares everything but the way to the
// entries.
func TestWithOwnEntries(t *testing.T) {
	live := decode(t, `{"metadata":{"name":"a","managedFields":[{"time":"t"}]},"spec":{"x":{"y":1}}}`)
	cp := withOwnEntries(live)
	entries2(cp)[0].(map[string]any)["time"] = "changed"
	cp["metadata"].(map[string]any)["name"] = "b"
	if entries2(live)[0].(map[string]any)["time"] != "t" || live["metadata"].(map[string]any)["name"] != "a" {
		t.Errorf("live changed through its copy: %v", live)
	}
	if !reflect.DeepEqual(cp["spec"], live["spec"]) {
		t.Errorf("spec = %v, want live's", cp["spec"])
	}
}
