package main

import (
	"bytes"
	"os"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/crdkit/crdkit/internal/docs"
)

// fieldLines finds where a cause's field is in its document's file, for
// the CI reports: the line of the field's key, or of the deepest part of
// its path the document has (a required field that is missing points at
// its parent). It reads a file again only for a refusal with causes, and
// keeps one file and one parsed document at a time (results come file by
// file, document by document), so memory stays bounded.
type fieldLines struct {
	file    string
	data    []byte
	docLine int
	root    *yaml.Node
}

// line returns the line of path (a field path as the server writes it:
// spec.ports[0].name, metadata.labels[app]) in the document of file that
// starts at docLine; docLine when the path is empty or nothing of it is
// found, or the file cannot be read again (standard input).
func (f *fieldLines) line(file string, docLine int, path string) int {
	if path == "" || file == "" || file == docs.Stdin || docLine < 1 {
		return docLine
	}
	if file != f.file {
		f.file, f.docLine, f.root = file, 0, nil
		f.data, _ = os.ReadFile(file)
	}
	if docLine != f.docLine {
		f.docLine, f.root = docLine, nil
		var n yaml.Node
		if yaml.Unmarshal(documentAt(f.data, docLine), &n) == nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
			f.root = n.Content[0]
		}
	}
	if f.root == nil {
		return docLine
	}
	return docLine - 1 + pathLine(f.root, path)
}

// documentAt is the text of the document that starts at line (1-based):
// up to the next document separator.
func documentAt(data []byte, line int) []byte {
	n, start := 1, 0
	for n < line && start < len(data) {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			return nil
		}
		start += i + 1
		n++
	}
	end := start
	for end < len(data) {
		next := len(data)
		if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
			next = end + i + 1
		}
		if end > start && isDocSeparator(data[end:next]) {
			break
		}
		end = next
	}
	return data[start:end]
}

// pathLine walks path from node and returns the line (in the parsed text)
// of the last part found.
func pathLine(node *yaml.Node, path string) int {
	line := node.Line
	for i := 0; i < len(path) && node != nil; {
		var key string
		index := -1
		switch path[i] {
		case '.':
			i++
			continue
		case '[':
			j := i + 1
			for j < len(path) && path[j] != ']' {
				j++
			}
			key = path[i+1 : j]
			if n, err := strconv.Atoi(key); err == nil && node.Kind == yaml.SequenceNode {
				index = n
			}
			i = j + 1
		default:
			j := i
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			key = path[i:j]
			i = j
		}
		for node.Kind == yaml.AliasNode && node.Alias != nil {
			node = node.Alias
		}
		var next *yaml.Node
		switch {
		case index >= 0 && index < len(node.Content):
			next = node.Content[index]
			line = next.Line
		case node.Kind == yaml.MappingNode:
			for k := 0; k+1 < len(node.Content); k += 2 {
				if node.Content[k].Value == key {
					next = node.Content[k+1]
					line = node.Content[k].Line
				}
			}
		}
		node = next
	}
	return line
}

// yamlKeyWarning is the YAML reader's duplicate-key warning, whose line
// counts from the document's first; strictField is the first field a
// strict decoding message or warning names (the decoder quotes duplicate
// fields with Go's escapes; the pruning writes unknown fields as they are).
var (
	yamlKeyWarning = regexp.MustCompile(`^line (\d+): key ".*" already set in map`)
	strictField    = regexp.MustCompile(`(unknown|duplicate) field "((?:[^"\\]|\\.)*)"`)
)

// messageLine places a message about the result's document (a warning, a
// 400's message): at the line a duplicate-key warning names, at the first
// unknown or duplicate field it names, else at the document's first line.
func (r *objectResult) messageLine(f *fieldLines, msg string) int {
	if m := yamlKeyWarning.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 && r.Line > 0 {
			return r.Line - 1 + n
		}
	}
	m := strictField.FindStringSubmatch(msg)
	if m == nil || r.noFieldLines {
		return r.Line
	}
	field := m[2]
	if m[1] == "duplicate" {
		if u, err := strconv.Unquote(`"` + field + `"`); err == nil {
			field = u
		}
	}
	return r.causeLine(f, cause{Field: field})
}
