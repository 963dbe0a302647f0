package admissiontest

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	webhooktesting "k8s.io/apiserver/pkg/admission/plugin/webhook/testing"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/oracle"
	"github.com/crdkit/crdkit/examples/admission-webhook/webhook"
	"github.com/crdkit/crdkit/generate"
	"github.com/crdkit/crdkit/internal/corpus"
)

var srv *oracle.Server

func TestMain(m *testing.M) {
	if _, ok := corpus.Root(); !ok {
		fmt.Println("admissiontest: corpus not found (set CRDKIT_CORPUS to the corpus root); tests skip")
		os.Exit(m.Run())
	}
	s, err := oracle.New(oracle.Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "admissiontest: %v\n", err)
		os.Exit(1)
	}
	srv = s
	code := m.Run()
	s.Close()
	os.Exit(code)
}

// installed is the corpus, installed once in the real server and loaded
// in crdkit.
type installed struct {
	crds   []*apiextensionsv1.CustomResourceDefinition // as the server stored them
	loaded map[string]*crdkit.CRD                      // by name
}

var (
	installOnce sync.Once
	batch       installed
	batchErr    error
)

func setup(t *testing.T) *installed {
	t.Helper()
	if srv == nil {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	installOnce.Do(func() {
		root, _ := corpus.Root()
		docs, err := oracle.LoadCRDs(filepath.Join(root, "crds"))
		if err != nil {
			batchErr = err
			return
		}
		raw := make([][]byte, len(docs))
		for i, d := range docs {
			raw[i] = d.JSON
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		results, err := srv.InstallRawCRDs(ctx, raw)
		if err != nil {
			batchErr = err
			return
		}
		batch.loaded = map[string]*crdkit.CRD{}
		for _, r := range results {
			if !r.Established {
				continue
			}
			c, err := crdkit.New(r.CRD)
			if err != nil {
				batchErr = fmt.Errorf("crdkit refuses %s, which the server accepted: %v", r.Name, err)
				return
			}
			batch.crds = append(batch.crds, r.CRD)
			batch.loaded[r.Name] = c
		}
	})
	if batchErr != nil {
		t.Fatal(batchErr)
	}
	if len(batch.crds) == 0 {
		t.Fatal("no corpus CRD installed")
	}
	return &batch
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// The embedding object: a cluster-scoped Work of fleet.example.com/v1
// carrying manifests for another cluster under spec.manifests.
var (
	workGVK = runtimeschema.GroupVersionKind{Group: "fleet.example.com", Version: "v1", Kind: "Work"}
	workGVR = runtimeschema.GroupVersionResource{Group: "fleet.example.com", Version: "v1", Resource: "works"}
)

const webhookName = "crdkit.example.com"

// plugins are the server's validating and mutating webhook plugins, each
// configured with one webhook: the example's handler at /validate or
// /mutate, for CREATE of works, with review version reviewVersion.
type plugins struct {
	validate *validating.Plugin
	mutate   *mutating.Plugin
	ifaces   admission.ObjectInterfaces
}

func newPlugins(t *testing.T, crds []*crdkit.CRD, reviewVersion string) *plugins {
	t.Helper()
	ts := httptest.NewUnstartedServer(webhook.New(crds))
	ts.StartTLS()
	t.Cleanup(ts.Close)
	if !strings.HasPrefix(ts.URL, "https://127.0.0.1:") {
		t.Fatalf("the webhook listens on %s, not on loopback", ts.URL)
	}
	caBundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	none := admissionregistrationv1.SideEffectClassNone
	fail := admissionregistrationv1.Fail
	exact := admissionregistrationv1.Exact
	timeout := int32(30)
	scope := admissionregistrationv1.AllScopes
	// Works, and the corpus objects themselves (their status updates).
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*", "*/status"}, Scope: &scope},
	}}
	cc := func(path string) admissionregistrationv1.WebhookClientConfig {
		u := ts.URL + path
		return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: caBundle}
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	resolver := webhooktesting.Wrapper(webhooktesting.NewAuthenticationInfoResolver(new(int32)))

	vp, err := validating.NewValidatingAdmissionWebhook(nil)
	if err != nil {
		t.Fatal(err)
	}
	vclient, vinf := webhooktesting.NewFakeValidatingDataSource("webhook-test", []admissionregistrationv1.ValidatingWebhook{{
		Name: webhookName, ClientConfig: cc("/validate"), Rules: rules, SideEffects: &none, FailurePolicy: &fail,
		MatchPolicy: &exact, TimeoutSeconds: &timeout, AdmissionReviewVersions: []string{reviewVersion},
		NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
	}}, stop)
	vp.SetAuthenticationInfoResolverWrapper(resolver)
	vp.SetExternalKubeClientSet(vclient)
	vp.SetExternalKubeInformerFactory(vinf)
	if err := vp.ValidateInitialization(); err != nil {
		t.Fatal(err)
	}
	vinf.Start(stop)
	vinf.WaitForCacheSync(stop)

	mp, err := mutating.NewMutatingWebhook(nil)
	if err != nil {
		t.Fatal(err)
	}
	never := admissionregistrationv1.NeverReinvocationPolicy
	mclient, minf := webhooktesting.NewFakeMutatingDataSource("webhook-test", []admissionregistrationv1.MutatingWebhook{{
		Name: webhookName, ClientConfig: cc("/mutate"), Rules: rules, SideEffects: &none, FailurePolicy: &fail,
		MatchPolicy: &exact, TimeoutSeconds: &timeout, AdmissionReviewVersions: []string{reviewVersion},
		NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{}, ReinvocationPolicy: &never,
	}}, stop)
	mp.SetAuthenticationInfoResolverWrapper(resolver)
	mp.SetExternalKubeClientSet(mclient)
	mp.SetExternalKubeInformerFactory(minf)
	if err := mp.ValidateInitialization(); err != nil {
		t.Fatal(err)
	}
	minf.Start(stop)
	minf.WaitForCacheSync(stop)
	return &plugins{validate: vp, mutate: mp, ifaces: webhooktesting.NewObjectInterfacesForTest()}
}

// recorder collects the Warning texts the plugins add.
type recorder struct {
	mu    sync.Mutex
	texts []string
}

func (r *recorder) AddWarning(_, text string) {
	r.mu.Lock()
	r.texts = append(r.texts, text)
	r.mu.Unlock()
}

// work embeds manifest (a JSON object) in a Work, decoded as the server
// decodes a request body.
func work(name string, manifest []byte) (*unstructured.Unstructured, error) {
	raw := `{"apiVersion":"fleet.example.com/v1","kind":"Work","metadata":{"name":"` + name + `"},"spec":{"manifests":[` + string(manifest) + `]}}`
	u := &unstructured.Unstructured{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(raw), &u.Object); err != nil {
		return nil, err
	}
	return u, nil
}

func attributes(obj *unstructured.Unstructured) admission.Attributes {
	return admission.NewAttributesRecord(obj, nil, workGVK, "", obj.GetName(), workGVR, "", admission.Create,
		&metav1.CreateOptions{}, false, &user.DefaultInfo{Name: "alice"})
}

// statusOf is the Status of a plugin's error.
func statusOf(err error) *metav1.Status {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		st := se.Status()
		return &st
	}
	return &metav1.Status{Message: err.Error()}
}

// embeddable reports whether a case survives being embedded: it decodes
// as a JSON object, the embedding object's decoding keeps what the case
// tests (not duplicate keys, not number spellings), and it names the
// CRD's group, version and kind (a manifest of a kind no given CRD serves
// is not checked; its cluster would answer 404).
func embeddable(c generate.Case) bool {
	switch c.Mutation {
	case "json", "duplicate-key", "number", "typemeta":
		return false
	}
	if strings.Contains(c.Path, "=3.0") { // an int-or-string spelled 3.0
		return false
	}
	var m map[string]any
	return json.Unmarshal(c.Raw, &m) == nil && m != nil
}

// comparable strips what only the server's create sets, or clears, from a
// manifest: server-only metadata, generation and namespace, and status
// when the version has a status subresource.
func comparable(obj map[string]any, statusSub bool) map[string]any {
	obj = oracle.DropGeneration(oracle.Normalize(obj))
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "namespace")
		// The server's field manager adds them to what it creates; a
		// manifest inside a reviewed object has none (oracle.Normalize
		// keeps them since the field manager came in).
		delete(md, "managedFields")
		if md["generateName"] != nil {
			delete(md, "name") // generated
		}
	}
	if statusSub {
		delete(obj, "status")
	}
	return obj
}

// sameUpToOrder reports whether two messages have the same characters: the
// server's message lists several causes in map-iteration order in places.
func sameUpToOrder(a, b string) bool {
	x, y := []rune(a), []rune(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

type counts struct{ n, of int }

func (c *counts) add(ok bool) {
	c.of++
	if ok {
		c.n++
	}
}

func (c counts) String() string { return fmt.Sprintf("%d/%d", c.n, c.of) }

// TestAdmissionWebhooks sends generated objects of every served version
// of every corpus CRD, embedded in a Work, through the server's webhook
// plugins to the example webhook (review versions v1 and v1beta1 in turn),
// and compares with the real server's dry-run create of the object itself.
func TestAdmissionWebhooks(t *testing.T) {
	b := setup(t)
	var crds []*crdkit.CRD
	for _, c := range b.crds {
		crds = append(crds, b.loaded[c.Name])
	}
	byReview := map[string]*plugins{"v1": newPlugins(t, crds, "v1"), "v1beta1": newPlugins(t, crds, "v1beta1")}
	nCases := envInt("CRDKIT_ADMISSION_CASES", 40)
	ctx := context.Background()

	type job struct {
		crd       string
		version   string
		statusSub bool
		storage   bool
		c         generate.Case
		review    string
	}
	var jobs []job
	for _, crd := range b.crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			statusSub := v.Subresources != nil && v.Subresources.Status != nil
			g, err := generate.New(crd, v.Name, generate.Options{Cases: nCases, SkipStatus: statusSub})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range g.Cases() {
				if embeddable(c) {
					jobs = append(jobs, job{crd.Name, v.Name, statusSub, v.Storage, c, []string{"v1", "v1beta1"}[i%2]})
				}
			}
		}
	}

	var mu sync.Mutex
	var verdict, message, warnings, mutated, roundtrip counts
	var reordered int
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		if len(failures) < 40 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
		mu.Unlock()
	}
	work1 := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work1 {
				direct, err := srv.DryRunCreate(ctx, j.crd, j.version, j.c.Raw, oracle.Warn)
				if err != nil {
					fail("%s/%s %s: %v", j.crd, j.version, j.c.Name, err)
					continue
				}
				p := byReview[j.review]
				obj, err := work("w-"+strconv.Itoa(len(j.c.Name)), j.c.Raw)
				if err != nil {
					fail("%s: %v", j.c.Name, err)
					continue
				}
				rec := &recorder{}
				verr := p.validate.Validate(warning.WithWarningRecorder(ctx, rec), attributes(obj.DeepCopy()), p.ifaces)
				name := fmt.Sprintf("%s/%s %s (review %s)", j.crd, j.version, j.c.Name, j.review)

				mu.Lock()
				verdict.add((verr == nil) == direct.Allowed())
				warnings.add(reflect.DeepEqual(rec.texts, direct.Warnings) || (len(rec.texts) == 0 && len(direct.Warnings) == 0))
				mu.Unlock()
				if (verr == nil) != direct.Allowed() {
					fail("%s: validate = %v, server %d %v", name, verr, direct.Code, direct.Status)
				}
				if !reflect.DeepEqual(rec.texts, direct.Warnings) && (len(rec.texts) > 0 || len(direct.Warnings) > 0) {
					fail("%s: warnings %q, server %q", name, rec.texts, direct.Warnings)
				}
				if verr != nil && !direct.Allowed() {
					got := statusOf(verr)
					prefix := fmt.Sprintf("admission webhook %q denied the request: ", webhookName)
					oracle.SortCauses(got)
					if j.c.Mutation == "metadata" && j.c.Path == "generateName" {
						got, direct.Status = nameless(got), nameless(direct.Status)
					}
					ok := got.Code == direct.Status.Code && got.Reason == direct.Status.Reason && reflect.DeepEqual(got.Details, direct.Status.Details)
					exact := got.Message == prefix+direct.Status.Message
					ok = ok && (exact || sameUpToOrder(got.Message, prefix+direct.Status.Message))
					mu.Lock()
					message.add(ok)
					if ok && !exact {
						reordered++
					}
					mu.Unlock()
					if !ok {
						fail("%s: denied with %d %s %q %+v, server %d %s %q %+v", name, got.Code, got.Reason, got.Message, got.Details,
							direct.Status.Code, direct.Status.Reason, direct.Status.Message, direct.Status.Details)
					}
				}
				if !direct.Allowed() {
					continue
				}
				mobj := obj.DeepCopy()
				attr := attributes(mobj)
				if err := p.mutate.Admit(ctx, attr, p.ifaces); err != nil {
					mu.Lock()
					mutated.add(false)
					mu.Unlock()
					fail("%s: mutate: %v", name, err)
					continue
				}
				got, _ := attr.GetObject().(*unstructured.Unstructured)
				var manifest map[string]any
				if got != nil {
					if l, _, _ := unstructured.NestedSlice(got.Object, "spec", "manifests"); len(l) == 1 {
						manifest, _ = l[0].(map[string]any)
					}
				}
				if manifest == nil {
					mu.Lock()
					mutated.add(false)
					mu.Unlock()
					fail("%s: no manifest after mutation", name)
					continue
				}
				raw, _ := json.Marshal(manifest)
				want := comparable(direct.Object, j.statusSub)
				if j.storage {
					// At the storage version the created object is the
					// decoded one plus what only the create sets.
					ok := reflect.DeepEqual(normalize(comparable(manifest, j.statusSub)), normalize(want))
					mu.Lock()
					mutated.add(ok)
					mu.Unlock()
					if !ok {
						a, _ := json.Marshal(comparable(manifest, j.statusSub))
						b, _ := json.Marshal(want)
						fail("%s: mutated manifest %s, server created %s", name, a, b)
					}
				}
				// The patched manifest, created directly, gives the same object.
				again, err := srv.DryRunCreate(ctx, j.crd, j.version, raw, oracle.Warn)
				ok := err == nil && again.Allowed() && reflect.DeepEqual(normalize(comparable(again.Object, j.statusSub)), normalize(want))
				mu.Lock()
				roundtrip.add(ok)
				mu.Unlock()
				if !ok {
					a, _ := json.Marshal(comparable(again.Object, j.statusSub))
					b, _ := json.Marshal(want)
					fail("%s: the patched manifest created %d %v %s, the original %s", name, again.Code, err, a, b)
				}
			}
		}()
	}
	for _, j := range jobs {
		work1 <- j
	}
	close(work1)
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	fmt.Printf("conformance: admission-validate-verdict %s\n", verdict)
	fmt.Printf("conformance: admission-validate-message %s (%d equal up to the order of causes, which the server takes from map iteration there)\n", message, reordered)
	fmt.Printf("conformance: admission-validate-warnings %s\n", warnings)
	fmt.Printf("conformance: admission-mutate-object %s (storage versions: the patched manifest is the created object)\n", mutated)
	fmt.Printf("conformance: admission-mutate-roundtrip %s (every version: the patched manifest creates the same object)\n", roundtrip)
	if verdict.of == 0 || mutated.of == 0 {
		t.Errorf("nothing compared: %d verdicts, %d mutations", verdict.of, mutated.of)
	}
}

// normalize re-encodes a value so that int64 and float64 spellings of a
// number compare equal.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// nameless replaces a generated name in a Status by NAME.
func nameless(st *metav1.Status) *metav1.Status {
	st = st.DeepCopy()
	if st.Details != nil && st.Details.Name != "" {
		st.Message = strings.ReplaceAll(st.Message, `"`+st.Details.Name+`"`, `"NAME"`)
		st.Details.Name = "NAME"
	}
	return st
}
