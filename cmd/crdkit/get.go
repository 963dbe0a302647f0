package main

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/docs"
	"github.com/crdkit/crdkit/printcolumns"
)

const getHelp = `usage: crdkit get [--crds FILE|DIR]... [-n NAMESPACE] [-l SELECTOR]
                  [--field-selector SELECTOR] [-o wide|json] FILE|DIR|-...

Prints what "kubectl get" prints for these objects once created: the table
the server returns (the CRD's additionalPrinterColumns, or NAME and AGE),
one table per kind and version, in kubectl's layout. Each object is first
created as "crdkit validate" creates it (dry run, fieldValidation Ignore),
so defaults show; an object the server would refuse is reported on standard
error instead. Lists are shown item by item. AGE counts from now.

-l (--selector) and --field-selector keep the objects the server's list
would return for them, in its order: label selectors as kubectl's -l,
field selectors on metadata.name, metadata.namespace and the version's
selectableFields. A selector the server refuses is its 400 message and
exit status 2; "No resources found" when nothing matches.

-o wide adds the columns of priority above 0, as kubectl get -o wide; -o
json prints the server's meta.k8s.io/v1 Table (what it returns for
Accept: application/json;as=Table;v=v1;g=meta.k8s.io), or
{"tables":[...]} for several kinds.

Exit status: 0 when printed, 1 when an object is refused, 2 on usage or load
errors.

Examples:
  crdkit get examples/crontab/
  crdkit get -n prod -o wide examples/crontab/
  crdkit get -l 'app in (web,api)' --field-selector metadata.name!=old examples/crontab/
  kubectl get crontabs -A -o yaml | crdkit get --crds crds/ -
`

// get prints the tables the server would return for the objects, one table
// per kind and version, as kubectl get does.
func get(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("get", getHelp)
	var crds listFlag
	fs.Var(&crds, "crds", "a CRD file or directory (repeatable); CRDs among the inputs are used too")
	out := fs.String("o", "", "output format: empty (kubectl's table), wide, or json (the metav1.Table)")
	ns := namespaceFlag(fs.FlagSet)
	var labelSel, fieldSel string
	const lUsage = "a label selector, as kubectl get -l: only the objects whose labels match, e.g. app=web,tier!=db or 'env in (prod,dev)'; the server's 400 message when it does not parse"
	fs.StringVar(&labelSel, "l", "", lUsage)
	fs.StringVar(&labelSel, "selector", "", "the same as -l")
	fs.StringVar(&fieldSel, "field-selector", "", "a field selector, as kubectl get --field-selector: metadata.name, metadata.namespace and the version's selectableFields, e.g. spec.color=red,metadata.name!=x; any other field is the server's 400 'field label not supported'")
	openCache := cacheFlag(fs)
	paths, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(paths) == 0 {
		return fs.usageError(stderr, "no FILE, DIR or - given")
	}
	if !oneOf(*out, "", "wide", "json") {
		return fs.usageError(stderr, "-o must be wide or json, not %q", *out)
	}
	reg, status := loadRegistry(crds, paths, stderr, openCache())
	defer reg.close()
	opts := crdkit.CreateOptions{FieldValidation: crdkit.Ignore, Namespace: *ns, ManagedFields: crdkit.ManagedFields{Omit: true}}

	type group struct {
		v    *crdkit.Version
		objs []map[string]any
	}
	now := time.Now().UTC()
	var order []*crdkit.Version
	groups := map[*crdkit.Version]*group{}
	checkAll(paths, runtime.GOMAXPROCS(0), stderr, &status, reg.isList, func(d docs.Doc) outcome {
		r, err := validateDoc(reg, d, validateOptions{create: opts})
		return outcome{r: r, err: err}
	}, func(o outcome) {
		r, err := o.r, o.err
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
			return
		}
		if !r.Allowed {
			fmt.Fprintf(stderr, "crdkit: %s: the API server would refuse this object: %s\n", r.location(), r.Message)
			if status == 0 {
				status = 1
			}
			return
		}
		v, _ := reg.version(r.APIVersion, r.Kind)
		g := groups[v]
		if g == nil {
			g = &group{v: v}
			groups[v] = g
			order = append(order, v)
		}
		// The server stamps every stored object; a dry run leaves that out.
		if md, ok := r.Object["metadata"].(map[string]any); ok {
			if _, set := md["creationTimestamp"]; !set {
				md["creationTimestamp"] = now.Format(time.RFC3339)
			}
		}
		g.objs = append(g.objs, r.Object)
	})
	for _, err := range reg.unusedRefusals() {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		status = 2
	}
	var tables []any
	if labelSel != "" || fieldSel != "" {
		// As the server's list: the objects the selectors match, in its
		// order; a selector it refuses is refused for every kind.
		shown := order[:0]
		for _, v := range order {
			objs, err := v.List(groups[v].objs, crdkit.ListOptions{LabelSelector: labelSel, FieldSelector: fieldSel})
			if err != nil {
				fmt.Fprintf(stderr, "crdkit: %s %s/%s: %v\n", v.CRD().Kind(), v.CRD().Group(), v.Name(), err)
				status = 2
				continue
			}
			if groups[v].objs = objs; len(objs) > 0 || *out == "json" {
				shown = append(shown, v)
			}
		}
		if order = shown; len(order) == 0 && status != 2 {
			fmt.Fprintln(stderr, "No resources found")
		}
	}
	for i, v := range order {
		t, err := v.Table(groups[v].objs, printcolumns.TableOptions{})
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
			continue
		}
		t.APIVersion, t.Kind = "meta.k8s.io/v1", "Table"
		if *out == "json" {
			tables = append(tables, t)
			continue
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		opts := printcolumns.PrintOptions{Wide: *out == "wide", WithNamespace: v.CRD().Namespaced() && spansNamespaces(groups[v].objs)}
		if err := printcolumns.Print(stdout, t, opts); err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
		}
	}
	if *out == "json" {
		if len(tables) == 1 {
			writeJSON(stdout, tables[0])
		} else {
			writeJSON(stdout, map[string]any{"tables": nonNil(tables)})
		}
	}
	return status
}

// spansNamespaces reports whether the objects live in more than one
// namespace, when kubectl would show a NAMESPACE column (-A).
func spansNamespaces(objs []map[string]any) bool {
	seen := ""
	for _, o := range objs {
		md, _ := o["metadata"].(map[string]any)
		ns, _ := md["namespace"].(string)
		if seen != "" && ns != seen {
			return true
		}
		seen = ns
	}
	return false
}
