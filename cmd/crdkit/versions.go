package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/docs"
)

type versionInfo struct {
	Name               string `json:"name"`
	Served             bool   `json:"served"`
	Storage            bool   `json:"storage"`
	Deprecated         bool   `json:"deprecated"`
	DeprecationWarning string `json:"deprecationWarning"`
}

const versionsHelp = `usage: crdkit versions [-o text|json] CRD-FILE

Lists the versions of one CRD in the order kubectl and discovery rank them
(the server's version priority: GA before beta before alpha, higher numbers
first, then the others alphabetically), with whether each is served, which
one is stored, and the warning the server sends with every request to a
deprecated version. kubectl uses the first served version when none is
named.

Exit status: 0 when printed, 2 on usage or load errors (a file that is not
exactly one CRD, or a CRD the server would refuse).

Examples:
  crdkit versions examples/crontab/crd.yaml
  crdkit versions -o json crd.yaml
`

func versions(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("versions", versionsHelp)
	out := fs.String("o", "text", "output format: text or json")
	paths, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(paths) != 1 {
		return fs.usageError(stderr, "want one CRD-FILE, got %d arguments", len(paths))
	}
	if !oneOf(*out, "text", "json") {
		return fs.usageError(stderr, "-o must be text or json, not %q", *out)
	}
	ds, err := docs.Read(paths[0])
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	if len(ds) != 1 {
		fmt.Fprintf(stderr, "crdkit: %s: want exactly one CRD document, found %d\n", paths[0], len(ds))
		return 2
	}
	crd, err := crdkit.Load(ds[0].JSON)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %s: %v\n", paths[0], err)
		return 2
	}
	var vs []versionInfo
	for _, v := range crd.Versions() {
		vs = append(vs, versionInfo{Name: v.Name(), Served: v.Served(), Storage: v.Storage(),
			Deprecated: v.Deprecated(), DeprecationWarning: v.DeprecationWarning()})
	}
	if *out == "json" {
		writeJSON(stdout, map[string]any{"versions": vs})
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSERVED\tSTORAGE\tDEPRECATED\tWARNING")
	for _, v := range vs {
		fmt.Fprintf(tw, "%s\t%t\t%t\t%t\t%s\n", v.Name, v.Served, v.Storage, v.Deprecated, v.DeprecationWarning)
	}
	tw.Flush()
	return 0
}
