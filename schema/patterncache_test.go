package schema

import "testing"

// TestPatternCache checks that a pattern is compiled once per process
// (Compile and the structural check share it), that DropCaches forgets it,
// and that an invalid pattern is not remembered.
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
