package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/docs"
	"github.com/crdkit/crdkit/openapi"
)

const openapiHelp = `usage: crdkit openapi --openapi-version 3 --group-version GROUP/VERSION [-o json|yaml] CRD-FILE|DIR...
       crdkit openapi --openapi-version 2 [-o json|yaml] CRD-FILE|DIR...

Prints the OpenAPI the API server publishes for these CRDs once they are
established:

  --openapi-version 3   the document at /openapi/v3/apis/GROUP/VERSION: paths
                        of every operation of the CRDs that serve GROUP/VERSION,
                        their schemas and the built-in ones they reference
                        (ObjectMeta, Status, ...), under components.schemas.
  --openapi-version 2   {"paths":{...},"definitions":{...},"parameters":{...}}:
                        the CRDs' part of /openapi/v2 for every served version.
                        v2 cannot express nullable, anyOf/allOf/oneOf/not or
                        int-or-string, so those are dropped as the server drops
                        them, and defaults are removed; built-in definitions are
                        referenced by $ref, not included.

Only served versions are published. Every CRD must be one the server accepts
(see "crdkit lint").

Exit status: 0 when printed, 1 when no CRD serves GROUP/VERSION (the server
answers 404), 2 on usage or load errors.

Examples:
  crdkit openapi --openapi-version 3 --group-version stable.example.com/v1 crontab.yaml
  crdkit openapi --openapi-version 2 crds/
`

func openapiCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("openapi", openapiHelp)
	version := fs.String("openapi-version", "", "2 or 3")
	gv := fs.String("group-version", "", "GROUP/VERSION of the v3 document")
	out := fs.String("o", "json", "output format: json or yaml")
	rest, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	switch {
	case len(rest) == 0:
		return fs.usageError(stderr, "no CRD-FILE or DIR given")
	case !oneOf(*out, "json", "yaml"):
		return fs.usageError(stderr, "-o must be json or yaml, not %q", *out)
	case !oneOf(*version, "2", "3"):
		return fs.usageError(stderr, "--openapi-version must be 2 or 3")
	}
	group, ver, ok := strings.Cut(*gv, "/")
	if *version == "3" && (!ok || ver == "" || strings.Contains(ver, "/")) {
		fmt.Fprintf(stderr, "crdkit: --group-version %q: want GROUP/VERSION\n", *gv)
		return 2
	}
	if *version == "2" && *gv != "" {
		fmt.Fprintln(stderr, "crdkit: --group-version is for --openapi-version 3 only")
		return 2
	}
	crds, status := loadCRDs(rest, stderr)
	if status != 0 {
		return status
	}
	var doc any
	if *version == "3" {
		d, err := openapi.BuildV3(crds, group, ver)
		if errors.Is(err, openapi.ErrNotFound) {
			fmt.Fprintf(stderr, "crdkit: no CRD serves %s/%s\n", group, ver)
			return 1
		}
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			return 2
		}
		doc = d
	} else {
		d, err := openapi.BuildV2(crds)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			return 2
		}
		doc = d
	}
	if *out == "yaml" {
		bs, err := yaml.Marshal(doc)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			return 2
		}
		_, _ = stdout.Write(bs)
		return 0
	}
	writeJSON(stdout, doc)
	return 0
}

// loadCRDs reads every CRD document of the files and directories, as the
// server stores them (v1 defaults applied). A document that is not a CRD, or
// a CRD the server refuses, is a load error (status 2).
func loadCRDs(paths []string, stderr io.Writer) ([]*apiextensionsv1.CustomResourceDefinition, int) {
	files, err := docs.Files(paths)
	if err != nil {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		return nil, 2
	}
	status := 0
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		ds, err := docs.Read(f.Path)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
		}
		for _, d := range ds {
			crd, err := crdkit.Load(d.JSON)
			switch {
			case errors.Is(err, crdkit.ErrNotCRD):
				if f.Explicit {
					fmt.Fprintf(stderr, "crdkit: %s:%d: %v\n", d.File, d.Line, err)
					status = 2
				}
			case err != nil:
				fmt.Fprintf(stderr, "crdkit: %s:%d: the API server would refuse this CRD: %v\n", d.File, d.Line, err)
				status = 2
			default:
				crds = append(crds, crd.Definition())
			}
		}
	}
	if status == 0 && len(crds) == 0 {
		fmt.Fprintf(stderr, "crdkit: no CustomResourceDefinition in %s\n", strings.Join(paths, " "))
		status = 2
	}
	return crds, status
}
