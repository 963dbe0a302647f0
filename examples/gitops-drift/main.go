// Command gitops-drift is the drift check of a GitOps tool, offline: it
// applies a directory of manifests (server-side apply, as the tool's field
// manager) over a directory of live objects (kubectl get -o json output),
// and prints, for each manifest, what applying it would change, as kubectl
// diff shows it, and whose changes it would take over.
//
//	go run ./examples/gitops-drift
//	go run ./examples/gitops-drift --crd crd.yaml --manifests dir/ --live dir/ --field-manager argocd
//
// crdkit's Version.Apply answers what the API server's dry-run apply
// answers: the merged, defaulted object with its managed fields, or the
// 409 Conflict that names the managers whose fields the manifest would
// change. A GitOps tool applies with force (it owns the desired state), so
// the conflicts are reported and the object is then applied with force.
// The exit status is 1 when anything drifted.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/unidiff"
)

func main() {
	drifted, err := run(os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gitops-drift:", err)
		os.Exit(2)
	}
	if drifted {
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) (drifted bool, err error) {
	here := filepath.Join("examples", "gitops-drift")
	if _, err := os.Stat(here); err != nil {
		here = "."
	}
	fs := flag.NewFlagSet("gitops-drift", flag.ContinueOnError)
	crdPath := fs.String("crd", filepath.Join(here, "..", "crontab", "crd.yaml"), "the CRD")
	manifests := fs.String("manifests", filepath.Join(here, "manifests"), "directory of manifests (YAML)")
	liveDir := fs.String("live", filepath.Join(here, "live"), "directory of live objects (JSON, as kubectl get -o json prints them)")
	manager := fs.String("field-manager", "gitops", "the GitOps tool's field manager")
	if err := fs.Parse(args); err != nil {
		return false, err
	}
	data, err := os.ReadFile(*crdPath)
	if err != nil {
		return false, err
	}
	crd, err := crdkit.Load(data)
	if err != nil {
		return false, err
	}
	live, err := readLive(*liveDir)
	if err != nil {
		return false, err
	}
	docs, err := readManifests(*manifests)
	if err != nil {
		return false, err
	}
	for _, doc := range docs {
		var tm struct {
			APIVersion string `json:"apiVersion"`
			Metadata   struct{ Name, Namespace string }
		}
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return false, err
		}
		_, version, _ := strings.Cut(tm.APIVersion, "/")
		v := crd.Version(version)
		if v == nil {
			return false, fmt.Errorf("%s: the CRD does not serve %s", tm.Metadata.Name, tm.APIVersion)
		}
		key := tm.Metadata.Namespace + "/" + tm.Metadata.Name
		old := live[key]
		opts := crdkit.PatchOptions{FieldValidation: crdkit.Strict, ManagedFields: crdkit.ManagedFields{FieldManager: *manager}}
		res := v.Apply(doc, old, opts)
		var se *apierrors.StatusError
		if errors.As(res.Err, &se) && se.Status().Code == 409 {
			fmt.Fprintf(out, "%s: the manifest takes fields over from other managers:\n", key)
			for _, c := range se.Status().Details.Causes {
				fmt.Fprintf(out, "  %s (%s)\n", c.Field, strings.TrimPrefix(c.Message, "conflict with "))
			}
			opts.Force = true
			res = v.Apply(doc, old, opts)
		}
		if res.Err != nil {
			drifted = true
			fmt.Fprintf(out, "%s: the server would refuse the manifest: %v\n", key, res.Err)
			continue
		}
		from, to := view(old), view(res.Object)
		d := unidiff.Diff("LIVE/"+key, "MERGED/"+key, from, to)
		switch {
		case old == nil:
			drifted = true
			fmt.Fprintf(out, "%s: missing, applying creates it\n%s", key, d)
		case d != "":
			drifted = true
			fmt.Fprintf(out, "%s: drifted\n%s", key, d)
		default:
			fmt.Fprintf(out, "%s: in sync\n", key)
		}
	}
	return drifted, nil
}

// view is an object as kubectl diff shows it: YAML, without managed fields
// and the fields only the server changes on its own.
func view(obj map[string]any) string {
	if obj == nil {
		return ""
	}
	cp := map[string]any{}
	for k, v := range obj {
		cp[k] = v
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		m := map[string]any{}
		for k, v := range md {
			switch k {
			case "managedFields", "generation", "resourceVersion", "uid", "creationTimestamp":
			default:
				m[k] = v
			}
		}
		cp["metadata"] = m
	}
	b, err := yaml.Marshal(cp)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// readLive reads the live objects: one JSON object per file, or a List.
func readLive(dir string) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		items := []any{obj}
		if l, ok := obj["items"].([]any); ok {
			items = l
		}
		for _, it := range items {
			o, _ := it.(map[string]any)
			md, _ := o["metadata"].(map[string]any)
			ns, _ := md["namespace"].(string)
			name, _ := md["name"].(string)
			out[ns+"/"+name] = toValueModel(o).(map[string]any)
		}
	}
	return out, nil
}

// toValueModel turns json.Numbers into the int64 and float64 crdkit's
// value model holds.
func toValueModel(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = toValueModel(e)
		}
	case []any:
		for i, e := range t {
			t[i] = toValueModel(e)
		}
	case json.Number:
		if n, err := t.Int64(); err == nil {
			return n
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

// readManifests splits every YAML file of dir into its documents.
func readManifests(dir string) ([][]byte, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			if len(bytes.TrimSpace(doc)) > 0 {
				out = append(out, doc)
			}
		}
	}
	return out, nil
}
