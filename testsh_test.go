package crdkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestShFilter runs the filter test.sh passes "go test -v" output
// through: it must keep what go test prints without -v (results, failures
// with their output, build errors) and the conformance lines, and record
// every skipped test with its reason, for the console summary of skips.
func TestTestShFilter(t *testing.T) {
	script, err := os.ReadFile("test.sh")
	if err != nil {
		t.Fatal(err)
	}
	_, prog, ok := strings.Cut(string(script), "gotest_filter='")
	prog, _, ok2 := strings.Cut(prog, "'\ngotest()")
	if !ok || !ok2 {
		t.Fatal("test.sh: no gotest_filter='...'")
	}
	prog = strings.ReplaceAll(prog, `'"'"'`, `'`)
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skipf("no awk to run test.sh's filter: %v", err)
	}
	in := strings.Join([]string{
		"=== RUN   TestA",
		"    a_test.go:3: a log line of a passing test",
		"--- PASS: TestA (0.00s)",
		"=== RUN   TestCorpus",
		"    c_test.go:9: corpus not found (set CRDKIT_CORPUS)",
		"--- SKIP: TestCorpus (0.00s)",
		"=== RUN   TestB",
		"=== RUN   TestB/sub",
		"    b_test.go:9: F(x) = 1, want 2",
		"    --- FAIL: TestB/sub (0.00s)",
		"--- FAIL: TestB (0.00s)",
		"conformance: things 3/3 cases agree",
		"FAIL",
		"FAIL\tpkg\t0.1s",
		"# other/pkg",
		"other.go:3:2: undefined: x",
		"FAIL\tother/pkg [build failed]",
		"goos: linux",
		"--- SKIP: BenchmarkBig",
		"    big_test.go:12: corpus not found (set CRDKIT_CORPUS)",
		"BenchmarkSmall-2 \t1\t5 ns/op",
		"ok  \tbench\t1.0s",
		"=== RUN   TestSlow",
		"    slow_test.go:5: a log line",
		"panic: test timed out after 10m0s",
		"running tests:",
		"\tTestSlow (10m0s)",
		"FAIL\tslow\t600.1s",
		"",
	}, "\n")
	skips := filepath.Join(t.TempDir(), "skips")
	cmd := exec.Command(awk, "-v", "skips="+skips, prog)
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("awk: %v", err)
	}
	want := strings.Join([]string{
		"    b_test.go:9: F(x) = 1, want 2",
		"    --- FAIL: TestB/sub (0.00s)",
		"--- FAIL: TestB (0.00s)",
		"conformance: things 3/3 cases agree",
		"FAIL",
		"FAIL\tpkg\t0.1s",
		"# other/pkg",
		"other.go:3:2: undefined: x",
		"FAIL\tother/pkg [build failed]",
		"ok  \tbench\t1.0s",
		"panic: test timed out after 10m0s",
		"running tests:",
		"\tTestSlow (10m0s)",
		"FAIL\tslow\t600.1s",
		"",
	}, "\n")
	if string(out) != want {
		t.Errorf("filter output =\n%s\nwant\n%s", out, want)
	}
	rec, err := os.ReadFile(skips)
	if err != nil {
		t.Fatal(err)
	}
	if want := "TestCorpus\tcorpus not found (set CRDKIT_CORPUS)\nBenchmarkBig\tcorpus not found (set CRDKIT_CORPUS)\n"; string(rec) != want {
		t.Errorf("skips recorded = %q, want %q", rec, want)
	}
}
