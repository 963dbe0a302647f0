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
	var old listFlag
	fs.Var(&old, "old", "live objects (a file or directory, repeatable; objects as kubectl get -o json|yaml prints them, Lists too): a document with a live counterpart is checked as a dry-run update of it")
	subresource := fs.String("subresource", "", `with --old: "status" checks updates as PUTs to the status subresource`)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: crdkit validate [--crds FILE|DIR]... [-n NAMESPACE] [--field-validation Ignore|Warn|Strict]
                       [--old LIVE [--subresource status]] [--require-crd] [-o text|json|yaml] FILE|DIR|-...

Checks each object document (YAML, multi-document YAML or JSON; "-" reads
standard input) against the CRD that serves its apiVersion and kind, as a
dry-run create would: what the server returns (pruned, defaulted), its
warnings, or its Status (code, reason, message and causes). Namespaced
objects without a namespace get -n's, else "default". CRDs are taken from
--crds and from the inputs, and compiled only for the objects that name
them, on all cores, ahead of the objects, in the order the inputs need them.
Documents no CRD serves (Deployments, ConfigMaps...) are reported as not
checked. Results come in input order; -o json prints
{"results":[...]} as DESIGN.md specifies, streamed as documents are checked.

With --old, a document whose live counterpart is in LIVE (same API group,
kind and name, and the namespace the server sees: the document's, else -n's,
else "default"; none for cluster-scoped kinds) is checked as a dry-run update
(PUT at the document's version; with --subresource status, a PUT to /status)
of that live object, which may be at another version of the group: ratcheting
(unchanged invalid values are let through), transition rules, the generation
bump and status kept from live, as the server does. An accepted update has
code 200. As a convenience (the library does not do this), a document
without metadata.resourceVersion takes the live object's. The others are
checked as creates.

Exit status: 0 when every checked object is accepted, 1 when any is refused,
2 on usage or load errors (unreadable files, YAML errors with file and line,
CRDs the server would refuse, and with --require-crd documents no CRD serves).

Examples:
  crdkit validate examples/crontab/
  crdkit validate --crds examples/crontab --field-validation Strict examples/objects/
  kubectl get crontabs -A -o yaml | crdkit validate --crds crds/ -o json -
  kubectl get crontabs -A -o json > live.json
  crdkit validate --crds examples/crontab --old live.json changed/

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mode := crdkit.FieldValidation(*fv)
	if fs.NArg() == 0 || (mode != crdkit.Ignore && mode != crdkit.Warn && mode != crdkit.Strict) ||
		(*out != "text" && *out != "json" && *out != "yaml") || *workers < 1 ||
		(*subresource != "" && *subresource != "status") || (*subresource != "" && len(old) == 0) {
		fs.Usage()
		return 2
	}
	live, err := loadLive(old)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	reg, status := loadRegistry(crds, fs.Args(), stderr)
	defer reg.close()
	opts := validateOptions{create: crdkit.CreateOptions{FieldValidation: mode, Namespace: *ns, ManagedFields: crdkit.ManagedFields{Omit: true}}, live: live, status: *subresource == "status"}
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

// validateOptions are what validate checks each document with.
type validateOptions struct {
	create crdkit.CreateOptions
	live   liveSet // --old
	status bool    // --subresource status
}

// validateDoc answers for one object document what a dry-run create with
// opts answers, or a dry-run update when it has a live counterpart.
func validateDoc(reg *registry, d docs.Doc, vopts validateOptions) (objectResult, error) {
	opts := vopts.create
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
	code := int32(201)
	var res crdkit.Result
	if old := vopts.live[liveKey(groupOf(tm.APIVersion), tm.Kind, serverNamespace(v, r.Namespace), r.Name)]; old != nil {
		body := d.JSON
		if md, _ := old["metadata"].(map[string]any); md != nil {
			if rv, _ := md["resourceVersion"].(string); rv != "" {
				body = withResourceVersion(body, rv)
			}
		}
		uopts := crdkit.UpdateOptions{FieldValidation: opts.FieldValidation, ManagedFields: crdkit.ManagedFields{Omit: true}}
		if vopts.status {
			res = v.UpdateStatusJSON(body, old, uopts)
		} else {
			res = v.UpdateJSON(body, old, uopts)
		}
		code = 200
		r.Namespace = serverNamespace(v, r.Namespace)
	} else {
		res = v.CreateJSON(d.JSON, opts)
	}
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
	r.Allowed, r.Code, r.Object = true, code, res.Object
	if md, ok := res.Object["metadata"].(map[string]any); ok {
		r.Namespace, _ = md["namespace"].(string)
	}
	return r, nil
}

// serverNamespace is the namespace the server sees for an object of v whose
// own or request namespace is ns: ns, else "default"; none for
// cluster-scoped kinds.
func serverNamespace(v *crdkit.Version, ns string) string {
	switch {
	case !v.CRD().Namespaced():
		return ""
	case ns == "":
		return "default"
	}
	return ns
}
