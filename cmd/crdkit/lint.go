package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/docs"
)

// lintResult is one CRD document's verdict, shaped as DESIGN.md specifies.
// Operation is "update" for a document checked as an update of its live
// CRD (lint --old), "create" for the others when --old is given.
type lintResult struct {
	File      string              `json:"file"`
	Index     int                 `json:"index"`
	Name      string              `json:"name"`
	Operation string              `json:"operation,omitempty"`
	Allowed   bool                `json:"allowed"`
	Code      int32               `json:"code"`
	Reason    metav1.StatusReason `json:"reason,omitempty"`
	Message   string              `json:"message,omitempty"`
	Causes    []cause             `json:"causes,omitempty"`
	Warnings  []string            `json:"warnings,omitempty"`
}

type cause struct {
	Field   string `json:"field"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

const lintUsage = `usage: crdkit lint [-o text|json] [--old LIVE]... FILE|DIR...

Checks each CustomResourceDefinition document as the API server checks it
on create: accepted (201) or refused with the server's Status (422 Invalid
with its causes, 400 for a document that does not decode), with the
warnings the server sends (unknown and duplicate fields, unrecognized
formats, set lists of objects).

With --old, a document whose CRD is in LIVE is checked as an update of it
(a PUT of the new revision over the live CRD): 200 or the server's refusal,
and the warnings it sends only for what the revision introduces. The server
then also refuses changes of group, plural, scope and kind, stored versions
that are no longer defined, and new rules or limits it would accept on a
CRD that already has them. LIVE holds CRDs as kubectl get crd -o yaml (or
-o json) prints them, one per document or as a List; a CRD without
status.storedVersions there is the manifest of the installed revision,
taken as the server holds it once established. A revision without
metadata.resourceVersion takes the live one's.

Exit status: 0 when every document is accepted, 1 when any is refused,
2 on usage or load errors.

flags:
`

func lint(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "text", "output format: text or json")
	var old listFlag
	fs.Var(&old, "old", "live CRDs (file or directory, repeatable): check documents of the same name as updates of them")
	fs.Usage = func() {
		fmt.Fprint(stderr, lintUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || (*out != "text" && *out != "json") {
		fs.Usage()
		return 2
	}
	files, err := docs.Files(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	lives, err := loadLiveCRDs(old)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	status := 0
	var results []lintResult
	for _, f := range files {
		ds, err := docs.Read(f.Path)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
		}
		for _, d := range ds {
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
				fmt.Fprintf(stderr, "crdkit: skipping %s#%d: %v\n", d.File, d.Index, errors.Unwrap(err))
				continue
			}
			if err != nil {
				fmt.Fprintf(stderr, "crdkit: %v\n", err)
				status = 2
				continue
			}
			if !r.Allowed && status == 0 {
				status = 1
			}
			results = append(results, r)
		}
	}
	if *out == "json" {
		writeJSON(stdout, map[string]any{"results": nonNil(results)})
		return status
	}
	for _, r := range results {
		loc := fmt.Sprintf("%s#%d", r.File, r.Index)
		for _, w := range r.Warnings {
			fmt.Fprintf(stdout, "%s: warning: %s\n", loc, w)
		}
		what := ""
		if r.Operation == "update" {
			what = "update "
		}
		if r.Allowed {
			fmt.Fprintf(stdout, "%s: %s: %saccepted (%d)\n", loc, r.Name, what, r.Code)
			continue
		}
		fmt.Fprintf(stdout, "%s: %s: %srefused (%d %s)\n", loc, r.Name, what, r.Code, r.Reason)
		if len(r.Causes) == 0 {
			fmt.Fprintf(stdout, "  %s\n", r.Message)
		}
		for _, c := range r.Causes {
			fmt.Fprintf(stdout, "  %s: %s\n", c.Field, c.Message)
		}
	}
	return status
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
	r := lintResult{File: d.File, Index: d.Index, Name: live.Name, Operation: "update"}
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
	r.Warnings = append(warnings, res.Warnings...)
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

func nonNil[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}

func lintDoc(d docs.Doc) (lintResult, error) {
	r := lintResult{File: d.File, Index: d.Index}
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
