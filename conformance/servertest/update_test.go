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

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/gen"
	"github.com/crdkit/crdkit/conformance/oracle"
)

// TestServerUpdates creates one object per served version of every corpus
// CRD for real, then sends dry-run updates of it (PUT, and PUT to /status)
// and compares the server's answers with crdkit's Version.UpdateJSON and
// UpdateStatusJSON given the object as GET returns it: code, reason,
// message (for a 422 its prefix, the causes compared sorted), warnings and
// the returned object, generation included. The updates are fixed changes
// of metadata, spec and status (no-ops, label changes, leaf changes, wrong
// types, unknown and duplicate fields in every mode, resourceVersion
// missing, stale and malformed, another name, namespace or uid, status
// changes, added finalizers) and the generator's cases (each breaks one
// keyword) sent as updates of the live object.
func TestServerUpdates(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	b := setup(t)
	agr := newAgreement()
	defer agr.report(t)
	generated := envInt("CRDKIT_UPDATE_CASES", 30)
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
		for vi, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			live, cleanup := createLive(t, crd, v.Name, fmt.Sprintf("upd-%d-%d", i, vi))
			if live == nil {
				agr.skip("no valid object the server accepts")
				continue
			}
			cases := updateCases(t, crd, v.Name, live, generated)
			for _, uc := range cases {
				for _, mode := range uc.modes {
					for _, status := range []bool{false, true} {
						compareUpdate(t, agr, ck, crd, v.Name, live, uc, mode, status)
					}
				}
			}
			// The same fixed changes with crdkit given the live object as a
			// GET at the storage version returns it, when the request goes
			// to another version. (A GET at another non-storage version may
			// have pruned what this version keeps: crdkit cannot know it.)
			for _, w := range crd.Spec.Versions {
				if !w.Served || !w.Storage || w.Name == v.Name {
					continue
				}
				lmd := live["metadata"].(map[string]any)
				ns, _ := lmd["namespace"].(string)
				other, _ := getLive(t, crd, w.Name, ns, lmd["name"].(string))
				for _, uc := range cases {
					if !strings.HasPrefix(uc.name, "gen:") {
						compareUpdateWith(t, agr, "cross-version", ck, crd, v.Name, live, other, uc, oracle.Warn, false)
					}
				}
			}
			cleanup()
		}
	}
}

// updateCase is one update body for a live object.
type updateCase struct {
	name  string
	body  []byte
	modes []oracle.FieldValidation
}

// createLive creates a valid generated object of the version for real and
// returns it as GET returns it, with a function that deletes it.
func createLive(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, version, name string) (map[string]any, func()) {
	base, ns := validBase(t, crd, version)
	if base == nil {
		return nil, func() {}
	}
	return createObject(t, crd, version, ns, name, base)
}

// getLive GETs an object and returns it decoded as the server decodes (integers
// as int64), with a function that deletes it.
func getLive(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, version, ns, name string) (map[string]any, func()) {
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gr, err := srv.Do(rctx, oracle.Request{Op: oracle.OpGet, CRD: crd.Name, Version: version, Namespace: ns, Name: name})
	if err != nil || gr.Code != 200 {
		t.Fatalf("%s %s: get of the live object: %v %d", crd.Name, version, err, gr.Code)
	}
	var obj map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(gr.Body, &obj); err != nil {
		t.Fatalf("%s %s: decode the live object: %v", crd.Name, version, err)
	}
	return obj, func() {
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = srv.Do(dctx, oracle.Request{Op: oracle.OpDelete, CRD: crd.Name, Version: version, Namespace: ns, Name: name})
	}
}

// updateCases are the bodies sent as updates of live.
func updateCases(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, version string, live map[string]any, generated int) []updateCase {
	warn := []oracle.FieldValidation{oracle.Warn}
	all := []oracle.FieldValidation{oracle.Ignore, oracle.Warn, oracle.Strict}
	var cases []updateCase
	add := func(name string, modes []oracle.FieldValidation, f func(obj, md map[string]any)) {
		obj := deepCopyJSON(live)
		md, _ := obj["metadata"].(map[string]any)
		f(obj, md)
		body, _ := json.Marshal(obj)
		cases = append(cases, updateCase{name, body, modes})
	}
	add("no-op", warn, func(obj, md map[string]any) {})
	add("label-added", warn, func(obj, md map[string]any) { setLabel(md, "crdkit.example.com/changed", "yes") })
	add("label-invalid", warn, func(obj, md map[string]any) { setLabel(md, "bad key!", "x") })
	add("annotation-added", warn, func(obj, md map[string]any) {
		a, _ := md["annotations"].(map[string]any)
		if a == nil {
			a = map[string]any{}
			md["annotations"] = a
		}
		a["note"] = "changed"
	})
	add("resourceVersion-missing", warn, func(obj, md map[string]any) { delete(md, "resourceVersion") })
	add("resourceVersion-stale", warn, func(obj, md map[string]any) { md["resourceVersion"] = "1" })
	add("resourceVersion-malformed", warn, func(obj, md map[string]any) { md["resourceVersion"] = "abc" })
	add("name-other", warn, func(obj, md map[string]any) { md["name"] = "someone-else" })
	add("name-missing", warn, func(obj, md map[string]any) { delete(md, "name") })
	add("namespace-missing", warn, func(obj, md map[string]any) { delete(md, "namespace") })
	add("namespace-other", warn, func(obj, md map[string]any) { md["namespace"] = "elsewhere" })
	add("uid-other", warn, func(obj, md map[string]any) { md["uid"] = "6a2e9b8e-0000-4000-8000-000000000001" })
	add("uid-missing", warn, func(obj, md map[string]any) { delete(md, "uid") })
	add("generation-set", warn, func(obj, md map[string]any) { md["generation"] = int64(42) })
	add("creationTimestamp-changed", warn, func(obj, md map[string]any) { md["creationTimestamp"] = "2001-01-01T00:00:00Z" })
	add("finalizers-added", warn, func(obj, md map[string]any) {
		md["finalizers"] = []any{"example.com/ok", "plain", "dotted.name", "Bad Name"}
	})
	add("generateName-changed", warn, func(obj, md map[string]any) { md["generateName"] = "other-" })
	add("unknown-field", all, func(obj, md map[string]any) {
		spec, _ := obj["spec"].(map[string]any)
		if spec == nil {
			obj["zzUnknown"] = "x"
			return
		}
		spec["zzUnknown"] = "x"
	})
	add("unknown-metadata-field", all, func(obj, md map[string]any) { md["zzUnknown"] = "x" })
	add("status-set", warn, func(obj, md map[string]any) { obj["status"] = map[string]any{"zzObserved": int64(3)} })
	add("status-removed", warn, func(obj, md map[string]any) { delete(obj, "status") })
	add("spec-removed", warn, func(obj, md map[string]any) { delete(obj, "spec") })
	add("apiVersion-other", warn, func(obj, md map[string]any) { obj["apiVersion"] = crd.Spec.Group + "/v0other" })
	add("kind-other", warn, func(obj, md map[string]any) { obj["kind"] = "Other" })
	// Leaf changes under spec and status: a value changed, and of another type.
	for _, root := range []string{"spec", "status"} {
		sub, ok := live[root].(map[string]any)
		if !ok {
			continue
		}
		paths := leafPaths(sub, []any{root}, 0)
		for j, p := range paths {
			if j >= 6 {
				break
			}
			p := p
			add("changed"+pathString(p), warn, func(obj, md map[string]any) { setAt(obj, p, changedValue(getAt(obj, p))) })
			add("wrong-type"+pathString(p), warn, func(obj, md map[string]any) { setAt(obj, p, wrongType(getAt(obj, p))) })
			add("null"+pathString(p), warn, func(obj, md map[string]any) { setAt(obj, p, nil) })
		}
	}
	// Duplicate fields: a second kind and a second spec (the later wins).
	if nb, err := json.Marshal(live); err == nil {
		cases = append(cases, updateCase{"duplicate-kind", append([]byte(`{"kind":"Dup",`), nb[1:]...), all})
	}
	// The generator's cases, each sent as an update of live: its body with
	// live's name, namespace and resourceVersion.
	g, err := gen.New(crd, version, gen.Options{Cases: generated})
	if err != nil {
		t.Fatal(err)
	}
	lmd, _ := live["metadata"].(map[string]any)
	for _, c := range g.Cases() {
		var obj map[string]any
		if json.Unmarshal(c.Raw, &obj) != nil || obj == nil {
			continue
		}
		md, ok := obj["metadata"].(map[string]any)
		if !ok {
			continue
		}
		for _, k := range []string{"name", "namespace", "resourceVersion"} {
			if x, ok := lmd[k]; ok {
				md[k] = x
			}
		}
		delete(md, "generateName")
		body, _ := json.Marshal(obj)
		cases = append(cases, updateCase{"gen:" + c.Mutation, body, warn})
	}
	return cases
}

func setLabel(md map[string]any, k, v string) {
	l, _ := md["labels"].(map[string]any)
	if l == nil {
		l = map[string]any{}
		md["labels"] = l
	}
	l[k] = v
}

// changedValue is another value of the same JSON type as v.
func changedValue(v any) any {
	switch x := v.(type) {
	case string:
		return x + "-changed"
	case bool:
		return !x
	case int64:
		return x + 1
	case float64:
		return x + 1
	case map[string]any:
		return map[string]any{}
	case []any:
		return append(slices.Clone(x), x...)
	}
	return "changed"
}

// compareUpdate sends one dry-run update to the server and compares it
// with crdkit's.
func compareUpdate(t *testing.T, agr *agreement, ck *crdkit.CRD, crd *apiextensionsv1.CustomResourceDefinition, version string, live map[string]any, uc updateCase, mode oracle.FieldValidation, status bool) {
	compareUpdateAs(t, agr, "", ck, crd, version, live, uc, mode, status)
}

// compareUpdateAs is compareUpdate with the capabilities named
// update-<what>-... and status-update-<what>-... when what is not empty.
func compareUpdateAs(t *testing.T, agr *agreement, what string, ck *crdkit.CRD, crd *apiextensionsv1.CustomResourceDefinition, version string, live map[string]any, uc updateCase, mode oracle.FieldValidation, status bool) {
	compareUpdateWith(t, agr, what, ck, crd, version, live, live, uc, mode, status)
}

// compareUpdateWith is compareUpdateAs with crdkit given ckLive as the live
// object (the request addresses live).
func compareUpdateWith(t *testing.T, agr *agreement, what string, ck *crdkit.CRD, crd *apiextensionsv1.CustomResourceDefinition, version string, live, ckLive map[string]any, uc updateCase, mode oracle.FieldValidation, status bool) {
	lmd, _ := live["metadata"].(map[string]any)
	name, _ := lmd["name"].(string)
	ns, _ := lmd["namespace"].(string)
	op, capability := oracle.OpUpdate, "update"
	if status {
		op, capability = oracle.OpUpdateStatus, "status-update"
	}
	if what != "" {
		capability += "-" + what
	}
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	sr, err := srv.Do(rctx, oracle.Request{Op: op, DryRun: true, CRD: crd.Name, Version: version, Namespace: ns, Name: name, Body: uc.body, FieldValidation: mode})
	cancel()
	if err != nil {
		t.Fatalf("%s %s %s: %v", crd.Name, version, uc.name, err)
	}
	want := serverVerdict(sr)
	ver := ck.Version(version)
	opts := crdkit.UpdateOptions{FieldValidation: crdkit.FieldValidation(mode)}
	var res crdkit.Result
	if status {
		res = ver.UpdateStatusJSON(uc.body, ckLive, opts)
	} else {
		res = ver.UpdateJSON(uc.body, ckLive, opts)
	}
	got := updateVerdict(res)
	kind := uc.name
	if i := strings.IndexByte(kind, '.'); i > 0 && !strings.HasPrefix(kind, "gen:") {
		kind = kind[:i]
	}
	desc := fmt.Sprintf("%s %s %s [%s]\n  input: %s", crd.Name, version, uc.name, mode, truncate(string(uc.body), 600))
	agr.record(capability+"-code", kind, got.Code == want.Code && got.Reason == want.Reason,
		fmt.Sprintf("%s\n  server: %d %s %s\n  crdkit: %d %s %s", desc, want.Code, want.Reason, want.Message, got.Code, got.Reason, got.Message))
	if want.Code == got.Code && want.Code >= 400 {
		gm, wm := got.Message, want.Message
		if want.Code == 422 {
			gm, wm = invalidPrefix(gm), invalidPrefix(wm)
		}
		gc, wc := slices.Clone(got.Causes), slices.Clone(want.Causes)
		sortCauses(gc)
		sortCauses(wc)
		agr.record(capability+"-causes", kind, gm == wm && slices.Equal(gc, wc),
			fmt.Sprintf("%s\n  server: %s\n    %q\n  crdkit: %s\n    %q", desc, want.Message, wc, got.Message, gc))
		// A message whose causes follow Go map order inside the server:
		// it varies, or (where crdkit's differs, as the creates confirm a
		// difference) it varies in up to confirmResends more answers, or
		// (the creates' last check) the server's own validation run in
		// this process gives the first pair crdkit reverses in crdkit's
		// order.
		if want.Code == 422 && len(want.Causes) > 1 && (updateMessageVaries(crd, op, version, ns, name, uc.body, mode, want.Message, 10) ||
			(got.Message != want.Message && (serverWordsOtherwise(crd, op, version, ns, name, uc.body, mode, want.Message, confirmResends) ||
				upstreamReorders(crd, version, uc.body, want.Causes, got.Causes)))) {
			agr.exact(capability + "-message-exact")
		} else if want.Code == 422 {
			agr.record(capability+"-message-exact", kind, got.Message == want.Message, fmt.Sprintf("%s\n  server: %s\n  crdkit: %s\n  whole input: %s", desc, want.Message, got.Message, uc.body))
		}
	}
	agr.record(capability+"-warnings", kind, slices.Equal(got.Warnings, want.Warnings),
		fmt.Sprintf("%s\n  server: %q\n  crdkit: %q", desc, want.Warnings, got.Warnings))
	if want.Code == 200 && got.Code == 200 {
		agr.record(capability+"-object", kind, reflect.DeepEqual(got.Object, want.Object),
			fmt.Sprintf("%s\n  server: %s\n  crdkit: %s", desc, mustJSON(want.Object), mustJSON(got.Object)))
	}
}

// updateVerdict is a crdkit update result in the form the server's answers
// are recorded.
func updateVerdict(res crdkit.Result) Verdict {
	v := createVerdict(res)
	if v.Code == 201 {
		v.Code = 200
	}
	return v
}

// updateMessageVaries resends an update whose 422 has several causes,
// CRDKIT_ORDER_RUNS times (runs without it), and reports whether the server
// ever words it otherwise (its cause order follows Go map order in places):
// only a message the server repeats is compared byte for byte.
func updateMessageVaries(crd *apiextensionsv1.CustomResourceDefinition, op oracle.Op, version, ns, name string, body []byte, mode oracle.FieldValidation, msg string, runs int) bool {
	return serverWordsOtherwise(crd, op, version, ns, name, body, mode, msg, envInt("CRDKIT_ORDER_RUNS", runs))
}

// serverWordsOtherwise resends an update up to runs times and reports whether the server ever answers with
// a message other than msg (a failed request does not count): a message
// whose causes follow Go map order (the properties of an object) can come
// the same way in the first dozen answers. Looking for crdkit's own
// message only was not enough: in one CI run an Alertmanager update's
// refusal, its causes under three properties of spec, came 110 times
// without crdkit's order, and was counted as a disagreement, where the run
// before had counted one more unstable case.
func serverWordsOtherwise(crd *apiextensionsv1.CustomResourceDefinition, op oracle.Op, version, ns, name string, body []byte, mode oracle.FieldValidation, msg string, runs int) bool {
	for range runs {
		rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		r, err := srv.Do(rctx, oracle.Request{Op: op, DryRun: true, CRD: crd.Name, Version: version, Namespace: ns, Name: name, Body: body, FieldValidation: mode})
		cancel()
		if err == nil && r.Status != nil && r.Status.Message != msg {
			return true
		}
	}
	return false
}
