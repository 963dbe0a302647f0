package servertest

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/types"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/oracle"
)

// TestServerScale creates objects of every served version of the corpus
// CRDs with a scale subresource (one with spec replicas, one without where
// the schema allows) and compares GETs, PUTs and PATCHes (JSON merge patch,
// JSON patch, and the strategic merge patch the server refuses) of their
// Scale, as dry runs in every field-validation mode that matters, with
// crdkit's Version.Scale, UpdateScaleJSON and PatchScale, and server-side
// applies with ApplyScale: codes, messages (a 422's causes sorted),
// warnings and the Scale returned.
func TestServerScale(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	b := setup(t)
	agr := newAgreement()
	defer agr.report(t)
	n := 0
	for i := range b.corpus {
		r := b.results[1+i]
		if !r.Established || r.CRD == nil {
			continue
		}
		for vi, v := range r.CRD.Spec.Versions {
			if !v.Served || v.Subresources == nil || v.Subresources.Scale == nil {
				continue
			}
			ck := loadCrdkit(t, r.CRD)
			if ck == nil {
				continue
			}
			n++
			scaleVersion(t, agr, ck, r.CRD, v.Name, v.Subresources.Scale, fmt.Sprintf("scale-%d-%d", i, vi))
		}
	}
	if n == 0 {
		t.Skip("no corpus CRD has a scale subresource")
	}
}

func scaleVersion(t *testing.T, agr *agreement, ck *crdkit.CRD, crd *apiextensionsv1.CustomResourceDefinition, version string, sc *apiextensionsv1.CustomResourceSubresourceScale, ns string) {
	base, _ := validBase(t, crd, version)
	if base == nil {
		agr.skip("scale: no valid object the server accepts")
		return
	}
	path := strings.Split(strings.TrimPrefix(sc.SpecReplicasPath, "."), ".")
	mk := func(name string, replicas any) map[string]any {
		obj := deepCopyJSON(base)
		md, _ := obj["metadata"].(map[string]any)
		if _, set := md["namespace"]; set {
			md["namespace"] = ns
		}
		cur := obj
		for i, k := range path {
			if i == len(path)-1 {
				if replicas == nil {
					delete(cur, k)
				} else {
					cur[k] = replicas
				}
				break
			}
			next, _ := cur[k].(map[string]any)
			if next == nil {
				next = map[string]any{}
				cur[k] = next
			}
			cur = next
		}
		live, _ := createObject(t, crd, version, ns, name, obj)
		return live
	}
	lives := map[string]map[string]any{"replicas": mk("scaled", int64(2)), "no-replicas": mk("unscaled", nil)}
	for kind, live := range lives {
		if live == nil {
			agr.skip("scale: create refused (" + kind + ")")
			continue
		}
		md := live["metadata"].(map[string]any)
		name := md["name"].(string)
		rv := md["resourceVersion"].(string)
		l := &scaleCase{t: t, agr: agr, ck: ck, crd: crd, version: version, ns: ns, name: name, live: live}
		l.get()
		full := func(extra string) string {
			return fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":%q%s},"spec":{"replicas":3}}`, name, extra)
		}
		all := []oracle.FieldValidation{oracle.Ignore, oracle.Warn, oracle.Strict}
		warn := []oracle.FieldValidation{oracle.Warn}
		for _, c := range []struct {
			name  string
			body  string
			modes []oracle.FieldValidation
		}{
			{"full", full(""), warn},
			{"no-type-meta", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":4}}`, name), warn},
			{"no-name", `{"spec":{"replicas":4}}`, warn},
			{"other-name", `{"metadata":{"name":"zz"},"spec":{"replicas":4}}`, warn},
			{"other-namespace", full(`,"namespace":"elsewhere"`), warn},
			{"resourceVersion-met", full(fmt.Sprintf(`,"resourceVersion":%q`, rv)), warn},
			{"resourceVersion-stale", full(`,"resourceVersion":"1"`), warn},
			{"resourceVersion-malformed", full(`,"resourceVersion":"abc"`), warn},
			{"uid-other", full(`,"uid":"6a2e9b8e-0000-4000-8000-000000000001"`), warn},
			{"labels", full(`,"labels":{"a":"b"}`), warn},
			{"replicas-0", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":0}}`, name), warn},
			{"replicas-none", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{}}`, name), warn},
			{"replicas-negative", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":-1}}`, name), warn},
			{"replicas-max", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":2147483647}}`, name), warn},
			{"replicas-min", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":-2147483648}}`, name), warn},
			{"replicas-overflow", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":2147483648}}`, name), warn},
			{"replicas-string", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":"5"}}`, name), warn},
			{"replicas-float", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":1.5}}`, name), warn},
			{"status", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":3},"status":{"replicas":9,"selector":"x=y"}}`, name), warn},
			{"unknown-field", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":3,"bogus":1},"zz":1}`, name), all},
			{"duplicate-field", fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":3,"replicas":5}}`, name), all},
			{"unknown-metadata-field", fmt.Sprintf(`{"metadata":{"name":%q,"zz":1},"spec":{"replicas":3}}`, name), all},
			{"wrong-case", fmt.Sprintf(`{"metadata":{"name":%q},"Spec":{"replicas":3}}`, name), all},
			{"autoscaling-v2", `{"apiVersion":"autoscaling/v2","kind":"Scale","metadata":{"name":"x"},"spec":{"replicas":3}}`, warn},
			{"extensions-v1beta1", fmt.Sprintf(`{"apiVersion":"extensions/v1beta1","kind":"Scale","metadata":{"name":%q},"spec":{"replicas":3}}`, name), warn},
			{"other-kind", fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Other","metadata":{"name":%q},"spec":{"replicas":3}}`, name), warn},
			{"kind-only", fmt.Sprintf(`{"kind":"Scale","metadata":{"name":%q},"spec":{"replicas":3}}`, name), warn},
			{"not-json", `spec: {replicas: 3}`, warn},
			{"array", `[]`, warn},
			{"empty", ``, warn},
		} {
			for _, mode := range c.modes {
				l.put(c.name, c.body, mode)
			}
		}
		merge, jsonp := types.MergePatchType, types.JSONPatchType
		long := strings.Repeat("m", 129)
		for _, c := range []struct {
			name, manager string
			pt            types.PatchType // "": PUT
			body          string
		}{
			{"manager-too-long", long, "", full("")},
			{"manager-unprintable", "a\x01b", "", full("")},
			{"manager-ok", "scaler", "", full("")},
			{"merge-manager-too-long", long, merge, `{"spec":{"replicas":5}}`},
			{"merge-manager-unprintable", "a\x01b", merge, `{"spec":{"replicas":5}}`},
			{"json-manager-too-long-not-json", long, jsonp, `{`},
			{"strategic-manager-too-long", long, types.StrategicMergePatchType, `{}`},
		} {
			l.withManager(c.name, c.manager, c.pt, c.body)
		}
		l.applies()
		for _, c := range []struct {
			name  string
			pt    types.PatchType
			patch string
			modes []oracle.FieldValidation
		}{
			{"merge", merge, `{"spec":{"replicas":5}}`, warn},
			{"merge-null", merge, `{"spec":{"replicas":null}}`, warn},
			{"merge-empty", merge, `{}`, warn},
			{"merge-labels", merge, `{"metadata":{"labels":{"a":"b"}}}`, warn},
			{"merge-name", merge, `{"metadata":{"name":"zz"}}`, warn},
			{"merge-namespace", merge, `{"metadata":{"namespace":"elsewhere"}}`, warn},
			{"merge-resourceVersion-stale", merge, `{"metadata":{"resourceVersion":"1"},"spec":{"replicas":5}}`, warn},
			{"merge-status", merge, `{"status":{"replicas":7},"spec":{"replicas":5}}`, warn},
			{"merge-negative", merge, `{"spec":{"replicas":-3}}`, warn},
			{"merge-string", merge, `{"spec":{"replicas":"5"}}`, warn},
			{"merge-unknown", merge, `{"spec":{"replicas":5,"bogus":1}}`, all},
			{"merge-duplicate", merge, `{"spec":{"replicas":5},"spec":{"replicas":6}}`, all},
			{"merge-kind", merge, `{"kind":"Other"}`, warn},
			{"merge-kind-null", merge, `{"kind":null}`, warn},
			{"merge-apiVersion-null", merge, `{"apiVersion":null}`, warn},
			{"merge-apiVersion-v2", merge, `{"apiVersion":"autoscaling/v2"}`, warn},
			{"merge-apiVersion-apps", merge, `{"apiVersion":"apps/v1beta2"}`, warn},
			{"merge-apiVersion-extensions", merge, `{"apiVersion":"extensions/v1beta1","spec":{"replicas":5}}`, warn},
			{"merge-managedFields", merge, `{"metadata":{"managedFields":null},"spec":{"replicas":5}}`, warn},
			{"json-test-managedFields", jsonp, `[{"op":"test","path":"/metadata/managedFields/0/apiVersion","value":"autoscaling/v1"},{"op":"replace","path":"/spec/replicas","value":6}]`, warn},
			{"merge-array", merge, `[1]`, warn},
			{"merge-not-json", merge, `{`, warn},
			{"json-replace", jsonp, `[{"op":"replace","path":"/spec/replicas","value":6}]`, warn},
			{"json-add", jsonp, `[{"op":"add","path":"/spec/replicas","value":6}]`, warn},
			{"json-remove", jsonp, `[{"op":"remove","path":"/spec/replicas"}]`, warn},
			{"json-test-failed", jsonp, `[{"op":"test","path":"/spec/replicas","value":99},{"op":"replace","path":"/spec/replicas","value":6}]`, warn},
			{"json-bad-path", jsonp, `[{"op":"replace","path":"/spec/nope/x","value":6}]`, warn},
			{"json-bad-op", jsonp, `[{"op":"frobnicate","path":"/spec/replicas","value":6}]`, warn},
			{"json-not-list", jsonp, `{"op":"replace"}`, warn},
			{"json-unknown-key", jsonp, `[{"op":"replace","path":"/spec/replicas","value":6,"extra":1}]`, all},
			{"json-unknown-field", jsonp, `[{"op":"add","path":"/spec/bogus","value":6}]`, all},
			{"strategic", types.StrategicMergePatchType, `{"spec":{"replicas":5}}`, warn},
		} {
			for _, mode := range c.modes {
				l.patch(c.name, c.pt, c.patch, mode)
			}
		}
		l.parentWrites()
	}
}

// applies sends server-side applies of the Scale as dry runs (with and
// without force, in each field-validation mode that matters) and compares
// them with crdkit's PatchScale with ApplyPatch.
func (l *scaleCase) applies() {
	sc := func(rest string) string {
		return fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":%q}%s}`, l.name, rest)
	}
	yml := "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: " + l.name + "\nspec:\n  replicas: 5\n"
	for _, c := range []struct {
		name, manager string
		force         bool
		body          string
		modes         []oracle.FieldValidation
	}{
		{"apply-conflict", "scaler", false, sc(`,"spec":{"replicas":5}`), []oracle.FieldValidation{""}},
		{"apply-force", "scaler", true, sc(`,"spec":{"replicas":5}`), []oracle.FieldValidation{""}},
		{"apply-same-replicas", "scaler", false, "", []oracle.FieldValidation{""}},
		{"apply-no-manager", "", false, `{"spec":{"replicas":5}}`, []oracle.FieldValidation{""}},
		{"apply-yaml", "scaler", true, yml, []oracle.FieldValidation{""}},
		{"apply-yaml-conflict", "scaler", false, yml, []oracle.FieldValidation{""}},
		{"apply-no-type-meta", "scaler", true, fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"replicas":5}}`, l.name), []oracle.FieldValidation{""}},
		{"apply-kind-other", "scaler", true, fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Other","metadata":{"name":%q},"spec":{"replicas":5}}`, l.name), []oracle.FieldValidation{""}},
		{"apply-apiVersion-v2", "scaler", true, fmt.Sprintf(`{"apiVersion":"autoscaling/v2","kind":"Scale","metadata":{"name":%q},"spec":{"replicas":5}}`, l.name), []oracle.FieldValidation{""}},
		{"apply-no-name", "scaler", true, `{"apiVersion":"autoscaling/v1","kind":"Scale","spec":{"replicas":5}}`, []oracle.FieldValidation{""}},
		{"apply-other-name", "scaler", true, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"zz"},"spec":{"replicas":5}}`, []oracle.FieldValidation{""}},
		{"apply-empty", "scaler", true, sc(""), []oracle.FieldValidation{""}},
		{"apply-status", "scaler", true, sc(`,"spec":{"replicas":5},"status":{"replicas":3}`), []oracle.FieldValidation{""}},
		{"apply-labels", "scaler", true, fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":%q,"labels":{"a":"b"}},"spec":{"replicas":5}}`, l.name), []oracle.FieldValidation{""}},
		{"apply-managedFields", "scaler", true, fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":%q,"managedFields":[]},"spec":{"replicas":5}}`, l.name), []oracle.FieldValidation{""}},
		{"apply-negative", "scaler", true, sc(`,"spec":{"replicas":-3}`), []oracle.FieldValidation{""}},
		{"apply-string", "scaler", true, sc(`,"spec":{"replicas":"5"}`), []oracle.FieldValidation{""}},
		{"apply-null", "scaler", true, sc(`,"spec":{"replicas":null}`), []oracle.FieldValidation{""}},
		{"apply-unknown", "scaler", true, sc(`,"spec":{"replicas":5,"bogus":1}`), []oracle.FieldValidation{"", "Ignore", "Warn", "Strict"}},
		{"apply-duplicate", "scaler", true, "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: " + l.name + "\nspec:\n  replicas: 5\nspec:\n  replicas: 6\n", []oracle.FieldValidation{"", "Ignore", "Warn", "Strict"}},
		{"apply-not-yaml", "scaler", true, "{[", []oracle.FieldValidation{""}},
		{"apply-resourceVersion-stale", "scaler", true, fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":%q,"resourceVersion":"1"},"spec":{"replicas":5}}`, l.name), []oracle.FieldValidation{""}},
	} {
		body := c.body
		if c.name == "apply-same-replicas" {
			if n, ok := l.replicas(); ok {
				body = sc(fmt.Sprintf(`,"spec":{"replicas":%d}`, n))
			} else {
				continue
			}
		}
		for _, mode := range c.modes {
			q := url.Values{"dryRun": {"All"}}
			if c.manager != "" {
				q.Set("fieldManager", c.manager)
			}
			if c.force {
				q.Set("force", "true")
			}
			if mode != "" {
				q.Set("fieldValidation", string(mode))
			}
			sr := l.sendQuery("PATCH", string(types.ApplyPatchType), []byte(body), q)
			opts := crdkit.PatchOptions{FieldValidation: crdkit.FieldValidation(mode), Force: c.force, ManagedFields: crdkit.ManagedFields{FieldManager: c.manager}}
			res := l.ck.Version(l.version).ApplyScale([]byte(body), l.live, opts)
			l.compare("scale-apply", c.name, fmt.Sprintf("[%s] fieldManager %q force %v %s", mode, c.manager, c.force, body), sr, res)
		}
	}
}

// replicas is the live object's spec replicas, when it has them.
func (l *scaleCase) replicas() (int64, bool) {
	r := l.ck.Version(l.version).Scale(l.live)
	if r.Err != nil {
		return 0, false
	}
	spec, _ := r.Object["spec"].(map[string]any)
	n, ok := spec["replicas"].(int64)
	return n, ok
}

// parentWrites writes the Scale for real (no dry run), by managers of
// its own, and compares the object the server then stores (a GET of it)
// with crdkit's Result.Parent: its managedFields (times normalised) and
// spec. Each write starts from the object the previous one left: PUTs of
// the Scale (with and without its type meta, by the object's creator),
// JSON merge patches and JSON patches.
func (l *scaleCase) parentWrites() {
	creator := ""
	if mf, _ := l.live["metadata"].(map[string]any)["managedFields"].([]any); len(mf) > 0 {
		creator, _ = mf[0].(map[string]any)["manager"].(string)
	}
	body := func(n int) []byte {
		return fmt.Appendf(nil, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":%q},"spec":{"replicas":%d}}`, l.name, n)
	}
	merge, jsonp := types.MergePatchType, types.JSONPatchType
	for _, w := range []struct {
		name, manager string
		pt            types.PatchType // "": PUT
		body          []byte
	}{
		{"put", "scale-put", "", body(7)},
		{"merge-patch", "scale-merge", merge, []byte(`{"spec":{"replicas":8}}`)},
		{"json-patch", "scale-json", jsonp, []byte(`[{"op":"replace","path":"/spec/replicas","value":9}]`)},
		{"put-same-replicas", "scale-same", "", body(9)},
		{"put-creator", creator, "", body(4)},
		{"merge-patch-again", "scale-merge", merge, []byte(`{"spec":{"replicas":5}}`)},
		{"put-no-type-meta", "scale-bare", "", fmt.Appendf(nil, `{"metadata":{"name":%q},"spec":{"replicas":6}}`, l.name)},
		{"put-kind-only", "scale-kind", "", fmt.Appendf(nil, `{"kind":"Scale","metadata":{"name":%q},"spec":{"replicas":2}}`, l.name)},
		{"put-apiVersion-only", "scale-apiversion", "", fmt.Appendf(nil, `{"apiVersion":"autoscaling/v1","metadata":{"name":%q},"spec":{"replicas":3}}`, l.name)},
		{"merge-patch-after", "scale-merge", merge, []byte(`{"spec":{"replicas":1}}`)},
		{"json-patch-apiVersion-removed", "scale-json", jsonp, []byte(`[{"op":"remove","path":"/apiVersion"},{"op":"replace","path":"/spec/replicas","value":2}]`)},
		// An apply that changes nothing (the replicas the object has):
		// the only apply of /scale the server carries out; its manager
		// then shares spec replicas.
		{"apply-same-replicas", "scale-apply", types.ApplyPatchType, body(2)},
		{"merge-patch-after-apply", "scale-merge", merge, []byte(`{"spec":{"replicas":3}}`)},
	} {
		opts := crdkit.UpdateOptions{ManagedFields: crdkit.ManagedFields{FieldManager: w.manager}}
		var res crdkit.Result
		method, ct := "PUT", ""
		if w.pt == "" {
			res = l.ck.Version(l.version).UpdateScaleJSON(w.body, l.live, opts)
		} else {
			method, ct = "PATCH", string(w.pt)
			res = l.ck.Version(l.version).PatchScale(crdkit.PatchType(w.pt), w.body, l.live, opts)
		}
		q := url.Values{"fieldManager": {w.manager}}
		rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		sr, err := srv.DoRaw(rctx, oracle.RawRequest{Method: method, CRD: l.crd.Name, Version: l.version, Namespace: l.ns, Name: l.name,
			Subresource: "scale", Query: q, ContentType: ct, Body: w.body})
		var got oracle.Result
		if err == nil && sr.Code == 200 {
			got, err = srv.DoRaw(rctx, oracle.RawRequest{Method: "GET", CRD: l.crd.Name, Version: l.version, Namespace: l.ns, Name: l.name})
		}
		cancel()
		if err != nil {
			l.t.Fatalf("%s %s %s %s: %v", l.crd.Name, l.version, method, w.name, err)
		}
		desc := fmt.Sprintf("%s %s %s %s by %q", l.crd.Name, l.version, l.name, w.name, w.manager)
		ok := sr.Code == 200 && res.Err == nil && got.Object != nil
		if !ok {
			// Both refuse it the same way (an apply of a Scale whose
			// replicas no entry owns): the sequence stops there.
			want, have := serverVerdict(sr), updateVerdict(res)
			same := sr.Code != 200 && want.Code == have.Code && want.Message == have.Message
			l.agr.record("scale-parent-code", w.name, same,
				fmt.Sprintf("%s\n  server: %d %s\n  crdkit: %v", desc, sr.Code, sr.Body, res.Err))
			return
		}
		l.agr.record("scale-parent-code", w.name, true, "")
		want := oracle.Normalize(deepCopyJSON(got.Object))
		parent := oracle.Normalize(deepCopyJSON(res.Parent))
		wmd, _ := want["metadata"].(map[string]any)
		pmd, _ := parent["metadata"].(map[string]any)
		l.agr.record("scale-parent-managedFields", w.name, reflect.DeepEqual(wmd["managedFields"], pmd["managedFields"]),
			fmt.Sprintf("%s\n  server: %s\n  crdkit: %s", desc, mustJSON(wmd["managedFields"]), mustJSON(pmd["managedFields"])))
		l.agr.record("scale-parent-spec", w.name, reflect.DeepEqual(want["spec"], parent["spec"]),
			fmt.Sprintf("%s\n  server: %s\n  crdkit: %s", desc, mustJSON(want["spec"]), mustJSON(parent["spec"])))
		var next map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(got.Body, &next); err != nil {
			l.t.Fatalf("%s: decoding the object: %v", desc, err)
		}
		l.live = next
	}
}

// scaleCase is one live object whose Scale requests are compared.
type scaleCase struct {
	t                 *testing.T
	agr               *agreement
	ck                *crdkit.CRD
	crd               *apiextensionsv1.CustomResourceDefinition
	version, ns, name string
	live              map[string]any
}

func (l *scaleCase) get() {
	sr := l.send("GET", "", nil, "")
	l.compare("scale-get", "get", "", sr, l.ck.Version(l.version).Scale(l.live))
}

func (l *scaleCase) put(name, body string, mode oracle.FieldValidation) {
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	sr := l.send("PUT", "", b, mode)
	res := l.ck.Version(l.version).UpdateScaleJSON(b, l.live, crdkit.UpdateOptions{FieldValidation: crdkit.FieldValidation(mode)})
	l.compare("scale-put", name, fmt.Sprintf("[%s] %s", mode, body), sr, res)
}

func (l *scaleCase) patch(name string, pt types.PatchType, patch string, mode oracle.FieldValidation) {
	sr := l.send("PATCH", string(pt), []byte(patch), mode)
	res := l.ck.Version(l.version).PatchScale(crdkit.PatchType(pt), []byte(patch), l.live, crdkit.UpdateOptions{FieldValidation: crdkit.FieldValidation(mode)})
	l.compare("scale-patch", name, fmt.Sprintf("[%s] %s %s", mode, pt, patch), sr, res)
}

// withManager sends a dry-run PUT (pt "") or PATCH of the Scale with the
// fieldManager parameter manager.
func (l *scaleCase) withManager(name, manager string, pt types.PatchType, body string) {
	method, capability := "PUT", "scale-put"
	if pt != "" {
		method, capability = "PATCH", "scale-patch"
	}
	sr := l.sendQuery(method, string(pt), []byte(body), url.Values{"dryRun": {"All"}, "fieldManager": {manager}})
	opts := crdkit.UpdateOptions{ManagedFields: crdkit.ManagedFields{FieldManager: manager}}
	var res crdkit.Result
	if pt == "" {
		res = l.ck.Version(l.version).UpdateScaleJSON([]byte(body), l.live, opts)
	} else {
		res = l.ck.Version(l.version).PatchScale(crdkit.PatchType(pt), []byte(body), l.live, opts)
	}
	l.compare(capability, name, fmt.Sprintf("fieldManager %q %s %s", manager, pt, body), sr, res)
}

func (l *scaleCase) send(method, contentType string, body []byte, mode oracle.FieldValidation) oracle.Result {
	q := url.Values{}
	if method != "GET" {
		q.Set("dryRun", "All")
	}
	if mode != "" {
		q.Set("fieldValidation", string(mode))
	}
	return l.sendQuery(method, contentType, body, q)
}

func (l *scaleCase) sendQuery(method, contentType string, body []byte, q url.Values) oracle.Result {
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sr, err := srv.DoRaw(rctx, oracle.RawRequest{Method: method, CRD: l.crd.Name, Version: l.version, Namespace: l.ns, Name: l.name,
		Subresource: "scale", Query: q, ContentType: contentType, Body: body})
	if err != nil {
		l.t.Fatalf("%s %s %s: %v", l.crd.Name, l.version, method, err)
	}
	return sr
}

func (l *scaleCase) compare(capability, kind, input string, sr oracle.Result, res crdkit.Result) {
	want, got := serverVerdict(sr), updateVerdict(res)
	sortCauses(want.Causes)
	sortCauses(got.Causes)
	desc := fmt.Sprintf("%s %s %s %s\n  input: %s\n  live: %s", l.crd.Name, l.version, l.name, kind, input, mustJSON(l.live))
	l.agr.record(capability+"-code", kind, got.Code == want.Code && got.Reason == want.Reason,
		fmt.Sprintf("%s\n  server: %d %s %s\n  crdkit: %d %s %s", desc, want.Code, want.Reason, want.Message, got.Code, got.Reason, got.Message))
	if want.Code >= 300 && got.Code == want.Code {
		l.agr.record(capability+"-message", kind, got.Message == want.Message && slices.Equal(got.Causes, want.Causes),
			fmt.Sprintf("%s\n  server: %s %q\n  crdkit: %s %q", desc, want.Message, want.Causes, got.Message, got.Causes))
	}
	l.agr.record(capability+"-warnings", kind, slices.Equal(got.Warnings, want.Warnings),
		fmt.Sprintf("%s\n  server: %q\n  crdkit: %q", desc, want.Warnings, got.Warnings))
	if want.Code == 200 && got.Code == 200 {
		l.agr.record(capability+"-object", kind, reflect.DeepEqual(got.Object, want.Object),
			fmt.Sprintf("%s\n  server: %s\n  crdkit: %s", desc, mustJSON(want.Object), mustJSON(got.Object)))
	}
}
