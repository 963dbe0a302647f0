// Command crdkit answers, offline, what the Kubernetes API server would say
// about CustomResourceDefinitions and the objects they serve.
//
//	crdkit lint [-o text|json] [--old LIVE]... FILE|DIR...
//	crdkit validate [--crds FILE|DIR]... [--field-validation M] [-o text|json|yaml] FILE|DIR...
//	crdkit get [--crds FILE|DIR]... [-o wide|json] FILE|DIR...
//	crdkit versions [-o text|json] CRD-FILE
//	crdkit openapi --openapi-version 2|3 [--group-version G/V] [-o json|yaml] CRD-FILE...
//	crdkit explain --crds CRDS RESOURCE[.FIELD...] [--api-version G/V] [--recursive]
//	crdkit convert --crds CRDS --to VERSION [-o json|yaml] FILE...
//	crdkit upgrade --old LIVE-CRD --new NEW-CRD [--objects FILE|DIR]... [-o text|json]
//
// Exit status: 0 when everything is accepted, 1 when anything is refused,
// 2 on usage or load errors.
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage: crdkit <command> [flags] FILE|DIR...

commands:
  lint      check CustomResourceDefinitions as the API server does on create,
            or on update of the live CRDs with --old
  validate  check objects against their CRDs as a dry-run create would
  get       print the printer-column table the server returns for objects
  versions  list a CRD's versions in priority order
  openapi   print the OpenAPI v3 or v2 the server publishes for CRDs
  explain   print what kubectl explain prints for a custom resource
  convert   read stored objects at another version, as a GET would return them
  bench     measure crdkit's throughput on your objects, step by step
  upgrade   what updating a CRD to a new revision does to it and its objects

Run "crdkit <command> -h" for the flags of a command.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "lint":
		return lint(args[1:], stdout, stderr)
	case "validate":
		return validate(args[1:], stdout, stderr)
	case "get":
		return get(args[1:], stdout, stderr)
	case "versions":
		return versions(args[1:], stdout, stderr)
	case "bench":
		return bench(args[1:], stdout, stderr)
	case "openapi":
		return openapiCmd(args[1:], stdout, stderr)
	case "explain":
		return explainCmd(args[1:], stdout, stderr)
	case "convert":
		return convertCmd(args[1:], stdout, stderr)
	case "upgrade":
		return upgradeCmd(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "crdkit: unknown command %q\n\n%s", args[0], usage)
	return 2
}
