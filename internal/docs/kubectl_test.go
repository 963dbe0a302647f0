package docs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// kubectlDocs splits data as kubectl's reader does
// (yaml.NewYAMLReader, which kubectl apply -f reads a YAML file with),
// dropping documents with nothing but comments and white space.
func kubectlDocs(data []byte) ([]string, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []string
	for {
		d, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		// A separator line read while no document has begun is kept at
		// the start of the next one (where YAML reads it as the start of
		// a document): left out here, as Chunks leaves it out.
		if len(d) >= 3 && string(d[:3]) == "---" {
			if i := bytes.IndexByte(d, '\n'); i >= 0 {
				d = d[i+1:]
			} else {
				d = nil
			}
		}
		if hasContent(d) {
			out = append(out, string(d))
		}
	}
}

// checkKubectlSplit holds Chunks to kubectl's reader on YAML (not JSON,
// which kubectl reads with a JSON decoder, and without carriage returns,
// which kubectl keeps in the lines and Chunks drops): the same documents,
// text for text up to the line end kubectl keeps on the last one, or an
// error with kubectl's message.
func checkKubectlSplit(t *testing.T, in string) bool {
	if strings.ContainsRune(in, '\r') || strings.HasPrefix(strings.TrimLeft(in, " \t\n"), "{") {
		return false
	}
	want, wantErr := kubectlDocs([]byte(in))
	chunks, err := Chunks("f", []byte(in))
	if wantErr != nil {
		if err == nil || !strings.HasSuffix(err.Error(), wantErr.Error()) {
			t.Fatalf("Chunks(%q) error = %v, want one ending %q", in, err, wantErr)
		}
		return true
	}
	if err != nil {
		t.Fatalf("Chunks(%q) = %v, want kubectl's %d documents", in, err, len(want))
	}
	var got []string
	for _, c := range chunks {
		got = append(got, string(c.Text))
	}
	if len(got) != len(want) {
		t.Fatalf("Chunks(%q) = %q, want kubectl's %q", in, got, want)
	}
	for i := range got {
		if strings.TrimSuffix(got[i], "\n") != strings.TrimSuffix(want[i], "\n") {
			t.Fatalf("Chunks(%q) document %d = %q, want kubectl's %q", in, i, got[i], want[i])
		}
	}
	return true
}

func TestChunksAgreeWithKubectl(t *testing.T) {
	inputs := append([]string{
		"a: 1\n--- x\nb: 2\n", "a: 1\n---x\n", "a: 1\n--- # note\nb: 2\n", "a: 1\n---#note\nb: 2\n",
		"a: 1\n---   \nb: 2\n", "--- |\n  x\n", "a: 1\n--- !!map\n", "a: 1\n----\nb: 2\n", "---\n---\n---\n",
		"a: 1\n---\t\nb: 2", "a: 1\n --- x\n",
	}, chunkInputs...)
	n := 0
	for _, in := range inputs {
		if checkKubectlSplit(t, in) {
			n++
		}
	}
	if !t.Failed() {
		fmt.Printf("conformance: yaml-split-kubectl %d/%d inputs agree (JSON and CRLF inputs left out)\n", n, n)
	}
}

func FuzzChunksKubectl(f *testing.F) {
	for _, in := range chunkInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) { checkKubectlSplit(t, in) })
}
