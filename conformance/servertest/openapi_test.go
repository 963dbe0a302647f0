package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/spec3"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/crdmut"
	"github.com/crdkit/crdkit/openapi"
)

// openAPICRDs installs the publishing-rule CRDs beside the shared batch and
// returns every established CRD as the server stored it.
func openAPICRDs(t *testing.T) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	b := setup(t)
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, r := range b.results {
		if r.Established && r.CRD != nil {
			out = append(out, r.CRD)
		}
	}
	bs, err := os.ReadFile("../openapidiff/testdata/rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var docs [][]byte
	for _, d := range strings.Split(string(bs), "\n---\n") {
		js, err := yaml.YAMLToJSON([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, js)
	}
	rules := len(docs)
	docs = append(docs, numberCRDs(t, docs)...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := srv.InstallRawCRDs(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if !r.Established || r.CRD == nil {
			if r.Code == 409 { // installed by an earlier test of this process
				if crd := srv.CRD(r.Name); crd != nil {
					out = append(out, crd)
					continue
				}
			}
			if i >= rules { // crdkit.Load accepted it: a lint difference
				t.Errorf("generated CRD %s: crdkit accepts it, the server answers %d %v %s", r.Name, r.Code, r.Status, r.Condition)
				continue
			}
			t.Fatalf("rule CRD %s: %d %v %s", r.Name, r.Code, r.Status, r.Condition)
		}
		out = append(out, r.CRD)
	}
	return out
}

// numbersGroup is the group suffix of the CRDs with large integers (the
// hand-written bignums in rules.yaml and numberCRDs).
const numbersGroup = "numbers.crdkit.io"

// numberCRDs are the rule CRDs with large integers in defaults, enums,
// examples and bounds (crdmut.MutateNumbers, seeded), each moved to a group
// of its own under numbersGroup; only those crdkit.Load accepts.
func numberCRDs(t *testing.T, rules [][]byte) [][]byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(37, 37))
	var out [][]byte
	for _, doc := range rules {
		for range 2 {
			var m map[string]any
			dec := json.NewDecoder(bytes.NewReader(doc))
			dec.UseNumber()
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			crdmut.MutateNumbers(rng, m, 4)
			crdmut.Regroup(m, fmt.Sprintf("m%d.%s", len(out), numbersGroup))
			js, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := crdkit.Load(js); err == nil {
				out = append(out, js)
			}
		}
	}
	return out
}

// getJSON fetches path from the server; ok is false on any failure (the
// document may not exist yet).
func getJSON(ctx context.Context, t *testing.T, client *http.Client, path string) (any, bool) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", srv.RESTConfig().Host+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		return nil, false
	}
	return decodeNumbers(t, raw), true
}

// decodeNumbers decodes JSON with its numbers as written (json.Number): a
// float64 would make 9007199254740993 and 9007199254740992 equal.
func decodeNumbers(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %.100s: %v", raw, err)
	}
	return v
}

func restClient(t *testing.T) *http.Client {
	t.Helper()
	c, err := rest.HTTPClientFor(srv.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func generic(t *testing.T, v any) any {
	t.Helper()
	bs, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return decodeNumbers(t, bs)
}

// firstDiffs names the first JSON paths where a and b differ.
func firstDiffs(a, b any, path string, out *[]string) {
	if len(*out) >= 4 {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		ks := make([]string, 0, len(keys))
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			firstDiffs(am[k], bm[k], path+"/"+k, out)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, fmt.Sprintf("%s: crdkit %s, server %s", path, truncate(mustJSON(a), 200), truncate(mustJSON(b), 200)))
	}
}

type groupVersion struct{ group, version string }

// TestOpenAPIV3 compares, for every group version the CRDs serve, the document
// at /openapi/v3/apis/G/V with openapi.BuildV3.
func TestOpenAPIV3(t *testing.T) {
	crds := openAPICRDs(t)
	gvs := map[groupVersion][]string{} // model names the server must publish first
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if v.Served {
				gv := groupVersion{crd.Spec.Group, v.Name}
				gvs[gv] = append(gvs[gv], crd.Spec.Names.Kind)
			}
		}
	}
	keys := make([]groupVersion, 0, len(gvs))
	for gv := range gvs {
		keys = append(keys, gv)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].group+"/"+keys[i].version < keys[j].group+"/"+keys[j].version })
	client := restClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	agree, numAgree, numTotal := 0, 0, 0
	for _, gv := range keys {
		numbers := strings.HasSuffix(gv.group, numbersGroup)
		if numbers {
			numTotal++
		}
		want, err := openapi.BuildV3(crds, gv.group, gv.version)
		if err != nil {
			t.Fatalf("BuildV3(%s/%s) = %v", gv.group, gv.version, err)
		}
		w := generic(t, want)
		path := "/openapi/v3/apis/" + gv.group + "/" + gv.version
		var got any
		for {
			var ok bool
			got, ok = getJSON(ctx, t, client, path)
			if ok && published(got, want) {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%s: not published in time", path)
			case <-time.After(200 * time.Millisecond):
			}
		}
		var d []string
		firstDiffs(w, got, "", &d)
		if len(d) > 0 {
			t.Errorf("%s:\n%s", path, strings.Join(d, "\n"))
			continue
		}
		agree++
		if numbers {
			numAgree++
		}
	}
	fmt.Printf("conformance: openapi-v3 %d/%d documents agree\n", agree, len(keys))
	fmt.Printf("conformance: openapi-v3 large-integer %d/%d documents agree (numbers as written)\n", numAgree, numTotal)
	if numTotal < 5 {
		t.Errorf("%d large-integer documents, want at least 5", numTotal)
	}
}

// published reports whether the server's document already has every schema of want.
func published(got any, want *spec3.OpenAPI) bool {
	m, _ := got.(map[string]any)
	c, _ := m["components"].(map[string]any)
	s, _ := c["schemas"].(map[string]any)
	for name := range want.Components.Schemas {
		if _, ok := s[name]; !ok {
			return false
		}
	}
	return len(s) == len(want.Components.Schemas)
}

// TestOpenAPIV2 compares the CRDs' paths, definitions and shared parameters
// with the server's /openapi/v2.
func TestOpenAPIV2(t *testing.T) {
	crds := openAPICRDs(t)
	want, err := openapi.BuildV2(crds)
	if err != nil {
		t.Fatal(err)
	}
	client := restClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var doc map[string]any
	for {
		got, ok := getJSON(ctx, t, client, "/openapi/v2")
		doc, _ = got.(map[string]any)
		defs, _ := doc["definitions"].(map[string]any)
		all := ok
		for name := range want.Definitions {
			if _, ok := defs[name]; !ok {
				all = false
				break
			}
		}
		if all {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("/openapi/v2: CRDs not published in time")
		case <-time.After(200 * time.Millisecond):
		}
	}
	w := generic(t, want).(map[string]any)
	section := func(name string) map[string]any { m, _ := doc[name].(map[string]any); return m }
	var numAgree, numTotal int // definitions of the large-integer CRDs
	compare := func(kind string, wantM map[string]any) (int, int) {
		agree := 0
		names := make([]string, 0, len(wantM))
		for k := range wantM {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			numbers := kind == "definitions" && strings.HasPrefix(k, "io.crdkit.numbers.")
			if numbers {
				numTotal++
			}
			var d []string
			firstDiffs(wantM[k], section(kind)[k], kind+"/"+k, &d)
			if len(d) > 0 {
				t.Errorf("/openapi/v2 %s:\n%s", k, strings.Join(d, "\n"))
				continue
			}
			agree++
			if numbers {
				numAgree++
			}
		}
		return agree, len(names)
	}
	da, dn := compare("definitions", w["definitions"].(map[string]any))
	pa, pn := compare("paths", w["paths"].(map[string]any))
	qa, qn := compare("parameters", w["parameters"].(map[string]any))
	fmt.Printf("conformance: openapi-v2 %d/%d definitions agree\n", da, dn)
	fmt.Printf("conformance: openapi-v2 %d/%d paths agree\n", pa, pn)
	fmt.Printf("conformance: openapi-v2 %d/%d shared parameters agree\n", qa, qn)
	fmt.Printf("conformance: openapi-v2 large-integer %d/%d definitions agree (numbers as written)\n", numAgree, numTotal)
	if numTotal < 10 {
		t.Errorf("%d large-integer definitions, want at least 10", numTotal)
	}
}
