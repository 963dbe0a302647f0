package docs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		want  []string // JSON of each document
		lines []int
		err   string // the error's text, when Split fails
	}{
		{"one YAML document", "a: 1\n", []string{`{"a":1}`}, []int{1}, ""},
		{"separators, comments and empty documents", "# head\n---\na: 1\n---\n# only a comment\n---\n\n---  # trailing\nb: x\n", []string{`{"a":1}`, `{"b":"x"}`}, []int{3, 9}, ""},
		{"null documents are skipped", "~\n---\nnull\n---\na: 1\n", []string{`{"a":1}`}, []int{5}, ""},
		{"JSON kept byte for byte (duplicate keys reach the decoder)", `{"a":1,"a":2}`, []string{`{"a":1,"a":2}`}, []int{1}, ""},
		{"CRLF separators", "a: 1\r\n---\r\nb: 2\r\n", []string{`{"a":1}`, `{"b":2}`}, []int{1, 3}, ""},
		{"YAML error with its line", "a: 1\n---\nb: 2\n  c: : d\n", []string{`{"a":1}`}, nil, "f.yaml:4: invalid YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := Split("f.yaml", []byte(tc.in))
			if tc.err != "" {
				var de *Error
				if err == nil || !errors.As(err, &de) || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("Split(%q) error = %v, want %s...", tc.in, err, tc.err)
				}
			} else if err != nil {
				t.Fatalf("Split(%q) = %v", tc.in, err)
			}
			if len(docs) != len(tc.want) {
				t.Fatalf("Split(%q) = %d documents, want %d", tc.in, len(docs), len(tc.want))
			}
			for i, d := range docs {
				if string(d.JSON) != tc.want[i] || d.Index != i || (tc.lines != nil && d.Line != tc.lines[i]) {
					t.Errorf("document %d = %s (index %d, line %d), want %s (index %d, line %d)", i, d.JSON, d.Index, d.Line, tc.want[i], i, tc.lines[i])
				}
			}
		})
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.yaml", "a.json", "c.yml", "notes.txt", "sub/d.YAML"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("a: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := Files([]string{dir, filepath.Join(dir, "notes.txt"), Stdin})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f.Path)
		if f.Path == Stdin {
			rel = Stdin
		}
		got = append(got, rel+map[bool]string{true: "!", false: ""}[f.Explicit])
	}
	want := "a.json b.yaml c.yml sub/d.YAML notes.txt! -!"
	if strings.Join(got, " ") != want {
		t.Errorf("Files = %s, want %s", strings.Join(got, " "), want)
	}
	if _, err := Files([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("Files of a missing path: no error")
	}
}

// chunkInputs are texts whose split is easy to get wrong.
var chunkInputs = []string{
	"", "\n", "a", "a\n", "---", "---\n", "--- \n", "---x\n", "--\n", "a\n---\nb", "a\n--- # c\nb\n",
	"# only\n---\n  \n---\nkind: X\n", "a: 1\n---\n\n# c\n---\nb: 2\n...\n", "{\"a\":1}", "- a\n- b\n---\t\n",
	"a\r\n---\r\nb\r\n", "a\n---\r\nb", "\r", "x\n   # y\n",
	// A flow document at the end of a file without its last line end:
	// followed by a blank document, and not valid JSON.
	"{\n--- ", "a: 1\n---\n{a: \"x",
	// Streams, byte order marks, carriage returns, separators inside
	// strings and block scalars, duplicate keys, what the YAML reader of
	// crdkit (yamljson) leaves to sigs.k8s.io/yaml.
	"apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n...\n---\nkind: C\n",
	"\ufeffa: 1\n---\n\ufeffb: 2\n", "\ufeff{\"a\":1}", "a: 1\r\n---\r\nb: |\r\n  x\r\n  y\r\n",
	"a: '\n---\n'\n", "a: \"x\n--- y\"\n", "a: |\n  x\n---\n  y\n", "a: |\n  ---\n  y\n",
	"a: 1\na: 2\n---\nb: 1\nb: 2\n", "a: &x 1\nb: *x\n", "a:\t1\n", "- a\n- b: [x, y]\n  c: {k: v}\n",
	"a: yes\nb: 0755\nc: 1e3\nd: 2024-01-02\ne: ~\n", "a: one\n  two\n\n  three\n", "a: >-\n  x\n\n  y\n",
}

// TestChunksIsTheLineScanner checks the slicing split against the copying
// one (a line scanner, as the split always was) on data without carriage
// returns, where they must give the same chunks.
func TestChunksIsTheLineScanner(t *testing.T) {
	for _, in := range chunkInputs {
		checkChunks(t, in)
	}
}

func FuzzChunks(f *testing.F) {
	for _, in := range chunkInputs {
		f.Add(in)
	}
	f.Fuzz(checkChunks)
}

// FuzzConvert holds Chunk.Convert to what it was before yamljson: on
// every chunk, the same JSON, warnings and error as sigs.k8s.io/yaml alone.
func FuzzConvert(f *testing.F) {
	for _, in := range chunkInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 1<<16 {
			return // the library's time would bound the run, not Convert's
		}
		chunks, err := Chunks("f", []byte(in))
		if err != nil {
			if strings.Contains(err.Error(), "invalid Yaml document separator") {
				return // kubectl's error, before any conversion
			}
			t.Fatalf("%q: %v", in, err)
		}
		for i, c := range chunks {
			js, warnings, err := c.convert(true)
			wantJS, wantWarnings, wantErr := c.convert(false)
			if !bytes.Equal(js, wantJS) || fmt.Sprint(warnings) != fmt.Sprint(wantWarnings) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("%q: chunk %d Convert() = %s, %q, %v, want %s, %q, %v", in, i, js, warnings, err, wantJS, wantWarnings, wantErr)
			}
		}
	})
}

func TestConvertIsTheLibrary(t *testing.T) {
	for _, in := range chunkInputs {
		chunks, _ := Chunks("f", []byte(in))
		for i, c := range chunks {
			js, warnings, err := c.convert(true)
			wantJS, wantWarnings, wantErr := c.convert(false)
			if !bytes.Equal(js, wantJS) || fmt.Sprint(warnings) != fmt.Sprint(wantWarnings) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("%q: chunk %d Convert() = %s, %q, %v, want %s, %q, %v", in, i, js, warnings, err, wantJS, wantWarnings, wantErr)
			}
		}
	}
}

// TestHugeDocument reads a 64 MiB document, YAML and JSON, as the CLI
// does (Split), and bounds the memory it takes: the CLI sets no size
// limit on its inputs, so a huge manifest must cost memory in proportion
// to its size, a small multiple, not the YAML library's tree of it.
func TestHugeDocument(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("64 MiB documents: not in -short, nor under the race detector (no goroutines here; 5 s become 65)")
	}
	const size = 64 << 20
	var b strings.Builder
	b.Grow(size + 1024)
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\ndata:\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "  key-%08d: 'a value of some length, quoted: %d'\n", i, i)
	}
	yamlDoc := []byte(b.String())
	js, err := Split("huge.yaml", yamlDoc)
	if err != nil || len(js) != 1 {
		t.Fatalf("Split(64 MiB of YAML) = %d documents, %v, want 1", len(js), err)
	}
	for _, tc := range []struct {
		name  string
		in    []byte
		limit uint64 // bytes allocated, at most
	}{
		// The JSON, a copy of the top mapping to sort its keys, and its
		// million entries: 187 MiB; sigs.k8s.io/yaml alone allocates 1,451 MiB
		// and takes 23 s where yamljson takes 0.9 s.
		{"YAML", yamlDoc, 4 * size},
		{"JSON", js[0].JSON, 1 << 20}, // kept as it is
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ds, err := Split("huge", tc.in)
			runtime.ReadMemStats(&after)
			if err != nil || len(ds) != 1 || !json.Valid(ds[0].JSON) {
				t.Fatalf("Split(64 MiB of %s) = %d documents, %v, want 1 valid JSON document", tc.name, len(ds), err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > tc.limit {
				t.Errorf("Split(64 MiB of %s) allocated %d MiB, want at most %d MiB", tc.name, got>>20, tc.limit>>20)
			}
		})
	}
}

func checkChunks(t *testing.T, in string) {
	got, err := Chunks("f", []byte(in))
	want, wantErr := chunksCopy("f", []byte(in))
	if err != nil || wantErr != nil {
		// Only a separator line kubectl refuses is an error, and both
		// splits must refuse it alike.
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !strings.Contains(err.Error(), "invalid Yaml document separator") {
			t.Fatalf("%q: Chunks() error %v, chunksCopy() error %v", in, err, wantErr)
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d chunks, want %d", in, len(got), len(want))
	}
	for i := range got {
		text := got[i].Text
		// Only the file's last line can lack its line end, and Chunks
		// leaves it out only when that document starts with "{". That
		// chunk is the file's tail, not the last chunk kept: a blank
		// document after it is dropped.
		if n := len(text); n > 0 && text[n-1] != '\n' {
			if head := bytes.TrimLeft(text, " \t\n"); len(head) == 0 || head[0] != '{' || !strings.HasSuffix(in, string(text)) {
				t.Fatalf("%q: chunk %d = %q, without the line end the line scanner gives", in, i, text)
			}
			text = append(text[:n:n], '\n')
		}
		if got[i].Line != want[i].Line || string(text) != string(want[i].Text) || got[i].File != "f" {
			t.Fatalf("%q: chunk %d = %d %q, want %d %q", in, i, got[i].Line, got[i].Text, want[i].Line, want[i].Text)
		}
		// What a caller reads of a chunk does not depend on that line end.
		gotJS, gotErr := got[i].JSON()
		wantJS, wantErr := want[i].JSON()
		if string(gotJS) != string(wantJS) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%q: chunk %d JSON() = %s, %v, want %s, %v", in, i, gotJS, gotErr, wantJS, wantErr)
		}
	}
}
