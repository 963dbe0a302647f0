package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conversion"
	"github.com/crdkit/crdkit/internal/docs"
	"github.com/crdkit/crdkit/upgrade"
)

const upgradeUsage = `usage: crdkit upgrade --old LIVE-CRD --new NEW-CRD [--objects FILE|DIR]... [-o text|json]
                      [--webhook-url URL] [--webhook-ca FILE] [--round-trips N]

Reports what updating a CRD from its live revision to a new one does,
before you apply it:

  - the server's answer to the update itself (200, or its 422 with the
    causes: a scope or kind changed, a stored version removed, ...), with
    the warnings it sends;
  - the changes between the revisions, version by version and field by
    field (removed fields, types, enums, bounds, patterns, formats,
    defaults, required fields, rules, list and map types, nullable,
    preserve-unknown-fields, served, deprecated, storage), each marked
    BREAKING when objects the server accepted before may be refused or lose
    data;
  - with --objects (objects as etcd stores them, or as kubectl get -o json
    prints them, one per document or as a List), for each object under the
    new revision: the fields a GET prunes and the defaults it adds, whether
    a no-op update is accepted, the fields only ratcheting keeps (their
    next change is refused; a change is tried and its answer shown), and
    whether a create of the same content is refused;
  - when the new revision converts through a webhook: N objects generated
    at each served version (valid there) created there while every other
    served version is the storage version, as the server makes the round
    trip: converted by the webhook, pruned and stored, read back with the
    storage version's defaults, converted back and pruned, each call one
    ConversionReview checked as the server checks it; every field that
    does not come back as it was created (lost or changed), and the
    objects the webhook fails, with the server's message. The webhook is called at its
    clientConfig.url, or --webhook-url, with its caBundle or --webhook-ca;
    --round-trips 0 calls nothing.

LIVE-CRD is the CRD as kubectl get crd NAME -o yaml prints it, or the
manifest of the installed revision (then taken as the server holds it once
established). Exit status: 0 when nothing breaks, 1 when anything does
(the update refused, a breaking change, an object that breaks, a lossy
or failing conversion round trip), 2 on usage
or load errors.

Examples:
  crdkit upgrade --old examples/crd-upgrade/live.yaml --new examples/crd-upgrade/next.yaml
  crdkit upgrade --old live.yaml --new next.yaml --objects stored/ -o json
  crdkit upgrade --old live.yaml --new next.yaml --webhook-url https://localhost:9443/convert --webhook-ca ca.pem
`

func upgradeCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("upgrade", upgradeUsage)
	out := fs.String("o", "text", "output format: text or json")
	oldPath := fs.String("old", "", "the live CRD (file)")
	newPath := fs.String("new", "", "the new revision of the CRD (file)")
	var objects listFlag
	fs.Var(&objects, "objects", "stored objects of the CRD (file or directory, repeatable)")
	hookURL := fs.String("webhook-url", "", "call this URL instead of the new revision's conversion webhook clientConfig")
	hookCA := fs.String("webhook-ca", "", "a PEM file of the CA that signed the webhook's certificate (instead of the caBundle)")
	trips := fs.Int("round-trips", 10, "objects generated per served version for the conversion round trips (0: none)")
	paths, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	switch {
	case *oldPath == "" || *newPath == "":
		return fs.usageError(stderr, "--old and --new are both required")
	case len(paths) > 0:
		return fs.usageError(stderr, "unexpected argument %q (the objects go after --objects)", paths[0])
	case !oneOf(*out, "text", "json"):
		return fs.usageError(stderr, "-o must be text or json, not %q", *out)
	case *trips < 0:
		return fs.usageError(stderr, "--round-trips must be 0 or more, not %d", *trips)
	}
	var opts upgrade.Options
	if *trips > 0 {
		wo := &conversion.WebhookOptions{URL: *hookURL}
		if *hookCA != "" {
			ca, err := os.ReadFile(*hookCA)
			if err != nil {
				fmt.Fprintf(stderr, "crdkit: --webhook-ca: %v\n", err)
				return 2
			}
			wo.CABundle = ca
		}
		opts = upgrade.Options{Webhook: wo, RoundTripObjects: *trips}
	}
	live, err := readOneCRD(*oldPath)
	if err == nil {
		live, err = crdkit.Installed(live)
	}
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: --old: %v\n", err)
		return 2
	}
	next, err := readOneCRD(*newPath)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: --new: %v\n", err)
		return 2
	}
	if next.Name != live.Name {
		fmt.Fprintf(stderr, "crdkit: --new names %s, --old %s: not two revisions of one CRD\n", next.Name, live.Name)
		return 2
	}
	if next.ResourceVersion == "" {
		next.ResourceVersion = live.ResourceVersion
	}
	objs, err := readObjects(objects, live)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: --objects: %v\n", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, err := upgrade.CheckWith(ctx, live, next, objs, opts)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	status = 0
	if r.Breaks() {
		status = 1
	}
	if *out == "json" {
		writeJSON(stdout, r)
		return status
	}
	printUpgrade(stdout, r)
	return status
}

// readOneCRD reads the one CRD document of a file.
func readOneCRD(path string) (*apiextensionsv1.CustomResourceDefinition, error) {
	ds, err := docs.Read(path)
	if err != nil {
		return nil, err
	}
	var found *apiextensionsv1.CustomResourceDefinition
	for _, d := range ds {
		crd, _, err := crdkit.DecodeCRD(d.JSON)
		if errors.Is(err, crdkit.ErrNotCRD) {
			continue
		}
		if err != nil {
			return nil, &docs.Error{File: d.File, Line: d.Line, Err: err}
		}
		if found != nil {
			return nil, fmt.Errorf("%s holds more than one CRD", path)
		}
		found = crd
	}
	if found == nil {
		return nil, fmt.Errorf("%s holds no CustomResourceDefinition", path)
	}
	return found, nil
}

// readObjects reads the objects of the CRD from the --objects paths,
// leaving out documents of other kinds.
func readObjects(paths []string, crd *apiextensionsv1.CustomResourceDefinition) ([]map[string]any, error) {
	var out []map[string]any
	if len(paths) == 0 {
		return out, nil
	}
	files, err := docs.Files(paths)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		ds, err := docs.Read(f.Path)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			var obj map[string]any
			if err := kjson.UnmarshalCaseSensitivePreserveInts(d.JSON, &obj); err != nil || obj == nil {
				return nil, &docs.Error{File: d.File, Line: d.Line, Err: fmt.Errorf("not an object: %v", err)}
			}
			items := []any{obj}
			if k, _ := obj["kind"].(string); strings.HasSuffix(k, "List") {
				if l, ok := obj["items"].([]any); ok {
					items = l
				}
			}
			for _, it := range items {
				o, ok := it.(map[string]any)
				if !ok {
					continue
				}
				av, _ := o["apiVersion"].(string)
				if k, _ := o["kind"].(string); k == crd.Spec.Names.Kind && groupOf(av) == crd.Spec.Group {
					out = append(out, o)
				}
			}
		}
	}
	return out, nil
}

func printUpgrade(w io.Writer, r *upgrade.Report) {
	for _, x := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", x)
	}
	if r.Update.Allowed {
		fmt.Fprintf(w, "CRD %s: update accepted (200)\n", r.CRD)
	} else {
		fmt.Fprintf(w, "CRD %s: update refused (%d %s)\n", r.CRD, r.Update.Code, r.Update.Reason)
		if len(r.Update.Causes) == 0 {
			fmt.Fprintf(w, "  %s\n", r.Update.Message)
		}
		for _, c := range r.Update.Causes {
			fmt.Fprintf(w, "  %s: %s\n", c.Field, c.Message)
		}
	}
	if len(r.Changes) > 0 {
		fmt.Fprintln(w, "changes:")
	}
	version := "\x00"
	for _, c := range r.Changes {
		if c.Version != version {
			version = c.Version
			if version == "" {
				fmt.Fprintln(w, "  CRD:")
			} else {
				fmt.Fprintf(w, "  version %s:\n", version)
			}
		}
		mark := "safe    "
		if c.Breaking {
			mark = "BREAKING"
		}
		fmt.Fprintf(w, "    %s %s\n", mark, c)
	}
	if len(r.Objects) > 0 {
		fmt.Fprintln(w, "objects:")
	}
	for _, o := range r.Objects {
		name := o.Name
		if o.Namespace != "" {
			name = o.Namespace + "/" + name
		}
		mark := "ok      "
		if o.Breaks || o.Error != "" {
			mark = "BREAKS  "
		}
		fmt.Fprintf(w, "  %s %s %s (%s)\n", mark, o.Kind, name, o.Version)
		if o.Error != "" {
			fmt.Fprintf(w, "    not checked: %s\n", o.Error)
			continue
		}
		if len(o.Pruned) > 0 {
			fmt.Fprintf(w, "    a GET prunes %s (lost at the next write)\n", strings.Join(o.Pruned, ", "))
		}
		if len(o.Defaulted) > 0 {
			fmt.Fprintf(w, "    a GET adds %s (defaults)\n", strings.Join(o.Defaulted, ", "))
		}
		printVerdict(w, "a no-op update", o.NoOpUpdate)
		for _, rt := range o.Ratcheted {
			fmt.Fprintf(w, "    ratcheted: %s is kept only while unchanged (%s)\n", rt.Field, rt.Message)
			if rt.ChangeVerdict != nil {
				printVerdict(w, "      changing it to "+rt.Change, *rt.ChangeVerdict)
			}
		}
		printVerdict(w, "a create of the same content", o.Create)
	}
	if len(r.RoundTrips) > 0 {
		fmt.Fprintln(w, "conversion round trips:")
	}
	for _, t := range r.RoundTrips {
		mark := "ok      "
		if t.Breaks() {
			mark = "BREAKS  "
		}
		fmt.Fprintf(w, "  %s %s -> %s -> %s (%d generated objects)\n", mark, t.From, t.Via, t.From, t.Objects)
		if t.Error != "" {
			fmt.Fprintf(w, "    %d of %d objects failed; the first: %s\n", t.Failed, t.Objects, t.Error)
		}
		if len(t.Lost) > 0 {
			fmt.Fprintf(w, "    lost: %s\n", strings.Join(t.Lost, ", "))
		}
		if len(t.Changed) > 0 {
			fmt.Fprintf(w, "    changed: %s\n", strings.Join(t.Changed, ", "))
		}
	}
	if r.RoundTripNote != "" {
		fmt.Fprintf(w, "note: %s\n", r.RoundTripNote)
	}
	s := r.Summary
	fmt.Fprintf(w, "summary: update %s; %d changes, %d breaking; %d objects, %d break (%d pruned on read, %d refused on update, %d refused on create, %d with ratcheted fields, %d not checked)\n",
		map[bool]string{true: "refused", false: "accepted"}[s.UpdateRefused], s.Changes, s.BreakingChanges,
		s.Objects, s.ObjectsBreaking, s.Pruned, s.UpdateRefusedFor, s.CreateRefusedFor, s.RatchetedFor, s.Unchecked)
	if s.RoundTrips > 0 {
		fmt.Fprintf(w, "summary: %d conversion round trips, %d lossy or failing\n", s.RoundTrips, s.RoundTripsLossy)
	}
}

func printVerdict(w io.Writer, what string, v upgrade.Verdict) {
	if strings.HasPrefix(what, " ") {
		what = strings.TrimLeft(what, " ")
		fmt.Fprint(w, "      ")
	} else {
		fmt.Fprint(w, "    ")
	}
	if v.Allowed {
		fmt.Fprintf(w, "%s is accepted (%d)\n", what, v.Code)
		return
	}
	fmt.Fprintf(w, "%s is refused (%d %s)\n", what, v.Code, v.Reason)
	for _, c := range v.Causes {
		fmt.Fprintf(w, "        %s: %s\n", c.Field, c.Message)
	}
	if len(v.Causes) == 0 && v.Message != "" {
		fmt.Fprintf(w, "        %s\n", v.Message)
	}
}
