package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/gen"
	"github.com/crdkit/crdkit/conformance/oracle"
)

// The fields the server resets or ignores on create (rest.BeforeCreate, the
// strategies' PrepareForCreate, the field manager, the handlers' owner
// reference de-duplication and system-field wipe), on custom objects and on
// CRDs; CRDs that do not decode; and the namespace of the request. The
// generator does not make these inputs, so they are built here from its
// valid objects and from the corpus CRDs.

// metaReset is one change to a valid object's (or CRD's) metadata.
type metaReset struct {
	name  string
	apply func(md map[string]any)
}

func setKey(k string, v any) func(map[string]any) {
	return func(md map[string]any) { md[k] = v }
}

var validManagedEntry = map[string]any{"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "v1",
	"time": "2024-01-02T03:04:05Z", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{}}}}

func ownerRef(uid, name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid}
}

// metaResets apply to objects and CRDs alike.
var metaResets = []metaReset{
	{"uid", setKey("uid", "0b2c4f57-2ed1-4a0c-9f3c-6d2e8a1b7c11")},
	{"uid-invalid", setKey("uid", "not a uid at all")},
	{"creationTimestamp", setKey("creationTimestamp", "2020-01-01T00:00:00Z")},
	{"deletionTimestamp", setKey("deletionTimestamp", "2020-01-01T00:00:00Z")},
	{"deletionGracePeriodSeconds", setKey("deletionGracePeriodSeconds", int64(30))},
	{"deletionGracePeriodSeconds-negative", setKey("deletionGracePeriodSeconds", int64(-30))},
	{"selfLink", setKey("selfLink", "/apis/x/y")},
	{"resourceVersion", setKey("resourceVersion", "5")},
	{"generation-negative", setKey("generation", int64(-3))},
	{"generation-large", setKey("generation", int64(99))},
	{"managedFields-valid", setKey("managedFields", []any{validManagedEntry})},
	{"managedFields-operation-unknown", setKey("managedFields", []any{map[string]any{"manager": "x", "operation": "Bogus", "apiVersion": "v1", "fieldsType": "FieldsV1"}})},
	{"managedFields-operation-empty", setKey("managedFields", []any{map[string]any{"manager": "x", "apiVersion": "v1", "fieldsType": "FieldsV1"}})},
	{"managedFields-empty-list", setKey("managedFields", []any{})},
	{"managedFields-empty-entry", setKey("managedFields", []any{map[string]any{}})},
	{"managedFields-no-apiVersion", setKey("managedFields", []any{map[string]any{"manager": "x", "operation": "Update", "fieldsType": "FieldsV1"}})},
	{"managedFields-fieldsType-wrong", setKey("managedFields", []any{map[string]any{"manager": "x", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV2"}})},
	{"managedFields-fieldsV1-invalid", setKey("managedFields", []any{map[string]any{"manager": "x", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"x:bogus": 1}}})},
	{"managedFields-manager-too-long", setKey("managedFields", []any{map[string]any{"manager": strings.Repeat("m", 200), "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{}}})},
	{"managedFields-own-version-long-manager-absent-field", setKey("managedFields", []any{map[string]any{"manager": strings.Repeat("m", 200), "operation": "Update", "apiVersion": "$self", "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:annotations": map[string]any{"f:crdkit.example/absent": map[string]any{}}}}}})},
	{"managedFields-own-version-long-manager-present-field", setKey("managedFields", []any{map[string]any{"manager": strings.Repeat("m", 200), "operation": "Apply", "apiVersion": "$self", "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:name": map[string]any{}}}}})},
	{"managedFields-own-version-long-subresource-absent-field", setKey("managedFields", []any{map[string]any{"manager": "m", "subresource": strings.Repeat("s", 300), "operation": "Update", "apiVersion": "$self", "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:crdkitAbsent": map[string]any{}}}})},
	{"managedFields-one-bad-of-two", setKey("managedFields", []any{validManagedEntry, map[string]any{"manager": "y", "operation": "Nope", "apiVersion": "v1", "fieldsType": "FieldsV1"}})},
	{"ownerReferences-duplicate", setKey("ownerReferences", []any{ownerRef("u1", "a"), ownerRef("u1", "a")})},
	{"ownerReferences-duplicates-three", setKey("ownerReferences", []any{ownerRef("u1", "a"), ownerRef("u2", "b"), ownerRef("u1", "a"), ownerRef("u2", "b"), ownerRef("u1", "a")})},
	{"ownerReferences-same-uid-other-name", setKey("ownerReferences", []any{ownerRef("u1", "a"), ownerRef("u1", "b")})},
	{"ownerReferences-duplicate-two-controllers", setKey("ownerReferences", []any{
		map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "u1", "controller": true},
		map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "u1", "controller": true}})},
}

// allResets applies several resets at once.
var allResets = metaReset{"everything", func(md map[string]any) {
	for _, m := range metaResets {
		switch m.name {
		case "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink", "resourceVersion",
			"generation-negative", "managedFields-operation-unknown", "ownerReferences-duplicate":
			m.apply(md)
		}
	}
}}

// TestServerCreateResets sends, for every served version of every corpus
// CRD, a valid generated object with each metadata reset (and namespaces
// the server clears or refuses) as a dry-run create, and compares crdkit's
// answer with the server's: code, reason, message (up to the list for a
// 422, whose causes are compared sorted), warnings and the returned object.
func TestServerCreateResets(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	b := setup(t)
	ctx := context.Background()
	agr := newAgreement()
	defer agr.report(t)
	for i := range b.corpus {
		r := b.results[1+i]
		if !r.Established || r.CRD == nil {
			continue
		}
		crd := r.CRD
		ck := loadCrdkit(t, crd)
		if ck == nil {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			base, ns := validBase(t, crd, v.Name)
			if base == nil {
				continue
			}
			type reset struct {
				name, requestNS string
				obj             map[string]any
			}
			var resets []reset
			add := func(name, requestNS string, f func(md map[string]any)) {
				obj := deepCopyJSON(base)
				md, _ := obj["metadata"].(map[string]any)
				if md == nil {
					md = map[string]any{}
					obj["metadata"] = md
				}
				f(md)
				selfAPIVersion(md, obj)
				resets = append(resets, reset{name, requestNS, obj})
			}
			for _, m := range append(slices.Clone(metaResets), allResets) {
				add(m.name, ns, m.apply)
			}
			if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
				add("namespace-on-cluster-scoped", "", setKey("namespace", "somewhere"))
				add("namespace-invalid-on-cluster-scoped", "", setKey("namespace", "Not_A_Namespace"))
			} else {
				add("namespace-from-request", "prod", func(md map[string]any) { delete(md, "namespace") })
				add("namespace-same-as-request", "prod", setKey("namespace", "prod"))
				add("namespace-differs-from-request", "prod", setKey("namespace", "staging"))
			}
			for _, rs := range resets {
				body, _ := json.Marshal(rs.obj)
				for _, mode := range []oracle.FieldValidation{oracle.Warn, oracle.Strict} {
					rctx, cancel := context.WithTimeout(ctx, time.Minute)
					sr, err := srv.Do(rctx, oracle.Request{Op: oracle.OpCreate, DryRun: true, CRD: crd.Name, Version: v.Name,
						Namespace: rs.requestNS, Body: body, FieldValidation: mode})
					cancel()
					if err != nil {
						t.Fatalf("%s %s %s: %v", crd.Name, v.Name, rs.name, err)
					}
					want := serverVerdict(sr)
					got := createVerdict(ck.Version(v.Name).CreateJSON(body, crdkit.CreateOptions{FieldValidation: crdkit.FieldValidation(mode), Namespace: rs.requestNS}))
					desc := fmt.Sprintf("%s %s %s [%s] namespace %q\n  input: %s", crd.Name, v.Name, rs.name, mode, rs.requestNS, truncate(string(body), 600))
					ok, diff := sameVerdict(got, want)
					agr.record("create-resets", rs.name, ok, desc+"\n"+diff)
				}
			}
		}
	}
}

// validBase is a generated valid object of the version that the server
// accepts in Ignore mode, and the namespace to send it to.
func validBase(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, version string) (map[string]any, string) {
	g, err := gen.New(crd, version, gen.Options{Cases: 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cases() {
		if c.Mutation != "valid" && c.Mutation != "minimal" {
			continue
		}
		rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		r, err := srv.Do(rctx, oracle.Request{Op: oracle.OpCreate, DryRun: true, CRD: crd.Name, Version: version,
			Namespace: c.Namespace, Body: c.Raw, FieldValidation: oracle.Ignore})
		cancel()
		if err != nil || r.Code != 201 {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(c.Raw, &obj); err != nil {
			continue
		}
		return obj, c.Namespace
	}
	return nil, ""
}

// selfAPIVersion replaces the apiVersion "$self" of managed-field entries
// with the object's own.
func selfAPIVersion(md, obj map[string]any) {
	l, _ := md["managedFields"].([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && m["apiVersion"] == "$self" {
			m["apiVersion"] = obj["apiVersion"]
		}
	}
}

func serverVerdict(r oracle.Result) Verdict {
	v := Verdict{Code: r.Code, Warnings: r.Warnings}
	if r.Status != nil {
		v.Reason, v.Message = string(r.Status.Reason), r.Status.Message
		if r.Status.Details != nil {
			for _, c := range r.Status.Details.Causes {
				v.Causes = append(v.Causes, Cause{c.Field, string(c.Type), c.Message})
			}
		}
	}
	if r.Object != nil {
		v.Object = oracle.Normalize(r.Object)
	}
	return v
}

// sameVerdict compares two create answers: code, reason, message (up to
// the list for a 422, whose causes are compared sorted), warnings, object.
func sameVerdict(got, want Verdict) (bool, string) {
	gm, wm := got.Message, want.Message
	if want.Code == 422 {
		gm, wm = invalidPrefix(gm), invalidPrefix(wm)
	}
	gc, wc := slices.Clone(got.Causes), slices.Clone(want.Causes)
	sortCauses(gc)
	sortCauses(wc)
	if got.Code == 201 && want.Code == 201 {
		dropGeneratedName(got.Object)
		dropGeneratedName(want.Object)
	}
	ok := got.Code == want.Code && got.Reason == want.Reason && gm == wm && slices.Equal(gc, wc) &&
		slices.Equal(got.Warnings, want.Warnings) && reflect.DeepEqual(got.Object, want.Object)
	return ok, fmt.Sprintf("  server: %d %s %s\n    causes %q\n    warnings %q\n    object %s\n  crdkit: %d %s %s\n    causes %q\n    warnings %q\n    object %s",
		want.Code, want.Reason, want.Message, wc, want.Warnings, mustJSON(want.Object),
		got.Code, got.Reason, got.Message, gc, got.Warnings, mustJSON(got.Object))
}

func deepCopyJSON(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// TestLintResetsAndUndecodable sends the corpus CRDs with each metadata
// reset and a stale status, and CRDs with a wrong JSON type in one field of
// the spec each, as dry-run CRD creates, and compares the server's verdict
// with crdkit.Load's: code, reason, message (in full for a 400), sorted
// causes, and the warnings of an accepted CRD.
func TestLintResetsAndUndecodable(t *testing.T) {
	dir := corpusDir()
	if dir == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	docs, err := oracle.LoadCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	type lintCase struct{ kind, name, json string }
	var cases []lintCase
	rng := rand.New(rand.NewPCG(3, 5))
	sources := append([]oracle.Document{{File: "crontab", JSON: []byte(cronTabCRD)}}, docs...)
	for si, d := range sources {
		name := fmt.Sprintf("%s#%d", filepath.Base(d.File), d.Index)
		doc := regroup(t, d.JSON)
		variant := func(kind, what string, f func(m map[string]any)) {
			var m map[string]any
			if err := json.Unmarshal(doc, &m); err != nil {
				t.Fatal(err)
			}
			f(m)
			if md, ok := m["metadata"].(map[string]any); ok {
				selfAPIVersion(md, m)
			}
			b, _ := json.Marshal(m)
			cases = append(cases, lintCase{kind, name + " " + what, string(b)})
		}
		for _, r := range append(slices.Clone(metaResets), allResets) {
			// Every reset on the first few CRDs, the strongest on all.
			if si >= 4 && r.name != "everything" && r.name != "managedFields-own-version-long-manager-absent-field" {
				continue
			}
			variant("lint-resets", r.name, func(m map[string]any) { r.apply(m["metadata"].(map[string]any)) })
		}
		variant("lint-resets", "namespace", func(m map[string]any) { m["metadata"].(map[string]any)["namespace"] = "foo" })
		variant("lint-resets", "namespace-invalid", func(m map[string]any) { m["metadata"].(map[string]any)["namespace"] = "Not_A_Namespace" })
		variant("lint-resets", "status-stale", func(m map[string]any) {
			m["status"] = map[string]any{
				"storedVersions": []any{"v9", "v9"},
				"acceptedNames":  map[string]any{"kind": "bad kind", "plural": "X", "listKind": "nope nope"},
				"conditions":     []any{map[string]any{"type": "Bogus", "status": "Maybe", "lastTransitionTime": "2020-01-01T00:00:00Z"}},
			}
		})
		// A wrong JSON type in one field of the spec: every field of the
		// small CronTab CRD, a sample of the others' (outside their schemas,
		// where most fields are, a few inside).
		var m map[string]any
		if err := json.Unmarshal(doc, &m); err != nil {
			t.Fatal(err)
		}
		paths := leafPaths(m["spec"], []any{"spec"}, 0)
		if si > 0 {
			rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
			paths = paths[:min(len(paths), 3)]
		}
		for _, p := range paths {
			variant("lint-undecodable", "wrong type at "+pathString(p), func(m map[string]any) { setAt(m, p, wrongType(getAt(m, p))) })
		}
	}

	bodies := make([][]byte, len(cases))
	for i, c := range cases {
		bodies[i] = []byte(c.json)
	}
	results, errs := dryRunCRDs(bodies)

	agr := newAgreement()
	defer agr.report(t)
	for i, c := range cases {
		r, err := results[i], errs[i]
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Code >= 500 {
			agr.skip(c.kind + ": the server fails with 500")
			continue
		}
		want := verdictOf(r.Code, r.Status)
		if r.Code == 400 && r.Status != nil {
			want += "\n  " + r.Status.Message
		}
		if gap := scopeGap(want); gap != "" {
			agr.skip(c.kind + ": " + gap)
			continue
		}
		got := crdkitVerdict([]byte(c.json))
		crd, err := crdkit.Load([]byte(c.json))
		if err == nil {
			got += fmt.Sprintf("\n  warnings %q", crd.Warnings())
			want += fmt.Sprintf("\n  warnings %q", r.Warnings)
		} else if strings.HasPrefix(got, "400") {
			got += "\n  " + err.Error()
		}
		agr.record(c.kind, c.name, got == want, fmt.Sprintf("%s\n  server: %s\n  crdkit: %s", c.name, want, got))
	}
}

// leafPaths lists the paths of every value under v (objects and lists
// included), not descending into a version's schema beyond its top two
// levels.
func leafPaths(v any, at []any, schemaDepth int) [][]any {
	var out [][]any
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			p := append(slices.Clone(at), k)
			out = append(out, p)
			d := schemaDepth
			if k == "openAPIV3Schema" || d > 0 {
				d++
			}
			if d <= 2 {
				out = append(out, leafPaths(t[k], p, d)...)
			}
		}
	case []any:
		for i, e := range t {
			p := append(slices.Clone(at), i)
			out = append(out, p)
			out = append(out, leafPaths(e, p, schemaDepth)...)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// wrongType is a value of another JSON type than v.
func wrongType(v any) any {
	switch v.(type) {
	case string:
		return int64(5)
	case bool:
		return "yes"
	case float64, int64:
		return "five"
	case map[string]any:
		return "not-an-object"
	case []any:
		return map[string]any{"not": "a list"}
	}
	return []any{"x"}
}

func getAt(m map[string]any, p []any) any {
	var cur any = m
	for _, s := range p {
		switch k := s.(type) {
		case string:
			cur = cur.(map[string]any)[k]
		case int:
			cur = cur.([]any)[k]
		}
	}
	return cur
}

func setAt(m map[string]any, p []any, v any) {
	parent := getAt(m, p[:len(p)-1])
	switch k := p[len(p)-1].(type) {
	case string:
		parent.(map[string]any)[k] = v
	case int:
		parent.([]any)[k] = v
	}
}

func pathString(p []any) string {
	var b strings.Builder
	for _, s := range p {
		switch k := s.(type) {
		case string:
			b.WriteString("." + k)
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		}
	}
	return strings.TrimPrefix(b.String(), ".")
}

// dryRunCRDs sends each CRD document as a dry-run CRD create, from several
// workers (a CRD create takes about 100 ms), and returns the answers in
// order.
func dryRunCRDs(docs [][]byte) ([]oracle.Result, []error) {
	results := make([]oracle.Result, len(docs))
	errs := make([]error, len(docs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range envInt("CRDKIT_CONFORMANCE_WORKERS", 8) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				results[i], errs[i] = srv.CreateCRDRaw(rctx, docs[i], oracle.CreateCRDOptions{DryRun: true})
				cancel()
			}
		}()
	}
	for i := range docs {
		next <- i
	}
	close(next)
	wg.Wait()
	return results, errs
}
