package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

var cronField = regexp.MustCompile(`^(\d+|\*)(/\d+)?$`)

// FuzzReconcile feeds the reconciler valid, server-defaulted CronTabs made
// from the fuzzer's bytes and checks its plan.
func FuzzReconcile(f *testing.F) {
	h, err := newHarness("../crontab/crd.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(nil))
	f.Add([]byte("a CronTab"))
	f.Add(bytes.Repeat([]byte{0xff}, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := h.live(data)
		if err != nil {
			t.Fatalf("FromBytes(%q) is refused by the server: %v", data, err)
		}
		p, err := Reconcile(obj)
		if err != nil {
			t.Fatalf("Reconcile(%v): %v", obj, err)
		}
		if n := len(p.Workers); n < 1 || n > 10 {
			t.Fatalf("Reconcile(%v) plans %d workers", obj, n)
		}
		for _, fld := range p.Schedule {
			if !cronField.MatchString(fld) {
				t.Fatalf("Reconcile(%v) schedule field %q", obj, fld)
			}
		}
	})
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"--crd", "../crontab/crd.yaml", "-n", "4"}, &out); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(out.String(), "\n"); lines != 4 || !strings.Contains(out.String(), "workers") {
		t.Errorf("run = %q", out.String())
	}
}

func TestReconcileRefuses(t *testing.T) {
	for _, obj := range []map[string]any{
		{},
		{"metadata": map[string]any{"name": "a"}},
		{"metadata": map[string]any{"name": "a"}, "spec": map[string]any{"cronSpec": "* *", "replicas": int64(1)}},
		{"metadata": map[string]any{"name": "a"}, "spec": map[string]any{}}, // not defaulted
	} {
		if p, err := Reconcile(obj); err == nil {
			t.Errorf("Reconcile(%v) = %+v", obj, p)
		}
	}
}
