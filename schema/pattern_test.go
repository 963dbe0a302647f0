package schema

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// matcherPatterns are patterns that exercise the automaton's edges: the
// assertions, alternations of anchored and unanchored branches, case
// folding, non-ASCII runes and empty matches.
var matcherPatterns = []string{
	``, `^$`, `$`, `^`, `a`, `^a`, `a$`, `^a$`, `a|^b`, `x$|^y`, `^$|^[a-z]+$`,
	`(?i)abc`, `^(?i)(abort|warn)?$`, `(?i)straße`, `(?i)k`, `^.{2,}|[^./]$`, `a*`, `\Aa\z`,
	`^.$`, `.`, `[^a]`, `é+`, `^[^\x00-\x7f]+$`, `\x{FFFD}`, `^\x{10FFFF}$`,
	`^[\w\s:/.\\-]+$`, `(^$|^[a-f0-9]{64}$)`, `^2\d{3}(?::2\d{3}|$)`,
	`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`,
	`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`,
	`(?s).`, `(?s)^.*$`, `a^b`, `a$b`, `$^`, `^^a$$`, `(a|b)*c$`, `(?U)a+`, `[[:alpha:]]+`,
}

// matcherNil are patterns the automaton refuses (the regexp stays).
var matcherNil = []string{`(?m)^a$`, `\bfoo`, `a\B`, `\pL+`, `(?i)[\pL]x`}

func corpusPatterns(t testing.TB) []string {
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			if p, ok := x["pattern"].(string); ok {
				out = append(out, p)
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	for _, raw := range corpusSchemas(t) {
		var x any
		if err := json.Unmarshal(raw, &x); err != nil {
			t.Fatal(err)
		}
		walk(x)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// matcherAlphabet is a rune of each end of each class of m, and a few that
// the regexp reads specially.
func matcherAlphabet(m *matcher) []string {
	out := []string{"\n", "\xff", "\xe2\x82", "é", "\u2028", "\U0010FFFF"}
	for i := 0; i < m.classes; i++ {
		for _, r := range []rune{m.bounds[i], m.bounds[i+1] - 1} {
			out = append(out, string(r))
		}
	}
	return out
}

// checkMatcher compares m with re on generated strings: random strings of
// the alphabet, and the single-rune edits of those that match. It returns
// how many matched.
func checkMatcher(t *testing.T, re *regexp.Regexp, m *matcher, rng *rand.Rand, n int) int {
	t.Helper()
	alpha := matcherAlphabet(m)
	matched := 0
	check := func(s string) bool {
		got, want := m.MatchString(s), re.MatchString(s)
		if got != want {
			t.Fatalf("matcher(%q).MatchString(%q) = %v, want %v", re.String(), s, got, want)
		}
		return want
	}
	check("")
	var b strings.Builder
	for range n {
		b.Reset()
		for range rng.IntN(24) {
			b.WriteString(alpha[rng.IntN(len(alpha))])
		}
		s := b.String()
		if !check(s) {
			continue
		}
		matched++
		// Near misses of a match: each rune replaced, dropped or doubled.
		for i := 0; i < len(s); {
			_, w := utf8.DecodeRuneInString(s[i:])
			check(s[:i] + alpha[rng.IntN(len(alpha))] + s[i+w:])
			check(s[:i] + s[i+w:])
			check(s[:i+w] + s[i:])
			i += w
		}
	}
	return matched
}

// TestMatcher compares the automaton of every corpus pattern and of the
// edge patterns with Go's regexp on generated strings.
func TestMatcher(t *testing.T) {
	pats := append(corpusPatterns(t), matcherPatterns...)
	rng := rand.New(rand.NewPCG(1, 2))
	built, matching := 0, 0
	for _, p := range pats {
		re, err := regexp.Compile(p)
		if err != nil {
			continue // the server refuses the CRD
		}
		m := compileMatcher(re)
		if m == nil {
			t.Logf("no automaton for %q", p)
			continue
		}
		built++
		if checkMatcher(t, re, m, rng, 3000) > 0 {
			matching++
		}
	}
	t.Logf("%d patterns, %d automata, %d with generated matches", len(pats), built, matching)
	if built < len(pats)*9/10 {
		t.Errorf("automata for %d of %d patterns, want at least 90%%", built, len(pats))
	}
	if matching < built*3/4 {
		t.Errorf("generated strings match %d of %d automata, want at least 75%%", matching, built)
	}
	for _, p := range matcherNil {
		if m := compileMatcher(regexp.MustCompile(p)); m != nil {
			t.Errorf("compileMatcher(%q) = an automaton, want nil", p)
		}
	}
}

// TestMatcherFunc checks Matcher against the regexp, for patterns with an
// automaton and for those without one (which it answers with the regexp).
func TestMatcherFunc(t *testing.T) {
	pats := append(append(corpusPatterns(t), matcherPatterns...), matcherNil...)
	pats = append(pats, `^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$`) // Gateway API's path rule
	strs := []string{"", "/", "/foo/bar", "/a%2Fb", "/a%zz", "a b", "é", "\xff", "abc-1.x", "x\ny", "/..", "Hello World"}
	for _, p := range pats {
		re, err := regexp.Compile(p)
		if err != nil {
			continue
		}
		match := Matcher(re)
		for _, s := range strs {
			if got, want := match(s), re.MatchString(s); got != want {
				t.Errorf("Matcher(%q)(%q) = %v, want %v", p, s, got, want)
			}
		}
	}
}

// TestMatcherValidate checks that a schema's pattern goes through the
// automaton and reports what the regexp reports.
func TestMatcherValidate(t *testing.T) {
	s, err := CompileJSON([]byte(`{"type":"string","pattern":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.match.get() == nil {
		t.Fatal("no automaton for a DNS label pattern")
	}
	for _, str := range []string{"abc", "a-b", "-ab", "ab-", "", "A", "é"} {
		got := s.Validate(str, nil, nil)
		slow := *s
		slow.match = nil
		want := slow.Validate(str, nil, nil)
		if !slices.EqualFunc(got, want, func(a, b *Error) bool { return *a == *b }) {
			t.Errorf("Validate(%q) = %v, want %v", str, got, want)
		}
	}
}

// FuzzMatcher compares the automaton with Go's regexp on arbitrary patterns
// and strings.
func FuzzMatcher(f *testing.F) {
	for _, p := range append(corpusPatterns(f), matcherPatterns...) {
		f.Add(p, "abc-1.x")
		f.Add(p, "")
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		re, err := regexp.Compile(p)
		if err != nil {
			return
		}
		m := compileMatcher(re)
		if m == nil {
			return
		}
		if got, want := m.MatchString(s), re.MatchString(s); got != want {
			t.Fatalf("matcher(%q).MatchString(%q) = %v, want %v", p, s, got, want)
		}
		// And strings of the pattern's own classes.
		alpha := matcherAlphabet(m)
		var b strings.Builder
		for i := 0; i < len(s) && i < 32; i++ {
			b.WriteString(alpha[int(s[i])%len(alpha)])
		}
		s2 := b.String()
		if got, want := m.MatchString(s2), re.MatchString(s2); got != want {
			t.Fatalf("matcher(%q).MatchString(%q) = %v, want %v", p, s2, got, want)
		}
	})
}

// BenchmarkMatcherCompile measures building the automata of the corpus
// patterns (once per CRD, at compile time) beside compiling their regexps,
// the part that Compile already paid before the automata.
func BenchmarkMatcherCompile(b *testing.B) {
	patterns := corpusPatterns(b)
	var res []*regexp.Regexp
	for _, p := range patterns {
		res = append(res, regexp.MustCompile(p))
	}
	b.Run("automata", func(b *testing.B) {
		for b.Loop() {
			for _, re := range res {
				compileMatcher(re)
			}
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			for _, p := range patterns {
				regexp.MustCompile(p)
			}
		}
	})
}
