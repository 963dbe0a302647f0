package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/builtin"
	"github.com/crdkit/crdkit/internal/docs"
)

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// objectResult is one object document's verdict, shaped as docs/output.md
// specifies.
type objectResult struct {
	File  string `json:"file"`
	Index int    `json:"index"`
	// Path locates an item of a List in the document ("items[2]").
	Path       string `json:"path,omitempty"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	// Line is the document's first line in its file (the List's, for an
	// item of a List).
	Line int `json:"line,omitempty"`
	// Checked is false only for a document no CRD serves, which is written
	// as a notCheckedResult.
	Checked bool `json:"checked"`
	// Checks is "decode" for a document of a built-in kind: only the
	// server's decoding and metadata checks were made (see builtin.Check).
	Checks   string         `json:"checks,omitempty"`
	Allowed  bool           `json:"allowed"`
	Code     int32          `json:"code"`
	Reason   string         `json:"reason,omitempty"`
	Message  string         `json:"message,omitempty"`
	Causes   []cause        `json:"causes,omitempty"`
	Warnings []string       `json:"warnings,omitempty"`
	Object   map[string]any `json:"object,omitempty"`
	// NotChecked marks a document no CRD serves (without --require-crd),
	// or one of a kind --skip names (then Skipped too).
	NotChecked bool `json:"notChecked,omitempty"`
	Skipped    bool `json:"skipped,omitempty"`
	// Rejected marks a document of a kind --reject names, written as a
	// rejectedResult.
	Rejected bool `json:"rejected,omitempty"`

	note string // a line of explanation for the text output, not the server's
	// objectJSON is Object as -o json writes it (appendIndentedJSON),
	// encoded on the worker that checked it; nil when not.
	objectJSON []byte
	// noFieldLines: the causes' fields do not name the document's paths
	// (lint's, which name the schema spec.validation.openAPIV3Schema).
	noFieldLines bool
}

// notCheckedResult is how a document no CRD serves is written: no allowed,
// no code, so that a script cannot take it for a verdict.
type notCheckedResult struct {
	File       string   `json:"file"`
	Index      int      `json:"index"`
	Path       string   `json:"path,omitempty"`
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace,omitempty"`
	Name       string   `json:"name"`
	Line       int      `json:"line,omitempty"`
	Checked    bool     `json:"checked"`
	NotChecked bool     `json:"notChecked"` // kept from the first output format
	Skipped    bool     `json:"skipped,omitempty"`
	Message    string   `json:"message"`
	Warnings   []string `json:"warnings,omitempty"`
}

// location is where the result's document is: file#index, and the item's
// path in a List.
func (r *objectResult) location() string {
	if r.Path != "" {
		return fmt.Sprintf("%s#%d.%s", r.File, r.Index, r.Path)
	}
	return fmt.Sprintf("%s#%d", r.File, r.Index)
}

const validateHelp = `usage: crdkit validate [--crds FILE|DIR]... [-n NAMESPACE] [--field-validation Strict|Warn|Ignore]
                       [--old LIVE [--subresource status]] [--require-crd] [-q]
                       [--skip KIND,...] [--reject KIND,...]
                       [-o text|json|yaml|junit|tap|sarif|github] FILE|DIR|-...

Checks each object document (YAML, multi-document YAML or JSON; "-" reads
standard input) against the CRD that serves its apiVersion and kind, as a
dry-run create would: what the server returns (pruned, defaulted), its
warnings, or its Status (code, reason, message and causes).

Lists are checked item by item, as kubectl applies them: a List (what
"kubectl get -o yaml" prints for several objects) and a <Kind>List of a kind
a CRD defines. An item's place is printed after its document's:
live.yaml#0.items[2].

--field-validation defaults to Strict, as kubectl apply and kubectl create
validate (--validate=strict): an unknown or duplicate field is a 400. Warn
reports them as warnings and lets the object through; Ignore drops them
silently. A YAML key given twice keeps its last value, as kubectl reads it;
crdkit warns about it in the server's words for a YAML body ("line 5: key
"image" already set in map", the line counted from the document's first).

Namespaced objects without a namespace get -n's, else "default". CRDs are
taken from --crds (read by their head, converted and compiled only when
an object needs them; a --crds document that is not valid YAML is a
warning when no object needed it, see docs/output.md) and from the inputs
(all compiled: one the server would refuse fails the run). An object
whose group and kind a CRD defines, at a version it does not serve, is
refused with the server's 404.

Documents of Kubernetes' own kinds (apps/v1 Deployment, StatefulSet,
DaemonSet, ReplicaSet, ControllerRevision; v1 Service, ConfigMap, Secret,
Pod, ServiceAccount, Namespace, PersistentVolumeClaim, PersistentVolume,
LimitRange, ResourceQuota, ReplicationController, PodTemplate; batch/v1 Job,
CronJob; networking.k8s.io/v1 Ingress, IngressClass, NetworkPolicy;
rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding,
ClusterRoleBinding; policy/v1 PodDisruptionBudget; autoscaling/v2 and v1
HorizontalPodAutoscaler; storage.k8s.io/v1 StorageClass;
scheduling.k8s.io/v1 PriorityClass; node.k8s.io/v1 RuntimeClass;
coordination.k8s.io/v1 Lease; discovery.k8s.io/v1 EndpointSlice;
admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration,
MutatingWebhookConfiguration) get decode-level checks ("checks":
"decode" in -o json): the server's decoder (unknown, duplicate and mistyped
fields, in its words) and metadata checks (name by the kind's rule, labels,
annotations, namespace...), always as creates. The server's own validation
of the kind (a Deployment's selector against its template...) is not run.
These kinds at a version Kubernetes 1.37 no longer serves (extensions/v1beta1
Ingress, batch/v1beta1 CronJob...) get the server's 404. Documents of other
kinds no CRD serves are reported as not checked.

--skip and --reject take kinds as kubeconform's -skip and -reject do,
comma-separated: Kind (any apiVersion) or apiVersion/Kind (v1/ConfigMap,
apps/v1/Deployment). A document of a skipped kind is not checked, even if a
CRD serves it; one of a rejected kind is refused (exit 1) without being
checked, a crdkit verdict with no server code. --skip wins over --reject.

With --old, a document whose live counterpart is in LIVE (objects as kubectl
get -o json|yaml prints them, Lists too; same API group, kind and name, and
the namespace the server sees: the document's, else -n's, else "default";
none for cluster-scoped kinds) is checked as a dry-run update (PUT at the
document's version; with --subresource status, a PUT to /status) of that
live object, which may be at another version of the group: ratcheting
(unchanged invalid values are let through), transition rules, the generation
bump and status kept from live, as the server does. An accepted update has
code 200. As a convenience (the library does not do this), a document
without metadata.resourceVersion takes the live object's. The others are
checked as creates.

Results come in input order, streamed as documents are checked. -o json
prints {"results":[...]} as docs/output.md in the repository describes; a
document no CRD serves has "checked": false and no "allowed" or "code". A
summary line goes to standard error: how many objects were accepted,
refused, not checked, and how long it took. -q prints only the refusals.

For CI, the same results as reports, each at its file and line (the
document's first): -o junit (JUnit XML: a testcase per object, a failure
with the server's message and causes), -o tap (TAP version 13), -o sarif
(SARIF 2.1.0, for GitHub code scanning: a result per problem, rule ids from
the server's cause types and reasons) and -o github (GitHub Actions
::error and ::warning annotations). Errors that would only go to standard
error (YAML syntax errors) are in the reports too.

Documents are checked on --workers goroutines, in batches; memory stays flat
in the number of documents: once the CRDs are compiled, a soft memory limit
holds the heap about where their compilation left it (GOMEMLIMIT, when set,
is used instead).

Exit status: 0 when every checked object is accepted, 1 when any is refused,
2 on usage or load errors (unreadable files, YAML errors with file and line,
a directory without YAML or JSON files, CRDs the server would refuse, and
with --require-crd documents no CRD serves, built-in kinds apart).

Examples:
  crdkit validate examples/crontab/
  crdkit validate --crds examples/crontab examples/objects/ -o json
  crdkit validate --field-validation Warn --crds examples/crontab examples/objects/
  crdkit validate --crds crds/ -o junit manifests/ > report.xml
  kubectl get crontabs -A -o yaml | crdkit validate --crds crds/ -
  kubectl get crontabs -A -o json > live.json
  crdkit validate --crds examples/crontab --old live.json changed/
`

func validate(args []string, stdout, stderr io.Writer) int {
	start := time.Now()
	fs := newFlags("validate", validateHelp)
	var crds listFlag
	fs.Var(&crds, "crds", "a CRD file or directory (repeatable); CRDs among the inputs are used too")
	fv := fs.String("field-validation", "Strict", "Strict, Warn or Ignore (the server's fieldValidation; Strict is kubectl apply's default)")
	out := fs.String("o", "text", "output format: text, json, yaml, or a CI report: junit (JUnit XML), tap (TAP 13), sarif (SARIF 2.1.0, GitHub code scanning), github (GitHub Actions annotations)")
	ns := namespaceFlag(fs.FlagSet)
	requireCRD := fs.Bool("require-crd", false, "fail (exit 2) on documents no CRD serves (built-in kinds apart, which get decode-level checks), instead of reporting them as not checked")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "documents checked at once")
	var old listFlag
	fs.Var(&old, "old", "live objects (a file or directory, repeatable; objects as kubectl get -o json|yaml prints them, Lists too): a document with a live counterpart is checked as a dry-run update of it")
	subresource := fs.String("subresource", "", `with --old: "status" checks updates as PUTs to the status subresource`)
	var skip, reject listFlag
	fs.Var(&skip, "skip", "kinds not to check, comma-separated (repeatable), as kubeconform's -skip: Kind, or apiVersion/Kind (v1/ConfigMap, apps/v1/Deployment)")
	fs.Var(&reject, "reject", "kinds to refuse without checking them, comma-separated (repeatable), as kubeconform's -reject: Kind or apiVersion/Kind; --skip wins")
	var quiet bool
	fs.BoolVar(&quiet, "q", false, "print only the refused objects (and errors); the summary line still goes to standard error")
	fs.BoolVar(&quiet, "quiet", false, "the same as -q")
	openCache := cacheFlag(fs)
	paths, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	mode := crdkit.FieldValidation(*fv)
	switch {
	case len(paths) == 0:
		return fs.usageError(stderr, "no FILE, DIR or - given")
	case mode != crdkit.Ignore && mode != crdkit.Warn && mode != crdkit.Strict:
		return fs.usageError(stderr, "--field-validation must be Strict, Warn or Ignore, not %q", *fv)
	case !oneOf(*out, "text", "json", "yaml") && !oneOf(*out, reportFormats...):
		return fs.usageError(stderr, "-o must be text, json, yaml, junit, tap, sarif or github, not %q", *out)
	case *workers < 1:
		return fs.usageError(stderr, "--workers must be at least 1")
	case *subresource != "" && *subresource != "status":
		return fs.usageError(stderr, "--subresource must be status, not %q", *subresource)
	case *subresource != "" && len(old) == 0:
		return fs.usageError(stderr, "--subresource needs --old")
	}
	kinds, err := newKindFilter(skip, reject)
	if err != nil {
		return fs.usageError(stderr, "%v", err)
	}
	reg, status := loadRegistryWith(crds, paths, stderr, true, openCache())
	defer reg.close()
	heap := newHeapCap(reg.compiled)
	defer heap.release()
	live, err := loadLive(old)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	opts := validateOptions{builtins: sync.OnceValue(builtin.New), create: crdkit.CreateOptions{FieldValidation: mode, Namespace: *ns, ManagedFields: crdkit.ManagedFields{Omit: true}}, live: live, status: *subresource == "status"}
	w := newResultWriter(stdout, *out)
	w.buffer()
	progress := newProgress(stderr)
	var sum summary
	sum.kinds = !kinds.empty()
	sum.files = checkAllWith(paths, *workers, stderr, &status, reg.isList, func(d docs.Doc) outcome {
		if !kinds.empty() {
			if r, ok := kinds.apply(d); ok {
				return outcome{r: r}
			}
		}
		r, err := validateDoc(reg, d, opts)
		if *out == "json" && r.Object != nil && !r.NotChecked {
			buf := objectBuffer()
			if js, ok := appendIndentedJSON(buf, r.Object, "      "); ok {
				r.objectJSON = js
			} else {
				putObjectBuffer(buf)
			}
		}
		return outcome{r: r, err: err}
	}, func(o outcome) {
		if progress.on {
			w.flush() // before the progress line
		}
		progress.tick()
		switch {
		case o.r.Skipped:
			sum.skipped++
		case o.r.Rejected:
			sum.rejected++
			if status == 0 {
				status = 1
			}
		case errors.Is(o.err, errNoCRD) && !*requireCRD:
			sum.unserved++
			o.r.NotChecked, o.r.Checked = true, false
			o.r.Message = fmt.Sprintf("not checked: no CRD serves apiVersion %q, kind %q", o.r.APIVersion, o.r.Kind)
			sum.notChecked++
		case o.err != nil:
			if errors.Is(o.err, errNoCRD) {
				sum.unserved++
			}
			w.flush()
			fmt.Fprintf(stderr, "crdkit: %v\n", o.err)
			w.fail(o.err)
			sum.errors++
			status = 2
			return
		case !o.r.Allowed:
			sum.refused++
			if status == 0 {
				status = 1
			}
		default:
			sum.accepted++
		}
		if !quiet || !o.r.NotChecked && !o.r.Allowed || w.all() {
			w.write(o.r)
		}
	}, checkOptions{uncheckedJSON: true, read: reg.read, idle: w.flush, input: heap.input, files: reg.inputFiles})
	w.flush()
	for _, err := range reg.unreadable {
		// A --crds document that could not be read may have been the CRD
		// of a document that found none: then it is an error; else no
		// object needed it, and it is a warning.
		if sum.unserved > 0 {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
			continue
		}
		fmt.Fprintf(stderr, "crdkit: warning: %v (not a CRD any object needed)\n", err)
	}
	for _, err := range reg.unusedRefusals() {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		w.fail(err)
		status = 2
	}
	progress.done()
	w.close()
	sum.took = time.Since(start)
	fmt.Fprintln(stderr, sum.String())
	return status
}

// summary counts validate's results for its last line on standard error.
type summary struct {
	accepted, refused, notChecked, errors, files int
	unserved                                     int  // documents no CRD serves
	skipped, rejected                            int  // --skip, --reject
	kinds                                        bool // either given: the line counts them
	took                                         time.Duration
}

func (s summary) String() string {
	took := s.took.Round(time.Millisecond)
	if s.accepted+s.refused+s.notChecked+s.errors+s.skipped+s.rejected == 0 {
		return fmt.Sprintf("crdkit: nothing checked: no object documents in %s (%v)", plural(s.files, "file"), took)
	}
	kinds := ""
	if s.kinds {
		kinds = fmt.Sprintf(", %d skipped, %d rejected", s.skipped, s.rejected)
	}
	return fmt.Sprintf("crdkit: %s checked (%d accepted, %d refused), %d not checked%s, %s, in %s (%v)",
		plural(s.accepted+s.refused, "object"), s.accepted, s.refused, s.notChecked, kinds, plural(s.errors, "error"), plural(s.files, "file"), took)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// outcome is one document's result, or why there is none.
type outcome struct {
	r   objectResult
	err error
}

// chunkOutcome is what one document of a file gives: the outcomes of its
// objects (one, none for a CRD, one per item for a List), and whether it
// counts in the file's indexes (an empty document does not).
type chunkOutcome struct {
	file   string
	outs   []outcome
	counts bool
}

// checkAll runs check on every object document of the inputs, on workers
// goroutines (YAML conversion included), the items of Lists (documents for
// which isList holds) one by one, and hands the outcomes to emit in input
// order as they become ready. Files are read one at a time and a bounded
// number of documents are in flight, so memory stays flat in the number of
// documents. A document's Index counts the non-empty documents before it in
// its file, CRDs included; the items of a List share its Index. Read
// errors set *status to 2. It returns the number of files.
func checkAll(inputs []string, workers int, stderr io.Writer, status *int, isList func(apiVersion, kind string) bool, check func(docs.Doc) outcome, emit func(outcome)) int {
	return checkAllWith(inputs, workers, stderr, status, isList, check, emit, checkOptions{})
}

// checkOptions change checkAllWith.
type checkOptions struct {
	// uncheckedJSON: see checkAllWith.
	uncheckedJSON bool
	// read reads an input (docs.ReadFile when nil).
	read func(path string) ([]byte, error)
	// idle is called, on the goroutine that calls emit, whenever the next
	// outcome is not ready yet (to flush buffered output).
	idle func()
	// input, when not nil, is told the size of each input read, before
	// its documents are checked.
	input func(size int)
	// files, when not nil, is docs.Files(inputs), listed already.
	files []docs.File
}

// A batch of documents for checkAllWith's workers ends at batchDocs
// documents or once it holds batchBytes of input: large enough that the
// hand-offs are a small part of a batch's time, small enough that a few
// large documents still spread over the workers.
const (
	batchDocs  = 32
	batchBytes = 16 << 10
)

// idleAfter is how long checkAllWith's printer waits for the next outcome
// before it calls checkOptions.idle.
const idleAfter = 20 * time.Millisecond

// checkAllWith is checkAll with opts; with uncheckedJSON, a document that starts
// with "{" is handed to check as it is, without checking that it is JSON
// (docs.Chunk.ConvertUnchecked), and checked again from what
// docs.Chunk.Convert gives when any of its outcomes is an error or not
// allowed and Convert gives other bytes: an accepted object was valid
// JSON, so it is what Convert would have given. check must then be free
// of side effects (validate's is).
func checkAllWith(inputs []string, workers int, stderr io.Writer, status *int, isList func(apiVersion, kind string) bool, check func(docs.Doc) outcome, emit func(outcome), opts checkOptions) int {
	uncheckedJSON := opts.uncheckedJSON
	idle := opts.idle
	if idle == nil {
		idle = func() {}
	}
	read := opts.read
	if read == nil {
		read = docs.ReadFile
	}
	files, err := opts.files, error(nil)
	if files == nil {
		files, err = docs.Files(inputs)
	}
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		*status = 2
		return 0
	}
	// Documents go to the workers in batches (several small files, or
	// a slice of a long stream), so that a worker's hand-offs (a job in,
	// its outcomes out, the printer woken) are paid once per batch: paid
	// per document, they left a third of the second core idle.
	type job struct {
		cs   []docs.Chunk
		done chan []chunkOutcome
	}
	jobs := make(chan job, workers)
	pending := make(chan chan []chunkOutcome, 4*workers) // in input order; bounds documents in flight
	one := func(c docs.Chunk) chunkOutcome {
		var js []byte
		var warnings []string
		var unchecked bool
		var err error
		if uncheckedJSON {
			js, warnings, unchecked, err = c.ConvertUnchecked()
		} else {
			js, warnings, err = c.Convert()
		}
		if unchecked {
			d := docs.Doc{File: c.File, Line: c.Line, JSON: js}
			outs := checkDoc(d, isList, check)
			if !slices.ContainsFunc(outs, func(o outcome) bool { return o.err != nil || !o.r.Allowed }) {
				return chunkOutcome{file: c.File, outs: outs, counts: true}
			}
			js2, w2, err2 := c.Convert()
			if err2 == nil && bytes.Equal(js2, js) && len(w2) == 0 {
				return chunkOutcome{file: c.File, outs: outs, counts: true}
			}
			js, warnings, err = js2, w2, err2
		}
		switch {
		case err != nil:
			return chunkOutcome{file: c.File, outs: []outcome{{r: objectResult{File: c.File}, err: err}}, counts: true}
		case js == nil:
			return chunkOutcome{}
		default:
			d := docs.Doc{File: c.File, Line: c.Line, JSON: js, Warnings: warnings}
			return chunkOutcome{file: c.File, outs: checkDoc(d, isList, check), counts: true}
		}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				cos := make([]chunkOutcome, len(j.cs))
				for i, c := range j.cs {
					cos[i] = one(c)
				}
				j.done <- cos
			}
		}()
	}
	printed := make(chan struct{})
	go func() {
		defer close(printed)
		index := map[string]int{}
		// idle is called when the next outcome has not come for a while
		// (a slow document, or a slow input), not each time it is not
		// ready at once: with one worker the printer is nearly always
		// ahead, and output written at every wait would cost a system
		// call per document.
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		for {
			var done chan []chunkOutcome
			var ok bool
			select {
			case done, ok = <-pending:
			default:
				timer.Reset(idleAfter)
				select {
				case done, ok = <-pending:
				case <-timer.C:
					idle()
					done, ok = <-pending
				}
				timer.Stop()
			}
			if !ok {
				break
			}
			var cos []chunkOutcome
			select {
			case cos = <-done:
			default:
				timer.Reset(idleAfter)
				select {
				case cos = <-done:
				case <-timer.C:
					idle()
					cos = <-done
				}
				timer.Stop()
			}
			for _, co := range cos {
				if !co.counts {
					continue
				}
				i := index[co.file]
				index[co.file]++
				for _, o := range co.outs {
					o.r.Index = i
					emit(o)
				}
			}
		}
	}()
	var batch []docs.Chunk
	size := 0
	flush := func() {
		if len(batch) == 0 {
			return
		}
		done := make(chan []chunkOutcome, 1)
		pending <- done
		jobs <- job{batch, done}
		batch, size = nil, 0
	}
	send := func(o outcome) {
		flush()
		done := make(chan []chunkOutcome, 1)
		done <- []chunkOutcome{{outs: []outcome{o}, counts: true}}
		pending <- done
	}
	for _, f := range files {
		data, err := read(f.Path)
		if err != nil {
			send(outcome{err: err})
			continue
		}
		if opts.input != nil {
			opts.input(len(data))
		}
		chunks, err := docs.Chunks(f.Path, data)
		if err != nil {
			send(outcome{err: err})
			continue
		}
		for _, c := range chunks {
			batch = append(batch, c)
			size += len(c.Text)
			if len(batch) == batchDocs || size >= batchBytes {
				flush()
			}
		}
	}
	flush()
	close(jobs)
	close(pending)
	wg.Wait()
	<-printed
	return len(files)
}

// checkDoc checks one document: nothing for a CRD, each item of a List
// (CRDs among them left out), else the document.
func checkDoc(d docs.Doc, isList func(apiVersion, kind string) bool, check func(docs.Doc) outcome) []outcome {
	ds := []docs.Doc{d}
	items, ok, err := docs.Items(d, isList)
	if ok {
		ds = items
	}
	var outs []outcome
	for _, d := range ds {
		if _, ok := isCRD(d.JSON); ok {
			continue
		}
		outs = append(outs, check(d))
	}
	if err != nil {
		outs = append(outs, outcome{r: objectResult{File: d.File}, err: err})
	}
	return outs
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
	// builtins checks documents of Kubernetes' own kinds (built on first
	// use); nil: they are not checked.
	builtins func() *builtin.Checker
}

// validateBuiltin answers for a document of a built-in kind what the
// server's decoder and metadata checks answer (see builtin.Check); the
// kind's own validation is not run, and the result says so.
func validateBuiltin(c *builtin.Checker, d docs.Doc, r objectResult, opts crdkit.CreateOptions) objectResult {
	r.Checks = builtin.Checks
	res := c.Check(d.JSON, r.APIVersion, r.Kind, builtin.Options{FieldValidation: string(opts.FieldValidation), Namespace: opts.Namespace})
	st := res.Status()
	r.Warnings = res.Warnings
	if len(d.Warnings) > 0 && opts.FieldValidation != crdkit.Ignore && !(st != nil && st.Code == http.StatusBadRequest && strings.Contains(st.Message, " cannot be handled as a ")) {
		r.Warnings = append(append([]string{}, d.Warnings...), res.Warnings...)
	}
	if st != nil {
		r.Code, r.Reason, r.Message = st.Code, string(st.Reason), st.Message
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				r.Causes = append(r.Causes, cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
			}
		}
		r.note = builtinNote(r.Kind)
		return r
	}
	r.Allowed, r.Namespace, r.Name = true, res.Namespace, res.Name
	r.Message = builtinNote(r.Kind)
	return r
}

// builtinNote says what a built-in kind's result covers.
func builtinNote(kind string) string {
	return fmt.Sprintf("decode-level checks only: the server's decoding (unknown, duplicate and mistyped fields) and metadata checks; its own validation of the %s is not run", kind)
}

// validateDoc answers for one object document what a dry-run create with
// opts answers, or a dry-run update when it has a live counterpart.
func validateDoc(reg *registry, d docs.Doc, vopts validateOptions) (objectResult, error) {
	var tm typeMeta
	tb, fast := scanTypeMetaBytes(d.JSON)
	if fast {
		tm = reg.typeMeta(tb)
	} else {
		tm = decodeTypeMeta(d.JSON)
	}
	r, err := validateTyped(reg, d, vopts, tm)
	if fast && (err != nil || !r.Allowed) {
		// The scan does not check the JSON: a document that is not
		// (which is refused) is named as encoding/json names it.
		if slow := decodeTypeMeta(d.JSON); slow != tm {
			return validateTyped(reg, d, vopts, slow)
		}
	}
	return r, err
}

// typeMeta is what validate reads of a document before checking it.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// decodeTypeMeta reads a document's type meta as encoding/json does (keys
// matched without regard to case; nothing on invalid JSON).
func decodeTypeMeta(js []byte) typeMeta {
	var tm typeMeta
	_ = json.Unmarshal(js, &tm)
	return tm
}

// validateTyped is validateDoc for a document of type meta tm.
func validateTyped(reg *registry, d docs.Doc, vopts validateOptions, tm typeMeta) (objectResult, error) {
	opts := vopts.create
	r := objectResult{File: d.File, Index: d.Index, Line: d.Line, Path: d.Path, Checked: true}
	r.APIVersion, r.Kind, r.Name, r.Namespace = tm.APIVersion, tm.Kind, tm.Metadata.Name, tm.Metadata.Namespace
	v, err := reg.version(tm.APIVersion, tm.Kind)
	if errors.Is(err, errNoCRD) && vopts.builtins != nil {
		c := vopts.builtins()
		if c.Serves(tm.APIVersion, tm.Kind) {
			return validateBuiltin(c, d, r, opts), nil
		}
		if served := c.Versions(groupOf(tm.APIVersion), tm.Kind); len(served) > 0 {
			// A built-in kind at a version the server no longer serves:
			// its 404, as client-go reports it (see unservedError).
			r.Checks = builtin.Checks
			r.Code, r.Reason, r.Message = http.StatusNotFound, string(metav1.StatusReasonNotFound), "the server could not find the requested resource"
			r.Causes = []cause{{Reason: string(metav1.CauseTypeUnexpectedServerResponse), Message: "404 page not found"}}
			r.note = fmt.Sprintf("Kubernetes 1.37 does not serve %s %s; it serves %s", tm.APIVersion, tm.Kind, strings.Join(served, ", "))
			return r, nil
		}
	}
	if errors.Is(err, errNoCRD) {
		r.Warnings = d.Warnings
		where := ""
		if d.Path != "" {
			where = d.Path + ": "
		}
		return r, &docs.Error{File: d.File, Line: d.Line, Err: fmt.Errorf("%s%w: apiVersion %q, kind %q (give its CRD with --crds)", where, errNoCRD, tm.APIVersion, tm.Kind)}
	}
	if err != nil {
		var unserved *unservedError
		if errors.As(err, &unserved) {
			// The server's CRD handler passes a request for a version the CRD
			// does not serve on to its 404 handler, which answers with the text
			// "404 page not found", not a Status; a client (client-go, and so
			// kubectl) reports it as this Status.
			r.Code, r.Reason, r.Message = http.StatusNotFound, string(metav1.StatusReasonNotFound), "the server could not find the requested resource"
			r.Causes = []cause{{Reason: string(metav1.CauseTypeUnexpectedServerResponse), Message: "404 page not found"}}
			r.note = unserved.hint()
			return r, nil
		}
		if d.Path != "" {
			err = fmt.Errorf("%s: %w", d.Location(), err)
		}
		return r, err
	}
	if opts.Namespace != "" && v.CRD().Namespaced() && r.Namespace == "" {
		r.Namespace = opts.Namespace
	}
	code := int32(201)
	var res crdkit.Result
	var old map[string]any
	if len(vopts.live) > 0 {
		old = vopts.live[liveKey(groupOf(tm.APIVersion), tm.Kind, serverNamespace(v, r.Namespace), r.Name)]
	}
	if old != nil {
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
	var st *metav1.Status
	if res.Err != nil {
		st = res.Status()
	}
	r.Warnings = res.Warnings
	if st == nil || !(st.Code == http.StatusBadRequest && strings.Contains(st.Message, " cannot be handled as a ")) {
		// A body the decoder refuses gets no decoding warnings.
		r.Warnings = withYAMLWarnings(res.Warnings, d.Warnings, v, opts.FieldValidation)
	}
	if st != nil {
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

// withYAMLWarnings adds the YAML reader's warnings (duplicate keys) to the
// server's, where the server would put them for a YAML body: after the
// deprecation warning, before the other decoding warnings; none in Ignore
// mode, where the server ignores duplicates.
func withYAMLWarnings(server, yaml []string, v *crdkit.Version, mode crdkit.FieldValidation) []string {
	if len(yaml) == 0 || mode == crdkit.Ignore {
		return server
	}
	at := 0
	if dw := v.DeprecationWarning(); dw != "" && len(server) > 0 && server[0] == dw {
		at = 1
	}
	out := make([]string, 0, len(server)+len(yaml))
	out = append(out, server[:at]...)
	out = append(out, yaml...)
	return append(out, server[at:]...)
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
