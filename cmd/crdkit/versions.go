package main

import (
	"flag"
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

func versions(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("versions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "text", "output format: text or json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crdkit versions [-o text|json] CRD-FILE")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || (*out != "text" && *out != "json") {
		fs.Usage()
		return 2
	}
	ds, err := docs.Read(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return 2
	}
	if len(ds) != 1 {
		fmt.Fprintf(stderr, "crdkit: %s: want exactly one CRD document, found %d\n", fs.Arg(0), len(ds))
		return 2
	}
	crd, err := crdkit.Load(ds[0].JSON)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %s: %v\n", fs.Arg(0), err)
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
