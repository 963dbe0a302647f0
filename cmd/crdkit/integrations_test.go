package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// repoRoot is the repository's root: the hooks and the Action live there.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// goEnv is the environment for a tool that builds crdkit with the Go
// toolchain: this test's module cache and build cache (pre-commit sets its
// own GOPATH, which would otherwise move the module cache), no toolchain
// download.
func goEnv(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, k := range []string{"GOMODCACHE", "GOCACHE"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Skipf("go env %s: %v (the hooks and the Action build crdkit with the Go toolchain)", k, err)
		}
		env = append(env, k+"="+strings.TrimSpace(string(out)))
	}
	return append(os.Environ(), append(env, "GOTOOLCHAIN=local")...)
}

// scratchRepo makes a git repository in a temporary directory with the
// CronTab CRD in crds/, an accepted CronTab in good.yaml, and a refused
// one in bad.yaml.
func scratchRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	dir := t.TempDir()
	crd, err := os.ReadFile("../../examples/crontab/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"crds/crontab.yaml": string(crd),
		"good.yaml":         "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: good}\nspec: {replicas: 2}\n",
		"bad.yaml":          "# too many replicas\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: bad}\nspec: {replicas: 50}\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "."}, {"config", "user.email", "test@example.com"}, {"config", "user.name", "test"}, {"config", "commit.gpgsign", "false"}} {
		gitIn(t, dir, args...)
	}
	return dir
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestPreCommitHook runs the crdkit-validate hook of .pre-commit-hooks.yaml
// with the real pre-commit tool: installed as a repository's git hook, it
// blocks a commit with a refused object, with the server's message, and
// lets it through once the object is gone. pre-commit builds crdkit from
// this repository's HEAD (a hook repository is read at a commit).
func TestPreCommitHook(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: pre-commit builds crdkit")
	}
	preCommit, err := exec.LookPath("pre-commit")
	if err != nil {
		t.Skip("pre-commit not on PATH (Debian: apt-get install pre-commit): the hook is not run")
	}
	root := repoRoot(t)
	head := strings.TrimSpace(gitIn(t, root, "rev-parse", "HEAD"))
	if out := gitIn(t, root, "status", "--porcelain", "--", ".pre-commit-hooks.yaml"); out != "" {
		t.Logf(".pre-commit-hooks.yaml differs from HEAD's, which is the one tested: %s", out)
	}
	dir := scratchRepo(t)
	config := fmt.Sprintf("repos:\n- repo: %s\n  rev: %s\n  hooks:\n  - id: crdkit-validate\n    args: [--crds, crds/]\n", root, head)
	if err := os.WriteFile(filepath.Join(dir, ".pre-commit-config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(goEnv(t), "PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "pre-commit"), "PRE_COMMIT_COLOR=never")
	run := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(preCommit, "validate-manifest", filepath.Join(root, ".pre-commit-hooks.yaml")); err != nil {
		t.Fatalf("pre-commit validate-manifest: %v\n%s", err, out)
	}
	if out, err := run(preCommit, "install"); err != nil {
		t.Fatalf("pre-commit install: %v\n%s", err, out)
	}
	gitIn(t, dir, "add", "-A")
	out, err := run("git", "commit", "-m", "objects")
	if err == nil || !strings.Contains(out, "crdkit validate") || !strings.Contains(out, "Failed") ||
		!strings.Contains(out, `bad.yaml#0 CronTab bad: refused (422 Invalid): CronTab.stable.example.com "bad" is invalid: spec.replicas: Invalid value: 50: spec.replicas in body should be less than or equal to 10`) ||
		!strings.Contains(out, "good.yaml#0 CronTab default/good: accepted") {
		t.Fatalf("git commit with a refused object: %v, want the hook to fail it with the server's message:\n%s", err, out)
	}
	gitIn(t, dir, "rm", "-q", "--cached", "bad.yaml")
	out, err = run("git", "commit", "-m", "objects")
	if err != nil || !strings.Contains(out, "crdkit validate") || !strings.Contains(out, "Passed") {
		t.Fatalf("git commit without it: %v, want the hook to pass:\n%s", err, out)
	}
	fmt.Println("conformance: pre-commit hook run by pre-commit: refused commit blocked, accepted commit passed 2/2")
}

// action is the part of action.yml the test reads.
type action struct {
	Inputs map[string]struct {
		Default string `json:"default"`
	} `json:"inputs"`
	Outputs map[string]struct {
		Value string `json:"value"`
	} `json:"outputs"`
	Runs struct {
		Using string `json:"using"`
		Steps []struct {
			ID   string            `json:"id"`
			Name string            `json:"name"`
			Uses string            `json:"uses"`
			If   string            `json:"if"`
			Run  string            `json:"run"`
			Env  map[string]string `json:"env"`
		} `json:"steps"`
	} `json:"runs"`
}

// TestAction runs the composite Action's shell steps as the runner would:
// each step's env evaluated (inputs and github.action_path), its script
// with bash, GITHUB_PATH and GITHUB_OUTPUT honoured. The scripts hold no
// expression (inputs reach them through env only, so no input can inject
// shell code). The actions/setup-go step is not run: the test uses the Go
// on the PATH.
func TestAction(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Action builds crdkit")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not on PATH")
	}
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" || len(a.Runs.Steps) != 3 || a.Runs.Steps[0].Uses == "" {
		t.Fatalf("action.yml runs = %+v, want a composite of setup-go, install and run", a.Runs)
	}
	dir := scratchRepo(t)
	tmp := t.TempDir()
	ghPath, ghOutput := filepath.Join(tmp, "path"), filepath.Join(tmp, "output")
	expr := regexp.MustCompile(`\$\{\{\s*([a-z_.-]+)\s*\}\}`)
	for _, tc := range []struct {
		name   string
		inputs map[string]string
		code   string
		want   []string
	}{
		{"annotations", map[string]string{"crds": "crds/", "paths": "good.yaml\nbad.yaml"}, "1",
			[]string{"::error file=bad.yaml,line=5,title=crdkit%3A CronTab bad refused (422 Invalid)::spec.replicas: Invalid value: 50: spec.replicas in body should be less than or equal to 10\n", "good.yaml#0 CronTab default/good: accepted"}},
		{"sarif file", map[string]string{"paths": "crds/\ngood.yaml", "format": "sarif", "output-file": "crdkit.sarif", "args": "--field-validation Warn\n--skip Secret"}, "0",
			[]string{`"version": "2.1.0"`}},
		{"lint", map[string]string{"command": "lint", "paths": "crds/", "format": "tap"}, "0",
			[]string{"ok 1 - crds/crontab.yaml\\#0 CustomResourceDefinition crontabs.stable.example.com\n1..1\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(ghPath, nil, 0o644)
			os.WriteFile(ghOutput, nil, 0o644)
			input := func(name string) string {
				if v, ok := tc.inputs[name]; ok {
					return v
				}
				in, ok := a.Inputs[name]
				if !ok {
					t.Fatalf("action.yml has no input %q", name)
				}
				return in.Default
			}
			var log bytes.Buffer
			status := ""
			for _, step := range a.Runs.Steps[1:] {
				if strings.Contains(step.Run, "${{") {
					t.Fatalf("step %q: an expression in the script (give inputs through env)", step.Name)
				}
				env := append(goEnv(t), "GITHUB_PATH="+ghPath, "GITHUB_OUTPUT="+ghOutput, "RUNNER_TEMP="+tmp)
				for k, v := range step.Env {
					v = expr.ReplaceAllStringFunc(v, func(m string) string {
						name := expr.FindStringSubmatch(m)[1]
						switch {
						case name == "github.action_path":
							return root
						case strings.HasPrefix(name, "inputs."):
							return input(strings.TrimPrefix(name, "inputs."))
						}
						t.Fatalf("step %q: unknown expression %s", step.Name, m)
						return ""
					})
					env = append(env, k+"="+v)
				}
				paths, _ := os.ReadFile(ghPath)
				env = append(env, "PATH="+strings.Join(strings.Fields(string(paths)), ":")+":"+os.Getenv("PATH"))
				cmd := exec.Command(bash, "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step.Run)
				cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &log, &log
				err := cmd.Run()
				if step.ID == "run" {
					out, _ := os.ReadFile(ghOutput)
					status = strings.TrimSpace(string(out))
					continue
				}
				if err != nil {
					t.Fatalf("step %q: %v\n%s", step.Name, err, log.String())
				}
			}
			if status != "exit-code="+tc.code {
				t.Errorf("GITHUB_OUTPUT = %q, want exit-code=%s\n%s", status, tc.code, log.String())
			}
			text := log.String()
			if f := tc.inputs["output-file"]; f != "" {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				text = string(b)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
		})
	}
}
