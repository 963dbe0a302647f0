package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"--crd", "../crontab/crd.yaml"}, &out); err != nil {
		t.Fatal(err)
	}
	want := `without defaulting: 1 differences, the controller would update:
  spec.replicas: desired (unset), live 1
after crdkit.DefaultTyped: no difference, nothing to update
`
	if out.String() != want {
		t.Errorf("run = %q, want %q", out.String(), want)
	}
}

// TestRunLive: a live object someone changed still shows its real
// difference after defaulting.
func TestRunLive(t *testing.T) {
	live := filepath.Join(t.TempDir(), "live.json")
	if err := os.WriteFile(live, []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab",
"metadata":{"name":"nightly-backup","namespace":"default","uid":"1","resourceVersion":"7"},
"spec":{"cronSpec":"0 3 * * *","image":"backup:1.3","replicas":1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"--crd", "../crontab/crd.yaml", "--live", live}, &out); err != nil {
		t.Fatal(err)
	}
	want := `without defaulting: 2 differences, the controller would update:
  spec.image: desired "backup:1.4", live "backup:1.3"
  spec.replicas: desired (unset), live 1
after crdkit.DefaultTyped: 1 differences, the controller would update:
  spec.image: desired "backup:1.4", live "backup:1.3"
`
	if out.String() != want {
		t.Errorf("run = %q, want %q", out.String(), want)
	}
	if err := run([]string{"--crd", "missing.yaml"}, &out); err == nil {
		t.Error("run with a missing CRD succeeded")
	}
}
