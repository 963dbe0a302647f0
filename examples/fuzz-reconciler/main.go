// Command fuzz-reconciler is a small CronTab reconciler with the fuzz test
// every reconciler deserves: generate.FromBytes turns the fuzzer's bytes
// into valid CronTabs of the real CRD, crdkit's dry-run create turns each
// into what the API server would hand the reconciler (defaults applied),
// and the test checks the reconciler's plan for every one.
//
//	go test -fuzz FuzzReconcile -fuzztime 30s ./examples/fuzz-reconciler
//
// Run as a program, it prints the plans of a few generated CronTabs:
//
//	go run ./examples/fuzz-reconciler
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/generate"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fuzz-reconciler:", err)
		os.Exit(1)
	}
}

// harness is the CRD version and its generator.
type harness struct {
	v *crdkit.Version
	g *generate.Generator
}

func newHarness(crdFile string) (*harness, error) {
	data, err := os.ReadFile(crdFile)
	if err != nil {
		return nil, err
	}
	crd, err := crdkit.Load(data)
	if err != nil {
		return nil, err
	}
	v := crd.Version("v1")
	if v == nil {
		return nil, errors.New("the CRD has no version v1")
	}
	g, err := generate.ForVersion(v, generate.Options{})
	if err != nil {
		return nil, err
	}
	return &harness{v: v, g: g}, nil
}

// live is the object the API server would return for a create of the
// object FromBytes makes of data.
func (h *harness) live(data []byte) (map[string]any, error) {
	res := h.v.Create(h.g.FromBytes(data), crdkit.CreateOptions{ManagedFields: crdkit.ManagedFields{Omit: true}})
	if res.Err != nil {
		return nil, res.Err
	}
	return res.Object, nil
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("fuzz-reconciler", flag.ContinueOnError)
	crdFile := fs.String("crd", "examples/crontab/crd.yaml", "the CronTab CRD")
	n := fs.Int("n", 5, "how many CronTabs to generate")
	if err := fs.Parse(args); err != nil {
		return err
	}
	h, err := newHarness(*crdFile)
	if err != nil {
		return err
	}
	for i := 0; i < *n; i++ {
		obj, err := h.live([]byte(fmt.Sprintf("input %d", i)))
		if err != nil {
			return err
		}
		p, err := Reconcile(obj)
		if err != nil {
			return err
		}
		sched := "suspended"
		if p.Schedule != nil {
			sched = strings.Join(p.Schedule, " ")
		}
		fmt.Fprintf(out, "crontab %d: schedule %q, image %q, %d workers\n", i, sched, p.Image, len(p.Workers))
	}
	return nil
}
