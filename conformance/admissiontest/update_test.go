package admissiontest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/oracle"
	"github.com/crdkit/crdkit/generate"
)

// updatable reports whether a case can be sent as an update of the live
// object: embeddable, and not a metadata mutation (those may change the
// name, which pairs the manifest with its counterpart and the request
// with the object).
func updatable(c generate.Case) bool {
	return embeddable(c) && c.Mutation != "metadata"
}

// asUpdate is a case's body renamed to live's name and namespace, with
// live's resourceVersion when withRV.
func asUpdate(raw []byte, live map[string]any, withRV bool) ([]byte, error) {
	var obj map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &obj); err != nil {
		return nil, err
	}
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	lmd, _ := live["metadata"].(map[string]any)
	md["name"] = lmd["name"]
	if ns, ok := lmd["namespace"]; ok {
		md["namespace"] = ns
	}
	if withRV {
		md["resourceVersion"] = lmd["resourceVersion"]
	}
	return json.Marshal(obj)
}

// TestAdmissionUpdates creates one live object of every served corpus
// version for real, then sends generated changes of it (1) as UPDATEs of
// a Work whose old manifest is the live object, through the validating
// plugin to the example webhook, against the real server's dry-run PUT of
// the change, and (2) for versions with a status subresource, as UPDATEs
// of the object's status, against the server's dry-run PUT to /status.
func TestAdmissionUpdates(t *testing.T) {
	b := setup(t)
	var crds []*crdkit.CRD
	for _, c := range b.crds {
		crds = append(crds, b.loaded[c.Name])
	}
	p := newPlugins(t, crds, "v1")
	ctx := context.Background()
	nCases := envInt("CRDKIT_ADMISSION_CASES", 40)

	type job struct {
		crd     *apiextensionsv1.CustomResourceDefinition
		version string
		status  bool
		live    map[string]any
		c       generate.Case
	}
	var jobs []job
	for _, crd := range b.crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			g, err := generate.ForVersion(b.loaded[crd.Name].Version(v.Name), generate.Options{Cases: nCases})
			if err != nil {
				t.Fatal(err)
			}
			obj, unsat := g.Valid(1, "live-"+strings.ToLower(v.Name))
			if unsat != nil {
				continue // no valid live object
			}
			raw, _ := generate.Marshal(obj)
			created, err := srv.Do(ctx, oracle.Request{Op: oracle.OpCreate, CRD: crd.Name, Version: v.Name, Body: raw})
			if err != nil || !created.Allowed() {
				t.Errorf("%s/%s: creating the live object: %v %d %v", crd.Name, v.Name, err, created.Code, created.Status)
				continue
			}
			statusSub := v.Subresources != nil && v.Subresources.Status != nil
			for _, c := range g.Cases() {
				if updatable(c) {
					jobs = append(jobs, job{crd, v.Name, false, created.Object, c})
					if statusSub {
						jobs = append(jobs, job{crd, v.Name, true, created.Object, c})
					}
				}
			}
		}
	}

	var mu sync.Mutex
	var verdict, message, warnings, sverdict, smessage, swarnings counts
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		if len(failures) < 40 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
		mu.Unlock()
	}
	ch := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				name := fmt.Sprintf("%s/%s %s", j.crd.Name, j.version, j.c.Name)
				op, dv, dm, dw := oracle.OpUpdate, &verdict, &message, &warnings
				if j.status {
					op, dv, dm, dw = oracle.OpUpdateStatus, &sverdict, &smessage, &swarnings
					name += " (status)"
				}
				body, err := asUpdate(j.c.Raw, j.live, true)
				if err != nil {
					fail("%s: %v", name, err)
					continue
				}
				direct, err := srv.Do(ctx, oracle.Request{Op: op, CRD: j.crd.Name, Version: j.version, Body: body, DryRun: true, FieldValidation: oracle.Warn})
				if err != nil {
					fail("%s: %v", name, err)
					continue
				}
				var attr admission.Attributes
				if j.status {
					obj := &unstructured.Unstructured{}
					if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &obj.Object); err != nil {
						fail("%s: %v", name, err)
						continue
					}
					gvk := runtimeschema.GroupVersionKind{Group: j.crd.Spec.Group, Version: j.version, Kind: j.crd.Spec.Names.Kind}
					gvr := runtimeschema.GroupVersionResource{Group: j.crd.Spec.Group, Version: j.version, Resource: j.crd.Spec.Names.Plural}
					live := &unstructured.Unstructured{Object: j.live}
					attr = admission.NewAttributesRecord(obj, live.DeepCopy(), gvk, live.GetNamespace(), live.GetName(), gvr, "status", admission.Update,
						&metav1.UpdateOptions{}, false, &user.DefaultInfo{Name: "alice"})
				} else {
					// The manifest as a control plane holds it: no resourceVersion.
					manifest, _ := asUpdate(j.c.Raw, j.live, false)
					liveRaw, _ := json.Marshal(j.live)
					newWork, err1 := work("w", manifest)
					oldWork, err2 := work("w", liveRaw)
					if err1 != nil || err2 != nil {
						fail("%s: %v %v", name, err1, err2)
						continue
					}
					attr = admission.NewAttributesRecord(newWork, oldWork, workGVK, "", "w", workGVR, "", admission.Update,
						&metav1.UpdateOptions{}, false, &user.DefaultInfo{Name: "alice"})
				}
				rec := &recorder{}
				verr := p.validate.Validate(warning.WithWarningRecorder(ctx, rec), attr, p.ifaces)
				okVerdict := (verr == nil) == direct.Allowed()
				okWarnings := reflect.DeepEqual(rec.texts, direct.Warnings) || (len(rec.texts) == 0 && len(direct.Warnings) == 0)
				mu.Lock()
				dv.add(okVerdict)
				dw.add(okWarnings)
				mu.Unlock()
				if !okVerdict {
					fail("%s: validate = %v, server %d %v", name, verr, direct.Code, direct.Status)
				}
				if !okWarnings {
					fail("%s: warnings %q, server %q", name, rec.texts, direct.Warnings)
				}
				if verr != nil && !direct.Allowed() {
					got := statusOf(verr)
					oracle.SortCauses(got)
					want := prefix() + direct.Status.Message
					ok := got.Code == direct.Status.Code && got.Reason == direct.Status.Reason && reflect.DeepEqual(got.Details, direct.Status.Details) &&
						(got.Message == want || sameUpToOrder(got.Message, want))
					mu.Lock()
					dm.add(ok)
					mu.Unlock()
					if !ok {
						fail("%s: denied with %d %s %q %+v, server %d %s %q %+v", name, got.Code, got.Reason, got.Message, got.Details,
							direct.Status.Code, direct.Status.Reason, direct.Status.Message, direct.Status.Details)
					}
				}
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	fmt.Printf("conformance: admission-update-verdict %s\n", verdict)
	fmt.Printf("conformance: admission-update-message %s\n", message)
	fmt.Printf("conformance: admission-update-warnings %s\n", warnings)
	fmt.Printf("conformance: admission-update-status-verdict %s\n", sverdict)
	fmt.Printf("conformance: admission-update-status-message %s\n", smessage)
	fmt.Printf("conformance: admission-update-status-warnings %s\n", swarnings)
	if verdict.of == 0 || sverdict.of == 0 {
		t.Errorf("nothing compared: %d updates, %d status updates", verdict.of, sverdict.of)
	}
}

func prefix() string { return fmt.Sprintf("admission webhook %q denied the request: ", webhookName) }
