package schema

import (
	"regexp"
	"strings"
	"testing"
)

// TestPatternCache checks that a pattern is compiled once per process
// (every Compile shares it), that DropCaches forgets it, and that an
// invalid pattern is not remembered.
func TestPatternCache(t *testing.T) {
	const js = `{"type":"string","pattern":"^[a-z]+-cache-test$"}`
	a, err := CompileJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	b, err := CompileJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if a.Pattern() != b.Pattern() {
		t.Errorf("Compile(%s) twice = two regexps, want one shared", js)
	}
	if a.match != b.match {
		t.Errorf("Compile(%s) twice = two automata, want one shared", js)
	}
	DropCaches()
	c, err := CompileJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if c.Pattern() == a.Pattern() {
		t.Errorf("Compile(%s) after DropCaches = the regexp from before, want a new one", js)
	}
	if c.Pattern().String() != a.Pattern().String() || !c.matchPattern("abc-cache-test") || c.matchPattern("ABC-cache-test") {
		t.Errorf("Compile(%s) after DropCaches = %q, want the same pattern", js, c.Pattern())
	}
	for range 2 {
		if _, err := sharedPattern("a(b"); err == nil {
			t.Errorf("sharedPattern(%q) = no error, want one", "a(b")
		}
	}
	patternsMu.RLock()
	_, kept := patterns["a(b"]
	patternsMu.RUnlock()
	if kept {
		t.Errorf("sharedPattern(%q) remembered an invalid pattern", "a(b")
	}
}

// patternSamples are patterns valid and invalid in RE2's ways (syntax, nesting, repeat counts,
// classes, flags, escapes, size), for checkPattern against regexp.Compile.
var patternSamples = []string{
	"", "^[a-z]+$", `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`,
	"a(b", "a)b", "[a-", "[z-a]", `\8`, `\p{Greek}`, `\p{Nope}`, "(?i)abc", "(?z)abc",
	"(?P<name>x)", "(?P<name>x)(?P<name>y)", "(?<n>x)", "a{2,1}", "a{1001}", "a{1000}",
	"(((((((((a)))))))))", "x**", "x++", "a*?", `\Q.*\E`, `\z`, `\Z`, "(?=x)", `\b\B`,
	"[[:alpha:]]", "[[:nope:]]", "\xff", "a|*", "(a|b", strings.Repeat("(", 1001) + strings.Repeat(")", 1001),
	strings.Repeat("a{1000}", 20), "((a{100}){100}){100}",
}

// TestCheckPatternAsCompile checks that checkPattern gives what regexp.Compile gives (no
// error, or the same error) on the samples and every pattern of the corpus CRDs, cached or not.
func TestCheckPatternAsCompile(t *testing.T) {
	exprs := append([]string(nil), patternSamples...)
	exprs = append(exprs, matcherPatterns...)
	exprs = append(exprs, matcherNil...)
	exprs = append(exprs, corpusPatterns(t)...)
	for _, cached := range []bool{false, true} {
		DropCaches()
		for _, e := range exprs {
			if cached {
				_, _ = sharedPattern(e)
			}
			checkPatternAsCompile(t, e)
		}
	}
	t.Logf("conformance: pattern checks as regexp.Compile %d/%d", len(exprs), len(exprs))
}

func checkPatternAsCompile(t *testing.T, e string) {
	t.Helper()
	_, want := regexp.Compile(e)
	got := checkPattern(e)
	if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
		t.Errorf("checkPattern(%q) = %v, want %v", e, got, want)
	}
}

func FuzzCheckPattern(f *testing.F) {
	for _, e := range patternSamples {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, e string) {
		if len(e) > 4096 {
			return
		}
		checkPatternAsCompile(t, e)
	})
}
