package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

const versionHelp = `usage: crdkit version [-o text|json]
       crdkit --version

Prints crdkit's version (the module version, or "(devel)" for a build from
a clone, with the commit it was built from when the build recorded it) and
the version of k8s.io/apiextensions-apiserver whose behaviour it follows.
`

// versionInfo is what version prints.
type buildVersion struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	APIServer string `json:"apiextensionsApiserver"`
	Go        string `json:"go"`
	Platform  string `json:"platform"`
}

func versionCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", versionHelp)
	out := fs.String("o", "text", "output format: text or json")
	rest, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(rest) > 0 {
		return fs.usageError(stderr, "takes no arguments")
	}
	if !oneOf(*out, "text", "json") {
		return fs.usageError(stderr, "-o must be text or json, not %q", *out)
	}
	v := buildVersion{Version: "(devel)", APIServer: "unknown", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/apiextensions-apiserver" {
				v.APIServer = d.Version
			}
		}
	}
	if *out == "json" {
		writeJSON(stdout, v)
		return 0
	}
	line := "crdkit " + v.Version
	if v.Commit != "" {
		line += " " + v.Commit[:min(12, len(v.Commit))]
		if v.Modified {
			line += " (modified)"
		}
	}
	fmt.Fprintf(stdout, "%s\nfollows k8s.io/apiextensions-apiserver %s\n%s %s\n", line, v.APIServer, v.Go, v.Platform)
	return 0
}
