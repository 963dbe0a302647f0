// Command crd-upgrade checks a new revision of a CRD against the live one
// and the objects the cluster stores, before the revision is applied: the
// server's answer to the CRD update, the changes between the revisions,
// and, for each object, what a GET, an update and a create do under the new
// revision. It is what crdkit upgrade prints, as a library call:
//
//	go run ./examples/crd-upgrade live.yaml next.yaml stored.yaml
package main

import (
	"fmt"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/upgrade"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: crd-upgrade LIVE-CRD NEXT-CRD STORED-OBJECTS")
		os.Exit(2)
	}
	r, err := check(os.Args[1], os.Args[2], os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("update: %d\n", r.Update.Code)
	for _, c := range r.Changes {
		fmt.Printf("change: %s (breaking: %v)\n", c, c.Breaking)
	}
	for _, o := range r.Objects {
		fmt.Printf("%s: breaks %v, pruned %v, defaulted %v, create %d", o.Name, o.Breaks, o.Pruned, o.Defaulted, o.Create.Code)
		for _, rt := range o.Ratcheted {
			fmt.Printf(", ratcheted %s", rt.Field)
		}
		fmt.Println()
	}
	if r.Breaks() {
		os.Exit(1)
	}
}

// check reads the three files and reports.
func check(livePath, nextPath, storedPath string) (*upgrade.Report, error) {
	live, err := readCRD(livePath)
	if err != nil {
		return nil, err
	}
	if live, err = crdkit.Installed(live); err != nil {
		return nil, err
	}
	next, err := readCRD(nextPath)
	if err != nil {
		return nil, err
	}
	next.ResourceVersion = live.ResourceVersion
	data, err := os.ReadFile(storedPath)
	if err != nil {
		return nil, err
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := yaml.Unmarshal(data, &list); err != nil {
		return nil, err
	}
	return upgrade.Check(live, next, list.Items)
}

func readCRD(path string) (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	crd, _, err := crdkit.DecodeCRD(data)
	return crd, err
}
