package builtin

import (
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
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// NameRule names the rule a kind's metadata.name (and generateName, as a
// prefix) must follow, as the server's validation for that kind states it.
type NameRule string

const (
	// DNSSubdomain: lowercase RFC 1123 subdomain, at most 253 characters
	// (Deployment, ConfigMap, Pod, Job, Ingress...).
	DNSSubdomain NameRule = "DNS-1123 subdomain"
	// DNSLabel: lowercase RFC 1123 label, at most 63 characters
	// (Namespace, StatefulSet).
	DNSLabel NameRule = "DNS-1123 label"
	// DNS1035Label: RFC 1035 label, starting with a letter, at most 63
	// characters (Service).
	DNS1035Label NameRule = "DNS-1035 label"
	// PathSegment: anything usable as a path segment: not "." or "..",
	// no "/" or "%" (Role, ClusterRole, their bindings, and the server's
	// generic check for kinds without a rule of their own, such as
	// PodDisruptionBudget).
	PathSegment NameRule = "path segment"
)

func (r NameRule) fn() apimachineryvalidation.ValidateNameFunc {
	switch r {
	case DNSLabel:
		return apimachineryvalidation.NameIsDNSLabel
	case DNS1035Label:
		return apimachineryvalidation.NameIsDNS1035Label
	case PathSegment:
		return path.ValidatePathSegmentName
	}
	return apimachineryvalidation.NameIsDNSSubdomain
}

// kind is what the checker knows of one served kind: its Go type and the
// parts of its validation that concern metadata.
type kind struct {
	gvk        schema.GroupVersionKind
	newObject  func() runtime.Object
	namespaced bool
	name       NameRule
	// kubeFinalizers: the kind's validation checks finalizer names with
	// the core rule (a name without "/" must be one of the standard ones).
	kubeFinalizers bool
	// maxNameLength: a limit of the kind's own on metadata.name (CronJob:
	// 52, room for the Job's timestamp suffix); 0 for none.
	maxNameLength int
	// strict and lax decode a body of the kind (set by New).
	strict, lax runtime.Decoder
}

// kinds lists the kinds checked, at the versions Kubernetes 1.37 serves.
// The name rules are those of k8s.io/kubernetes/pkg/apis/*/validation
// (the functions each kind's ValidateObjectMeta call is given); they are
// not importable, so they are stated here.
func kinds() []kind {
	apps := func(k string, n NameRule, f func() runtime.Object) kind {
		return kind{gvk: appsv1.SchemeGroupVersion.WithKind(k), newObject: f, namespaced: true, name: n, kubeFinalizers: true}
	}
	core := func(k string, namespaced bool, n NameRule, f func() runtime.Object) kind {
		return kind{gvk: corev1.SchemeGroupVersion.WithKind(k), newObject: f, namespaced: namespaced, name: n, kubeFinalizers: true}
	}
	return []kind{
		apps("Deployment", DNSSubdomain, func() runtime.Object { return &appsv1.Deployment{} }),
		apps("StatefulSet", DNSLabel, func() runtime.Object { return &appsv1.StatefulSet{} }),
		apps("DaemonSet", DNSSubdomain, func() runtime.Object { return &appsv1.DaemonSet{} }),
		apps("ReplicaSet", DNSSubdomain, func() runtime.Object { return &appsv1.ReplicaSet{} }),
		core("Service", true, DNS1035Label, func() runtime.Object { return &corev1.Service{} }),
		core("ConfigMap", true, DNSSubdomain, func() runtime.Object { return &corev1.ConfigMap{} }),
		core("Secret", true, DNSSubdomain, func() runtime.Object { return &corev1.Secret{} }),
		core("Pod", true, DNSSubdomain, func() runtime.Object { return &corev1.Pod{} }),
		core("ServiceAccount", true, DNSSubdomain, func() runtime.Object { return &corev1.ServiceAccount{} }),
		core("Namespace", false, DNSLabel, func() runtime.Object { return &corev1.Namespace{} }),
		core("PersistentVolumeClaim", true, DNSSubdomain, func() runtime.Object { return &corev1.PersistentVolumeClaim{} }),
		{gvk: batchv1.SchemeGroupVersion.WithKind("Job"), newObject: func() runtime.Object { return &batchv1.Job{} }, namespaced: true, name: DNSSubdomain, kubeFinalizers: true},
		{gvk: batchv1.SchemeGroupVersion.WithKind("CronJob"), newObject: func() runtime.Object { return &batchv1.CronJob{} }, namespaced: true, name: DNSSubdomain, kubeFinalizers: true, maxNameLength: 52},
		{gvk: networkingv1.SchemeGroupVersion.WithKind("Ingress"), newObject: func() runtime.Object { return &networkingv1.Ingress{} }, namespaced: true, name: DNSSubdomain, kubeFinalizers: true},
		{gvk: networkingv1.SchemeGroupVersion.WithKind("NetworkPolicy"), newObject: func() runtime.Object { return &networkingv1.NetworkPolicy{} }, namespaced: true, name: DNSSubdomain, kubeFinalizers: true},
		{gvk: rbacv1.SchemeGroupVersion.WithKind("Role"), newObject: func() runtime.Object { return &rbacv1.Role{} }, namespaced: true, name: PathSegment, kubeFinalizers: true},
		{gvk: rbacv1.SchemeGroupVersion.WithKind("ClusterRole"), newObject: func() runtime.Object { return &rbacv1.ClusterRole{} }, name: PathSegment, kubeFinalizers: true},
		{gvk: rbacv1.SchemeGroupVersion.WithKind("RoleBinding"), newObject: func() runtime.Object { return &rbacv1.RoleBinding{} }, namespaced: true, name: PathSegment, kubeFinalizers: true},
		{gvk: rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding"), newObject: func() runtime.Object { return &rbacv1.ClusterRoleBinding{} }, name: PathSegment, kubeFinalizers: true},
		// PodDisruptionBudget's validation does not check its metadata:
		// only the server's generic check does, after the kind's.
		{gvk: policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"), newObject: func() runtime.Object { return &policyv1.PodDisruptionBudget{} }, namespaced: true, name: PathSegment},
		{gvk: autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"), newObject: func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} }, namespaced: true, name: DNSSubdomain, kubeFinalizers: true},

		// Other kinds found in manifests.
		apps("ControllerRevision", DNSSubdomain, func() runtime.Object { return &appsv1.ControllerRevision{} }),
		core("PersistentVolume", false, DNSSubdomain, func() runtime.Object { return &corev1.PersistentVolume{} }),
		core("LimitRange", true, DNSSubdomain, func() runtime.Object { return &corev1.LimitRange{} }),
		core("ResourceQuota", true, DNSSubdomain, func() runtime.Object { return &corev1.ResourceQuota{} }),
		core("ReplicationController", true, DNSSubdomain, func() runtime.Object { return &corev1.ReplicationController{} }),
		core("PodTemplate", true, DNSSubdomain, func() runtime.Object { return &corev1.PodTemplate{} }),
		{gvk: autoscalingv1.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"), newObject: func() runtime.Object { return &autoscalingv1.HorizontalPodAutoscaler{} }, namespaced: true, name: DNSSubdomain, kubeFinalizers: true},
		{gvk: storagev1.SchemeGroupVersion.WithKind("StorageClass"), newObject: func() runtime.Object { return &storagev1.StorageClass{} }, name: DNSSubdomain, kubeFinalizers: true},
		{gvk: schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"), newObject: func() runtime.Object { return &schedulingv1.PriorityClass{} }, name: DNSSubdomain, kubeFinalizers: true},
		{gvk: networkingv1.SchemeGroupVersion.WithKind("IngressClass"), newObject: func() runtime.Object { return &networkingv1.IngressClass{} }, name: DNSSubdomain, kubeFinalizers: true},
		{gvk: nodev1.SchemeGroupVersion.WithKind("RuntimeClass"), newObject: func() runtime.Object { return &nodev1.RuntimeClass{} }, name: DNSSubdomain, kubeFinalizers: true},
		{gvk: coordinationv1.SchemeGroupVersion.WithKind("Lease"), newObject: func() runtime.Object { return &coordinationv1.Lease{} }, namespaced: true, name: DNSSubdomain, kubeFinalizers: true},
		{gvk: discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"), newObject: func() runtime.Object { return &discoveryv1.EndpointSlice{} }, namespaced: true, name: DNSSubdomain, kubeFinalizers: true},
		// The admission registration kinds validate metadata with
		// apimachinery's check alone.
		{gvk: admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingWebhookConfiguration"), newObject: func() runtime.Object { return &admissionregistrationv1.ValidatingWebhookConfiguration{} }, name: DNSSubdomain},
		{gvk: admissionregistrationv1.SchemeGroupVersion.WithKind("MutatingWebhookConfiguration"), newObject: func() runtime.Object { return &admissionregistrationv1.MutatingWebhookConfiguration{} }, name: DNSSubdomain},
	}
}
