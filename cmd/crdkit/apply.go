package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/docs"
	"github.com/crdkit/crdkit/internal/unidiff"
)

const applyHelp = `usage: crdkit apply --server-side [--field-manager NAME] [--force-conflicts] [--subresource status]
                    [--crds FILE|DIR]... [--old LIVE]... [-n NAMESPACE] [--field-validation Strict|Warn|Ignore]
                    [-q] [-o text|json|yaml] FILE|DIR|-...

Answers, for each object document, what "kubectl apply --server-side
--dry-run=server" gets from the API server: the object the server would
store (merged with the live object, defaulted, with metadata.managedFields
saying which manager owns which field), or its Status. A document whose live
counterpart is in LIVE (objects as kubectl get -o json|yaml prints them,
Lists too; matched as validate --old matches: API group, kind, name and the
namespace the server sees) is applied over it; one without is an apply that
creates the object (code 201).

Server-side apply merges by the schema: lists by x-kubernetes-list-type and
x-kubernetes-list-map-keys, maps by x-kubernetes-map-type. A field another
manager set to another value is a conflict: the server's 409, whose causes
name the field and the manager ("conflict with "kubectl-edit" using
stable.example.com/v1"); --force-conflicts takes the fields over. A field
this manager applied before and leaves out now is removed, unless another
manager owns it too. A field the CRD's schema does not declare (outside
x-kubernetes-preserve-unknown-fields) is the server's 500 "field not
declared in schema". --subresource status applies to /status, which keeps
only status.

The result's object keeps metadata.managedFields (the point of the
command), with the current time in the entries the apply touches; uid,
resourceVersion and creationTimestamp are left out, as validate leaves them.
-o json prints {"results":[...]} as validate does.

Exit status: 0 when every apply is accepted, 1 when any is refused
(conflicts included), 2 on usage or load errors.

Examples:
  crdkit apply --server-side --crds examples/crontab/crd.yaml examples/crontab/crontab.yaml -o yaml
  kubectl get crontabs -A -o json > live.json
  crdkit apply --server-side --field-manager argocd --crds crds/ --old live.json manifests/
`

const patchHelp = `usage: crdkit patch KIND/NAME (-p PATCH | --patch-file FILE) [--type json|merge] --old LIVE...
                    [--crds FILE|DIR]... [-n NAMESPACE] [--subresource status] [--field-manager NAME]
                    [--field-validation Strict|Warn|Ignore] [-o text|json|yaml]

Answers what "kubectl patch KIND/NAME --dry-run=server" gets from the API
server for the object NAME of the custom resource KIND (its kind, plural,
singular or a short name, optionally .GROUP), as it is in LIVE (objects as
kubectl get -o json|yaml prints them): the patched object as the server
would store it, with its managedFields, or the server's Status. The patch
goes to the CRD's preferred version (the first crdkit versions lists), as
kubectl sends it; the live object may be at another version.

--type merge is a JSON merge patch (RFC 7386), --type json a JSON patch
(RFC 6902, at most 10,000 operations). kubectl's default, strategic, is not
accepted for custom resources: the server's 415, which crdkit gives too.
The patched object then goes through the server's update: pruning,
defaults, validation with ratcheting, transition rules, generation.

Exit status: 0 when the patch is accepted, 1 when it is refused, 2 on usage
or load errors.

Examples:
  crdkit patch crontab/nightly --type merge -p '{"spec":{"replicas":3}}' --crds crds/ --old live.json
  crdkit patch ct/nightly --type json -p '[{"op":"remove","path":"/spec/image"}]' --crds crds/ --old live.json
`

const diffHelp = `usage: crdkit diff [--crds FILE|DIR]... --old LIVE... [-n NAMESPACE] [--field-manager NAME]
                   [--force-conflicts=false] [--show-managed-fields] FILE|DIR|-...

Prints what "kubectl diff --server-side" prints: for each object document,
the unified diff between the live object (from LIVE, objects as kubectl get
-o json|yaml prints them) and what a server-side apply of the document
would store, both as YAML, managedFields left out unless
--show-managed-fields. An object without a live counterpart is diffed
against nothing (it would be created). As kubectl diff does, the apply
forces conflicts unless --force-conflicts=false. A document the server
would refuse is reported on standard error.

Exit status: 0 when nothing differs, 1 when anything differs, more than 1
when something fails (kubectl diff's statuses).

Example:
  kubectl get crontabs -A -o json > live.json
  crdkit diff --crds crds/ --old live.json manifests/
`

// applyFlags are the flags apply, patch and diff share.
type applyFlags struct {
	crds, old    listFlag
	ns           *string
	fv, manager  *string
	subresource  *string
	force, quiet bool
	openCache    func() *cache
}

func (a *applyFlags) register(fs *flags, manager string) {
	fs.Var(&a.crds, "crds", "a CRD file or directory (repeatable); CRDs among the inputs are used too")
	fs.Var(&a.old, "old", "live objects (a file or directory, repeatable; objects as kubectl get -o json|yaml prints them, Lists too)")
	a.ns = namespaceFlag(fs.FlagSet)
	a.fv = fs.String("field-validation", "Strict", "Strict, Warn or Ignore (the server's fieldValidation; Strict is kubectl's default)")
	a.manager = fs.String("field-manager", manager, "the field manager: who the server records as the owner of the fields set")
	a.subresource = fs.String("subresource", "", `"status" sends the request to the status subresource`)
	a.openCache = cacheFlag(fs)
}

func (a *applyFlags) check(fs *flags, stderr io.Writer) (crdkit.FieldValidation, int, bool) {
	mode := crdkit.FieldValidation(*a.fv)
	switch {
	case mode != crdkit.Ignore && mode != crdkit.Warn && mode != crdkit.Strict:
		return "", fs.usageError(stderr, "--field-validation must be Strict, Warn or Ignore, not %q", *a.fv), false
	case *a.subresource != "" && *a.subresource != "status":
		return "", fs.usageError(stderr, "--subresource must be status, not %q", *a.subresource), false
	}
	return mode, 0, true
}

func applyCmd(args []string, stdout, stderr io.Writer) int {
	start := time.Now()
	fs := newFlags("apply", applyHelp)
	var a applyFlags
	a.register(fs, "kubectl")
	serverSide := fs.Bool("server-side", false, "required: crdkit answers server-side apply only (client-side apply is kubectl's own three-way merge)")
	fs.BoolVar(&a.force, "force-conflicts", false, "take over the fields other managers own instead of the 409")
	fs.BoolVar(&a.quiet, "q", false, "print only the refused objects (and errors)")
	out := fs.String("o", "text", "output format: text, json or yaml")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "documents applied at once")
	paths, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	mode, status, ok := a.check(fs, stderr)
	if !ok {
		return status
	}
	switch {
	case !*serverSide:
		return fs.usageError(stderr, "--server-side is required: crdkit answers what the server does with a server-side apply; client-side apply is kubectl's own merge")
	case len(paths) == 0:
		return fs.usageError(stderr, "no FILE, DIR or - given")
	case !oneOf(*out, "text", "json", "yaml"):
		return fs.usageError(stderr, "-o must be text, json or yaml, not %q", *out)
	case *workers < 1:
		return fs.usageError(stderr, "--workers must be at least 1")
	}
	reg, status := loadRegistry(a.crds, paths, stderr, a.openCache())
	defer reg.close()
	live, err := loadLive(a.old)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	w := newResultWriter(stdout, *out)
	var sum summary
	sum.files = checkAll(paths, *workers, stderr, &status, reg.isList, func(d docs.Doc) outcome {
		r, _, err := applyDoc(reg, d, live, &a, mode)
		return outcome{r: r, err: err}
	}, func(o outcome) {
		switch {
		case errors.Is(o.err, errNoCRD):
			o.r.NotChecked, o.r.Checked = true, false
			o.r.Message = fmt.Sprintf("not applied: no CRD serves apiVersion %q, kind %q", o.r.APIVersion, o.r.Kind)
			sum.notChecked++
		case o.err != nil:
			fmt.Fprintf(stderr, "crdkit: %v\n", o.err)
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
		if !a.quiet || !o.r.NotChecked && !o.r.Allowed {
			w.write(o.r)
		}
	})
	w.close()
	sum.took = time.Since(start)
	fmt.Fprintln(stderr, sum.String())
	return status
}

// applyDoc answers what a dry-run server-side apply of the document
// answers over its live counterpart, or with none. It also returns the
// live object it applied over.
func applyDoc(reg *registry, d docs.Doc, live liveSet, a *applyFlags, mode crdkit.FieldValidation) (objectResult, map[string]any, error) {
	r, v, err := docVersion(reg, d)
	if err != nil || v == nil {
		return r, nil, err
	}
	ns := *a.ns
	if r.Namespace != "" {
		ns = r.Namespace
	}
	r.Namespace = serverNamespace(v, ns)
	old := live[liveKey(groupOf(r.APIVersion), r.Kind, r.Namespace, r.Name)]
	opts := crdkit.PatchOptions{FieldValidation: mode, Force: a.force, Subresource: *a.subresource,
		Namespace: r.Namespace, Name: r.Name, ManagedFields: crdkit.ManagedFields{FieldManager: *a.manager}}
	res := v.Apply(d.JSON, old, opts)
	if res.Err == nil && mode == crdkit.Strict && len(d.Warnings) > 0 {
		// The YAML had duplicate keys, which the document's JSON no longer
		// has: the server's strict decoding of the YAML body refuses it.
		res = crdkit.Result{Err: apierrors.NewBadRequest("error strict decoding patch: error converting YAML to JSON: yaml: unmarshal errors:\n  " + strings.Join(d.Warnings, "\n  "))}
	}
	st := res.Status()
	r.Warnings = res.Warnings
	if st == nil || st.Code != http.StatusBadRequest {
		r.Warnings = withYAMLWarnings(res.Warnings, d.Warnings, v, mode)
	}
	fillResult(&r, res, st)
	return r, old, nil
}

// docVersion reads a document's type meta and name and finds the version
// serving it: r is filled for the result, v is nil (and r a refusal) for a
// version the CRD does not serve.
func docVersion(reg *registry, d docs.Doc) (objectResult, *crdkit.Version, error) {
	r := objectResult{File: d.File, Index: d.Index, Path: d.Path, Checked: true}
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
		r.Warnings = d.Warnings
		return r, nil, &docs.Error{File: d.File, Line: d.Line, Err: fmt.Errorf("%w: apiVersion %q, kind %q (give its CRD with --crds)", errNoCRD, tm.APIVersion, tm.Kind)}
	}
	var unserved *unservedError
	if errors.As(err, &unserved) {
		r.Code, r.Reason, r.Message = http.StatusNotFound, string(metav1.StatusReasonNotFound), "the server could not find the requested resource"
		r.Causes = []cause{{Reason: string(metav1.CauseTypeUnexpectedServerResponse), Message: "404 page not found"}}
		r.note = unserved.hint()
		return r, nil, nil
	}
	if err != nil {
		return r, nil, err
	}
	return r, v, nil
}

// fillResult copies a crdkit result into an object result: the Status of
// a refusal, else the object with code 201 (created) or 200.
func fillResult(r *objectResult, res crdkit.Result, st *metav1.Status) {
	if st != nil {
		r.Code, r.Reason, r.Message = st.Code, string(st.Reason), st.Message
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				r.Causes = append(r.Causes, cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
			}
		}
		return
	}
	r.Allowed, r.Code, r.Object = true, http.StatusOK, res.Object
	if res.Created {
		r.Code = http.StatusCreated
	}
	if md, ok := res.Object["metadata"].(map[string]any); ok {
		r.Namespace, _ = md["namespace"].(string)
	}
}

func patchCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("patch", patchHelp)
	var a applyFlags
	a.register(fs, "kubectl-patch")
	typ := fs.String("type", "strategic", "json, merge or strategic (kubectl's default, which the server refuses for custom resources)")
	p := fs.String("p", "", "the patch")
	fs.StringVar(p, "patch", "", "the same as -p")
	patchFile := fs.String("patch-file", "", "a file holding the patch")
	out := fs.String("o", "text", "output format: text, json or yaml")
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	mode, status, ok := a.check(fs, stderr)
	if !ok {
		return status
	}
	types := map[string]crdkit.PatchType{"json": crdkit.JSONPatch, "merge": crdkit.MergePatch, "strategic": crdkit.StrategicMergePatch}
	pt, okType := types[*typ]
	switch {
	case len(args) != 1 || !strings.Contains(args[0], "/"):
		return fs.usageError(stderr, "give one KIND/NAME")
	case !okType:
		return fs.usageError(stderr, "--type must be json, merge or strategic, not %q", *typ)
	case (*p == "") == (*patchFile == ""):
		return fs.usageError(stderr, "give the patch with -p or --patch-file")
	case len(a.old) == 0:
		return fs.usageError(stderr, "--old is required: the live object to patch")
	case !oneOf(*out, "text", "json", "yaml"):
		return fs.usageError(stderr, "-o must be text, json or yaml, not %q", *out)
	}
	body := []byte(*p)
	if *patchFile != "" {
		b, err := os.ReadFile(*patchFile)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			return 2
		}
		body = b
	}
	if pt != crdkit.JSONPatch || len(strings.TrimSpace(string(body))) == 0 || strings.TrimSpace(string(body))[0] != '[' {
		// kubectl converts a YAML patch to JSON; JSON stays as it is.
		if js, err := yaml.YAMLToJSON(body); err == nil && !json.Valid(body) {
			body = js
		}
	}
	reg, status := loadRegistry(a.crds, nil, stderr, a.openCache())
	defer reg.close()
	if status != 0 {
		return status
	}
	live, err := loadLive(a.old)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	resource, name, _ := strings.Cut(args[0], "/")
	crd, err := reg.resource(resource)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	v := crd.Versions()[0]
	ns := ""
	if crd.Namespaced() {
		ns = *a.ns
		if ns == "" {
			ns = "default"
		}
	}
	old := live[liveKey(crd.Group(), crd.Kind(), ns, name)]
	r := objectResult{File: strings.Join(a.old, ","), APIVersion: crd.Group() + "/" + v.Name(), Kind: crd.Kind(), Namespace: ns, Name: name, Checked: true}
	res := v.Patch(pt, body, old, crdkit.PatchOptions{FieldValidation: mode, Subresource: *a.subresource, Namespace: ns, Name: name,
		ManagedFields: crdkit.ManagedFields{FieldManager: *a.manager}})
	r.Warnings = res.Warnings
	fillResult(&r, res, res.Status())
	w := newResultWriter(stdout, *out)
	w.write(r)
	w.close()
	if !r.Allowed {
		return 1
	}
	return 0
}

func diffCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("diff", diffHelp)
	var a applyFlags
	a.register(fs, "kubectl")
	fs.BoolVar(&a.force, "force-conflicts", true, "take over the fields other managers own (kubectl diff does)")
	showMF := fs.Bool("show-managed-fields", false, "keep metadata.managedFields in the diff")
	paths, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	mode, status, ok := a.check(fs, stderr)
	if !ok {
		return status
	}
	if len(paths) == 0 {
		return fs.usageError(stderr, "no FILE, DIR or - given")
	}
	reg, status := loadRegistry(a.crds, paths, stderr, a.openCache())
	defer reg.close()
	if status != 0 {
		return status
	}
	live, err := loadLive(a.old)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	differs := false
	checkAll(paths, 1, stderr, &status, reg.isList, func(d docs.Doc) outcome {
		r, old, err := applyDoc(reg, d, live, &a, mode)
		if err == nil && r.Allowed {
			id := fmt.Sprintf("%s.%s.%s", strings.ReplaceAll(r.APIVersion, "/", "."), r.Kind, r.Name)
			if r.Namespace != "" {
				id = fmt.Sprintf("%s.%s.%s.%s", strings.ReplaceAll(r.APIVersion, "/", "."), r.Kind, r.Namespace, r.Name)
			}
			from, to := diffView(old, *showMF), diffView(r.Object, *showMF)
			if d := unidiff.Diff("LIVE/"+id, "MERGED/"+id, from, to); d != "" {
				fmt.Fprintf(stdout, "diff -u -N LIVE/%s MERGED/%s\n%s", id, id, d)
				differs = true
			}
		}
		return outcome{r: r, err: err}
	}, func(o outcome) {
		switch {
		case errors.Is(o.err, errNoCRD):
			fmt.Fprintf(stderr, "crdkit: %v\n", o.err)
		case o.err != nil:
			fmt.Fprintf(stderr, "crdkit: %v\n", o.err)
			status = 2
		case !o.r.Allowed:
			fmt.Fprintf(stderr, "crdkit: %s %s: the server would refuse it (%d %s): %s\n", o.r.location(), o.r.Name, o.r.Code, o.r.Reason, o.r.Message)
			status = 2
		}
	})
	switch {
	case status != 0:
		return status
	case differs:
		return 1
	}
	return 0
}

// diffView is an object as kubectl diff shows it: YAML, without
// managedFields (unless kept), and without the fields only the server
// changes on its own from one write to the next.
func diffView(obj map[string]any, managedFields bool) string {
	if obj == nil {
		return ""
	}
	cp := make(map[string]any, len(obj))
	for k, v := range obj {
		cp[k] = v
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		m := make(map[string]any, len(md))
		for k, v := range md {
			switch k {
			case "managedFields":
				if managedFields {
					m[k] = v
				}
			case "resourceVersion", "uid", "creationTimestamp":
			default:
				m[k] = v
			}
		}
		cp["metadata"] = m
	}
	b, err := yaml.Marshal(cp)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
