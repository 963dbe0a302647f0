package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/docs"
)

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// objectResult is one object document's verdict, shaped as DESIGN.md
// specifies.
type objectResult struct {
	File       string         `json:"file"`
	Index      int            `json:"index"`
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Namespace  string         `json:"namespace,omitempty"`
	Name       string         `json:"name"`
	Allowed    bool           `json:"allowed"`
	Code       int32          `json:"code"`
	Reason     string         `json:"reason,omitempty"`
	Message    string         `json:"message,omitempty"`
	Causes     []cause        `json:"causes,omitempty"`
	Warnings   []string       `json:"warnings,omitempty"`
	Object     map[string]any `json:"object,omitempty"`
}

// registry finds the CRD version serving an apiVersion and kind.
type registry map[string]*crdkit.Version // key: apiVersion + " " + kind

func (r registry) add(crd *crdkit.CRD) {
	for _, v := range crd.Versions() {
		if v.Served() {
			r[crd.Group()+"/"+v.Name()+" "+crd.Kind()] = v
		}
	}
}

func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var crds listFlag
	fs.Var(&crds, "crds", "a CRD file or directory (repeatable); CRDs among the inputs are used too")
	fv := fs.String("field-validation", "Warn", "Ignore, Warn or Strict (the server's fieldValidation)")
	out := fs.String("o", "text", "output format: text, json or yaml")
	ns := namespaceFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crdkit validate [--crds FILE|DIR]... [-n NAMESPACE] [--field-validation Ignore|Warn|Strict] [-o text|json|yaml] FILE|DIR...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mode := crdkit.FieldValidation(*fv)
	if fs.NArg() == 0 || (mode != crdkit.Ignore && mode != crdkit.Warn && mode != crdkit.Strict) ||
		(*out != "text" && *out != "json" && *out != "yaml") {
		fs.Usage()
		return 2
	}
	reg, objects, status := loadInputs(crds, fs.Args(), stderr)

	var results []objectResult
	for _, d := range objects {
		r, err := validateDoc(reg, d, crdkit.CreateOptions{FieldValidation: mode, Namespace: *ns})
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
	switch *out {
	case "json":
		writeJSON(stdout, map[string]any{"results": nonNil(results)})
	case "yaml":
		js, _ := json.Marshal(map[string]any{"results": nonNil(results)})
		y, _ := yaml.JSONToYAML(js)
		stdout.Write(y)
	default:
		for _, r := range results {
			id := fmt.Sprintf("%s#%d %s %s", r.File, r.Index, r.Kind, r.Name)
			if r.Namespace != "" {
				id = fmt.Sprintf("%s#%d %s %s/%s", r.File, r.Index, r.Kind, r.Namespace, r.Name)
			}
			for _, w := range r.Warnings {
				fmt.Fprintf(stdout, "%s: warning: %s\n", id, w)
			}
			if r.Allowed {
				fmt.Fprintf(stdout, "%s: accepted\n", id)
				continue
			}
			fmt.Fprintf(stdout, "%s: refused (%d %s): %s\n", id, r.Code, r.Reason, r.Message)
			for _, c := range r.Causes {
				fmt.Fprintf(stdout, "  %s: %s\n", c.Field, c.Message)
			}
		}
	}
	return status
}

// namespaceFlag registers kubectl's -n and --namespace: the namespace of
// the request.
func namespaceFlag(fs *flag.FlagSet) *string {
	ns := new(string)
	const usage = "the namespace of the request, as kubectl's -n: objects without metadata.namespace get it, objects with another are refused as the server refuses them (400); ignored for cluster-scoped kinds. Default: the object's own namespace, else \"default\""
	fs.StringVar(ns, "n", "", usage)
	fs.StringVar(ns, "namespace", "", "the same as -n")
	return ns
}

// validateDoc answers for one object document what a dry-run create with
// opts answers.
func validateDoc(reg registry, d docs.Doc, opts crdkit.CreateOptions) (objectResult, error) {
	r := objectResult{File: d.File, Index: d.Index}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(d.JSON, &tm)
	r.APIVersion, r.Kind, r.Name, r.Namespace = tm.APIVersion, tm.Kind, tm.Metadata.Name, tm.Metadata.Namespace
	v := reg[tm.APIVersion+" "+tm.Kind]
	if v == nil {
		return r, &docs.Error{File: d.File, Line: d.Line, Err: fmt.Errorf("no CRD serves apiVersion %q, kind %q (give it with --crds)", tm.APIVersion, tm.Kind)}
	}
	if opts.Namespace != "" && v.CRD().Namespaced() && r.Namespace == "" {
		r.Namespace = opts.Namespace
	}
	res := v.CreateJSON(d.JSON, opts)
	r.Warnings = res.Warnings
	if st := res.Status(); st != nil {
		r.Code, r.Reason, r.Message = st.Code, string(st.Reason), st.Message
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				r.Causes = append(r.Causes, cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
			}
		}
		return r, nil
	}
	r.Allowed, r.Code, r.Object = true, 201, res.Object
	if md, ok := res.Object["metadata"].(map[string]any); ok {
		r.Namespace, _ = md["namespace"].(string)
	}
	return r, nil
}

// loadInputs loads the CRDs given with --crds and among the inputs, and
// returns the other documents of the inputs. status is 2 when something
// could not be read or a CRD is one the server would refuse.
func loadInputs(crds, inputs []string, stderr io.Writer) (registry, []docs.Doc, int) {
	status := 0
	reg := registry{}
	load := func(paths []string, objects bool) []docs.Doc {
		files, err := docs.Files(paths)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
			return nil
		}
		var rest []docs.Doc
		for _, f := range files {
			ds, err := docs.Read(f.Path)
			if err != nil {
				fmt.Fprintf(stderr, "crdkit: %v\n", err)
				status = 2
			}
			for _, d := range ds {
				crd, err := crdkit.Load(d.JSON)
				switch {
				case errors.Is(err, crdkit.ErrNotCRD):
					if objects {
						rest = append(rest, d)
					}
				case err != nil:
					fmt.Fprintf(stderr, "crdkit: %s#%d: the API server would refuse this CRD: %v\n", d.File, d.Index, err)
					status = 2
				default:
					reg.add(crd)
				}
			}
		}
		return rest
	}
	load(crds, false)
	return reg, load(inputs, true), status
}
