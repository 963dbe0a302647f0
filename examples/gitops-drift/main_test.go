package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	drifted, err := run(nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := `default/nightly-backup: the manifest takes fields over from other managers:
  .spec.replicas ("kubectl-edit" using stable.example.com/v1)
default/nightly-backup: drifted
--- LIVE/default/nightly-backup
+++ MERGED/default/nightly-backup
@@ -5,5 +5,5 @@
   namespace: default
 spec:
   cronSpec: 0 3 * * *
-  image: backup:1.4
-  replicas: 5
+  image: backup:1.5
+  replicas: 2
default/hourly-report: in sync
default/weekly-cleanup: missing, applying creates it
--- LIVE/default/weekly-cleanup
+++ MERGED/default/weekly-cleanup
@@ -0,0 +1,9 @@
+apiVersion: stable.example.com/v1
+kind: CronTab
+metadata:
+  name: weekly-cleanup
+  namespace: default
+spec:
+  cronSpec: 0 0 * * 0
+  image: cleanup:1.0
+  replicas: 1
`
	if !drifted || out.String() != want {
		t.Errorf("run = %v\n%s\nwant true\n%s", drifted, out.String(), want)
	}
}

// TestRunInSync: manifests that match the live objects report no drift.
func TestRunInSync(t *testing.T) {
	dir := t.TempDir()
	m := []byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: hourly-report\n  namespace: default\nspec:\n  cronSpec: \"0 * * * *\"\n  image: report:2.0\n")
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), m, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	drifted, err := run([]string{"--manifests", dir}, &out)
	if err != nil || drifted || out.String() != "default/hourly-report: in sync\n" {
		t.Errorf("run = %v, %v, %q; want no drift", drifted, err, out.String())
	}
}

// TestRunRefused: a manifest the server would refuse is reported.
func TestRunRefused(t *testing.T) {
	dir := t.TempDir()
	m := []byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: hourly-report\n  namespace: default\nspec:\n  replicas: 50\n  colour: red\n")
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), m, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	drifted, err := run([]string{"--manifests", dir}, &out)
	want := "default/hourly-report: the server would refuse the manifest: failed to create typed patch object (default/hourly-report; stable.example.com/v1, Kind=CronTab): .spec.colour: field not declared in schema\n"
	if err != nil || !drifted || out.String() != want {
		t.Errorf("run = %v, %v, %q; want %q", drifted, err, out.String(), want)
	}
}
