// Package docs reads YAML and JSON files as the command-line tool needs
// them: multi-document YAML split into documents that remember their file
// and first line, so errors can say where they are.
package docs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/internal/yamljson"
)

// Doc is one YAML or JSON document of a file.
type Doc struct {
	File  string
	Index int // position among the file's non-empty documents
	Line  int // first line of the document in the file (1-based)
	JSON  []byte
	// Path locates an item of a List in the document ("items[2]",
	// "items[0].items[1]" in a List of Lists); empty for the document.
	Path string
	// Warnings are the YAML reader's: each key given twice in a mapping,
	// in the words the API server uses for a YAML body (`line 5: key
	// "image" already set in map`, the line counted from the document's
	// first). The first value is lost, as kubectl loses it.
	Warnings []string
}

// Location is the document's place for messages: the file, "#" and the
// document's index, then the item's path ("f.yaml#0.items[2]").
func (d Doc) Location() string {
	if d.Path != "" {
		return fmt.Sprintf("%s#%d.%s", d.File, d.Index, d.Path)
	}
	return fmt.Sprintf("%s#%d", d.File, d.Index)
}

// Error is a problem with one file or document, located by file and line.
type Error struct {
	File string
	Line int
	Err  error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// File is a file to read, and whether the user named it (rather than a
// directory holding it).
type File struct {
	Path     string
	Explicit bool
}

// ErrEmptyDir is the error of a directory without a file to read: most
// often a mistyped path, or files named otherwise.
var ErrEmptyDir = errors.New("nothing found: no .yaml, .yml or .json file in this directory or under it")

// Files expands the arguments: files as given ("-" for standard input),
// directories to the .yaml, .yml and .json files under them, sorted. A
// directory without such files is an error (ErrEmptyDir).
func Files(args []string) ([]File, error) {
	var out []File
	for _, a := range args {
		if a == Stdin {
			out = append(out, File{Path: Stdin, Explicit: true})
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, File{Path: a, Explicit: true})
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				switch strings.ToLower(filepath.Ext(p)) {
				case ".yaml", ".yml", ".json":
					found = append(found, p)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, &Error{File: a, Err: ErrEmptyDir}
		}
		sort.Strings(found)
		for _, f := range found {
			out = append(out, File{Path: f})
		}
	}
	return out, nil
}

// Read reads a file ("-" is standard input) and splits it into documents
// converted to JSON. Empty documents are skipped. A document that is not
// valid YAML is reported with the file and the line the YAML parser names.
func Read(file string) ([]Doc, error) {
	data, err := ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Split(file, data)
}

// Stdin names standard input among the files.
const Stdin = "-"

var stdin struct {
	once sync.Once
	data []byte
	err  error
}

// ReadFile reads a file, or standard input for "-" (read once, however
// often it is asked for).
func ReadFile(file string) ([]byte, error) {
	if file == Stdin {
		stdin.once.Do(func() { stdin.data, stdin.err = io.ReadAll(os.Stdin) })
		if stdin.err != nil {
			return nil, &Error{File: "<stdin>", Err: stdin.err}
		}
		return stdin.data, nil
	}
	data, err := readFile(file, nil)
	if err != nil {
		return nil, &Error{File: file, Err: err}
	}
	return data, nil
}

// ReadFileInto is ReadFile into buf's memory when it is large enough: the
// result may share it, and is valid until buf is used again. Standard
// input is read once, as ReadFile reads it.
func ReadFileInto(file string, buf []byte) ([]byte, error) {
	if file == Stdin {
		return ReadFile(file)
	}
	data, err := readFile(file, buf)
	if err != nil {
		return nil, &Error{File: file, Err: err}
	}
	return data, nil
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// Split splits data into YAML documents (a JSON file is one document).
func Split(file string, data []byte) ([]Doc, error) {
	chunks, err := Chunks(file, data)
	if err != nil {
		return nil, err
	}
	var out []Doc
	for _, c := range chunks {
		js, warnings, err := c.Convert()
		if err != nil {
			return out, err
		}
		if js == nil {
			continue
		}
		out = append(out, Doc{File: file, Index: len(out), Line: c.Line, JSON: js, Warnings: warnings})
	}
	return out, nil
}

// Chunk is one document of a file, not yet converted to JSON, so that the
// conversion can run on another goroutine.
type Chunk struct {
	File string
	Line int // first line in the file (1-based)
	Text []byte
}

// Chunks splits data at YAML document separators, dropping documents that
// hold only comments and white space. The chunks are those a line scanner
// gives, each line ending in "\n", with one exception: a file's last line
// that has no line end keeps none when its document starts with "{" (a
// JSON file, which would otherwise be copied to get one; Chunk.JSON puts
// it back for YAML). A chunk's Text is a slice of data: nothing is copied,
// except that last line when it gets its line end, unless data holds a
// carriage return: then each line is copied without its line end.
func Chunks(file string, data []byte) ([]Chunk, error) {
	if bytes.IndexByte(data, '\r') >= 0 {
		return chunksCopy(file, data)
	}
	var chunks []Chunk
	start, startLine := 0, 1
	// Only a line that starts with "---" can be a separator: the scan
	// goes from one to the next (pos is on line n), counting the lines
	// between them, rather than line by line.
	for pos, n := 0, 1; pos < len(data); {
		at := pos
		if pos > 0 || !bytes.HasPrefix(data, []byte("---")) {
			i := bytes.Index(data[pos:], []byte("\n---"))
			if i < 0 {
				break
			}
			at = pos + i + 1
			n += bytes.Count(data[pos:at], []byte("\n"))
		}
		lineEnd, next := len(data), len(data)
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			lineEnd, next = at+i, at+i+1
		}
		if sep, err := separatorLine(file, n, data[at:lineEnd]); err != nil {
			return nil, err
		} else if sep {
			if chunks == nil {
				// Room for as many documents as the first one's size
				// says (a stream of one kind of object), at most one
				// per 128 bytes: growing by appends copied and cleared
				// the slice over and over on long streams.
				chunks = make([]Chunk, 0, len(data)/max(at-start+4, 128)+1)
			}
			chunks = append(chunks, Chunk{File: file, Line: startLine, Text: data[start:at:at]})
			start, startLine = next, n+1
		}
		if next == len(data) {
			break
		}
		pos = lineEnd // the line end of line n: the next "\n---" may start here
	}
	last := data[start:len(data):len(data)]
	if t := bytes.TrimLeft(last, " \t\n"); len(t) > 0 && t[0] != '{' && last[len(last)-1] != '\n' {
		// YAML keeps a final line break in a block scalar, so the line
		// scanner's "\n" matters; JSON does not care.
		last = append(last, '\n') // capacity is full: this copies
	}
	chunks = append(chunks, Chunk{File: file, Line: startLine, Text: last})
	return dropBlank(chunks), nil
}

// separatorLine reports whether a line (without its line end) is a YAML
// document separator as kubectl's reader takes it (k8s.io/apimachinery's
// yaml.NewYAMLReader): a line that starts with "---" is one when nothing
// but white space or a comment follows; anything else after it is
// kubectl's error "invalid Yaml document separator".
func separatorLine(file string, n int, l []byte) (bool, error) {
	if len(l) < 3 || l[0] != '-' || l[1] != '-' || l[2] != '-' {
		return false, nil
	}
	rest := bytes.TrimSpace(l[3:])
	if len(rest) > 0 && rest[0] != '#' {
		return false, &Error{File: file, Line: n, Err: fmt.Errorf("invalid Yaml document separator: %s", rest)}
	}
	return true, nil
}

// dropBlank keeps the chunks with a line that is neither blank nor a comment.
func dropBlank(chunks []Chunk) []Chunk {
	out := chunks[:0]
	for _, c := range chunks {
		if hasContent(c.Text) {
			out = append(out, c)
		}
	}
	return out
}

func hasContent(b []byte) bool {
	for l := range bytes.Lines(b) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			return true
		}
	}
	return false
}

// chunksCopy is Chunks for data with carriage returns: lines as a line
// scanner gives them (without "\r\n" or "\n"), each followed by "\n".
func chunksCopy(file string, data []byte) ([]Chunk, error) {
	var chunks []Chunk
	cur := Chunk{File: file, Line: 1}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, min(64*1024, len(data)+1)), len(data)+1)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Bytes()
		if sep, err := separatorLine(file, n, l); err != nil {
			return nil, err
		} else if sep {
			chunks = append(chunks, cur)
			cur = Chunk{File: file, Line: n + 1}
			continue
		}
		cur.Text = append(cur.Text, l...)
		cur.Text = append(cur.Text, '\n')
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{File: file, Err: err}
	}
	chunks = append(chunks, cur)
	return dropBlank(chunks), nil
}

// ConvertUnchecked is Convert that takes a document that starts with "{"
// for JSON without checking that it is (unchecked is then true): a
// caller whose next step decodes the JSON anyway spares a second reading
// of the bytes, and calls Convert when that decoding fails (the document
// may then be YAML in flow style, or not a document at all).
func (c Chunk) ConvertUnchecked() (js []byte, warnings []string, unchecked bool, err error) {
	if t := bytes.TrimSpace(c.Text); len(t) > 0 && t[0] == '{' {
		return t, nil, true, nil
	}
	js, warnings, err = c.Convert()
	return js, warnings, false, err
}

// JSON is Convert without the warnings.
func (c Chunk) JSON() ([]byte, error) {
	js, _, err := c.Convert()
	return js, err
}

// Convert converts the document to JSON: JSON text is kept byte for byte
// (so duplicate keys still reach the decoder that reports them), YAML goes
// through sigs.k8s.io/yaml as kubectl converts it (of a key given twice,
// the last value wins), and each duplicate key is a warning, worded as the
// API server words it for a YAML body. It returns nil for a document that
// is null. A document that is not valid YAML is reported with the file and
// the line the YAML parser names. The YAML of most manifests is converted
// by yamljson, to the same bytes at a fraction of the cost; what it is not
// sure of goes to sigs.k8s.io/yaml.
func (c Chunk) Convert() (js []byte, warnings []string, err error) {
	return c.convert(true)
}

// convert is Convert, with yamljson first when fast is set (tests compare
// both ways).
func (c Chunk) convert(fast bool) (js []byte, warnings []string, err error) {
	if t := bytes.TrimSpace(c.Text); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return t, nil, nil
	}
	text := c.Text
	if n := len(text); n > 0 && text[n-1] != '\n' {
		// The line end Chunks left out of a flow document that is not
		// JSON: without it, YAML reports an error at the end of the
		// stream at another line than for any other document.
		text = append(text[:n:n], '\n')
	}
	if fast {
		if js, ok := yamljson.Convert(make([]byte, 0, len(text)+len(text)/4), text); ok {
			return js, nil, nil // a mapping or a sequence, never null
		}
	}
	// The strict reader costs what the lenient one does, and fails only
	// on a duplicate key (or on what the lenient one fails on too).
	js, err = yaml.YAMLToJSONStrict(text)
	if err != nil {
		strictErr := err
		if js, err = yaml.YAMLToJSON(text); err != nil {
			line := c.Line
			if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
				if k, e := strconv.Atoi(m[1]); e == nil {
					line = c.Line + k - 1
				}
			}
			return nil, nil, &Error{File: c.File, Line: line, Err: fmt.Errorf("invalid YAML: %v", err)}
		}
		warnings = yamlWarnings(strictErr.Error())
	}
	if t := bytes.TrimSpace(js); len(t) == 0 || string(t) == "null" {
		return nil, nil, nil
	}
	return js, warnings, nil
}

// yamlWarnings splits a strict YAML error into one warning per problem, as
// the API server's handlers do for a YAML body in fieldValidation=Warn.
func yamlWarnings(msg string) []string {
	for _, prefix := range []string{"yaml: unmarshal errors:\n", "error converting YAML to JSON: yaml: unmarshal errors:\n"} {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			var out []string
			for _, l := range strings.Split(rest, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					out = append(out, l)
				}
			}
			return out
		}
	}
	return []string{msg}
}
