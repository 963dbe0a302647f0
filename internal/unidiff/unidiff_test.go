package unidiff

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	for _, tc := range []struct{ name, a, b, want string }{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"one changed", "a\nb\nc\n", "a\nx\nc\n", "--- A\n+++ B\n@@ -1,3 +1,3 @@\n a\n-b\n+x\n c\n"},
		{"added at end", "a\n", "a\nb\n", "--- A\n+++ B\n@@ -1 +1,2 @@\n a\n+b\n"},
		{"from empty", "", "a\n", "--- A\n+++ B\n@@ -0,0 +1 @@\n+a\n"},
		{"no final newline", "a", "b", "--- A\n+++ B\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "x\n2\n3\n4\n5\n6\n7\n8\n9\ny\n",
			"--- A\n+++ B\n@@ -1,4 +1,4 @@\n-1\n+x\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+y\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Diff("A", "B", tc.a, tc.b); got != tc.want {
				t.Errorf("Diff(%q, %q) =\n%s\nwant\n%s", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

// TestDiffAgainstGNU compares random diffs with GNU diff -u: the same
// hunks where diff is installed (headers aside), and in any case a diff
// that turns a into b.
func TestDiffAgainstGNU(t *testing.T) {
	gnu, err := exec.LookPath("diff")
	if err != nil {
		t.Log("diff is not installed: checking only that each diff turns a into b")
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	same, n := 0, 300
	for i := range n {
		a, b := randomText(r), randomText(r)
		got := Diff("A", "B", a, b)
		if applied := apply(t, a, got); applied != b {
			t.Fatalf("case %d: the diff of %q and %q gives %q:\n%s", i, a, b, applied, got)
		}
		if gnu == "" {
			continue
		}
		pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		os.WriteFile(pa, []byte(a), 0o644)
		os.WriteFile(pb, []byte(b), 0o644)
		out, _ := exec.Command(gnu, "-u", pa, pb).Output()
		_, want, _ := strings.Cut(string(out), "\n+++ ")
		_, want, _ = strings.Cut(want, "\n")
		_, ours, _ := strings.Cut(got, "\n+++ B\n")
		if counts(ours) != counts(want) {
			t.Errorf("case %d: %s lines changed, GNU diff %s\n%s\n---\n%s", i, counts(ours), counts(want), ours, want)
		}
		if ours == want {
			same++
		}
	}
	if gnu != "" {
		t.Logf("%d of %d diffs byte for byte as GNU diff's (the others are other shortest scripts)", same, n)
	}
}

func counts(d string) string {
	var del, ins int
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "-"):
			del++
		case strings.HasPrefix(l, "+"):
			ins++
		}
	}
	return fmt.Sprintf("-%d +%d", del, ins)
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(30) {
		b.WriteString(strconv.Itoa(r.IntN(6)))
		b.WriteString("\n")
	}
	return b.String()
}

// apply applies a unified diff to a.
func apply(t *testing.T, a, d string) string {
	if d == "" {
		return a
	}
	src := lines(a)
	var out []string
	pos := 0
	ls := lines(d)[2:]
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		if strings.HasPrefix(l, "@@ ") {
			var s1, n1, s2, n2 int
			f := strings.Fields(l)
			parse := func(s string) (int, int) {
				p := strings.SplitN(s[1:], ",", 2)
				st, _ := strconv.Atoi(p[0])
				n := 1
				if len(p) == 2 {
					n, _ = strconv.Atoi(p[1])
				}
				return st, n
			}
			s1, n1 = parse(f[1])
			s2, n2 = parse(f[2])
			_, _ = s2, n2
			start := s1 - 1
			if n1 == 0 {
				start = s1
			}
			out = append(out, src[pos:start]...)
			pos = start
			continue
		}
		switch l[0] {
		case ' ':
			out = append(out, src[pos])
			pos++
		case '-':
			pos++
		case '+':
			out = append(out, l[1:])
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, "")
}
