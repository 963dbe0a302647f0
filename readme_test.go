package crdkit_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMETour checks that the README's API tour is the body of Example
// (tour_example_test.go), which compiles and whose output is checked, so
// that the tour cannot drift from the API.
func TestREADMETour(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("tour_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "## A quick tour of the API")
	_, block, ok2 := strings.Cut(after, "```go\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README.md: no ```go block after \"## A quick tour of the API\"")
	}
	_, body, ok := strings.Cut(string(src), "\t// tour:begin\n")
	body, _, ok2 = strings.Cut(body, "\t// tour:end")
	if !ok || !ok2 {
		t.Fatal("tour_example_test.go: no tour markers")
	}
	var want strings.Builder
	for _, l := range strings.SplitAfter(body, "\n") {
		want.WriteString(strings.TrimPrefix(l, "\t"))
	}
	if got := block; got != want.String() {
		t.Errorf("README tour =\n%s\nwant the body of Example:\n%s", got, want.String())
	}
}
