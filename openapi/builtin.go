package openapi

import (
	"strings"
	"sync"

	generatedopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

const (
	v2Prefix = "#/definitions/"
	v3Prefix = "#/components/schemas/"
)

// builtins holds the built-in definitions the CRD documents reference, computed
// once from the server's generated definitions. Read only.
type builtins struct {
	apiVersion, kind spec.Schema             // TypeMeta's properties
	v3               map[string]*spec.Schema // v3 component schemas, refs wrapped, GVK extensions set
	deps             map[string][]string
}

var loadBuiltins = sync.OnceValue(func() *builtins {
	defs := generatedopenapi.GetOpenAPIDefinitions(func(name string) spec.Ref {
		return spec.MustCreateRef(v3Prefix + common.EscapeJsonPointer(name))
	})
	b := &builtins{v3: map[string]*spec.Schema{}, deps: map[string][]string{}}
	tm := defs[typeMetaModel].Schema
	b.apiVersion, b.kind = tm.Properties["apiVersion"], tm.Properties["kind"]
	var add func(name string)
	add = func(name string) {
		if _, ok := b.v3[name]; ok {
			return
		}
		def, ok := defs[name]
		if !ok {
			return
		}
		// The definitions are fresh values of this call, used as the
		// server's builder uses them: a copy through JSON would turn their
		// Go int defaults into float64s.
		s := &spec.Schema{VendorExtensible: def.Schema.VendorExtensible, SchemaProps: def.Schema.SchemaProps, SwaggerSchemaProps: def.Schema.SwaggerSchemaProps}
		if gvs, ok := registeredKinds[name]; ok {
			if s.Extensions == nil {
				s.Extensions = spec.Extensions{}
			}
			kind := name[strings.LastIndex(name, ".")+1:]
			list := make([]any, 0, len(gvs))
			for _, gv := range gvs {
				g, v, ok := strings.Cut(gv, "/")
				if !ok {
					g, v = "", gv
				}
				list = append(list, map[string]any{"group": g, "version": v, "kind": kind})
			}
			s.Extensions["x-kubernetes-group-version-kind"] = list
		}
		delete(s.Extensions, common.ExtensionV2Schema)
		wrapRefs(s, 0)
		b.v3[name] = s
		b.deps[name] = def.Dependencies
		for _, d := range def.Dependencies {
			add(d)
		}
	}
	for _, name := range []string{objectMetaModel, statusModel, patchModel, deleteOptionsModel, scaleModel} {
		add(name)
	}
	return b
})

// closure adds name and its dependencies to dst.
func (b *builtins) closure(dst map[string]*spec.Schema, name string) {
	if _, ok := dst[name]; ok {
		return
	}
	s, ok := b.v3[name]
	if !ok {
		return
	}
	dst[name] = s
	for _, d := range b.deps[name] {
		b.closure(dst, d)
	}
}

// registeredKinds are the group versions, sorted as the server sorts them,
// under which the server's client scheme (k8s.io/client-go/kubernetes/scheme
// at v0.37) registers the built-in kinds the documents include: the server
// lists them in x-kubernetes-group-version-kind. Importing that scheme would
// add every built-in API type to the binary (about 13 MB) for these three
// lists; conformance/openapidiff compares the documents, these lists
// included, with the server's builder, which reads them from the scheme.
var registeredKinds = map[string][]string{
	deleteOptionsModel: {
		"v1",
		"admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1alpha1", "admissionregistration.k8s.io/v1beta1",
		"apps/v1", "apps/v1beta1", "apps/v1beta2",
		"authentication.k8s.io/v1", "authentication.k8s.io/v1alpha1", "authentication.k8s.io/v1beta1",
		"authorization.k8s.io/v1", "authorization.k8s.io/v1beta1",
		"autoscaling/v1", "autoscaling/v2",
		"batch/v1", "batch/v1beta1",
		"certificates.k8s.io/v1", "certificates.k8s.io/v1alpha1", "certificates.k8s.io/v1beta1",
		"coordination.k8s.io/v1", "coordination.k8s.io/v1alpha2", "coordination.k8s.io/v1beta1",
		"discovery.k8s.io/v1", "discovery.k8s.io/v1beta1",
		"events.k8s.io/v1", "events.k8s.io/v1beta1",
		"extensions/v1beta1",
		"flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta1", "flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1beta3",
		"internal.apiserver.k8s.io/v1alpha1",
		"lifecycle.k8s.io/v1alpha1",
		"networking.k8s.io/v1", "networking.k8s.io/v1beta1",
		"node.k8s.io/v1", "node.k8s.io/v1alpha1", "node.k8s.io/v1beta1",
		"policy/v1", "policy/v1beta1",
		"rbac.authorization.k8s.io/v1", "rbac.authorization.k8s.io/v1alpha1", "rbac.authorization.k8s.io/v1beta1",
		"resource.k8s.io/v1", "resource.k8s.io/v1alpha3", "resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2",
		"scheduling.k8s.io/v1", "scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1",
		"storage.k8s.io/v1", "storage.k8s.io/v1alpha1", "storage.k8s.io/v1beta1",
		"storagemigration.k8s.io/v1", "storagemigration.k8s.io/v1beta1",
	},
	statusModel: {"v1"},
	scaleModel:  {"autoscaling/v1"},
}
