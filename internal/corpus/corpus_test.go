package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDocuments(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(p, []byte("a: 1\n---\n# only a comment\n---\nb: [2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := Documents(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || string(docs[0]) != `{"a":1}` || string(docs[1]) != `{"b":[2]}` {
		t.Errorf("Documents = %q, want [{\"a\":1} {\"b\":[2]}]", docs)
	}
}

func TestRootFromEnv(t *testing.T) {
	d := t.TempDir()
	t.Setenv("CRDKIT_CORPUS", d)
	if got, ok := Root(); !ok || got != d {
		t.Errorf("Root() = %q, %t, want %q, true", got, ok, d)
	}
	t.Setenv("CRDKIT_CORPUS", filepath.Join(d, "missing"))
	if _, ok := Root(); ok {
		t.Errorf("Root() ok for a missing directory")
	}
}
