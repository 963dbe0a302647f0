package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/crdmut"
	"github.com/crdkit/crdkit/conformance/oracle"
)

// crdUpdateCase is a dry-run PUT of a CRD document over a live CRD.
type crdUpdateCase struct {
	name string
	live string // metadata.name of the live CRD
	doc  []byte // sent as is, with the live resourceVersion set
}

// updateTally counts the comparisons of TestCRDUpdatesAgreeWithServer.
type updateTally struct {
	mu                          sync.Mutex
	n, codes, causes, causesN   int
	exact, exactN, unstable     int
	warnings, objects, objectsN int
	serverFails                 int
}

// TestCRDUpdatesAgreeWithServer sends CRD updates as dry-run PUTs to the
// real server and compares its answers with crdkit.UpdateCRD given the
// live CRD as the server returns it: code, reason and sorted causes, the
// message byte for byte where the server's is stable, warnings, and the
// updated CRD (without managedFields and resourceVersion).
//
// The live CRDs are the installed corpus CRDs, with revisions from
// crdmut.MutateUpdate (names, scope, group, versions, storage, schemas,
// rules, selectable fields, conversion) and crdmut.Mutate (create-time
// breaks), and the live CRDs of crdmut.HandwrittenUpdates, each in a group
// of its own: installed for real, or, for a live CRD the server refuses
// today or one with other stored versions, written to etcd over an
// installed placeholder (what an older server leaves behind). A case whose
// live CRD is not established gets a decoy installed first that takes its
// kind, so that the server never establishes it.
func TestCRDUpdatesAgreeWithServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var cases []crdUpdateCase
	cases = append(cases, handwrittenUpdateCases(ctx, t)...)
	if dir := corpusDir(); dir != "" {
		cases = append(cases, corpusUpdateCases(ctx, t, envInt("CRDKIT_UPDATE_SERVER_MUTATIONS", 6))...)
	}
	var tl updateTally
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, c := range cases {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			compareCRDUpdate(ctx, t, c, &tl)
		})
	}
	wg.Wait()
	fmt.Printf("conformance: crd-update-server codes %d/%d, causes %d/%d, exact messages %d/%d (%d unstable), warnings %d/%d, updated CRDs %d/%d (%d hand-written cases; %d where the server fails with a panic)\n",
		tl.codes, tl.n, tl.causes, tl.causesN, tl.exact, tl.exactN, tl.unstable, tl.warnings, tl.n, tl.objects, tl.objectsN, len(crdmut.HandwrittenUpdates), tl.serverFails)
}

func compareCRDUpdate(ctx context.Context, t *testing.T, c crdUpdateCase, tl *updateTally) {
	live, err := srv.GetCRD(ctx, c.live)
	if err != nil || live == nil {
		t.Errorf("%s: GET %s: %v", c.name, c.live, err)
		return
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(c.doc))
	dec.UseNumber() // numbers as the case has them (1e400 among them)
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if md, ok := doc["metadata"].(map[string]any); ok {
		md["resourceVersion"] = live.ResourceVersion
	}
	body, _ := json.Marshal(doc)
	r, err := srv.UpdateCRDRaw(ctx, c.live, body, oracle.CreateCRDOptions{DryRun: true})
	if err != nil && strings.Contains(err.Error(), "INTERNAL_ERROR") || err == nil && r.Code >= 500 {
		// The server panics on some CRDs (selectable fields over a schema
		// it cannot build) and resets the stream or answers 500; crdkit
		// reports an internal error instead.
		tl.mu.Lock()
		tl.serverFails++
		tl.mu.Unlock()
		return
	}
	if err != nil {
		t.Errorf("%s: %v", c.name, err)
		return
	}
	nv := new(apiextensionsv1.CustomResourceDefinition)
	if _, err := kjson.UnmarshalStrict(body, nv); err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	res := crdkit.UpdateCRD(nv, live)
	got := (&crdkit.Result{Err: res.Err}).Status()
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.n++
	gotCode := 200
	if got != nil {
		gotCode = int(got.Code)
	}
	if gotCode != r.Code {
		t.Errorf("UpdateCRD(%s) = %d %v, server %d %v", c.name, gotCode, res.Err, r.Code, r.Status)
		return
	}
	tl.codes++
	if slices.Equal(res.Warnings, r.Warnings) || (len(r.Warnings) > 1 && slices.Equal(slices.Sorted(slices.Values(res.Warnings)), slices.Sorted(slices.Values(r.Warnings)))) {
		tl.warnings++
	} else {
		t.Errorf("UpdateCRD(%s).Warnings = %q, server %q", c.name, res.Warnings, r.Warnings)
	}
	if r.Allowed() {
		tl.objectsN++
		if diff := crdDiff(res.CRD, r.Body); diff != "" {
			t.Errorf("UpdateCRD(%s).CRD differs from the server's answer: %s", c.name, diff)
		} else {
			tl.objects++
		}
		return
	}
	tl.causesN++
	want := verdictOf(r.Code, r.Status)
	if have := renderStatus(int(got.Code), string(got.Reason), causesOf(got.Details)); have != want {
		t.Errorf("UpdateCRD(%s) causes differ\nserver: %s\ncrdkit: %s", c.name, want, have)
		return
	}
	tl.causes++
	server := rawStatus(r)
	if server == nil {
		return
	}
	if server.Details == nil || len(server.Details.Causes) < 2 {
		tl.exactN++
		if server.Message == got.Message {
			tl.exact++
		} else {
			t.Errorf("UpdateCRD(%s).Message = %q, server %q", c.name, got.Message, server.Message)
		}
		return
	}
	tl.mu.Unlock()
	varies := crdUpdateMessageVaries(ctx, c.live, body, server, resends)
	same := sameStatus(server, got)
	if !same && !varies {
		varies = crdUpdateMessageVaries(ctx, c.live, body, server, confirmResends)
	}
	tl.mu.Lock()
	switch {
	case varies:
		tl.unstable++
	case same:
		tl.exactN++
		tl.exact++
	default:
		tl.exactN++
		t.Errorf("UpdateCRD(%s): the server's message and causes differ in order\nserver: %s\ncrdkit: %s", c.name, server.Message, got.Message)
	}
}

// crdUpdateMessageVaries sends the update n more times and reports whether the
// server answers with another message or cause order than st.
func crdUpdateMessageVaries(ctx context.Context, name string, doc []byte, st *metav1.Status, n int) bool {
	for range n {
		r, err := srv.UpdateCRDRaw(ctx, name, doc, oracle.CreateCRDOptions{DryRun: true})
		if err != nil || !sameStatus(st, rawStatus(r)) {
			return true
		}
	}
	return false
}

// crdDiff compares crdkit's updated CRD with the server's answer, leaving
// out what only a server fills in an update (managedFields and the
// resourceVersion).
func crdDiff(ours *apiextensionsv1.CustomResourceDefinition, body []byte) string {
	theirs := new(apiextensionsv1.CustomResourceDefinition)
	if err := json.Unmarshal(body, theirs); err != nil {
		return err.Error()
	}
	if ours == nil {
		return "crdkit returned no CRD"
	}
	a := ours.DeepCopy()
	for _, c := range []*apiextensionsv1.CustomResourceDefinition{a, theirs} {
		c.ManagedFields, c.ResourceVersion = nil, ""
	}
	if reflect.DeepEqual(a, theirs) {
		return ""
	}
	aj, _ := json.Marshal(a)
	tj, _ := json.Marshal(theirs)
	return fmt.Sprintf("\ncrdkit: %s\nserver: %s", aj, tj)
}

// corpusUpdateCases are revisions of every installed corpus CRD.
func corpusUpdateCases(ctx context.Context, t *testing.T, perCRD int) []crdUpdateCase {
	b := setup(t)
	rng := rand.New(rand.NewPCG(21, 34))
	var out []crdUpdateCase
	for i, d := range b.corpus {
		res := b.results[i+1]
		if !res.Established {
			continue
		}
		live, err := srv.GetCRD(ctx, res.Name)
		if err != nil || live == nil {
			t.Fatalf("GET %s: %v", res.Name, err)
		}
		live.APIVersion, live.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		base, _ := json.Marshal(live)
		for j := 0; j < perCRD; j++ {
			var m map[string]any
			if err := json.Unmarshal(base, &m); err != nil {
				t.Fatal(err)
			}
			delete(m, "status")
			var desc string
			if rng.IntN(4) == 0 {
				desc = "broken by " + crdmut.Mutate(rng, m, 1+rng.IntN(2))
			} else {
				desc = crdmut.MutateUpdate(rng, m, 1+rng.IntN(3))
			}
			m["metadata"].(map[string]any)["name"] = res.Name // a rename is the handler's 400, not the registry's
			doc, _ := json.Marshal(m)
			out = append(out, crdUpdateCase{fmt.Sprintf("%s#%d update %d (%s)", filepath.Base(d.File), d.Index, j, desc), res.Name, doc})
		}
	}
	return out
}

// handwrittenUpdateCases installs the live CRD of every hand-written case in
// a group of its own and returns the cases.
func handwrittenUpdateCases(ctx context.Context, t *testing.T) []crdUpdateCase {
	regroup := func(i int, s string) string {
		g := fmt.Sprintf("u%d.update", i)
		s = strings.ReplaceAll(s, "update.example.com", g+".example.com")
		return strings.ReplaceAll(s, "update.k8s.io", g+".k8s.io")
	}
	nameOf := func(doc string) string {
		var m struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		_ = json.Unmarshal([]byte(doc), &m)
		return m.Metadata.Name
	}
	var decoys, lives [][]byte
	for i, c := range crdmut.HandwrittenUpdates {
		live := regroup(i, c.Live)
		if !c.Established && !strings.Contains(c.Live, `"caBundle":"bm90IGEgY2VydA=="`) {
			// A decoy that holds the kind, installed first (a CRD with an
			// invalid CA bundle is never established anyway).
			var m map[string]any
			_ = json.Unmarshal([]byte(live), &m)
			g := m["spec"].(map[string]any)["group"].(string)
			m["metadata"].(map[string]any)["name"] = "decoys." + g
			m["spec"].(map[string]any)["names"] = map[string]any{"plural": "decoys", "singular": "decoy", "kind": "Widget", "listKind": "WidgetList"}
			b, _ := json.Marshal(m)
			decoys = append(decoys, b)
		}
		if c.Invalid || c.Stored || c.StoredVersions != nil {
			live = placeholder(live) // overwritten below
		}
		lives = append(lives, []byte(live))
	}
	if len(decoys) > 0 {
		if _, err := srv.InstallRawCRDs(ctx, decoys); err != nil {
			t.Fatalf("install decoys: %v", err)
		}
	}
	results, err := srv.InstallRawCRDs(ctx, lives)
	if err != nil {
		for _, r := range results {
			if !r.Established && r.Condition == "" {
				c, _ := srv.GetCRD(ctx, r.Name)
				if c != nil {
					b, _ := json.Marshal(c.Status)
					t.Logf("%s: %s", r.Name, b)
				}
			}
		}
		t.Fatalf("install live CRDs: %v", err)
	}
	var out []crdUpdateCase
	for i, c := range crdmut.HandwrittenUpdates {
		name := nameOf(regroup(i, c.Live))
		if results[i].Code != 201 {
			t.Fatalf("%s: install of the live CRD: %d %v", c.Name, results[i].Code, results[i].Status)
		}
		if c.Established != results[i].Established {
			t.Fatalf("%s: live CRD established = %v, want %v (%s)", c.Name, results[i].Established, c.Established, results[i].Condition)
		}
		if c.Invalid || c.Stored || c.StoredVersions != nil {
			if err := overwriteStoredCRD(ctx, name, regroup(i, c.Live), c.StoredVersions); err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
		}
		out = append(out, crdUpdateCase{"handwritten: " + c.Name, name, []byte(regroup(i, c.New))})
	}
	return out
}

// overwriteStoredCRD replaces the spec and annotations of the stored CRD
// name with those of doc (v1 defaults applied), and its stored versions
// when given, directly in etcd, encoded as the server encodes CRDs for
// storage, then waits until the server reads it back and its controllers
// are done with it.
func overwriteStoredCRD(ctx context.Context, name, doc string, storedVersions []string) error {
	raw, _, err := srv.GetStoredCRD(ctx, name)
	if err != nil || raw == nil {
		return fmt.Errorf("stored CRD %s: %v", name, err)
	}
	obj, _, err := apiextensionsapiserver.Codecs.UniversalDecoder(apiextensionsinternal.SchemeGroupVersion).Decode(raw, nil, nil)
	if err != nil {
		return fmt.Errorf("stored CRD %s: %v", name, err)
	}
	stored := obj.(*apiextensionsinternal.CustomResourceDefinition)
	want := new(apiextensionsv1.CustomResourceDefinition)
	if err := json.Unmarshal([]byte(doc), want); err != nil {
		return err
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(want)
	wantInternal := new(apiextensionsinternal.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(want, wantInternal, nil); err != nil {
		return err
	}
	stored.Spec = wantInternal.Spec
	stored.Annotations = want.Annotations
	if storedVersions != nil {
		stored.Status.StoredVersions = storedVersions
	}
	codec := apiextensionsapiserver.Codecs.LegacyCodec(apiextensionsv1beta1.SchemeGroupVersion, apiextensionsv1.SchemeGroupVersion)
	data, err := runtime.Encode(codec, stored)
	if err != nil {
		return err
	}
	rev, err := srv.PutStoredCRD(ctx, name, data)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := srv.GetCRD(ctx, name)
		if err != nil {
			return err
		}
		if n, _ := strconv.ParseInt(c.ResourceVersion, 10, 64); c != nil && n >= rev {
			return settle(ctx, name, c.ResourceVersion)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server does not read back the stored CRD %s (revision %d)", name, rev)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settle waits until the server's controllers leave the CRD name alone
// (its resourceVersion unchanged for a second), so that the live CRD a case
// reads is the one its PUT meets.
func settle(ctx context.Context, name, rv string) error {
	stable := time.Now()
	deadline := stable.Add(time.Minute)
	for time.Since(stable) < time.Second {
		if time.Now().After(deadline) {
			return fmt.Errorf("CRD %s keeps changing", name)
		}
		time.Sleep(100 * time.Millisecond)
		c, err := srv.GetCRD(ctx, name)
		if err != nil || c == nil {
			return fmt.Errorf("GET %s: %v", name, err)
		}
		if c.ResourceVersion != rv {
			rv, stable = c.ResourceVersion, time.Now()
		}
	}
	return nil
}

// placeholder is a CRD the server accepts with the name, group and names
// of doc: a plain schema, and an approval annotation for a protected group.
func placeholder(doc string) string {
	var m map[string]any
	_ = json.Unmarshal([]byte(doc), &m)
	spec := m["spec"].(map[string]any)
	spec["versions"] = []any{map[string]any{"name": "v1", "served": true, "storage": true,
		"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}
	delete(spec, "conversion")
	delete(spec, "preserveUnknownFields")
	m["metadata"].(map[string]any)["annotations"] = map[string]any{"api-approved.kubernetes.io": "unapproved, a crdkit placeholder"}
	b, _ := json.Marshal(m)
	return string(b)
}
