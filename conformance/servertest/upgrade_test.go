package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/oracle"
	"github.com/crdkit/crdkit/upgrade"
)

// compareUpgrade checks the object verdicts of upgrade.Check (live ->
// next, over the stored objects) against the real server, which must
// already serve next (installed for real): for each object, a GET at the
// report's version (the object, metadata aside), a no-op PUT of what the
// GET returned, a PUT with each ratcheted field changed as the report
// changed it, and a dry-run create of the same content under another name
// (codes and sorted causes). capability prefixes the counts.
func compareUpgrade(t *testing.T, agr *agreement, capability string, live, next *apiextensionsv1.CustomResourceDefinition, objects []map[string]any) {
	nx := next.DeepCopy()
	nx.ResourceVersion = live.ResourceVersion
	r, err := upgrade.Check(live, nx, objects)
	if err != nil {
		t.Errorf("%s: upgrade.Check: %v", live.Name, err)
		return
	}
	for _, o := range r.Objects {
		if o.Error != "" {
			agr.skip("object not checked by the report: " + o.Error)
			continue
		}
		name := fmt.Sprintf("%s %s/%s", live.Name, o.Namespace, o.Name)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		gr, err := srv.Do(ctx, oracle.Request{Op: oracle.OpGet, CRD: next.Name, Version: o.Version, Namespace: o.Namespace, Name: o.Name})
		cancel()
		if err != nil || gr.Code != 200 {
			t.Errorf("%s: GET: %v %d", name, err, gr.Code)
			continue
		}
		var got map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(gr.Body, &got); err != nil {
			t.Fatal(err)
		}
		a, b := withoutMeta(o.Read), withoutMeta(got)
		aj, _ := json.Marshal(a)
		bj, _ := json.Marshal(b)
		agr.record(capability+"-get", "object", string(aj) == string(bj), fmt.Sprintf("%s: report %s\nserver %s", name, aj, bj))

		body, _ := json.Marshal(got)
		agr.record(capability+"-noop-update", "verdict", sameUpgradeVerdict(o.NoOpUpdate, serverPut(t, next, o, body)), name)
		for _, rt := range o.Ratcheted {
			if rt.Changed == nil {
				continue
			}
			changed := deepCopyJSON(rt.Changed)
			changed["metadata"].(map[string]any)["resourceVersion"] = got["metadata"].(map[string]any)["resourceVersion"]
			cb, _ := json.Marshal(changed)
			sv := serverPut(t, next, o, cb)
			agr.record(capability+"-changed-update", "verdict", sameUpgradeVerdict(*rt.ChangeVerdict, sv), fmt.Sprintf("%s: %s to %s: report %+v, server %+v", name, rt.Field, rt.Change, *rt.ChangeVerdict, sv))
		}

		fresh := deepCopyJSON(got)
		md := fresh["metadata"].(map[string]any)
		for _, k := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"} {
			delete(md, k)
		}
		md["name"] = o.Name + "-fresh"
		fb, _ := json.Marshal(fresh)
		ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
		cr, err := srv.Do(ctx, oracle.Request{Op: oracle.OpCreate, DryRun: true, CRD: next.Name, Version: o.Version, Namespace: o.Namespace, Body: fb})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		agr.record(capability+"-create", "verdict", sameUpgradeVerdict(o.Create, upgradeVerdictOf(cr)), fmt.Sprintf("%s: report %+v, server %d %v", name, o.Create, cr.Code, cr.Status))
	}
}

func serverPut(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, o upgrade.Object, body []byte) upgrade.Verdict {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := srv.Do(ctx, oracle.Request{Op: oracle.OpUpdate, DryRun: true, CRD: crd.Name, Version: o.Version, Namespace: o.Namespace, Name: o.Name, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	return upgradeVerdictOf(r)
}

func upgradeVerdictOf(r oracle.Result) upgrade.Verdict {
	v := upgrade.Verdict{Allowed: r.Allowed(), Code: int32(r.Code)}
	if r.Status != nil {
		v.Reason = r.Status.Reason
		if r.Status.Details != nil {
			for _, c := range r.Status.Details.Causes {
				v.Causes = append(v.Causes, upgrade.Cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
			}
		}
	}
	return v
}

func sameUpgradeVerdict(a, b upgrade.Verdict) bool {
	key := func(v upgrade.Verdict) string {
		var cs []string
		for _, c := range v.Causes {
			cs = append(cs, c.Field+"|"+c.Reason+"|"+c.Message)
		}
		slices.Sort(cs)
		return fmt.Sprint(v.Code, v.Reason, cs)
	}
	return key(a) == key(b)
}

func withoutMeta(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != "metadata" {
			out[k] = v
		}
	}
	return out
}

// TestUpgradeExampleAgreesWithServer installs the live CRD of
// examples/crd-upgrade (in a group of its own), creates its stored objects
// for real, updates the CRD to the next revision for real, and checks the
// report's object verdicts against the server (compareUpgrade): pruned
// fields and defaults on GET, ratcheted fields, creates refused.
func TestUpgradeExampleAgreesWithServer(t *testing.T) {
	dir := "../../examples/crd-upgrade/"
	read := func(f string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		return []byte(strings.ReplaceAll(string(b), "example.com", "upgrade.crdkit.example"))
	}
	liveDoc, nextDoc, storedDoc := read("live.yaml"), read("next.yaml"), read("stored.yaml")
	liveCRD, _, err := crdkit.DecodeCRD(liveDoc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := srv.InstallCRDs(ctx, []*apiextensionsv1.CustomResourceDefinition{liveCRD})
	if err != nil || !res[0].Established {
		t.Fatalf("install: %v %+v", err, res)
	}
	defer func() { _ = srv.DeleteCRDs(context.Background(), liveCRD.Name) }()
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := yaml.Unmarshal(storedDoc, &list); err != nil {
		t.Fatal(err)
	}
	var objects []map[string]any
	for _, o := range list.Items {
		md := o["metadata"].(map[string]any)
		delete(md, "resourceVersion")
		ns, _ := md["namespace"].(string)
		name, _ := md["name"].(string)
		live, cleanup := createObject(t, res[0].CRD, "v1", ns, name, o)
		if live == nil {
			t.Fatalf("create %s", name)
		}
		defer cleanup()
		objects = append(objects, live)
	}
	live, err := srv.GetCRD(ctx, liveCRD.Name)
	if err != nil {
		t.Fatal(err)
	}
	next, _, err := crdkit.DecodeCRD(nextDoc)
	if err != nil {
		t.Fatal(err)
	}
	next.ResourceVersion = live.ResourceVersion
	ur, err := srv.UpdateCRD(ctx, next, oracle.CreateCRDOptions{})
	if err != nil || !ur.Allowed() {
		t.Fatalf("update of the CRD: %v %v", err, ur.Status)
	}
	served := new(apiextensionsv1.CustomResourceDefinition)
	if err := json.Unmarshal(ur.Body, served); err != nil {
		t.Fatal(err)
	}
	ck := loadCrdkit(t, served)
	if ck == nil {
		return
	}
	waitForSchema(t, served, ck, "v1", objects[0])
	// The server serves the defaults of the next revision a moment after
	// it checks with its schema: wait until a GET shows the new default.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		g, _ := srv.Do(ctx, oracle.Request{Op: oracle.OpGet, CRD: served.Name, Version: "v1", Namespace: "prod", Name: "nightly"})
		if strings.Contains(string(g.Body), "compression") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	agr := newAgreement()
	defer agr.report(t)
	compareUpgrade(t, agr, "upgrade-example", live, served, objects)
}
