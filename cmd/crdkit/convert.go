package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conversion"
	"github.com/crdkit/crdkit/internal/docs"
)

const convertHelp = `usage: crdkit convert --crds CRDS --to VERSION [--resource PLURAL.GROUP] [-o json|yaml]
                      [--webhook-url URL] [--webhook-ca FILE] FILE...

Reads objects as stored (what etcd holds, for example from a backup), at any
version their CRD defines, and prints what a GET at VERSION returns: the
object decoded as the server decodes storage (malformed metadata dropped,
the stored version's defaults), converted with the CRD's strategy, pruned
and coerced with VERSION's schema; uid, creationTimestamp, resourceVersion
and managedFields left out, generation kept. Where the server cannot
return the object, allowed is false with its code, reason and message
(404 for a version that is not served, 500 for a stored object it cannot
decode or convert). A CRD with strategy Webhook has its webhook called:
its clientConfig.url, or --webhook-url, with its caBundle or --webhook-ca.
Lists (kubectl get -o yaml) are read item by item; the output format is
validate's (docs/output.md), the causes of a 500 included.

Each object is read with the CRD that defines its apiVersion's group and
its kind. The server reads whatever is stored under a resource's keys, an
object of another kind or group too: --resource PLURAL.GROUP (the CRD's
name) reads every object as stored under that CRD's resource, and answers
as the server does for it.

Exit status: 0 when every object converts, 1 when any does not, 2 on usage
or load errors.

Examples:
  crdkit convert --crds examples/conversion-webhook/crd.yaml --to v1 stored.yaml
  kubectl get things -A -o yaml | crdkit convert --crds crd.yaml --to v2 -o yaml -
`

func convertCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("convert", convertHelp)
	var crdPaths listFlag
	fs.Var(&crdPaths, "crds", "a CRD file or directory (repeatable)")
	to := fs.String("to", "", "the version to read the objects at, e.g. v2")
	out := fs.String("o", "json", "output format: json or yaml")
	hookURL := fs.String("webhook-url", "", "call this URL instead of the CRDs' conversion webhook clientConfig")
	hookCA := fs.String("webhook-ca", "", "a PEM file of the CA that signed the webhook's certificate (instead of the caBundle)")
	resource := fs.String("resource", "", "read every object as stored under this CRD's resource (PLURAL.GROUP, the CRD's name), whatever its apiVersion and kind say, as the server reads what is at a key")
	paths, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	switch {
	case len(paths) == 0:
		return fs.usageError(stderr, "no FILE, DIR or - given")
	case len(crdPaths) == 0:
		return fs.usageError(stderr, "--crds is required")
	case *to == "":
		return fs.usageError(stderr, "--to is required")
	case !oneOf(*out, "json", "yaml"):
		return fs.usageError(stderr, "-o must be json or yaml, not %q", *out)
	}
	var wo conversion.WebhookOptions
	wo.URL = *hookURL
	if *hookCA != "" {
		ca, err := os.ReadFile(*hookCA)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			return 2
		}
		wo.CABundle = ca
	}
	crds, status := loadStoredCRDs(crdPaths, wo, stderr)
	var under *storedCRD // --resource
	if *resource != "" {
		var names []string
		for _, s := range crds {
			if s.crd.Name() == *resource {
				under = &s
			}
			names = append(names, s.crd.Name())
		}
		if under == nil {
			slices.Sort(names)
			defined := "none is a CRD"
			if len(names) > 0 {
				defined = "they define: " + strings.Join(names, ", ")
			}
			fmt.Fprintf(stderr, "crdkit: --resource %s: no CRD of that name among --crds (%s)\n", *resource, defined)
			return 2
		}
	}
	files, err := docs.Files(paths)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	rw := newResultWriter(stdout, *out)
	for _, f := range files {
		ds, err := docs.Read(f.Path)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
		}
		isList := func(apiVersion, kind string) bool {
			base, ok := strings.CutSuffix(kind, "List")
			_, defined := crds[runtimeschema.GroupKind{Group: groupOf(apiVersion), Kind: base}]
			return kind == "List" || ok && defined
		}
		for _, d := range expandLists(ds, isList, stderr, &status) {
			r, err := convertDoc(crds, under, d, *to)
			if err != nil {
				fmt.Fprintf(stderr, "crdkit: %s: %v\n", d.Location(), err)
				status = 2
				continue
			}
			if !r.Allowed && status == 0 {
				status = 1
			}
			rw.write(r)
		}
	}
	rw.close()
	return status
}

// expandLists replaces each List among ds (documents for which isList
// holds) with its items; an error sets *status to 2.
func expandLists(ds []docs.Doc, isList func(apiVersion, kind string) bool, stderr io.Writer, status *int) []docs.Doc {
	var out []docs.Doc
	for _, d := range ds {
		items, ok, err := docs.Items(d, isList)
		if !ok {
			out = append(out, d)
			continue
		}
		out = append(out, items...)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			*status = 2
		}
	}
	return out
}

// storedCRD is a CRD and its webhook client, if any.
type storedCRD struct {
	crd     *crdkit.CRD
	webhook *conversion.Webhook
}

// loadStoredCRDs compiles every CRD under paths, by group and kind.
func loadStoredCRDs(paths []string, wo conversion.WebhookOptions, stderr io.Writer) (map[runtimeschema.GroupKind]storedCRD, int) {
	out := map[runtimeschema.GroupKind]storedCRD{}
	status := 0
	files, err := docs.Files(paths)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return out, 2
	}
	for _, f := range files {
		ds, err := docs.Read(f.Path)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
		}
		for _, d := range expandLists(ds, isCRDList, stderr, &status) {
			if _, ok := isCRD(d.JSON); !ok {
				continue
			}
			c, err := crdkit.Load(d.JSON)
			if err != nil {
				fmt.Fprintf(stderr, "crdkit: %s: the API server would refuse this CRD: %v\n", d.Location(), err)
				status = 2
				continue
			}
			s := storedCRD{crd: c}
			if def := c.Definition(); def.Spec.Conversion != nil && def.Spec.Conversion.Strategy == "Webhook" {
				if s.webhook, err = conversion.NewWebhook(def, wo); err != nil {
					fmt.Fprintf(stderr, "crdkit: %s: %v\n", d.Location(), err)
					status = 2
					continue
				}
			}
			out[runtimeschema.GroupKind{Group: c.Group(), Kind: c.Kind()}] = s
		}
	}
	return out, status
}

// convertDoc reads one stored document at version to, with the CRD under
// when not nil (--resource), else with the CRD of its group and kind.
func convertDoc(crds map[runtimeschema.GroupKind]storedCRD, under *storedCRD, d docs.Doc, to string) (objectResult, error) {
	var head struct {
		APIVersion any `json:"apiVersion"`
		Kind       any `json:"kind"`
		Metadata   struct {
			Name      any `json:"name"`
			Namespace any `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(d.JSON, &head)
	r := objectResult{File: d.File, Index: d.Index, Line: d.Line, Path: d.Path, Checked: true}
	r.APIVersion, _ = head.APIVersion.(string)
	r.Kind, _ = head.Kind.(string)
	r.Name, _ = head.Metadata.Name.(string)
	r.Namespace, _ = head.Metadata.Namespace.(string)
	gv, _ := runtimeschema.ParseGroupVersion(r.APIVersion)
	s, ok := crds[runtimeschema.GroupKind{Group: gv.Group, Kind: r.Kind}]
	if under != nil {
		s, ok = *under, true
	}
	if !ok {
		return r, fmt.Errorf("no CRD defines apiVersion %q, kind %q (if it is stored under a CRD's resource, give --resource PLURAL.GROUP)", r.APIVersion, r.Kind)
	}
	v := s.crd.Version(to)
	if v == nil {
		return r, fmt.Errorf("CRD %s has no version %s", s.crd.Name(), to)
	}
	obj, err := v.ReadJSON(d.JSON, crdkit.ReadOptions{ConvertOptions: crdkit.ConvertOptions{Webhook: s.webhook}})
	if err != nil {
		var st apierrors.APIStatus
		if !errors.As(err, &st) {
			return r, err
		}
		status := st.Status()
		r.Code, r.Reason, r.Message = status.Code, string(status.Reason), status.Message
		if status.Details != nil {
			for _, c := range status.Details.Causes {
				r.Causes = append(r.Causes, cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
			}
		}
		return r, nil
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		for _, k := range []string{"uid", "creationTimestamp", "resourceVersion", "managedFields"} {
			delete(md, k)
		}
	}
	r.Allowed, r.Code, r.Object = true, 200, obj
	return r, nil
}
