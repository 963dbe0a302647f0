package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/docs"
)

// lintResult is one CRD document's verdict, shaped as docs/output.md specifies.
// Operation is "update" for a document checked as an update of its live
// CRD (lint --old), "create" for the others when --old is given.
type lintResult struct {
	File      string              `json:"file"`
	Index     int                 `json:"index"`
	Path      string              `json:"path,omitempty"` // of a CRD in a List
	Name      string              `json:"name"`
	Operation string              `json:"operation,omitempty"`
	Allowed   bool                `json:"allowed"`
	Code      int32               `json:"code"`
	Reason    metav1.StatusReason `json:"reason,omitempty"`
	Message   string              `json:"message,omitempty"`
	Causes    []cause             `json:"causes,omitempty"`
	Warnings  []string            `json:"warnings,omitempty"`

	schemaLine int // the line of the schema in the file, for the text output
	line       int // the document's first line, for the CI reports
}

// object is the result as the CI reports take it: validate's result for a
// CRD object.
func (r lintResult) object() objectResult {
	return objectResult{File: r.File, Index: r.Index, Path: r.Path, Line: r.line, APIVersion: "apiextensions.k8s.io/v1",
		Kind: "CustomResourceDefinition", Name: r.Name, Checked: true, Allowed: r.Allowed, Code: r.Code, Reason: string(r.Reason),
		Message: r.Message, Causes: r.Causes, Warnings: r.Warnings, noFieldLines: true}
}

type cause struct {
	Field   string `json:"field"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

const lintHelp = `usage: crdkit lint [-o text|json|junit|tap|sarif|github] [--old LIVE]... FILE|DIR...

Checks each CustomResourceDefinition document (YAML, multi-document YAML,
JSON, or a List of CRDs as "kubectl get crds -o yaml" prints it) as the API
server checks a CRD on create: accepted, or refused with the server's Status
(422 with its causes; 400 for a document that does not decode into a CRD).
Warnings are the ones the server sends (unknown fields, for one).

The causes name fields as the server does: the schema of a version is
spec.versions[i].schema.openAPIV3Schema in the file, but the server checks
it under the name spec.validation.openAPIV3Schema, and that is how its
answer (and so crdkit's) words it.

With --old, a document whose CRD is in LIVE is checked as an update of it
(a PUT of the new revision over the live CRD): "update accepted (200)" or
the server's refusal, and the warnings it sends only for what the revision
introduces. The server then also refuses changes of group, plural, scope
and kind, stored versions that are no longer defined, and new rules or
limits it would accept on a CRD that already has them. LIVE holds CRDs as
kubectl get crd -o yaml (or -o json) prints them, one per document or as a
List; a CRD without status.storedVersions there is the manifest of the
installed revision, taken as the server holds it once established. A
revision without metadata.resourceVersion takes the live one's.

-o junit, tap, sarif and github write the results as validate's CI reports
do (docs/output.md in the repository): a testcase, test, result or
annotation per CRD, at its file and first line.

Documents that are not CRDs are skipped with a note when they come from a
directory; a file named on the command line must hold only CRDs.

Exit status: 0 when every CRD is accepted, 1 when any is refused, 2 on usage
or load errors (unreadable files, YAML errors with file and line, a named
file that holds something else than CRDs, a directory without YAML or JSON
files).

Examples:
  crdkit lint examples/
  crdkit lint -o json crds/
  crdkit lint --old live-crds.yaml crds/
  kubectl get crds -o yaml | crdkit lint -
`

func lint(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("lint", lintHelp)
	out := fs.String("o", "text", "output format: text, json, or a CI report as validate writes them: junit, tap, sarif, github")
	var old listFlag
	fs.Var(&old, "old", "live CRDs (file or directory, repeatable): check documents of the same name as updates of them")
	paths, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(paths) == 0 {
		return fs.usageError(stderr, "no FILE or DIR given")
	}
	if !oneOf(*out, "text", "json") && !oneOf(*out, reportFormats...) {
		return fs.usageError(stderr, "-o must be text, json, junit, tap, sarif or github, not %q", *out)
	}
	// items are the results and the errors in order, for the CI reports.
	var items []any
	files, err := docs.Files(paths)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	lives, err := loadLiveCRDs(old)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	var results []lintResult
	var skipped []string // files with documents that are not CRDs
	nskipped := 0
	for _, f := range files {
		data, err := docs.ReadFile(f.Path)
		var ds []docs.Doc
		if err == nil {
			ds, err = docs.Split(f.Path, data)
		}
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			items = append(items, err)
			status = 2
		}
		for _, d := range expandLists(ds, isCRDList, stderr, &status) {
			var r lintResult
			if live := lives[documentName(d.JSON)]; live != nil {
				r, err = lintUpdateDoc(d, live)
			} else {
				r, err = lintDoc(d)
				if len(old) > 0 {
					r.Operation = "create"
				}
			}
			if errors.Is(err, crdkit.ErrNotCRD) && !f.Explicit {
				if nskipped++; len(skipped) == 0 || skipped[len(skipped)-1] != d.File {
					skipped = append(skipped, d.File)
				}
				continue
			}
			r.schemaLine, r.line = schemaLine(data, d), d.Line
			if err != nil {
				fmt.Fprintf(stderr, "crdkit: %v\n", err)
				items = append(items, err)
				status = 2
				continue
			}
			if !r.Allowed && status == 0 {
				status = 1
			}
			results = append(results, r)
			items = append(items, r)
		}
	}
	if nskipped > 0 {
		fmt.Fprintf(stderr, "crdkit: skipped %s that %s not CRDs (crdkit validate checks objects): in %s\n",
			plural(nskipped, "document"), map[bool]string{true: "is", false: "are"}[nskipped == 1], strings.Join(skipped, ", "))
	}
	if len(files) > 0 && len(results) == 0 && status == 0 {
		fmt.Fprintln(stderr, "crdkit: no CustomResourceDefinition found")
	}
	if *out == "json" {
		writeJSON(stdout, map[string]any{"results": nonNil(results)})
		return status
	}
	if rep := newReport(stdout, *out); rep != nil {
		for _, it := range items {
			switch it := it.(type) {
			case lintResult:
				rep.result(it.object())
			case error:
				rep.fail(it)
			}
		}
		rep.close()
		return status
	}
	for _, r := range results {
		loc := fmt.Sprintf("%s#%d", r.File, r.Index)
		if r.Path != "" {
			loc += "." + r.Path
		}
		for _, w := range r.Warnings {
			fmt.Fprintf(stdout, "%s: warning: %s\n", loc, w)
		}
		what := ""
		if r.Operation == "update" {
			what = "update "
		}
		switch {
		case r.Allowed && what != "":
			fmt.Fprintf(stdout, "%s: %s: update accepted (%d)\n", loc, r.Name, r.Code)
			continue
		case r.Allowed:
			fmt.Fprintf(stdout, "%s: %s: accepted\n", loc, r.Name)
			continue
		}
		fmt.Fprintf(stdout, "%s: %s: %srefused (%d %s)\n", loc, r.Name, what, r.Code, r.Reason)
		if len(r.Causes) == 0 {
			fmt.Fprintf(stdout, "  %s\n", r.Message)
		}
		shared := false
		for _, c := range r.Causes {
			fmt.Fprintf(stdout, "  %s: %s\n", c.Field, c.Message)
			shared = shared || strings.HasPrefix(c.Field, "spec.validation.openAPIV3Schema")
		}
		if shared {
			// The server checks a schema that every version shares under
			// the field of the old single schema, and its causes say so.
			where := "spec.versions[*].schema.openAPIV3Schema"
			if r.schemaLine > 0 {
				where += fmt.Sprintf(" at %s:%d", r.File, r.schemaLine)
			}
			fmt.Fprintf(stdout, "  (spec.validation.openAPIV3Schema is how the API server names the schema all versions share: %s)\n", where)
		}
	}
	return status
}

// schemaLine is the line of the first openAPIV3Schema key of a YAML
// document in its file (0 when not found, or for an item of a List).
func schemaLine(data []byte, d docs.Doc) int {
	if d.Path != "" {
		return 0
	}
	n := 0
	for l := range bytes.Lines(data) {
		n++
		if n < d.Line {
			continue
		}
		if n > d.Line && isDocSeparator(l) {
			return 0
		}
		if t := bytes.TrimSpace(l); bytes.HasPrefix(t, []byte("openAPIV3Schema:")) {
			return n
		}
	}
	return 0
}

// isDocSeparator reports whether a line starts a new YAML document.
func isDocSeparator(l []byte) bool {
	l = bytes.TrimRight(l, "\r\n")
	return bytes.Equal(l, []byte("---")) || bytes.HasPrefix(l, []byte("--- ")) || bytes.HasPrefix(l, []byte("---\t"))
}

func nonNil[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}

func lintDoc(d docs.Doc) (r lintResult, err error) {
	r = lintResult{File: d.File, Index: d.Index, Path: d.Path}
	defer func() {
		if len(d.Warnings) > 0 && r.Code != 400 {
			// The YAML reader's duplicate keys, before the decoder's
			// warnings, as the server orders them for a YAML body (and
			// leaves them out of a 400 for a body that does not decode).
			r.Warnings = append(slices.Clip(d.Warnings), r.Warnings...)
		}
	}()
	crd, err := crdkit.Load(d.JSON)
	var se *apierrors.StatusError
	switch {
	case errors.As(err, &se):
		st := se.Status()
		r.Name = documentName(d.JSON)
		if st.Details != nil && st.Details.Name != "" {
			r.Name = st.Details.Name
		}
		var causes []metav1.StatusCause
		if st.Details != nil {
			causes = st.Details.Causes
		}
		r.Code, r.Reason, r.Message = st.Code, st.Reason, st.Message
		for _, c := range causes {
			r.Causes = append(r.Causes, cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
		}
		if c, err := crdkit.Load(d.JSON, crdkit.LoadOptions{AllowInvalid: true}); err == nil {
			r.Warnings = c.Warnings()
		}
		return r, nil
	case err != nil:
		return r, &docs.Error{File: d.File, Line: d.Line, Err: err}
	}
	r.Name, r.Allowed, r.Code, r.Warnings = crd.Name(), true, 201, crd.Warnings()
	return r, nil
}

// documentName is the metadata.name a document gives, when it is a string,
// for naming a CRD the server could not decode.
func documentName(js []byte) string {
	var d struct {
		Metadata struct {
			Name any `json:"name"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(js, &d)
	name, _ := d.Metadata.Name.(string)
	return name
}

// loadLiveCRDs reads the live CRDs of --old, by name, as the server holds
// them (a manifest without stored versions taken as installed).
func loadLiveCRDs(paths []string) (map[string]*apiextensionsv1.CustomResourceDefinition, error) {
	set, err := loadLive(paths)
	if err != nil {
		return nil, err
	}
	out := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, o := range set {
		if o["apiVersion"] != "apiextensions.k8s.io/v1" || o["kind"] != "CustomResourceDefinition" {
			continue
		}
		js, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		crd, _, err := crdkit.DecodeCRD(js)
		if err != nil {
			return nil, fmt.Errorf("live CRD %s: %w", documentName(js), err)
		}
		if out[crd.Name], err = crdkit.Installed(crd); err != nil {
			return nil, fmt.Errorf("live CRD %s: %w", crd.Name, err)
		}
	}
	return out, nil
}

// lintUpdateDoc checks a CRD document as an update of live: the server's
// answer to a PUT of it, with the decoder's warnings first.
func lintUpdateDoc(d docs.Doc, live *apiextensionsv1.CustomResourceDefinition) (lintResult, error) {
	r := lintResult{File: d.File, Index: d.Index, Path: d.Path, Name: live.Name, Operation: "update"}
	crd, warnings, err := crdkit.DecodeCRD(withResourceVersion(d.JSON, live.ResourceVersion))
	var se *apierrors.StatusError
	switch {
	case errors.As(err, &se):
		setStatus(&r, se.Status())
		return r, nil
	case err != nil:
		return r, &docs.Error{File: d.File, Line: d.Line, Err: err}
	}
	res := crdkit.UpdateCRD(crd, live)
	// The YAML reader's duplicate keys first, as for a create.
	r.Warnings = append(append(slices.Clip(d.Warnings), warnings...), res.Warnings...)
	if errors.As(res.Err, &se) {
		setStatus(&r, se.Status())
		return r, nil
	}
	if res.Err != nil {
		return r, &docs.Error{File: d.File, Line: d.Line, Err: res.Err}
	}
	r.Allowed, r.Code = true, 200
	return r, nil
}

func setStatus(r *lintResult, st metav1.Status) {
	r.Code, r.Reason, r.Message = st.Code, st.Reason, st.Message
	if st.Details == nil {
		return
	}
	for _, c := range st.Details.Causes {
		r.Causes = append(r.Causes, cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
	}
}
