// Command crdkit answers, offline, what the Kubernetes API server would say
// about CustomResourceDefinitions and the objects they serve.
//
//	crdkit lint [-o text|json|junit|tap|sarif|github] [--old LIVE]... FILE|DIR...
//	crdkit validate [--crds FILE|DIR]... [--field-validation M] [--skip|--reject KIND,...] [-o text|json|yaml|junit|tap|sarif|github] FILE|DIR...
//	crdkit get [--crds FILE|DIR]... [-o wide|json] FILE|DIR...
//	crdkit versions [-o text|json] CRD-FILE
//	crdkit openapi --openapi-version 2|3 [--group-version G/V] [-o json|yaml] CRD-FILE...
//	crdkit explain --crds CRDS RESOURCE[.FIELD...] [--api-version G/V] [--recursive]
//	crdkit convert --crds CRDS --to VERSION [--resource PLURAL.GROUP] [-o json|yaml] FILE...
//	crdkit upgrade --old LIVE-CRD --new NEW-CRD [--objects FILE|DIR]... [-o text|json]
//	crdkit bench [--crds FILE|DIR]... FILE|DIR...
//	crdkit version
//
// Run "crdkit COMMAND --help" for a command's description and flags.
// Exit status: 0 when everything is accepted, 1 when anything is refused,
// 2 on usage or load errors.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strings"
)

// command is one crdkit command. A new command is one entry in commands
// and a function that parses its arguments with newFlags and parse.
type command struct {
	name    string
	summary string // one line in crdkit --help
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is filled in init: the version command lists them too.
var commands []command

func init() {
	commands = []command{
		{"lint", "check CustomResourceDefinitions as the API server does on create (on update with --old)", lint},
		{"validate", "check objects against their CRDs as a dry-run create (or update) would", validate},
		{"get", "print the printer-column table the server returns for objects", get},
		{"versions", "list a CRD's versions in priority order", versions},
		{"openapi", "print the OpenAPI v3 or v2 the server publishes for CRDs", openapiCmd},
		{"explain", "print what kubectl explain prints for a custom resource", explainCmd},
		{"convert", "read stored objects at another version, as a GET would return them", convertCmd},
		{"apply", "answer a server-side apply (dry run): the merged object and its managedFields, or the 409", applyCmd},
		{"patch", "answer a JSON or merge patch of a live object (dry run)", patchCmd},
		{"diff", "print what kubectl diff --server-side prints for manifests over live objects", diffCmd},
		{"upgrade", "what updating a CRD to a new revision does to it and to its stored objects", upgradeCmd},
		{"bench", "measure crdkit's throughput on your objects, step by step", bench},
		{"version", "print crdkit's version and the API server version it follows", versionCmd},
	}
}

func usage() string {
	var b strings.Builder
	b.WriteString(`crdkit answers, offline, what the Kubernetes API server would say about
CustomResourceDefinitions and the objects they serve: the same verdict, the
same warnings and the same error text, byte for byte.

usage: crdkit COMMAND [flags] FILE|DIR...

commands:
`)
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
	}
	b.WriteString(`
Run "crdkit COMMAND --help" for a command's description, flags and examples.
Flags may come before or after the files, as kubectl takes them.

Exit status: 0 when everything checked is accepted, 1 when anything is
refused, 2 on usage or load errors.

Examples:
  crdkit lint examples/
  crdkit validate --crds crds/ manifests/
  kubectl get crontabs -A -o yaml | crdkit validate --crds crds/ -
`)
	return b.String()
}

func main() {
	if os.Getenv("CRDKIT_MEMPROFILE") == "" {
		// No allocation sampling (1 in 512 KiB by default): its stack
		// records cost 1-2% of a validate run, and the first write to each
		// of its hash buckets a TLB flush on the other core.
		runtime.MemProfileRate = 0
	}
	startHeap()
	if p := os.Getenv("CRDKIT_CPUPROFILE"); p != "" {
		// A CPU profile of the run, for go tool pprof (BENCHMARKS.md).
		if f, err := os.Create(p); err == nil && pprof.StartCPUProfile(f) == nil {
			code := run(os.Args[1:], os.Stdout, os.Stderr)
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
	}
	if p := os.Getenv("CRDKIT_MEMPROFILE"); p != "" {
		// A heap profile at the end of the run, for go tool pprof: what
		// stays live (BENCHMARKS.md).
		code := run(os.Args[1:], os.Stdout, os.Stderr)
		if f, err := os.Create(p); err == nil {
			runtime.GC()
			pprof.WriteHeapProfile(f)
			f.Close()
		}
		os.Exit(code)
	}
	if p := os.Getenv("CRDKIT_TRACE"); p != "" {
		// An execution trace of the run, for go tool trace: where the
		// cores wait (BENCHMARKS.md).
		if f, err := os.Create(p); err == nil && trace.Start(f) == nil {
			code := run(os.Args[1:], os.Stdout, os.Stderr)
			trace.Stop()
			f.Close()
			os.Exit(code)
		}
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		if len(args) > 1 && args[0] == "help" {
			return run([]string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage())
		return 0
	case "--version", "-version":
		return versionCmd(args[1:], stdout, stderr)
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "crdkit: unknown command %q\n\n%s", args[0], usage())
	return 2
}
