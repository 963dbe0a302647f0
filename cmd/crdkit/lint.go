package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/docs"
)

// lintResult is one CRD document's verdict, shaped as DESIGN.md specifies.
type lintResult struct {
	File     string              `json:"file"`
	Index    int                 `json:"index"`
	Name     string              `json:"name"`
	Allowed  bool                `json:"allowed"`
	Code     int32               `json:"code"`
	Reason   metav1.StatusReason `json:"reason,omitempty"`
	Message  string              `json:"message,omitempty"`
	Causes   []cause             `json:"causes,omitempty"`
	Warnings []string            `json:"warnings,omitempty"`
}

type cause struct {
	Field   string `json:"field"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func lint(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "text", "output format: text or json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crdkit lint [-o text|json] FILE|DIR...")
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
	status := 0
	var results []lintResult
	for _, f := range files {
		ds, err := docs.Read(f.Path)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
		}
		for _, d := range ds {
			r, err := lintDoc(d)
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
		if r.Allowed {
			fmt.Fprintf(stdout, "%s: %s: accepted\n", loc, r.Name)
			continue
		}
		fmt.Fprintf(stdout, "%s: %s: refused (%d %s)\n", loc, r.Name, r.Code, r.Reason)
		if len(r.Causes) == 0 {
			fmt.Fprintf(stdout, "  %s\n", r.Message)
		}
		for _, c := range r.Causes {
			fmt.Fprintf(stdout, "  %s: %s\n", c.Field, c.Message)
		}
	}
	return status
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
