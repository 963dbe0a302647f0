package builtindiff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	genericfilters "k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/handlers"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/builtin"
	"github.com/crdkit/crdkit/internal/docs"
)

// resource is what kube-apiserver serves a kind under, and the metadata
// part of its validation (k8s.io/kubernetes/pkg/apis/*/validation: the
// name function each kind's ValidateObjectMeta call is given).
type resource struct {
	plural     string
	namespaced bool
	nameFn     apimachineryvalidation.ValidateNameFunc // nil: the kind's validation does not check metadata
	finalizers bool                                    // the core finalizer-name rule
	maxName    int                                     // CronJob's own limit
}

var (
	subdomain = apimachineryvalidation.NameIsDNSSubdomain
	resources = map[string]resource{
		"apps/v1/Deployment":                              {"deployments", true, subdomain, true, 0},
		"apps/v1/StatefulSet":                             {"statefulsets", true, apimachineryvalidation.NameIsDNSLabel, true, 0},
		"apps/v1/DaemonSet":                               {"daemonsets", true, subdomain, true, 0},
		"apps/v1/ReplicaSet":                              {"replicasets", true, subdomain, true, 0},
		"v1/Service":                                      {"services", true, apimachineryvalidation.NameIsDNS1035Label, true, 0},
		"v1/ConfigMap":                                    {"configmaps", true, subdomain, true, 0},
		"v1/Secret":                                       {"secrets", true, subdomain, true, 0},
		"v1/Pod":                                          {"pods", true, subdomain, true, 0},
		"v1/ServiceAccount":                               {"serviceaccounts", true, subdomain, true, 0},
		"v1/Namespace":                                    {"namespaces", false, apimachineryvalidation.ValidateNamespaceName, true, 0},
		"v1/PersistentVolumeClaim":                        {"persistentvolumeclaims", true, subdomain, true, 0},
		"batch/v1/Job":                                    {"jobs", true, subdomain, true, 0},
		"batch/v1/CronJob":                                {"cronjobs", true, subdomain, true, 52},
		"networking.k8s.io/v1/Ingress":                    {"ingresses", true, subdomain, true, 0},
		"networking.k8s.io/v1/NetworkPolicy":              {"networkpolicies", true, subdomain, true, 0},
		"rbac.authorization.k8s.io/v1/Role":               {"roles", true, path.ValidatePathSegmentName, true, 0},
		"rbac.authorization.k8s.io/v1/ClusterRole":        {"clusterroles", false, path.ValidatePathSegmentName, true, 0},
		"rbac.authorization.k8s.io/v1/RoleBinding":        {"rolebindings", true, path.ValidatePathSegmentName, true, 0},
		"rbac.authorization.k8s.io/v1/ClusterRoleBinding": {"clusterrolebindings", false, path.ValidatePathSegmentName, true, 0},
		"policy/v1/PodDisruptionBudget":                   {"poddisruptionbudgets", true, nil, false, 0},
		"autoscaling/v2/HorizontalPodAutoscaler":          {"horizontalpodautoscalers", true, subdomain, true, 0},
		"apps/v1/ControllerRevision":                      {"controllerrevisions", true, subdomain, true, 0},
		"v1/PersistentVolume":                             {"persistentvolumes", false, subdomain, true, 0},
		"v1/LimitRange":                                   {"limitranges", true, subdomain, true, 0},
		"v1/ResourceQuota":                                {"resourcequotas", true, subdomain, true, 0},
		"v1/ReplicationController":                        {"replicationcontrollers", true, subdomain, true, 0},
		"v1/PodTemplate":                                  {"podtemplates", true, subdomain, true, 0},
		"autoscaling/v1/HorizontalPodAutoscaler":          {"horizontalpodautoscalers", true, subdomain, true, 0},
		"storage.k8s.io/v1/StorageClass":                  {"storageclasses", false, subdomain, true, 0},
		"scheduling.k8s.io/v1/PriorityClass":              {"priorityclasses", false, subdomain, true, 0},
		"networking.k8s.io/v1/IngressClass":               {"ingressclasses", false, subdomain, true, 0},
		"node.k8s.io/v1/RuntimeClass":                     {"runtimeclasses", false, subdomain, true, 0},
		"coordination.k8s.io/v1/Lease":                    {"leases", true, subdomain, true, 0},
		"discovery.k8s.io/v1/EndpointSlice":               {"endpointslices", true, subdomain, true, 0},
		"admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration": {"validatingwebhookconfigurations", false, subdomain, false, 0},
		"admissionregistration.k8s.io/v1/MutatingWebhookConfiguration":   {"mutatingwebhookconfigurations", false, subdomain, false, 0},
	}
)

// strategy is a RESTCreateStrategy whose validation is the metadata part
// of the kind's.
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
	r resource
}

func (s strategy) NamespaceScoped() bool                                     { return s.r.namespaced }
func (s strategy) PrepareForCreate(context.Context, runtime.Object)          {}
func (s strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (s strategy) Canonicalize(runtime.Object)                               {}
func (s strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	if s.r.nameFn == nil {
		return nil
	}
	om := obj.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta)
	pth := field.NewPath("metadata")
	errs := apimachineryvalidation.ValidateObjectMeta(om, s.r.namespaced, s.r.nameFn, pth)
	for i, f := range om.Finalizers {
		if s.r.finalizers && len(strings.Split(f, "/")) == 1 && f != "kubernetes" && f != metav1.FinalizerOrphanDependents && f != metav1.FinalizerDeleteDependents {
			errs = append(errs, field.Invalid(pth.Child("finalizers").Index(i), f, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	if s.r.maxName > 0 && len(om.Name) > s.r.maxName {
		errs = append(errs, field.Invalid(pth.Child("name"), om.Name, fmt.Sprintf("must be no more than %d characters", s.r.maxName)))
	}
	return errs
}

// storage is a dry-run registry store: what store.Create does before it
// writes.
type storage struct {
	newObj   func() runtime.Object
	strategy strategy
}

func (s *storage) New() runtime.Object { return s.newObj() }
func (s *storage) Destroy()            {}
func (s *storage) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	om, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	rest.FillObjectMetaSystemFields(om)
	if om.GetGenerateName() != "" && om.GetName() == "" {
		om.SetName(s.strategy.GenerateName(om.GetGenerateName()))
	}
	if err := rest.BeforeCreate(s.strategy, ctx, obj); err != nil {
		return nil, err
	}
	if validate != nil {
		if err := validate(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// server serves create requests for every kind of resources with the
// apiserver's create handler.
type server struct {
	codecs   serializer.CodecFactory
	handlers map[string]http.Handler
}

func newServer(t *testing.T) *server {
	scheme := clientgoscheme.Scheme
	s := &server{codecs: serializer.NewCodecFactory(scheme), handlers: map[string]http.Handler{}}
	for key, r := range resources {
		i := strings.LastIndex(key, "/")
		gvk := schema.FromAPIVersionAndKind(key[:i], key[i+1:])
		gvr := gvk.GroupVersion().WithResource(r.plural)
		fm, err := managedfields.NewDefaultFieldManager(managedfields.NewDeducedTypeConverter(), scheme, scheme, scheme, gvk, gvk.GroupVersion(), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		scope := &handlers.RequestScope{
			Namer:               handlers.ContextBasedNaming{Namer: meta.NewAccessor(), ClusterScoped: !r.namespaced},
			Serializer:          s.codecs,
			ParameterCodec:      runtime.NewParameterCodec(scheme),
			Creater:             scheme,
			Convertor:           scheme,
			Defaulter:           scheme,
			Typer:               scheme,
			UnsafeConvertor:     scheme,
			FieldManager:        fm,
			Resource:            gvr,
			Kind:                gvk,
			HubGroupVersion:     gvk.GroupVersion(),
			MetaGroupVersion:    metav1.SchemeGroupVersion,
			MaxRequestBodyBytes: 3 << 20,
		}
		newObj := func() runtime.Object { o, _ := scheme.New(gvk); return o }
		st := &storage{newObj: newObj, strategy: strategy{ObjectTyper: scheme, NameGenerator: names.SimpleNameGenerator, r: r}}
		h := handlers.CreateResource(st, scope, admission.NewChainHandler())
		s.handlers[key] = genericfilters.WithWarningRecorder(h)
	}
	return s
}

// answer is what a create returns: code, Status (for errors), warnings.
type answer struct {
	Code     int
	Message  string
	Reason   metav1.StatusReason
	Causes   []metav1.StatusCause
	Warnings []string
}

// create sends body as kubectl does (JSON; the request namespace is -n's,
// else the object's, else "default"; none for cluster-scoped kinds).
func (s *server) create(t *testing.T, key string, body []byte, mode, ns string) answer {
	r := resources[key]
	var md struct {
		Metadata struct{ Namespace string } `json:"metadata"`
	}
	_ = json.Unmarshal(body, &md)
	reqNS := ""
	if r.namespaced {
		reqNS = ns
		if reqNS == "" {
			reqNS = md.Metadata.Namespace
		}
		if reqNS == "" {
			reqNS = "default"
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/create?fieldValidation="+mode, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	i := strings.LastIndex(key, "/")
	gv, _ := schema.ParseGroupVersion(key[:i])
	ctx := request.WithRequestInfo(req.Context(), &request.RequestInfo{IsResourceRequest: true, Verb: "create", APIGroup: gv.Group, APIVersion: gv.Version, Namespace: reqNS, Resource: r.plural})
	ctx = request.WithNamespace(ctx, reqNS)
	rec := httptest.NewRecorder()
	s.handlers[key].ServeHTTP(rec, req.WithContext(ctx))
	a := answer{Code: rec.Code}
	ws, _ := utilnet.ParseWarningHeaders(rec.Header().Values("Warning"))
	for _, w := range ws {
		a.Warnings = append(a.Warnings, w.Text)
	}
	if rec.Code >= 300 {
		var st metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
			t.Fatalf("%s: %v: %s", key, err, rec.Body.String())
		}
		a.Message, a.Reason = st.Message, st.Reason
		if st.Details != nil {
			a.Causes = st.Details.Causes
		}
	}
	return a
}

// crdkit is builtin.Check's answer in the same shape; 201 when nothing is
// refused.
func crdkit(c *builtin.Checker, apiVersion, kind string, body []byte, mode, ns string) answer {
	res := c.Check(body, apiVersion, kind, builtin.Options{FieldValidation: mode, Namespace: ns})
	a := answer{Code: http.StatusCreated, Warnings: res.Warnings}
	if st := res.Status(); st != nil {
		a.Code, a.Message, a.Reason = int(st.Code), st.Message, st.Reason
		if st.Details != nil {
			a.Causes = st.Details.Causes
		}
	}
	return a
}

// doc is one manifest of the corpus: as kubectl sends it (YAML converted
// with sigs.k8s.io/yaml, JSON as is), and as crdkit's CLI reads it
// (internal/docs).
type doc struct {
	name             string
	apiVersion, kind string
	json             []byte // kubectl's
	cli              []byte // crdkit validate's
}

func corpus(t *testing.T) []doc {
	files, _ := filepath.Glob("testdata/*")
	var out []doc
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var parts [][]byte
		if strings.HasSuffix(f, ".json") {
			parts = [][]byte{bytes.TrimSpace(data)}
		} else {
			for _, p := range bytes.Split(data, []byte("\n---\n")) {
				js, err := yaml.YAMLToJSON(p)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				parts = append(parts, js)
			}
		}
		cli, err := docs.Read(f)
		if err != nil || len(cli) != len(parts) {
			t.Fatalf("docs.Read(%s) = %d documents, %v; want %d", f, len(cli), err, len(parts))
		}
		for i, js := range parts {
			var tm struct {
				APIVersion, Kind string
				Metadata         struct{ Name, GenerateName string } `json:"metadata"`
			}
			_ = json.Unmarshal(js, &tm)
			out = append(out, doc{name: fmt.Sprintf("%s#%d %s %s", filepath.Base(f), i, tm.Kind, tm.Metadata.Name+tm.Metadata.GenerateName),
				apiVersion: tm.APIVersion, kind: tm.Kind, json: js, cli: cli[i].JSON})
		}
	}
	return out
}

func TestBuiltinDecode(t *testing.T) {
	srv := newServer(t)
	c := builtin.New()
	if n := len(c.Kinds()); n != len(resources) {
		t.Fatalf("builtin checks %d kinds, the oracle serves %d", n, len(resources))
	}
	docs := corpus(t)
	total, agree, unordered := 0, 0, 0
	refused := map[int]int{}
	for _, d := range docs {
		key := d.apiVersion + "/" + d.kind
		if _, ok := resources[key]; !ok {
			t.Errorf("%s: %s is not served by the oracle", d.name, key)
			continue
		}
		for _, mode := range []string{"Strict", "Warn", "Ignore"} {
			for _, ns := range []string{"", "prod"} {
				total++
				want := srv.create(t, key, d.json, mode, ns)
				got := crdkit(c, d.apiVersion, d.kind, d.cli, mode, ns)
				if generated(d, want, got) || reflect.DeepEqual(got, want) {
					agree++
					refused[want.Code]++
					continue
				}
				if reflect.DeepEqual(sorted(got), sorted(want)) {
					// Labels and annotations are checked in map order,
					// on the server as here.
					agree++
					unordered++
					refused[want.Code]++
					continue
				}
				t.Errorf("Check(%s, %s, -n %q) = %+v, want %+v", d.name, mode, ns, got, want)
			}
		}
	}
	if total < 300 {
		t.Errorf("%d cases, want at least 300", total)
	}
	t.Logf("answers by code: %v", refused)
	if refused[http.StatusCreated] == 0 || refused[http.StatusBadRequest] == 0 || refused[http.StatusUnprocessableEntity] == 0 {
		t.Errorf("answers by code = %v, want accepted, 400 and 422 answers each", refused)
	}
	fmt.Printf("conformance: builtin-decode %d/%d (%d manifests read as crdkit validate reads them x 3 field validations x 2 request namespaces, against the apiserver's create handler over the k8s.io/api scheme given kubectl's JSON; %d whose causes follow map order compared sorted)\n", agree, total, len(docs), unordered)
}

// generated reports whether two answers differ only in a name the server
// generated at random from generateName.
func generated(d doc, want, got answer) bool {
	if !bytes.Contains(d.json, []byte(`"generateName"`)) || want.Code != got.Code || want.Code != http.StatusCreated {
		return false
	}
	return reflect.DeepEqual(want.Warnings, got.Warnings)
}

// sorted is an answer with its causes sorted and its message cut before
// the list of causes, for errors found in map order.
func sorted(a answer) answer {
	a.Causes = append([]metav1.StatusCause(nil), a.Causes...)
	sort.Slice(a.Causes, func(i, j int) bool {
		return a.Causes[i].Field+"|"+a.Causes[i].Message < a.Causes[j].Field+"|"+a.Causes[j].Message
	})
	if i := strings.Index(a.Message, " is invalid: ["); i >= 0 {
		a.Message = a.Message[:i]
	}
	return a
}
