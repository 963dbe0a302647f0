package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/docs"
	"github.com/crdkit/crdkit/printcolumns"
)

// get prints the tables the server would return for the objects, one table
// per kind and version, as kubectl get does.
func get(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("get", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var crds listFlag
	fs.Var(&crds, "crds", "a CRD file or directory (repeatable); CRDs among the inputs are used too")
	out := fs.String("o", "", "output format: empty (kubectl's table), wide, or json (the metav1.Table)")
	ns := namespaceFlag(fs)
	var labelSel, fieldSel string
	const lUsage = "a label selector, as kubectl get -l: only the objects whose labels match, e.g. app=web,tier!=db or 'env in (prod,dev)'; the server's 400 message when it does not parse"
	fs.StringVar(&labelSel, "l", "", lUsage)
	fs.StringVar(&labelSel, "selector", "", "the same as -l")
	fs.StringVar(&fieldSel, "field-selector", "", "a field selector, as kubectl get --field-selector: metadata.name, metadata.namespace and the version's selectableFields, e.g. spec.color=red,metadata.name!=x; any other field is the server's 400 'field label not supported'")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crdkit get [--crds FILE|DIR]... [-n NAMESPACE] [-l SELECTOR] [--field-selector SELECTOR] [-o wide|json] FILE|DIR...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || (*out != "" && *out != "wide" && *out != "json") {
		fs.Usage()
		return 2
	}
	reg, status := loadRegistry(crds, fs.Args(), stderr)
	defer reg.close()
	opts := crdkit.CreateOptions{FieldValidation: crdkit.Ignore, Namespace: *ns}

	type group struct {
		v    *crdkit.Version
		objs []map[string]any
	}
	now := time.Now().UTC()
	var order []*crdkit.Version
	groups := map[*crdkit.Version]*group{}
	checkAll(fs.Args(), runtime.GOMAXPROCS(0), stderr, &status, func(d docs.Doc) outcome {
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
			fmt.Fprintf(stderr, "crdkit: %s#%d: the API server would refuse this object: %s\n", r.File, r.Index, r.Message)
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
