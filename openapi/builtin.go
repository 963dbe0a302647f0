package openapi

import (
	"sort"
	"sync"

	generatedopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/client-go/kubernetes/scheme"
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
	gvks := map[string][]map[string]any{}
	type gvk struct{ g, v, k string }
	byName := map[string][]gvk{}
	for t := range scheme.Scheme.AllKnownTypes() {
		name, err := scheme.Scheme.ToOpenAPIDefinitionName(t)
		if err != nil {
			continue
		}
		x := gvk{t.Group, t.Version, t.Kind}
		dup := false
		for _, y := range byName[name] {
			if x == y {
				dup = true
				break
			}
		}
		if !dup {
			byName[name] = append(byName[name], x)
		}
	}
	for name, xs := range byName {
		sort.Slice(xs, func(i, j int) bool {
			if xs[i].g != xs[j].g {
				return xs[i].g < xs[j].g
			}
			if xs[i].v != xs[j].v {
				return xs[i].v < xs[j].v
			}
			return xs[i].k < xs[j].k
		})
		for _, x := range xs {
			gvks[name] = append(gvks[name], map[string]any{"group": x.g, "version": x.v, "kind": x.k})
		}
	}
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
		s := &spec.Schema{VendorExtensible: def.Schema.VendorExtensible, SchemaProps: def.Schema.SchemaProps, SwaggerSchemaProps: def.Schema.SwaggerSchemaProps}
		s = deepCopy(s)
		if g, ok := gvks[name]; ok {
			if s.Extensions == nil {
				s.Extensions = spec.Extensions{}
			}
			list := make([]any, len(g))
			for i := range g {
				list[i] = g[i]
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

func deepCopy(s *spec.Schema) *spec.Schema {
	bs, err := s.MarshalJSON()
	if err != nil {
		return s
	}
	out := &spec.Schema{}
	if err := out.UnmarshalJSON(bs); err != nil {
		return s
	}
	return out
}
