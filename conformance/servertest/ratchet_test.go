package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/oracle"
)

// TestServerRatcheting checks validation ratcheting and transition rules
// against the real server. For every corpus CRD a copy (in a group of its
// own) is installed, an object per served version is created for real,
// then the copy is tightened at values the objects hold (maxLength below a
// string's length, maximum below an integer, maxItems below a list's
// length, an enum without the value, a rule the value breaks, a transition
// rule self == oldSelf, a property made required that the object lacks),
// so the stored objects are now invalid (and upgrade.Check's report of the
// tightening is checked against the server: compareUpgrade). Updates then keep the invalid
// value (with a label change, or as a no-op), change it to another invalid
// value, fix it, or remove it, as PUT and as PUT to /status, and again as a
// merge patch and a JSON patch to the main resource and to /status (the
// patch-ratchet lines); crdkit, given the tightened CRD and the live object,
// must answer as the server does.
func TestServerRatcheting(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	b := setup(t)
	ctx := context.Background()
	agr := newAgreement()
	defer agr.report(t)

	var originals, copies []*apiextensionsv1.CustomResourceDefinition
	for i := range b.corpus {
		r := b.results[1+i]
		if !r.Established || r.CRD == nil {
			continue
		}
		originals = append(originals, r.CRD)
		copies = append(copies, regrouped(r.CRD, fmt.Sprintf("r%d.ratchet.crdkit.example", i)))
	}
	ictx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	installed, err := srv.InstallCRDs(ictx, copies)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	defer func() {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		_ = srv.DeleteCRDs(dctx, names...)
	}()
	for ci, res := range installed {
		if !res.Established || res.CRD == nil {
			agr.skip("copy of a corpus CRD not established")
			continue
		}
		names = append(names, res.CRD.Name)
		ratchetCRD(t, agr, originals[ci], res.CRD)
	}
}

// regrouped is a copy of crd, as a new CRD, in another API group.
func regrouped(crd *apiextensionsv1.CustomResourceDefinition, group string) *apiextensionsv1.CustomResourceDefinition {
	c := crd.DeepCopy()
	c.ObjectMeta = metav1.ObjectMeta{Name: c.Spec.Names.Plural + "." + group}
	c.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	c.Spec.Group = group
	return c
}

// site is one tightened value of a live object.
type site struct {
	kind    string
	path    []any
	version string
	tighten func(p *apiextensionsv1.JSONSchemaProps)
	changed any // another value that breaks the tightened schema, or nil
	fixed   any // a value that satisfies it, or nil
}

// ratchetCRD creates live objects under the copy, tightens the copy at
// values they hold and compares the updates.
func ratchetCRD(t *testing.T, agr *agreement, original, crd *apiextensionsv1.CustomResourceDefinition) {
	type liveObj struct {
		version string
		obj     map[string]any
		cleanup func()
	}
	var lives []liveObj
	var sites []site
	for vi, v := range crd.Spec.Versions {
		if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		base, ns := validBase(t, original, v.Name)
		if base == nil {
			continue
		}
		base["apiVersion"] = crd.Spec.Group + "/" + v.Name
		live, cleanup := createObject(t, crd, v.Name, ns, fmt.Sprintf("ratchet-%d", vi), base)
		if live == nil {
			continue
		}
		defer cleanup()
		lives = append(lives, liveObj{v.Name, live, cleanup})
		sites = append(sites, ratchetSites(live, v.Name, v.Schema.OpenAPIV3Schema)...)
	}
	if len(sites) == 0 {
		agr.skip("no value to tighten")
		return
	}
	tightened, sites := tightenAccepted(t, crd, sites)
	if tightened == nil {
		agr.skip("no tightening the server accepts")
		return
	}
	ck := loadCrdkit(t, tightened)
	if ck == nil {
		return
	}
	for _, l := range lives {
		waitForSchema(t, tightened, ck, l.version, l.obj)
	}
	// The upgrade report of the same tightening, its object verdicts
	// checked against the server now serving it.
	var objs []map[string]any
	for _, l := range lives {
		objs = append(objs, l.obj)
	}
	compareUpgrade(t, agr, "upgrade-corpus", crd, tightened, objs)
	for _, s := range sites {
		for _, l := range lives {
			if l.version != s.version {
				continue
			}
			liveJSON, _ := json.Marshal(l.obj)
			for _, uc := range ratchetUpdates(l.obj, s) {
				for _, status := range []bool{false, true} {
					compareUpdateAs(t, agr, "ratchet", ck, tightened, l.version, l.obj, uc, oracle.Warn, status)
				}
				// The same change as a merge patch and as JSON patch
				// operations (issue 32).
				var body map[string]any
				mp, err := jsonpatch.CreateMergePatch(liveJSON, uc.body)
				if err != nil || json.Unmarshal(uc.body, &body) != nil {
					continue
				}
				ops, _ := json.Marshal(topLevelOps(l.obj, body))
				for _, status := range []bool{false, true} {
					comparePatch(t, agr, "patch-ratchet", ck, tightened, l.version, l.obj, patchStep{name: uc.name, typ: "application/merge-patch+json", body: mp, mode: oracle.Warn, status: status})
					comparePatch(t, agr, "patch-ratchet", ck, tightened, l.version, l.obj, patchStep{name: uc.name, typ: "application/json-patch+json", body: ops, mode: oracle.Warn, status: status})
				}
			}
		}
	}
}

// createObject creates obj (named name, in ns) for real and returns it as
// GET returns it, decoded with integers as int64.
func createObject(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, version, ns, name string, obj map[string]any) (map[string]any, func()) {
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	delete(md, "generateName")
	md["name"] = name
	body, _ := json.Marshal(obj)
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cr, err := srv.Do(rctx, oracle.Request{Op: oracle.OpCreate, CRD: crd.Name, Version: version, Namespace: ns, Body: body, FieldValidation: oracle.Ignore})
	if err != nil || cr.Code != 201 {
		t.Logf("%s %s: create of the live object: %v %d %v", crd.Name, version, err, cr.Code, cr.Status)
		return nil, func() {}
	}
	return getLive(t, crd, version, ns, name)
}

// ratchetSites finds, in the live object of a version, one value for each
// kind of tightening.
func ratchetSites(live map[string]any, version string, root *apiextensionsv1.JSONSchemaProps) []site {
	var out []site
	have := map[string]bool{}
	add := func(s site) {
		if !have[s.kind] && schemaAt(root, s.path) != nil {
			have[s.kind] = true
			out = append(out, s)
		}
	}
	for _, top := range []string{"spec", "status"} {
		sub, ok := live[top].(map[string]any)
		if !ok {
			continue
		}
		for _, p := range leafPaths(sub, []any{top}, 0) {
			switch x := getAt(live, p).(type) {
			case string:
				n := len(x)
				if n >= 2 && n < 200 && !strings.ContainsAny(x, `'\`) && x == strings.ToValidUTF8(x, "") && isASCII(x) {
					add(site{kind: "maxLength", path: p, version: version, changed: x + "z", fixed: x[:n-1],
						tighten: func(s *apiextensionsv1.JSONSchemaProps) { m := int64(n - 1); s.MaxLength = &m }})
					add(site{kind: "enum", path: p, version: version, changed: x + "z", fixed: "crdkit-enum-value",
						tighten: func(s *apiextensionsv1.JSONSchemaProps) {
							s.Enum = []apiextensionsv1.JSON{{Raw: []byte(`"crdkit-enum-value"`)}}
						}})
					add(site{kind: "rule", path: p, version: version, changed: nil, fixed: x + "z",
						tighten: func(s *apiextensionsv1.JSONSchemaProps) {
							s.XValidations = append(s.XValidations, apiextensionsv1.ValidationRule{Rule: "self != '" + x + "'", Message: "crdkit: not this value"})
						}})
					add(site{kind: "transition", path: p, version: version, changed: x + "z",
						tighten: func(s *apiextensionsv1.JSONSchemaProps) {
							s.XValidations = append(s.XValidations, apiextensionsv1.ValidationRule{Rule: "self == oldSelf", Message: "crdkit: immutable"})
						}})
				}
			case int64:
				if x >= 1 && x < 1<<40 {
					add(site{kind: "maximum", path: p, version: version, changed: x + 1, fixed: x - 1,
						tighten: func(s *apiextensionsv1.JSONSchemaProps) { m := float64(x - 1); s.Maximum = &m }})
				}
			case []any:
				if n := len(x); n >= 1 && n < 50 {
					add(site{kind: "maxItems", path: p, version: version, changed: append(slices.Clone(x), x[0]), fixed: slices.Clone(x[:n-1]),
						tighten: func(s *apiextensionsv1.JSONSchemaProps) { m := int64(n - 1); s.MaxItems = &m }})
				}
			case map[string]any:
				if s := schemaAt(root, p); s != nil {
					for _, k := range sortedPropNames(s) {
						if _, ok := x[k]; !ok && !slices.Contains(s.Required, k) {
							k := k
							add(site{kind: "required", path: p, version: version,
								tighten: func(s *apiextensionsv1.JSONSchemaProps) { s.Required = append(s.Required, k) }})
							break
						}
					}
				}
			}
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] < 0x20 {
			return false
		}
	}
	return true
}

func sortedPropNames(s *apiextensionsv1.JSONSchemaProps) []string {
	var ks []string
	for k := range s.Properties {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// schemaAt returns the schema node of a value path, or nil.
func schemaAt(s *apiextensionsv1.JSONSchemaProps, p []any) *apiextensionsv1.JSONSchemaProps {
	for _, seg := range p {
		switch k := seg.(type) {
		case string:
			c, ok := s.Properties[k]
			if !ok {
				return nil
			}
			s = &c
		case int:
			if s.Items == nil || s.Items.Schema == nil {
				return nil
			}
			s = s.Items.Schema
		}
	}
	return s
}

// tightenAt applies f to the schema node of path p in place.
func tightenAt(s *apiextensionsv1.JSONSchemaProps, p []any, f func(*apiextensionsv1.JSONSchemaProps)) bool {
	if len(p) == 0 {
		f(s)
		return true
	}
	switch k := p[0].(type) {
	case string:
		c, ok := s.Properties[k]
		if !ok || !tightenAt(&c, p[1:], f) {
			return false
		}
		s.Properties[k] = c
		return true
	case int:
		if s.Items == nil || s.Items.Schema == nil {
			return false
		}
		return tightenAt(s.Items.Schema, p[1:], f)
	}
	return false
}

// withSites is crd tightened at sites.
func withSites(crd *apiextensionsv1.CustomResourceDefinition, sites []site) *apiextensionsv1.CustomResourceDefinition {
	c := crd.DeepCopy()
	for _, s := range sites {
		for i := range c.Spec.Versions {
			if v := &c.Spec.Versions[i]; v.Name == s.version {
				tightenAt(v.Schema.OpenAPIV3Schema, s.path, s.tighten)
			}
		}
	}
	return c
}

// tightenAccepted keeps the sites whose tightening the server accepts (each
// tried as a dry-run CRD update), applies them together and returns the
// stored CRD, or nil.
func tightenAccepted(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, sites []site) (*apiextensionsv1.CustomResourceDefinition, []site) {
	var kept []site
	for _, s := range sites {
		rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		r, err := srv.UpdateCRD(rctx, withSites(crd, []site{s}), oracle.CreateCRDOptions{DryRun: true})
		cancel()
		if err == nil && r.Allowed() {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return nil, nil
	}
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := srv.UpdateCRD(rctx, withSites(crd, kept), oracle.CreateCRDOptions{})
	if err != nil || !r.Allowed() {
		t.Logf("%s: tightened CRD refused: %v %v", crd.Name, err, r.Status)
		return nil, nil
	}
	out := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(r.Body, out); err != nil {
		t.Fatal(err)
	}
	return out, kept
}

// waitForSchema waits until the server answers a dry-run create of live
// (renamed) as crdkit does with the tightened CRD: the server serves the
// new schema a moment after the update.
func waitForSchema(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, ck *crdkit.CRD, version string, live map[string]any) {
	probe := deepCopyJSON(live)
	md := probe["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"} {
		delete(md, k)
	}
	md["name"] = "ratchet-probe"
	ns, _ := md["namespace"].(string)
	body, _ := json.Marshal(probe)
	want := createVerdict(ck.Version(version).CreateJSON(body, crdkit.CreateOptions{FieldValidation: crdkit.Warn}))
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		r, err := srv.Do(rctx, oracle.Request{Op: oracle.OpCreate, DryRun: true, CRD: crd.Name, Version: version, Namespace: ns, Body: body, FieldValidation: oracle.Warn})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if r.Code == want.Code {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("%s %s: the server did not take the tightened schema within 30s", crd.Name, version)
}

// ratchetUpdates are the updates of live at a tightened site: the value
// kept (with a label change, and as a no-op), changed to another invalid
// value, fixed, removed.
func ratchetUpdates(live map[string]any, s site) []updateCase {
	var out []updateCase
	add := func(name string, f func(obj map[string]any)) {
		obj := deepCopyJSON(live)
		f(obj)
		body, _ := json.Marshal(obj)
		out = append(out, updateCase{name: s.kind + "/" + name + pathString(s.path), body: body})
	}
	add("kept", func(obj map[string]any) {
		setLabel(obj["metadata"].(map[string]any), "crdkit.example.com/ratchet", "kept")
	})
	add("no-op", func(obj map[string]any) {})
	if s.changed != nil {
		add("changed", func(obj map[string]any) { setAt(obj, s.path, s.changed) })
	}
	if s.fixed != nil {
		add("fixed", func(obj map[string]any) { setAt(obj, s.path, s.fixed) })
	}
	if _, ok := s.path[len(s.path)-1].(string); ok {
		add("removed", func(obj map[string]any) {
			delete(getAt(obj, s.path[:len(s.path)-1]).(map[string]any), s.path[len(s.path)-1].(string))
		})
	}
	add("annotation", func(obj map[string]any) {
		obj["metadata"].(map[string]any)["annotations"] = map[string]any{"crdkit": "x"}
	})
	return out
}
