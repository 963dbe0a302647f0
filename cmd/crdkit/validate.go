package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

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
	// NotChecked marks a document no CRD serves (without --require-crd).
	NotChecked bool `json:"notChecked,omitempty"`
}

func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var crds listFlag
	fs.Var(&crds, "crds", "a CRD file or directory (repeatable); CRDs among the inputs are used too")
	fv := fs.String("field-validation", "Warn", "Ignore, Warn or Strict (the server's fieldValidation)")
	out := fs.String("o", "text", "output format: text, json or yaml")
	ns := namespaceFlag(fs)
	requireCRD := fs.Bool("require-crd", false, "fail (exit 2) on documents no CRD serves, instead of reporting them as not checked")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "documents checked at once")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: crdkit validate [--crds FILE|DIR]... [-n NAMESPACE] [--field-validation Ignore|Warn|Strict]
                       [--require-crd] [-o text|json|yaml] FILE|DIR|-...

Checks each object document (YAML, multi-document YAML or JSON; "-" reads
standard input) against the CRD that serves its apiVersion and kind, as a
dry-run create would: what the server returns (pruned, defaulted), its
warnings, or its Status (code, reason, message and causes). Namespaced
objects without a namespace get -n's, else "default". CRDs are taken from
--crds and from the inputs, and compiled only when an object needs them.
Documents no CRD serves (Deployments, ConfigMaps...) are reported as not
checked. Results come in input order; -o json prints
{"results":[...]} as DESIGN.md specifies, streamed as documents are checked.

Exit status: 0 when every checked object is accepted, 1 when any is refused,
2 on usage or load errors (unreadable files, YAML errors with file and line,
CRDs the server would refuse, and with --require-crd documents no CRD serves).

Examples:
  crdkit validate examples/crontab/
  crdkit validate --crds examples/crontab --field-validation Strict examples/objects/
  kubectl get crontabs -A -o yaml | crdkit validate --crds crds/ -o json -

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mode := crdkit.FieldValidation(*fv)
	if fs.NArg() == 0 || (mode != crdkit.Ignore && mode != crdkit.Warn && mode != crdkit.Strict) ||
		(*out != "text" && *out != "json" && *out != "yaml") || *workers < 1 {
		fs.Usage()
		return 2
	}
	reg, status := loadRegistry(crds, fs.Args(), stderr)
	opts := crdkit.CreateOptions{FieldValidation: mode, Namespace: *ns}
	w := newResultWriter(stdout, *out)
	progress := newProgress(stderr)
	checkAll(fs.Args(), *workers, stderr, &status, func(d docs.Doc) outcome {
		r, err := validateDoc(reg, d, opts)
		return outcome{r: r, err: err}
	}, func(o outcome) {
		progress.tick()
		switch {
		case errors.Is(o.err, errNoCRD) && !*requireCRD:
			o.r.NotChecked = true
			o.r.Message = fmt.Sprintf("not checked: no CRD serves apiVersion %q, kind %q", o.r.APIVersion, o.r.Kind)
		case o.err != nil:
			fmt.Fprintf(stderr, "crdkit: %v\n", o.err)
			status = 2
			return
		case !o.r.Allowed && status == 0:
			status = 1
		}
		w.write(o.r)
	})
	progress.done()
	w.close()
	return status
}

// outcome is one document's result, or why there is none.
type outcome struct {
	r   objectResult
	err error
	// skip marks a document that is not an object to check (a CRD), empty
	// an empty (null) one, which does not count in the file's indexes.
	skip, empty bool
}

// checkAll runs check on every object document of the inputs, on workers
// goroutines (YAML conversion included), and hands the outcomes to emit in
// input order as they become ready. Files are read one at a time and a
// bounded number of documents are in flight, so memory stays flat in the
// number of documents. A document's Index counts the non-empty documents
// before it in its file, CRDs included. Read errors set *status to 2.
func checkAll(inputs []string, workers int, stderr io.Writer, status *int, check func(docs.Doc) outcome, emit func(outcome)) {
	files, err := docs.Files(inputs)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		*status = 2
		return
	}
	type job struct {
		c    docs.Chunk
		done chan outcome
	}
	jobs := make(chan job)
	pending := make(chan chan outcome, 4*workers) // in input order; bounds documents in flight
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				js, err := j.c.JSON()
				switch {
				case err != nil:
					j.done <- outcome{r: objectResult{File: j.c.File}, err: err}
				case js == nil:
					j.done <- outcome{empty: true}
				default:
					d := docs.Doc{File: j.c.File, Line: j.c.Line, JSON: js}
					if _, ok := isCRD(js); ok {
						j.done <- outcome{r: objectResult{File: d.File}, skip: true}
						continue
					}
					j.done <- check(d)
				}
			}
		}()
	}
	printed := make(chan struct{})
	go func() {
		defer close(printed)
		index := map[string]int{}
		for done := range pending {
			o := <-done
			if o.empty {
				continue
			}
			o.r.Index = index[o.r.File]
			index[o.r.File]++
			if !o.skip {
				emit(o)
			}
		}
	}()
	send := func(o outcome) {
		done := make(chan outcome, 1)
		done <- o
		pending <- done
	}
	for _, f := range files {
		data, err := docs.ReadFile(f.Path)
		if err != nil {
			send(outcome{err: err})
			continue
		}
		chunks, err := docs.Chunks(f.Path, data)
		if err != nil {
			send(outcome{err: err})
			continue
		}
		for _, c := range chunks {
			done := make(chan outcome, 1)
			pending <- done
			jobs <- job{c, done}
		}
	}
	close(jobs)
	close(pending)
	wg.Wait()
	<-printed
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
func validateDoc(reg *registry, d docs.Doc, opts crdkit.CreateOptions) (objectResult, error) {
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
	v, err := reg.version(tm.APIVersion, tm.Kind)
	if errors.Is(err, errNoCRD) {
		return r, &docs.Error{File: d.File, Line: d.Line, Err: fmt.Errorf("%w: apiVersion %q, kind %q (give its CRD with --crds)", errNoCRD, tm.APIVersion, tm.Kind)}
	}
	if err != nil {
		return r, err
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
