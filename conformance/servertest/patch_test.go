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

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/oracle"
)

// patchStep is one PATCH request: sent to the server, then to crdkit's
// Version.Patch with the live object the server held.
type patchStep struct {
	name    string // the case; its kind is the part before the first '.'
	typ     string // Content-Type
	body    []byte
	mode    oracle.FieldValidation
	status  bool // to /status
	manager string
	force   bool
	real    bool // not a dry run: the object changes
}

// TestServerPatches creates one object per served version of every corpus
// CRD for real, then sends dry-run JSON patches and merge patches of it, to
// the resource and to /status, and compares the server's answers with
// crdkit's Version.Patch given the object as GET returns it: code, reason,
// message (a 422's causes sorted, and its whole message where the server
// repeats it), warnings and the returned object, managed fields included
// (their times excepted). The patches re-express the update cases of
// TestServerUpdates (each body's difference from live as a merge patch and
// as JSON patch operations on the top-level fields), plus the patch's own
// errors: malformed bodies, failing test operations, paths that do not
// exist, more than 10,000 operations, duplicate and unknown fields in the
// patch, strategic merge patches, changes of apiVersion, kind and name,
// force on a patch that is not an apply, a field manager name too long.
func TestServerPatches(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	b := setup(t)
	agr := newAgreement()
	defer agr.report(t)
	generated := envInt("CRDKIT_PATCH_CASES", 8)
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
			live, cleanup := createLive(t, crd, v.Name, fmt.Sprintf("pat-%d-%d", i, vi))
			if live == nil {
				agr.skip("no valid object the server accepts")
				continue
			}
			for _, st := range patchCases(t, crd, v.Name, live, generated) {
				comparePatch(t, agr, "patch", ck, crd, v.Name, live, st)
			}
			cleanup()
		}
	}
}

// patchCases are the patches sent over live.
func patchCases(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, version string, live map[string]any, generated int) []patchStep {
	const merge, jsonp = string(crdkit.MergePatch), string(crdkit.JSONPatch)
	liveJSON, _ := json.Marshal(live)
	var out []patchStep
	add := func(name, typ string, body []byte, modes []oracle.FieldValidation, status bool) {
		for _, m := range modes {
			out = append(out, patchStep{name: name, typ: typ, body: body, mode: m, status: status})
		}
	}
	warn := []oracle.FieldValidation{oracle.Warn}
	all := []oracle.FieldValidation{oracle.Ignore, oracle.Warn, oracle.Strict}
	// The update cases, as merge patches and JSON patches of the
	// resource; the fixed ones also of /status.
	for _, uc := range updateCases(t, crd, version, live, generated) {
		if strings.HasPrefix(uc.name, "duplicate") {
			continue // a duplicate key has no patch of its own: below
		}
		var body map[string]any
		if json.Unmarshal(uc.body, &body) != nil {
			continue
		}
		mp, err := jsonpatch.CreateMergePatch(liveJSON, uc.body)
		if err != nil {
			continue
		}
		ops, _ := json.Marshal(topLevelOps(live, body))
		statusToo := !strings.HasPrefix(uc.name, "gen:")
		add("update:"+uc.name, merge, mp, uc.modes, false)
		add("update:"+uc.name, jsonp, ops, uc.modes, false)
		if statusToo {
			add("update:"+uc.name, merge, mp, uc.modes, true)
			add("update:"+uc.name, jsonp, ops, uc.modes, true)
		}
	}
	group := crd.Spec.Group
	other := ""
	for _, w := range crd.Spec.Versions {
		if w.Served && w.Name != version {
			other = w.Name
			break
		}
	}
	// The patch's own errors and edges.
	for _, typ := range []string{merge, jsonp} {
		add("malformed", typ, []byte(`{"spec":`), warn, false)
		add("empty", typ, []byte(``), warn, false)
		add("null", typ, []byte(`null`), warn, false)
		add("number", typ, []byte(`5`), warn, false)
	}
	add("merge:array", merge, []byte(`[{"op":"add","path":"/metadata/labels","value":{}}]`), warn, false)
	add("merge:label", merge, []byte(`{"metadata":{"labels":{"crdkit.example.com/p":"x"}}}`), warn, false)
	add("merge:label", merge, []byte(`{"metadata":{"labels":{"crdkit.example.com/p":"x"}}}`), warn, true)
	add("merge:duplicate", merge, []byte(`{"metadata":{"labels":{"a":"1","a":"2"}}}`), all, false)
	add("merge:duplicate-unknown", merge, []byte(`{"spec":{"zzUnknown":1,"zzUnknown":2},"zzTop":true}`), all, false)
	add("merge:unknown-metadata", merge, []byte(`{"metadata":{"zzUnknown":"x"}}`), all, false)
	add("merge:resourceVersion-null", merge, []byte(`{"metadata":{"resourceVersion":null}}`), warn, false)
	add("merge:resourceVersion-stale", merge, []byte(`{"metadata":{"resourceVersion":"1"}}`), warn, false)
	add("merge:uid-other", merge, []byte(`{"metadata":{"uid":"6a2e9b8e-0000-4000-8000-000000000001"}}`), warn, false)
	add("merge:name-other", merge, []byte(`{"metadata":{"name":"someone-else"}}`), warn, false)
	add("merge:namespace-other", merge, []byte(`{"metadata":{"namespace":"elsewhere"}}`), warn, false)
	add("merge:kind-other", merge, []byte(`{"kind":"Other"}`), warn, false)
	add("merge:apiVersion-unserved", merge, []byte(`{"apiVersion":"`+group+`/v0other"}`), warn, false)
	add("merge:apiVersion-group", merge, []byte(`{"apiVersion":"other.example.com/`+version+`"}`), warn, false)
	if other != "" {
		add("merge:apiVersion-other", merge, []byte(`{"apiVersion":"`+group+`/`+other+`"}`), warn, false)
	}
	add("merge:metadata-wrong-type", merge, []byte(`{"metadata":{"labels":{"a":1}}}`), warn, false)
	add("merge:managedFields-reset", merge, []byte(`{"metadata":{"managedFields":[{}]}}`), warn, false)
	add("merge:managedFields-invalid", merge, []byte(`{"metadata":{"managedFields":[{"manager":"x","operation":"Bogus","apiVersion":"v1","fieldsType":"FieldsV1"}]}}`), warn, false)
	add("merge:finalizer-added", merge, []byte(`{"metadata":{"finalizers":["example.com/f","Bad Name"]}}`), warn, false)
	add("merge:status-set", merge, []byte(`{"status":{"zzObserved":3}}`), warn, true)
	add("json:test-fails", jsonp, []byte(`[{"op":"test","path":"/metadata/name","value":"nope"}]`), warn, false)
	add("json:test-passes", jsonp, []byte(`[{"op":"test","path":"/kind","value":"`+crd.Spec.Names.Kind+`"},{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}]`), warn, false)
	add("json:remove-missing", jsonp, []byte(`[{"op":"remove","path":"/spec/zzNope"}]`), warn, false)
	add("json:replace-missing", jsonp, []byte(`[{"op":"replace","path":"/zzNope/x","value":1}]`), warn, false)
	add("json:bad-op", jsonp, []byte(`[{"op":"frobnicate","path":"/spec"}]`), warn, false)
	add("json:not-array", jsonp, []byte(`{"op":"add","path":"/spec","value":{}}`), warn, false)
	add("json:unknown-op-field", jsonp, []byte(`[{"op":"add","path":"/metadata/labels","value":{"x":"y"},"extra":1}]`), all, false)
	add("json:duplicate-op-field", jsonp, []byte(`[{"op":"add","op":"add","path":"/metadata/labels","value":{"x":"y"}}]`), all, false)
	add("json:move", jsonp, []byte(`[{"op":"copy","from":"/metadata/name","path":"/metadata/annotations"}]`), warn, false)
	add("json:remove-resourceVersion", jsonp, []byte(`[{"op":"remove","path":"/metadata/resourceVersion"}]`), warn, false)
	add("json:unknown-field", jsonp, []byte(`[{"op":"add","path":"/zzTop","value":{"a":1}}]`), all, false)
	var many strings.Builder
	many.WriteString("[")
	for i := range 10001 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`{"op":"test","path":"/kind","value":"` + crd.Spec.Names.Kind + `"}`)
	}
	many.WriteString("]")
	add("json:too-many-operations", jsonp, []byte(many.String()), warn, false)
	add("strategic", string(crdkit.StrategicMergePatch), []byte(`{"metadata":{"labels":{"a":"b"}}}`), warn, false)
	add("unknown-type", "application/x-other", []byte(`{}`), warn, false)
	out = append(out,
		patchStep{name: "force-on-merge", typ: merge, body: []byte(`{}`), mode: oracle.Warn, force: true},
		patchStep{name: "manager-too-long", typ: merge, body: []byte(`{}`), mode: oracle.Warn, manager: strings.Repeat("m", 129)},
		patchStep{name: "manager-named", typ: merge, body: []byte(`{"metadata":{"labels":{"crdkit.example.com/m":"x"}}}`), mode: oracle.Warn, manager: "other-manager"},
		patchStep{name: "manager-named", typ: merge, body: []byte(`{"metadata":{"labels":{"crdkit.example.com/m":"x"}}}`), mode: oracle.Warn, manager: "other-manager", status: true},
		patchStep{name: "bad-field-validation", typ: merge, body: []byte(`{}`), mode: "Bogus"},
	)
	return out
}

// topLevelOps is a JSON patch that turns live into obj by replacing,
// adding and removing top-level fields.
func topLevelOps(live, obj map[string]any) []map[string]any {
	var ops []map[string]any
	for _, k := range sortedKeys(obj) {
		lv, ok := live[k]
		switch {
		case !ok:
			ops = append(ops, map[string]any{"op": "add", "path": "/" + k, "value": obj[k]})
		case !reflect.DeepEqual(lv, obj[k]):
			ops = append(ops, map[string]any{"op": "replace", "path": "/" + k, "value": obj[k]})
		}
	}
	for _, k := range sortedKeys(live) {
		if _, ok := obj[k]; !ok {
			ops = append(ops, map[string]any{"op": "remove", "path": "/" + k})
		}
	}
	if ops == nil {
		ops = []map[string]any{}
	}
	return ops
}

// TestServerApply sends server-side applies for every served version of
// every corpus CRD, in a scenario with two appliers: an apply that creates
// (dry run, then for real), the same configuration again, a second manager
// applying one field of it (the same value: shared; another value: a 409
// Conflict naming the first manager, then forced), the first manager
// dropping the field (removed when it is the only manager, kept when
// shared), a merge patch by a third manager over an applied field (an
// update manager's conflict), applies to /status, and the apply's errors
// (no field manager, managedFields in the patch, another version or kind,
// an unknown field, YAML that does not decode, duplicate keys in every
// mode, another name, a uid on create). Each answer is compared with
// crdkit's Version.Apply given the object as GET returns it: code, reason,
// message, causes, warnings, the object with its managed fields (their
// times excepted).
func TestServerApply(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	b := setup(t)
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
		for vi, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			applyScenario(t, agr, ck, crd, v, fmt.Sprintf("apl-%d-%d", i, vi))
		}
	}
}

const applyType = string(crdkit.ApplyPatch)

// applyScenario runs the apply scenario of TestServerApply on one version.
func applyScenario(t *testing.T, agr *agreement, ck *crdkit.CRD, crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion, name string) {
	base, ns := validBase(t, crd, v.Name)
	if base == nil {
		agr.skip("no valid object the server accepts")
		return
	}
	if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
		ns = ""
	}
	md, _ := base["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		base["metadata"] = md
	}
	delete(md, "generateName")
	md["name"] = name
	if ns != "" {
		md["namespace"] = ns
	}
	status, hasStatus := base["status"]
	delete(base, "status")
	config := yamlOf(base)
	addr := &liveAddr{crd: crd, version: v.Name, ns: ns, name: name}
	step := func(name string, body []byte, manager string, live map[string]any) patchStep {
		return patchStep{name: name, typ: applyType, body: body, mode: oracle.Warn, manager: manager}
	}
	// The apply that creates: a dry run, then for real.
	compareApply(t, agr, ck, addr, nil, step("create", config, "apply-a", nil))
	st := step("create", config, "apply-a", nil)
	st.real = true
	if r := compareApply(t, agr, ck, addr, nil, st); r.Code != 201 {
		t.Logf("%s %s: apply create = %d %v", crd.Name, v.Name, r.Code, r.Status)
		return
	}
	defer addr.delete()
	live := addr.get(t)
	compareApply(t, agr, ck, addr, live, step("same-again", config, "apply-a", live))
	for _, m := range []oracle.FieldValidation{oracle.Ignore, oracle.Strict} {
		s := step("same-again", config, "apply-a", live)
		s.mode = m
		compareApply(t, agr, ck, addr, live, s)
	}
	// Errors.
	withMF := deepCopyJSON(base)
	withMF["metadata"].(map[string]any)["managedFields"] = []any{map[string]any{"manager": "x", "operation": "Apply"}}
	compareApply(t, agr, ck, addr, live, step("managedFields-in-patch", yamlOf(withMF), "apply-a", live))
	compareApply(t, agr, ck, addr, live, step("no-manager", config, "", live))
	for _, f := range []struct{ name, key, value string }{
		{"version-other", "apiVersion", crd.Spec.Group + "/v0other"},
		{"kind-other", "kind", "Other"},
	} {
		o := deepCopyJSON(base)
		o[f.key] = f.value
		compareApply(t, agr, ck, addr, live, step(f.name, yamlOf(o), "apply-a", live))
	}
	unknown := deepCopyJSON(base)
	if sp, ok := unknown["spec"].(map[string]any); ok {
		sp["zzUnknown"] = "x"
	} else {
		unknown["zzUnknown"] = "x"
	}
	compareApply(t, agr, ck, addr, live, step("unknown-field", yamlOf(unknown), "apply-a", live))
	nameOther := deepCopyJSON(base)
	nameOther["metadata"].(map[string]any)["name"] = "someone-else"
	compareApply(t, agr, ck, addr, live, step("name-other", yamlOf(nameOther), "apply-a", live))
	compareApply(t, agr, ck, addr, live, step("not-yaml", []byte("{[: x"), "apply-a", live))
	compareApply(t, agr, ck, addr, live, step("yaml-list", []byte("- a\n- b\n"), "apply-a", live))
	compareApply(t, agr, ck, addr, live, step("empty", []byte(""), "apply-a", live))
	dup := append(append([]byte{}, config...), []byte("kind: "+crd.Spec.Names.Kind+"\n")...)
	for _, m := range []oracle.FieldValidation{oracle.Ignore, oracle.Warn, oracle.Strict} {
		s := step("duplicate-key", dup, "apply-a", live)
		s.mode = m
		compareApply(t, agr, ck, addr, live, s)
	}
	uidCreate := deepCopyJSON(base)
	uidCreate["metadata"].(map[string]any)["name"] = name + "-uid"
	uidCreate["metadata"].(map[string]any)["uid"] = "6a2e9b8e-0000-4000-8000-000000000001"
	compareApply(t, agr, ck, &liveAddr{crd: crd, version: v.Name, ns: ns, name: name + "-uid"}, nil, step("uid-on-create", yamlOf(uidCreate), "apply-a", nil))
	// Status.
	if hasStatus {
		so := map[string]any{"apiVersion": base["apiVersion"], "kind": base["kind"], "metadata": map[string]any{"name": name}, "status": status}
		if ns != "" {
			so["metadata"].(map[string]any)["namespace"] = ns
		}
		s := step("status", yamlOf(so), "apply-s", live)
		s.status = true
		compareApply(t, agr, ck, addr, live, s)
		compareApply(t, agr, ck, addr, live, step("status-on-resource", yamlOf(so), "apply-s", live))
	}
	// A second manager and one field of the configuration.
	p := mapLeafPath(base["spec"], []any{"spec"})
	if p == nil {
		agr.skip("apply: no scalar field under spec reachable through objects")
		return
	}
	subset := func(value any) map[string]any {
		o := map[string]any{"apiVersion": base["apiVersion"], "kind": base["kind"], "metadata": map[string]any{"name": name}}
		if ns != "" {
			o["metadata"].(map[string]any)["namespace"] = ns
		}
		cur := o
		for _, k := range p[:len(p)-1] {
			next := map[string]any{}
			cur[k.(string)] = next
			cur = next
		}
		cur[p[len(p)-1].(string)] = value
		return o
	}
	value := getAt(base, p)
	without := deepCopyJSON(base)
	deleteAt(without, p)
	compareApply(t, agr, ck, addr, live, step("b-same", yamlOf(subset(value)), "apply-b", live))
	compareApply(t, agr, ck, addr, live, step("b-changed", yamlOf(subset(changedValue(value))), "apply-b", live))
	forced := step("b-changed-forced", yamlOf(subset(changedValue(value))), "apply-b", live)
	forced.force = true
	compareApply(t, agr, ck, addr, live, forced)
	compareApply(t, agr, ck, addr, live, step("a-drops", yamlOf(without), "apply-a", live))
	// Shared: the second manager applies the same value for real.
	shared := step("b-same", yamlOf(subset(value)), "apply-b", live)
	shared.real = true
	compareApply(t, agr, ck, addr, live, shared)
	live = addr.get(t)
	compareApply(t, agr, ck, addr, live, step("a-drops-shared", yamlOf(without), "apply-a", live))
	compareApply(t, agr, ck, addr, live, step("b-changed-shared", yamlOf(subset(changedValue(value))), "apply-b", live))
	// An update manager takes the field with a merge patch, for real.
	mp, _ := json.Marshal(subset(changedValue(value)))
	upd := patchStep{name: "update-manager", typ: string(crdkit.MergePatch), body: mp, mode: oracle.Warn, manager: "patcher", real: true}
	comparePatch(t, agr, "apply", ck, crd, v.Name, live, upd)
	live = addr.get(t)
	compareApply(t, agr, ck, addr, live, step("after-update-manager", config, "apply-a", live))
	forced = step("after-update-manager-forced", config, "apply-a", live)
	forced.force = true
	compareApply(t, agr, ck, addr, live, forced)
}

// liveAddr is where an object of a scenario lives on the server.
type liveAddr struct {
	crd               *apiextensionsv1.CustomResourceDefinition
	version, ns, name string
}

func (a *liveAddr) get(t *testing.T) map[string]any {
	obj, _ := getLive(t, a.crd, a.version, a.ns, a.name)
	return obj
}

func (a *liveAddr) delete() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _ = srv.Do(ctx, oracle.Request{Op: oracle.OpDelete, CRD: a.crd.Name, Version: a.version, Namespace: a.ns, Name: a.name})
}

// compareApply is comparePatch for an apply of the object at addr (live
// nil: there is none).
func compareApply(t *testing.T, agr *agreement, ck *crdkit.CRD, addr *liveAddr, live map[string]any, st patchStep) oracle.Result {
	return comparePatchAt(t, agr, "apply", ck, addr, live, st)
}

// comparePatch sends one patch of live to the server and compares the
// answer with crdkit's.
func comparePatch(t *testing.T, agr *agreement, capability string, ck *crdkit.CRD, crd *apiextensionsv1.CustomResourceDefinition, version string, live map[string]any, st patchStep) oracle.Result {
	lmd, _ := live["metadata"].(map[string]any)
	name, _ := lmd["name"].(string)
	ns, _ := lmd["namespace"].(string)
	return comparePatchAt(t, agr, capability, ck, &liveAddr{crd: crd, version: version, ns: ns, name: name}, live, st)
}

func comparePatchAt(t *testing.T, agr *agreement, capability string, ck *crdkit.CRD, addr *liveAddr, live map[string]any, st patchStep) oracle.Result {
	op := oracle.OpPatch
	if st.status {
		op, capability = oracle.OpPatchStatus, "status-"+capability
	}
	req := oracle.Request{Op: op, DryRun: !st.real, CRD: addr.crd.Name, Version: addr.version, Namespace: addr.ns, Name: addr.name,
		Body: st.body, FieldValidation: st.mode, PatchType: st.typ, FieldManager: st.manager, Force: st.force}
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	sr, err := srv.Do(rctx, req)
	cancel()
	if err != nil {
		t.Fatalf("%s %s %s: %v", addr.crd.Name, addr.version, st.name, err)
	}
	want := serverVerdict(sr)
	opts := crdkit.PatchOptions{FieldValidation: crdkit.FieldValidation(st.mode), Force: st.force, Namespace: addr.ns, Name: addr.name,
		ManagedFields: crdkit.ManagedFields{FieldManager: st.manager, Now: newestEntryTime(sr.Object)}}
	if st.status {
		opts.Subresource = "status"
	}
	res := ck.Version(addr.version).Patch(crdkit.PatchType(st.typ), st.body, live, opts)
	got := createVerdict(res)
	if got.Code == 201 && !res.Created {
		got.Code = 200
	}
	kind := st.typ[strings.LastIndexByte(st.typ, '/')+1:] + " " + st.name
	if i := strings.IndexByte(kind, '.'); i > 0 && !strings.Contains(kind, "gen:") {
		kind = kind[:i]
	}
	desc := fmt.Sprintf("%s %s %s %s [%s] status=%v manager=%q force=%v\n  patch: %s", addr.crd.Name, addr.version, st.typ, st.name, st.mode, st.status, st.manager, st.force, truncate(string(st.body), 600))
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
		if len(want.Causes) > 1 && !st.real && (want.Code == 422 || want.Code == 409) {
			if patchWordsOtherwise(req, want.Message, envInt("CRDKIT_ORDER_RUNS", 10)) ||
				got.Message != want.Message && patchWordsOtherwise(req, want.Message, confirmResends) {
				agr.exact(capability + "-message-exact")
			} else {
				agr.record(capability+"-message-exact", kind, got.Message == want.Message, fmt.Sprintf("%s\n  server: %s\n  crdkit: %s", desc, want.Message, got.Message))
			}
		}
	}
	agr.record(capability+"-warnings", kind, slices.Equal(got.Warnings, want.Warnings),
		fmt.Sprintf("%s\n  server: %q\n  crdkit: %q", desc, want.Warnings, got.Warnings))
	if want.Code < 300 && got.Code < 300 {
		agr.record(capability+"-object", kind, reflect.DeepEqual(got.Object, want.Object),
			fmt.Sprintf("%s\n  server: %s\n  crdkit: %s", desc, mustJSON(want.Object), mustJSON(got.Object)))
	}
	return sr
}

// patchWordsOtherwise resends a dry-run request up to runs times and
// reports whether the server ever answers with a message other than msg.
func patchWordsOtherwise(req oracle.Request, msg string, runs int) bool {
	for range runs {
		rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		r, err := srv.Do(rctx, req)
		cancel()
		if err == nil && r.Status != nil && r.Status.Message != msg {
			return true
		}
	}
	return false
}

// newestEntryTime is the newest time of the managed fields entries of a
// server answer: the time the server wrote into the entries the request
// touched, which crdkit is given as ManagedFields.Now so that entries of
// the same second sort the same way on both sides. Zero without one.
func newestEntryTime(obj map[string]any) time.Time {
	var newest time.Time
	md, _ := obj["metadata"].(map[string]any)
	l, _ := md["managedFields"].([]any)
	for _, e := range l {
		m, _ := e.(map[string]any)
		s, _ := m["time"].(string)
		if tm, err := time.Parse(time.RFC3339, s); err == nil && tm.After(newest) {
			newest = tm
		}
	}
	return newest
}

// mapLeafPath is the path of the first scalar under v (sorted keys) that
// is reached through objects only.
func mapLeafPath(v any, at []any) []any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for _, k := range sortedKeys(m) {
		p := append(slices.Clone(at), k)
		switch m[k].(type) {
		case string, bool, int64, float64:
			return p
		case map[string]any:
			if q := mapLeafPath(m[k], p); q != nil {
				return q
			}
		}
	}
	return nil
}

func deleteAt(m map[string]any, p []any) {
	if parent, ok := getAt(m, p[:len(p)-1]).(map[string]any); ok {
		delete(parent, p[len(p)-1].(string))
	}
}

func yamlOf(obj map[string]any) []byte {
	b, err := yaml.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return b
}
