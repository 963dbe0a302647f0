package oracle

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
	"slices"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Document is one YAML or JSON document of a file, converted to JSON.
type Document struct {
	File  string // path as found
	Index int    // position of the document in its file, counting non-empty documents from 0
	JSON  []byte
}

// SplitDocuments splits a multi-document YAML (or JSON) stream into JSON
// documents, skipping empty ones.
func SplitDocuments(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return out, err
		}
		if string(bytes.TrimSpace(j)) == "null" {
			continue
		}
		out = append(out, j)
	}
}

// LoadCRDs reads every CustomResourceDefinition document in path: a file, or
// a directory walked recursively for .yaml, .yml and .json files in lexical
// order. Documents of other kinds are skipped.
func LoadCRDs(path string) ([]Document, error) {
	var files []string
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var docs []Document
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		js, err := SplitDocuments(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for i, j := range js {
			var tm struct {
				Kind string `json:"kind"`
			}
			if json.Unmarshal(j, &tm) != nil || tm.Kind != "CustomResourceDefinition" {
				continue
			}
			docs = append(docs, Document{File: f, Index: i, JSON: j})
		}
	}
	return docs, nil
}
