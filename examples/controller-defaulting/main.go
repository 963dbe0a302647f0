// Command controller-defaulting shows why a controller defaults its
// desired objects client-side before comparing them with live state: the
// API server defaulted the live object, so a desired object without the
// defaults always looks changed, and the controller would send an update
// on every pass. crdkit.DefaultTyped applies the CRD's own defaults to the
// controller's typed object, after which only real differences remain.
//
//	go run ./examples/controller-defaulting
//
// The live object is what the server returns for the desired one (crdkit's
// dry-run create stands in for the server), or the JSON object in --live
// (as kubectl get -o json prints it).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"

	"github.com/crdkit/crdkit"
)

// CronTab is the controller's typed view of the CronTab custom resource.
type CronTab struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Metadata   Meta        `json:"metadata"`
	Spec       CronTabSpec `json:"spec"`
}

// Meta is the part of the metadata the controller sets.
type Meta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// CronTabSpec is the spec; Replicas has a default in the CRD.
type CronTabSpec struct {
	CronSpec string `json:"cronSpec"`
	Image    string `json:"image"`
	Replicas *int64 `json:"replicas,omitempty"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "controller-defaulting:", err)
		os.Exit(1)
	}
}

// desired is what the controller computes on each pass.
func desired() *CronTab {
	return &CronTab{APIVersion: "stable.example.com/v1", Kind: "CronTab",
		Metadata: Meta{Name: "nightly-backup", Namespace: "default"},
		Spec:     CronTabSpec{CronSpec: "0 3 * * *", Image: "backup:1.4"}}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("controller-defaulting", flag.ContinueOnError)
	crdFile := fs.String("crd", "examples/crontab/crd.yaml", "the CronTab CRD")
	liveFile := fs.String("live", "", "the live object, as JSON (default: the server's answer for the desired object)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	data, err := os.ReadFile(*crdFile)
	if err != nil {
		return err
	}
	crd, err := crdkit.Load(data)
	if err != nil {
		return err
	}
	v := crd.Version("v1")
	if v == nil {
		return errors.New("the CRD has no version v1")
	}
	var live map[string]any
	if *liveFile != "" {
		raw, err := os.ReadFile(*liveFile)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &live); err != nil {
			return fmt.Errorf("%s: %w", *liveFile, err)
		}
	} else {
		obj, err := toMap(desired())
		if err != nil {
			return err
		}
		res := v.Create(obj, crdkit.CreateOptions{ManagedFields: crdkit.ManagedFields{Omit: true}})
		if res.Err != nil {
			return fmt.Errorf("the server would refuse the desired object: %w", res.Err)
		}
		live = res.Object
	}

	d := desired()
	before, err := differences(d, live)
	if err != nil {
		return err
	}
	report(out, "without defaulting", before)
	if err := crdkit.DefaultTyped(v, d); err != nil {
		return err
	}
	after, err := differences(d, live)
	if err != nil {
		return err
	}
	report(out, "after crdkit.DefaultTyped", after)
	return nil
}

func report(out io.Writer, when string, diffs []string) {
	if len(diffs) == 0 {
		fmt.Fprintf(out, "%s: no difference, nothing to update\n", when)
		return
	}
	fmt.Fprintf(out, "%s: %d differences, the controller would update:\n", when, len(diffs))
	for _, d := range diffs {
		fmt.Fprintln(out, "  "+d)
	}
}

// toMap encodes v and decodes it with encoding/json, so that desired and
// live objects compare with the same number types.
func toMap(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(raw, &m)
}

// differences lists the fields the controller owns (apiVersion, kind, the
// metadata it sets, and spec) where desired and live differ.
func differences(desired *CronTab, live map[string]any) ([]string, error) {
	d, err := toMap(desired)
	if err != nil {
		return nil, err
	}
	l, err := toMap(live)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, k := range []string{"apiVersion", "kind", "spec"} {
		out = diff(out, k, d[k], l[k])
	}
	dm, _ := d["metadata"].(map[string]any)
	lm, _ := l["metadata"].(map[string]any)
	for _, k := range []string{"name", "namespace"} {
		out = diff(out, "metadata."+k, dm[k], lm[k])
	}
	return out, nil
}

func diff(out []string, path string, a, b any) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		var keys []string
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = diff(out, path+"."+k, am[k], bm[k])
		}
		return out
	}
	if !reflect.DeepEqual(a, b) {
		out = append(out, fmt.Sprintf("%s: desired %s, live %s", path, show(a), show(b)))
	}
	return out
}

func show(v any) string {
	if v == nil {
		return "(unset)"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
