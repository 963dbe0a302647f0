package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runArgs runs the command line and returns its exit status and outputs.
func runArgs(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

const (
	crontabCRDFile = "../../examples/crontab/crd.yaml"
	gitopsLive     = "../../examples/gitops-drift/live"
	gitopsDir      = "../../examples/gitops-drift/manifests"
)

func TestApplyCommand(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // substrings of stdout
	}{
		{"no --server-side", []string{"apply", "--crds", crontabCRDFile, gitopsDir}, 2, nil},
		{"conflict", []string{"apply", "--server-side", "--field-manager", "gitops", "--crds", crontabCRDFile, "--old", gitopsLive, gitopsDir}, 1,
			[]string{"default/nightly-backup: refused (409 Conflict): Apply failed with 1 conflict: conflict with \"kubectl-edit\" using stable.example.com/v1: .spec.replicas", "default/weekly-cleanup: accepted"}},
		{"forced", []string{"apply", "--server-side", "--force-conflicts", "--field-manager", "gitops", "--crds", crontabCRDFile, "--old", gitopsLive, gitopsDir}, 0,
			[]string{"default/nightly-backup: accepted", "default/hourly-report: accepted", "default/weekly-cleanup: accepted"}},
		{"bad subresource", []string{"apply", "--server-side", "--subresource", "scale", "--crds", crontabCRDFile, gitopsDir}, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runArgs(tc.args...)
			if code != tc.code {
				t.Fatalf("crdkit %q = %d, want %d\n%s%s", tc.args, code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("crdkit %q printed\n%s\nwant a line with %q", tc.args, out, w)
				}
			}
		})
	}
}

// TestApplyJSON: -o json keeps managedFields, with the manager and code 201
// for an apply that creates.
func TestApplyJSON(t *testing.T) {
	code, out, errOut := runArgs("apply", "--server-side", "--field-manager", "gitops", "-o", "json", "--crds", crontabCRDFile, "--old", gitopsLive, gitopsDir)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var doc struct {
		Results []struct {
			Name   string
			Code   int
			Object map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 3 {
		t.Fatalf("%v: %s", err, out)
	}
	weekly := doc.Results[2]
	mf, _ := weekly.Object["metadata"].(map[string]any)["managedFields"].([]any)
	if weekly.Name != "weekly-cleanup" || weekly.Code != 201 || len(mf) != 1 || mf[0].(map[string]any)["manager"] != "gitops" {
		t.Errorf("weekly-cleanup = %+v, want 201 with one managedFields entry of gitops", weekly)
	}
}

func TestPatchCommand(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"merge", []string{"patch", "ct/nightly-backup", "--type", "merge", "-p", `{"spec":{"replicas":3}}`}, 0, "CronTab default/nightly-backup: accepted"},
		{"json", []string{"patch", "crontabs.stable.example.com/nightly-backup", "--type", "json", "-p", `[{"op":"test","path":"/spec/replicas","value":1}]`}, 1, "refused (422 Invalid): the server rejected our request due to an error in our request"},
		{"strategic by default", []string{"patch", "CronTab/nightly-backup", "-p", `{"spec":{"replicas":3}}`}, 1, "refused (415 UnsupportedMediaType)"},
		{"invalid", []string{"patch", "crontab/nightly-backup", "--type", "merge", "-p", `{"spec":{"replicas":30}}`}, 1, "spec.replicas: Invalid value: 30: spec.replicas in body should be less than or equal to 10"},
		{"not found", []string{"patch", "crontab/nope", "--type", "merge", "-p", `{}`}, 1, `refused (404 NotFound): crontabs.stable.example.com "nope" not found`},
		{"yaml patch", []string{"patch", "crontab/nightly-backup", "--type", "merge", "-p", "spec:\n  replicas: 4\n"}, 0, "accepted"},
		{"unknown resource", []string{"patch", "gadget/x", "--type", "merge", "-p", `{}`}, 2, ""},
		{"no patch", []string{"patch", "crontab/x", "--type", "merge"}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, "--crds", crontabCRDFile, "--old", gitopsLive)
			code, out, errOut := runArgs(args...)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Fatalf("crdkit %q = %d\n%s%s\nwant %d and %q", args, code, out, errOut, tc.code, tc.want)
			}
		})
	}
}

func TestDiffCommand(t *testing.T) {
	code, out, errOut := runArgs("diff", "--crds", crontabCRDFile, "--old", gitopsLive, gitopsDir)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (differences)\n%s%s", code, out, errOut)
	}
	want := `diff -u -N LIVE/stable.example.com.v1.CronTab.default.nightly-backup MERGED/stable.example.com.v1.CronTab.default.nightly-backup
--- LIVE/stable.example.com.v1.CronTab.default.nightly-backup
+++ MERGED/stable.example.com.v1.CronTab.default.nightly-backup
@@ -1,10 +1,10 @@
 apiVersion: stable.example.com/v1
 kind: CronTab
 metadata:
-  generation: 2
+  generation: 3
   name: nightly-backup
   namespace: default
 spec:
   cronSpec: 0 3 * * *
-  image: backup:1.4
-  replicas: 5
+  image: backup:1.5
+  replicas: 2
`
	if !strings.HasPrefix(out, want) || !strings.Contains(out, "+  name: weekly-cleanup\n") || strings.Contains(out, "hourly-report") {
		t.Errorf("crdkit diff printed\n%s\nwant it to start with\n%s\nthen create weekly-cleanup, and leave hourly-report (in sync) out", out, want)
	}
	// Managed fields on request.
	_, out, _ = runArgs("diff", "--show-managed-fields", "--crds", crontabCRDFile, "--old", gitopsLive, gitopsDir)
	if !regexp.MustCompile(`\+    manager: kubectl\n`).MatchString(out) {
		t.Errorf("crdkit diff --show-managed-fields printed\n%s\nwant kubectl's new entry", out)
	}
	// In sync: exit 0, nothing printed.
	inSync := filepath.Join(t.TempDir(), "hourly.yaml")
	if err := os.WriteFile(inSync, []byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: hourly-report, namespace: default}\nspec: {cronSpec: \"0 * * * *\", image: \"report:2.0\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runArgs("diff", "--field-manager", "gitops", "--crds", crontabCRDFile, "--old", gitopsLive, inSync)
	if code != 0 || out != "" {
		t.Errorf("crdkit diff of a manifest in sync = %d %q, want 0 and nothing", code, out)
	}
}
