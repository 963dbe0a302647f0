package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdkit/crdkit/internal/explain"
)

const explainHelp = `usage: crdkit explain --crds CRD-FILE|DIR [--crds ...] RESOURCE[.FIELD...] [--api-version GROUP/VERSION] [--recursive]

Prints what "kubectl explain" prints for a custom resource, without a
cluster: kubectl's own explain package renders the OpenAPI v3 document that
"crdkit openapi" builds for the CRDs.

RESOURCE is a CRD's plural, singular, kind or short name, optionally with its
group (crontabs.stable.example.com); FIELD... walks into the schema
(crontab.spec.cronSpec). Without --api-version the CRD's highest-priority
served version is explained, as kubectl picks the preferred version.

Exit status: 0 when printed, 1 when the resource or field is not found,
2 on usage or load errors.

Examples:
  crdkit explain --crds crontab.yaml crontabs
  crdkit explain --crds crds/ crontab.spec --recursive
  crdkit explain --crds crds/ ct --api-version stable.example.com/v1beta1
`

func explainCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explain", explainHelp)
	var crdPaths listFlag
	fs.Var(&crdPaths, "crds", "a CRD file or directory (repeatable)")
	apiVersion := fs.String("api-version", "", "GROUP/VERSION of the resource to explain")
	recursive := fs.Bool("recursive", false, "print the fields of fields, all the way down")
	rest, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	switch {
	case len(rest) != 1:
		return fs.usageError(stderr, "want one RESOURCE[.FIELD...], got %d arguments", len(rest))
	case len(crdPaths) == 0:
		return fs.usageError(stderr, "--crds is required")
	}
	var gv schema.GroupVersion
	if *apiVersion != "" {
		var err error
		if gv, err = schema.ParseGroupVersion(*apiVersion); err != nil {
			fmt.Fprintf(stderr, "crdkit: --api-version: %v\n", err)
			return 2
		}
	}
	crds, status := loadCRDs(crdPaths, stderr)
	if status != 0 {
		return status
	}
	if err := explain.Resource(stdout, crds, rest[0], gv, *recursive); err != nil {
		msg := errorText(err)
		if !strings.HasPrefix(msg, "error: ") {
			msg = "error: " + msg
		}
		fmt.Fprintln(stderr, msg)
		return 1
	}
	return 0
}

// errorText words a resource the CRDs do not serve as kubectl does.
func errorText(err error) string {
	var nm *meta.NoResourceMatchError
	if !errors.As(err, &nm) {
		return err.Error()
	}
	r := nm.PartialResource
	switch {
	case r.Group != "" && r.Version != "":
		return fmt.Sprintf("the server doesn't have a resource type %q in group %q and version %q", r.Resource, r.Group, r.Version)
	case r.Group != "":
		return fmt.Sprintf("the server doesn't have a resource type %q in group %q", r.Resource, r.Group)
	case r.Version != "":
		return fmt.Sprintf("the server doesn't have a resource type %q in version %q", r.Resource, r.Version)
	}
	return fmt.Sprintf("the server doesn't have a resource type %q", r.Resource)
}
