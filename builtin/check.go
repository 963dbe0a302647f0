package builtin

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/objectmeta"
)

// Checks names what a [Result] covers, for output that must say so: the
// decoder's checks and the generic metadata checks, not the kind's own
// validation.
const Checks = "decode"

// Checker checks documents of the kinds Kubernetes serves itself. It is
// immutable and safe for concurrent use.
type Checker struct {
	kinds map[schema.GroupVersionKind]*kind
}

// New builds a Checker: a scheme of the k8s.io/api types of the kinds it
// checks and the server's codec factory over it.
func New() *Checker {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme,
		networkingv1.AddToScheme, rbacv1.AddToScheme, policyv1.AddToScheme, autoscalingv2.AddToScheme,
		autoscalingv1.AddToScheme, storagev1.AddToScheme, schedulingv1.AddToScheme, nodev1.AddToScheme,
		coordinationv1.AddToScheme, discoveryv1.AddToScheme, admissionregistrationv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err) // the k8s.io/api registrations do not fail
		}
	}
	codecs := serializer.NewCodecFactory(scheme)
	info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	c := &Checker{kinds: map[schema.GroupVersionKind]*kind{}}
	for _, k := range kinds() {
		// The create handler's decoder: the JSON serializer (strict in
		// Strict and Warn) to the kind's version.
		k.strict = codecs.DecoderToVersion(info.StrictSerializer, k.gvk.GroupVersion())
		k.lax = codecs.DecoderToVersion(info.Serializer, k.gvk.GroupVersion())
		c.kinds[k.gvk] = &k
	}
	return c
}

// Serves reports whether the checker checks documents of apiVersion and
// kind.
func (c *Checker) Serves(apiVersion, kind string) bool {
	_, ok := c.kinds[schema.FromAPIVersionAndKind(apiVersion, kind)]
	return ok
}

// Versions lists the apiVersions at which the checker checks the kind of
// group (Kubernetes 1.37 serves it at those, and at no other): none for a
// kind it does not know. For the extensions group, the versions of the
// groups its kinds moved to. A document of such a kind at another apiVersion
// (extensions/v1beta1 Ingress, batch/v1beta1 CronJob) names a version the
// server no longer serves.
func (c *Checker) Versions(group, kind string) []string {
	var out []string
	for _, k := range kinds() {
		// extensions/v1beta1 held Deployment, DaemonSet, ReplicaSet,
		// Ingress and NetworkPolicy before apps and networking.k8s.io.
		moved := group == "extensions" && (k.gvk.Group == "apps" || k.gvk.Group == "networking.k8s.io")
		if (k.gvk.Group == group || moved) && k.gvk.Kind == kind {
			out = append(out, k.gvk.GroupVersion().String())
		}
	}
	return out
}

// Kinds lists the kinds checked, as apiVersion and kind.
func (c *Checker) Kinds() []schema.GroupVersionKind {
	out := make([]schema.GroupVersionKind, 0, len(c.kinds))
	for _, k := range kinds() {
		out = append(out, k.gvk)
	}
	return out
}

// Options are a check's request parameters.
type Options struct {
	// FieldValidation is the server's fieldValidation parameter: "Strict"
	// (also ""), "Warn" or "Ignore".
	FieldValidation string
	// Namespace is the request's namespace: a namespaced object without
	// one gets it ("default" when empty); one naming another is refused.
	Namespace string
}

// Result is a check's answer.
type Result struct {
	// Warnings are the Warning headers the server sends for what was
	// checked: unknown and duplicate fields in Warn mode, duplicate owner
	// references.
	Warnings []string
	// Err is nil, or the server's *apierrors.StatusError: 400 for what the
	// decoder refuses, 422 for invalid metadata.
	Err error
	// Namespace is the namespace the server sees ("" for cluster-scoped
	// kinds); Name is metadata.name, generated from generateName when
	// empty.
	Namespace, Name string
}

// Status is Err's Status, or nil.
func (r Result) Status() *metav1.Status {
	if se, ok := r.Err.(*apierrors.StatusError); ok {
		st := se.Status()
		return &st
	}
	return nil
}

// Check checks one JSON document of a kind the checker serves (see
// [Checker.Serves]) as the API server's create handler checks it before
// the kind's own validation: decoding into the k8s.io/api type with the
// server's JSON serializer (strict in Strict and Warn modes), the request
// namespace, duplicate owner references, and the object metadata checks
// (name by the kind's rule, generateName, labels, annotations, owner
// references, finalizers), in the server's words. The kind's own
// validation (a Deployment's selector against its template, a Service's
// ports...) is not run: an object Check lets through may still be refused
// by the server.
func (c *Checker) Check(body []byte, apiVersion, kindName string, opts Options) (res Result) {
	gvk := schema.FromAPIVersionAndKind(apiVersion, kindName)
	k := c.kinds[gvk]
	if k == nil {
		res.Err = apierrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: kindName}, "")
		return res
	}
	defer func() {
		// The decoder is the server's; should it panic on some input, the
		// server's panic filter answers 500.
		if p := recover(); p != nil {
			res = Result{Err: apierrors.NewInternalError(fmt.Errorf("%v", p))}
		}
	}()
	dec := k.strict
	if opts.FieldValidation == "Ignore" {
		dec = k.lax
	}
	obj, got, err := dec.Decode(body, &gvk, k.newObject())
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict || obj == nil || opts.FieldValidation == "Strict" || opts.FieldValidation == "" {
			res.Err = decodeError(err, got, kindName, body)
			return res
		}
		for _, e := range strictErr.Errors() {
			res.Warnings = append(res.Warnings, e.Error())
		}
	}
	if got != nil && got.GroupVersion() != gvk.GroupVersion() {
		res.Err = apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%v)", got.GroupVersion(), gvk.GroupVersion()))
		return res
	}
	var om *metav1.ObjectMeta
	if a, ok := obj.(metav1.ObjectMetaAccessor); ok {
		om, _ = a.GetObjectMeta().(*metav1.ObjectMeta)
	}
	if om == nil {
		res.Err = apierrors.NewInternalError(fmt.Errorf("%T has no ObjectMeta", obj))
		return res
	}
	// rest.WipeObjectMetaSystemFields; managedFields are the field
	// manager's, which replaces what the request holds.
	om.CreationTimestamp, om.UID, om.DeletionTimestamp, om.DeletionGracePeriodSeconds, om.SelfLink = metav1.Time{}, "", nil, nil, ""
	om.ManagedFields = nil
	if err := checkNamespace(om, k, opts.Namespace); err != nil {
		res.Err = err
		return res
	}
	res.Namespace = om.Namespace
	if dups := objectmeta.DedupOwnerReferencesTyped(om); len(dups) > 0 {
		res.Warnings = append(res.Warnings, objectmeta.DuplicateOwnerReferencesWarning(dups))
	}
	if om.Name == "" && om.GenerateName != "" {
		om.Name = generateName(om.GenerateName)
	}
	res.Name = om.Name
	if errs := validateMeta(om, k); len(errs) > 0 {
		res.Err = apierrors.NewInvalid(gvk.GroupKind(), om.Name, errs)
	}
	return res
}

// decodeError is the create handler's 400 for a body its decoder refuses.
func decodeError(err error, got *schema.GroupVersionKind, kindName string, body []byte) error {
	if got != nil && got.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", got.Kind, got.Version, kindName, err))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", kindName, err, summarize(body)))
}

// summarize is how the server quotes an unrecognized body: its first 30
// bytes, as text when it starts with "{", else in hex.
func summarize(b []byte) string {
	const max = 30
	more := ""
	if len(b) > max {
		b, more = b[:max], " ..."
	}
	switch {
	case len(b) == 0:
		return "<empty>"
	case b[0] == '{':
		return string(b) + more
	}
	return hex.EncodeToString(b) + more
}

// checkNamespace sets the namespace the server sees: a namespaced object's
// own, else the request's, else "default"; none for cluster-scoped kinds.
func checkNamespace(om *metav1.ObjectMeta, k *kind, request string) error {
	if !k.namespaced {
		om.Namespace = ""
		return nil
	}
	switch {
	case om.Namespace == "" && request == "":
		om.Namespace = metav1.NamespaceDefault
	case om.Namespace == "":
		om.Namespace = request
	case request != "" && om.Namespace != request:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// generateName is the server's name generator: the base cut to 58
// characters, then five random characters.
func generateName(base string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	if len(base) > 58 {
		base = base[:58]
	}
	b := []byte(base)
	for range 5 {
		b = append(b, alphabet[rand.IntN(len(alphabet))])
	}
	return string(b)
}

// standardFinalizers are the finalizer names without a "/" the core
// validation accepts.
var standardFinalizers = map[string]bool{string(corev1.FinalizerKubernetes): true, metav1.FinalizerOrphanDependents: true, metav1.FinalizerDeleteDependents: true}

// validateMeta is the metadata part of the kind's validation: the generic
// ObjectMeta checks with the kind's name rule, the core rule on finalizer
// names, the kind's own name limit.
func validateMeta(om *metav1.ObjectMeta, k *kind) field.ErrorList {
	pth := field.NewPath("metadata")
	errs := apimachineryvalidation.ValidateObjectMeta(om, k.namespaced, k.name.fn(), pth)
	if k.kubeFinalizers {
		for i, f := range om.Finalizers {
			if !strings.Contains(f, "/") && !standardFinalizers[f] {
				errs = append(errs, field.Invalid(pth.Child("finalizers").Index(i), f, "name is neither a standard finalizer name nor is it fully qualified"))
			}
		}
	}
	if k.maxNameLength > 0 && len(om.Name) > k.maxNameLength {
		errs = append(errs, field.Invalid(pth.Child("name"), om.Name, fmt.Sprintf("must be no more than %d characters", k.maxNameLength)))
	}
	return errs
}
