package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/conformance/oracle"
)

// applyManifests are what a Git repository holds for the CronTab CRD: an
// object whose replicas another manager changed, a new one, one with a
// field the schema does not declare, and one the server refuses.
const applyManifests = `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: cli-nightly, namespace: default}
spec: {cronSpec: "0 3 * * *", image: "backup:1.5", replicas: 2, tags: [a, b]}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: cli-weekly, namespace: default}
spec: {cronSpec: "0 0 * * 0", image: "cleanup:1.0"}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: cli-unknown, namespace: default}
spec: {cronSpec: "0 0 * * 0", colour: red}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: cli-invalid, namespace: default}
spec: {replicas: 50}
`

// TestCLIApplyAndDiff runs crdkit apply --server-side and crdkit diff on
// manifests over live objects the server holds (one applied by "gitops",
// then changed by a merge patch of "kubectl-edit"), and sends each
// manifest to the server as kubectl apply --server-side --dry-run=server
// does (the YAML document as the body, fieldManager gitops), with and
// without force: codes, reasons, messages, causes, warnings and objects
// with their managed fields (times excepted) compared; crdkit patch
// likewise; and crdkit diff's unified diffs, applied to the live objects'
// YAML, give the objects the server's forced applies return.
func TestCLIApplyAndDiff(t *testing.T) {
	setup(t)
	bin := buildCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	crdFile, manifests, liveFile := filepath.Join(dir, "crd.json"), filepath.Join(dir, "manifests.yaml"), filepath.Join(dir, "live.json")
	if err := os.WriteFile(crdFile, []byte(cronTabCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifests, []byte(applyManifests), 0o644); err != nil {
		t.Fatal(err)
	}
	do := func(req oracle.Request) oracle.Result {
		req.CRD, req.Version, req.Namespace = cronTabName, "v1", "default"
		r, err := srv.Do(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// The live objects: applied for real, one then changed by another
	// manager.
	first := "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: cli-nightly, namespace: default}\nspec: {cronSpec: \"0 3 * * *\", image: \"backup:1.4\", replicas: 2, tags: [a]}\n"
	if r := do(oracle.Request{Op: oracle.OpPatch, Name: "cli-nightly", Body: []byte(first), PatchType: applyType, FieldManager: "gitops"}); r.Code != 201 {
		t.Fatalf("apply cli-nightly = %d %v", r.Code, r.Status)
	}
	defer do(oracle.Request{Op: oracle.OpDelete, Name: "cli-nightly"})
	if r := do(oracle.Request{Op: oracle.OpPatch, Name: "cli-nightly", Body: []byte(`{"spec":{"replicas":5}}`), PatchType: "application/merge-patch+json", FieldManager: "kubectl-edit"}); r.Code != 200 {
		t.Fatalf("patch cli-nightly = %d %v", r.Code, r.Status)
	}
	live := do(oracle.Request{Op: oracle.OpGet, Name: "cli-nightly"})
	list := []byte(`{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[` + string(live.Body) + `]}`)
	if err := os.WriteFile(liveFile, list, 0o644); err != nil {
		t.Fatal(err)
	}
	var liveObj map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(live.Body, &liveObj); err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(applyManifests, "\n---\n")
	a := newAgreement()
	defer a.report(t)
	for _, force := range []bool{false, true} {
		args := []string{"apply", "--server-side", "--field-manager", "gitops", "-o", "json", "--crds", crdFile, "--old", liveFile, manifests}
		if force {
			args = append(args, "--force-conflicts")
		}
		got := runCLI(t, bin, args...)
		a.record("cli-apply-count", "count", len(got) == len(docs), fmt.Sprintf("crdkit gives %d results for %d documents", len(got), len(docs)))
		for i, doc := range docs {
			if i >= len(got) {
				break
			}
			var tm struct{ Metadata struct{ Name string } }
			_ = yaml.Unmarshal([]byte(doc), &tm)
			want := do(oracle.Request{Op: oracle.OpPatch, DryRun: true, Name: tm.Metadata.Name, Body: []byte(doc), PatchType: applyType, FieldManager: "gitops", Force: force})
			a.record("cli-apply", tm.Metadata.Name, sameCLIResult(got[i], want), fmt.Sprintf("force=%v %s\n  server: %d %s %s\n  crdkit: %d %s %q %s", force, tm.Metadata.Name, want.Code, truncate(string(want.Body), 800), want.Warnings, got[i].Code, got[i].Message, got[i].Causes, mustJSON(got[i].Object)))
		}
	}
	// crdkit patch, merge and JSON, against the server's dry-run patch.
	for _, p := range []struct{ typ, flag, body string }{
		{"application/merge-patch+json", "merge", `{"spec":{"replicas":3}}`},
		{"application/json-patch+json", "json", `[{"op":"replace","path":"/spec/image","value":"backup:2"}]`},
		{"application/merge-patch+json", "merge", `{"spec":{"replicas":30}}`},
		{"application/strategic-merge-patch+json", "strategic", `{"spec":{"replicas":3}}`},
	} {
		got := runCLI(t, bin, "patch", "crontab/cli-nightly", "--type", p.flag, "-p", p.body, "--crds", crdFile, "--old", liveFile, "-o", "json")
		want := do(oracle.Request{Op: oracle.OpPatch, DryRun: true, Name: "cli-nightly", Body: []byte(p.body), PatchType: p.typ, FieldManager: "kubectl-patch"})
		a.record("cli-patch", p.flag, len(got) == 1 && sameCLIResult(got[0], want), fmt.Sprintf("%s %s\n  server: %d %s\n  crdkit: %s", p.flag, p.body, want.Code, truncate(string(want.Body), 800), mustJSON(got)))
	}
	// crdkit diff: each diff turns the live object's view into the view
	// of what the server's forced apply returns.
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "diff", "--crds", crdFile, "--old", liveFile, filepath.Join(dir, "manifests.yaml"))
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	ee, _ := err.(*exec.ExitError)
	a.record("cli-diff-status", "exit", ee != nil && ee.ExitCode() == 2, fmt.Sprintf("crdkit diff: %v (want exit 2: one manifest is refused)\n%s", err, stderr.String()))
	blocks := diffBlocks(out.String())
	for _, name := range []string{"cli-nightly", "cli-weekly"} {
		var doc string
		for _, d := range docs {
			if strings.Contains(d, "name: "+name+",") {
				doc = d
			}
		}
		want := do(oracle.Request{Op: oracle.OpPatch, DryRun: true, Name: name, Body: []byte(doc), PatchType: applyType, FieldManager: "kubectl", Force: true})
		from := ""
		if name == "cli-nightly" {
			from = cliDiffView(liveObj)
		}
		block := blocks["stable.example.com.v1.CronTab.default."+name]
		merged := applyUnified(from, block)
		a.record("cli-diff", name, block != "" && merged == cliDiffView(jsonNumbers(want.Body)),
			fmt.Sprintf("%s\n  diff:\n%s\n  live+diff:\n%s\n  server:\n%s", name, block, merged, cliDiffView(jsonNumbers(want.Body))))
	}
}

// runCLI runs the crdkit command with args and returns the results of its
// -o json output.
func runCLI(t *testing.T, bin string, args ...string) []cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
		t.Fatalf("crdkit %q: %v\n%s", args, err, stderr.String())
	}
	var doc struct {
		Results []cliResult `json:"results"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("crdkit %q: %v\n%s", args, err, stdout.String())
	}
	return doc.Results
}

// sameCLIResult compares a command's result with the server's answer:
// code, reason, message, causes (sorted), warnings, and the object with
// its managed fields, times excepted.
func sameCLIResult(g cliResult, want oracle.Result) bool {
	if int(g.Code) != want.Code || !slices.Equal(g.Warnings, want.Warnings) {
		return false
	}
	if want.Status != nil {
		gc := slices.Clone(g.Causes)
		sortCauses(gc)
		return g.Reason == string(want.Status.Reason) && g.Message == want.Status.Message && reflect.DeepEqual(nonEmpty(gc), nonEmpty(statusCauses(want.Status)))
	}
	return reflect.DeepEqual(oracle.Normalize(jsonRoundTrip(g.Object)), oracle.Normalize(want.Object))
}

// diffBlocks splits crdkit diff's output into its unified diffs, by the
// object's name in the "diff -u -N" line.
func diffBlocks(out string) map[string]string {
	blocks := map[string]string{}
	var name string
	for _, l := range strings.SplitAfter(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "diff -u -N LIVE/"); ok {
			name, _, _ = strings.Cut(rest, " ")
			continue
		}
		blocks[name] += l
	}
	return blocks
}

// applyUnified applies a unified diff (without its diff line) to text.
func applyUnified(text, diff string) string {
	src := strings.SplitAfter(text, "\n")
	if text == "" {
		src = nil
	} else if src[len(src)-1] == "" {
		src = src[:len(src)-1]
	}
	var out []string
	pos := 0
	for _, l := range strings.SplitAfter(diff, "\n") {
		switch {
		case l == "" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ "):
		case strings.HasPrefix(l, "@@ "):
			f := strings.Fields(l)
			r := strings.SplitN(strings.TrimPrefix(f[1], "-"), ",", 2)
			start, _ := strconv.Atoi(r[0])
			n := 1
			if len(r) == 2 {
				n, _ = strconv.Atoi(r[1])
			}
			if n > 0 {
				start--
			}
			if start > len(src) || start < pos {
				return "<bad hunk " + l + ">"
			}
			out = append(out, src[pos:start]...)
			pos = start
		case l[0] == ' ':
			if pos < len(src) {
				out = append(out, src[pos])
			}
			pos++
		case l[0] == '-':
			pos++
		case l[0] == '+':
			out = append(out, l[1:])
		}
	}
	if pos < len(src) {
		out = append(out, src[pos:]...)
	}
	return strings.Join(out, "")
}

// cliDiffView is an object as crdkit diff (and kubectl diff) shows it.
func cliDiffView(obj map[string]any) string {
	if obj == nil {
		return ""
	}
	cp := map[string]any{}
	for k, v := range obj {
		cp[k] = v
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		m := map[string]any{}
		for k, v := range md {
			switch k {
			case "managedFields", "resourceVersion", "uid", "creationTimestamp":
			default:
				m[k] = v
			}
		}
		cp["metadata"] = m
	}
	b, _ := yaml.Marshal(cp)
	return string(b)
}

func jsonNumbers(body []byte) map[string]any {
	var m map[string]any
	_ = kjson.UnmarshalCaseSensitivePreserveInts(body, &m)
	return m
}
