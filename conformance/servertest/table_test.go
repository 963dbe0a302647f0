package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/gen"
	"github.com/crdkit/crdkit/conformance/oracle"
	"github.com/crdkit/crdkit/printcolumns"
)

// TestTableAgreesWithServer persists generated objects of every served
// version of every corpus CRD (real creates), lists them as a
// meta.k8s.io/v1 Table, and compares the column definitions and cells with
// the table crdkit builds from its own dry-run create results. Date cells
// are compared by presence (their text is an age).
func TestTableAgreesWithServer(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	b := setup(t)
	ctx := context.Background()
	perVersion := envInt("CRDKIT_TABLE_OBJECTS", 4)
	agree, total := 0, 0
	for i := range b.corpus {
		r := b.results[1+i]
		if !r.Established {
			continue
		}
		ck, err := crdkit.New(r.CRD)
		if err != nil {
			t.Errorf("crdkit refuses %s: %v", r.Name, err)
			continue
		}
		for _, v := range r.CRD.Spec.Versions {
			if !v.Served {
				continue
			}
			ns := ""
			if ck.Namespaced() {
				ns = fmt.Sprintf("tables-%d-%s", i, v.Name)
			}
			skipStatus := v.Subresources != nil && v.Subresources.Status != nil
			g, err := gen.New(r.CRD, v.Name, gen.Options{Cases: 40, SkipStatus: skipStatus, Namespace: ns})
			if err != nil {
				t.Fatal(err)
			}
			var ours []map[string]any
			for _, c := range g.Cases() {
				if len(ours) == perVersion {
					break
				}
				if c.Mutation != "valid" && c.Mutation != "rich" && c.Mutation != "minimal" {
					continue
				}
				raw := renamed(c.Raw, fmt.Sprintf("tbl-%d", len(ours)))
				res, err := srv.Do(ctx, oracle.Request{Op: oracle.OpCreate, CRD: r.Name, Version: v.Name, Namespace: ns, Body: raw})
				if err != nil || res.Code != 201 {
					continue // refused by the server (CEL rules the generator does not model)
				}
				got := ck.Version(v.Name).CreateJSON(raw, crdkit.CreateOptions{Namespace: ns})
				if got.Err != nil {
					t.Errorf("%s %s: server created %s, crdkit refuses it: %v", r.Name, v.Name, c.Name, got.Err)
					continue
				}
				md := got.Object["metadata"].(map[string]any)
				md["creationTimestamp"] = time.Now().UTC().Format(time.RFC3339)
				ours = append(ours, got.Object)
			}
			if len(ours) == 0 {
				continue
			}
			res, err := srv.Do(ctx, oracle.Request{Op: oracle.OpGetTable, CRD: r.Name, Version: v.Name, Namespace: ns})
			if err != nil || res.Code != 200 {
				t.Errorf("%s %s: table request: %d %v", r.Name, v.Name, res.Code, err)
				continue
			}
			slices.SortFunc(ours, func(a, b map[string]any) int {
				return strings.Compare(a["metadata"].(map[string]any)["name"].(string), b["metadata"].(map[string]any)["name"].(string))
			})
			table, err := ck.Version(v.Name).Table(ours, printcolumns.TableOptions{})
			if err != nil {
				t.Errorf("%s %s: crdkit table: %v", r.Name, v.Name, err)
				continue
			}
			// Only this test's rows: other tests of the shared server
			// create objects of cluster-scoped CRDs too (sel-*).
			want := tableView(oracle.Normalize(res.Object))
			want["rows"] = slices.DeleteFunc(want["rows"].([]any), func(r any) bool {
				cells, _ := r.([]any)
				name, _ := cells[0].(string)
				return len(cells) == 0 || !strings.HasPrefix(name, "tbl-")
			})
			gotJS, _ := json.Marshal(table)
			var gotObj map[string]any
			_ = json.Unmarshal(gotJS, &gotObj)
			gotObj["kind"] = "Table"
			got := tableView(oracle.Normalize(gotObj))
			total++
			if reflect.DeepEqual(got, want) {
				agree++
				continue
			}
			g1, _ := json.Marshal(got)
			w1, _ := json.Marshal(want)
			t.Errorf("%s %s: Table disagrees with the server\nserver: %s\ncrdkit: %s", r.Name, v.Name, w1, g1)
		}
	}
	fmt.Printf("conformance: table-server %d/%d tables agree\n", agree, total)
}

// tableView keeps what a Table response means: the column definitions and
// each row's cells.
func tableView(t map[string]any) map[string]any {
	var rows []any
	rs, _ := t["rows"].([]any)
	for _, r := range rs {
		rm, _ := r.(map[string]any)
		rows = append(rows, rm["cells"])
	}
	return map[string]any{"columns": t["columnDefinitions"], "rows": rows}
}

// renamed sets metadata.name in a JSON body.
func renamed(raw []byte, name string) []byte {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return raw
	}
	md, _ := m["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		m["metadata"] = md
	}
	md["name"] = name
	delete(md, "generateName")
	b, _ := json.Marshal(m)
	return b
}
