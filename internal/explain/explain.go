// Package explain renders "kubectl explain" for CRDs without a cluster: a
// REST mapper and an OpenAPI v3 client made from the CRDs feed kubectl's own
// explain package.
package explain

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientopenapi "k8s.io/client-go/openapi"
	"k8s.io/client-go/restmapper"
	"k8s.io/kubectl/pkg/explain"
	explainv2 "k8s.io/kubectl/pkg/explain/v2"

	"github.com/crdkit/crdkit/openapi"
	"github.com/crdkit/crdkit/versionsort"
)

// Resource writes what kubectl explain prints for arg (RESOURCE[.FIELD...]);
// gv, when not empty, is the --api-version. It does what kubectl explain does, with a REST mapper and an
// OpenAPI v3 client made from the CRDs instead of a server's discovery.
func Resource(w io.Writer, crds []*apiextensionsv1.CustomResourceDefinition, arg string, gv schema.GroupVersion, recursive bool) error {
	hasGV := !gv.Empty()
	mapper := shortNames{restmapper.NewDiscoveryRESTMapper(groupResources(crds)), crds}
	var gvr schema.GroupVersionResource
	var fields []string
	var err error
	if hasGV {
		gvr, fields, err = explain.SplitAndParseResourceRequest(arg, mapper)
	} else {
		gvr, fields, err = explain.SplitAndParseResourceRequestWithMatchingPrefix(arg, mapper)
	}
	if err != nil {
		return err
	}
	if hasGV {
		gvr.Group, gvr.Version = gv.Group, gv.Version
	}
	return explainv2.PrintModelDescription(fields, w, documents{crds}, gvr, recursive, 0, "plaintext")
}

// groupResources is the discovery a server with these CRDs serves: groups in
// the order the CRDs come, versions by priority (the preferred one first).
func groupResources(crds []*apiextensionsv1.CustomResourceDefinition) []*restmapper.APIGroupResources {
	byGroup := map[string]*restmapper.APIGroupResources{}
	var out []*restmapper.APIGroupResources
	for _, crd := range crds {
		g := byGroup[crd.Spec.Group]
		if g == nil {
			g = &restmapper.APIGroupResources{Group: metav1.APIGroup{Name: crd.Spec.Group}, VersionedResources: map[string][]metav1.APIResource{}}
			byGroup[crd.Spec.Group] = g
			out = append(out, g)
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			if _, ok := g.VersionedResources[v.Name]; !ok {
				g.Group.Versions = append(g.Group.Versions, metav1.GroupVersionForDiscovery{GroupVersion: crd.Spec.Group + "/" + v.Name, Version: v.Name})
			}
			g.VersionedResources[v.Name] = append(g.VersionedResources[v.Name], metav1.APIResource{
				Name: crd.Spec.Names.Plural, SingularName: crd.Spec.Names.Singular, Kind: crd.Spec.Names.Kind,
				Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped, ShortNames: crd.Spec.Names.ShortNames,
				Categories: crd.Spec.Names.Categories,
			})
		}
	}
	for _, g := range out {
		sort.SliceStable(g.Group.Versions, func(i, j int) bool {
			return versionsort.Compare(g.Group.Versions[i].Version, g.Group.Versions[j].Version) > 0
		})
		if len(g.Group.Versions) > 0 {
			g.Group.PreferredVersion = g.Group.Versions[0]
		}
	}
	return out
}

// shortNames expands a CRD's short names to its plural, as kubectl's
// shortcut expander does with discovery.
type shortNames struct {
	meta.RESTMapper
	crds []*apiextensionsv1.CustomResourceDefinition
}

func (s shortNames) expand(r schema.GroupVersionResource) schema.GroupVersionResource {
	for _, crd := range s.crds {
		for _, sn := range crd.Spec.Names.ShortNames {
			if strings.EqualFold(sn, r.Resource) && (r.Group == "" || r.Group == crd.Spec.Group) {
				r.Resource = crd.Spec.Names.Plural
				return r
			}
		}
	}
	return r
}

func (s shortNames) ResourceFor(r schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return s.RESTMapper.ResourceFor(s.expand(r))
}

func (s shortNames) ResourcesFor(r schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return s.RESTMapper.ResourcesFor(s.expand(r))
}

// documents is an OpenAPI v3 client that answers from the CRDs.
type documents struct {
	crds []*apiextensionsv1.CustomResourceDefinition
}

func (d documents) Paths() (map[string]clientopenapi.GroupVersion, error) {
	out := map[string]clientopenapi.GroupVersion{}
	for _, crd := range d.crds {
		for _, v := range crd.Spec.Versions {
			if v.Served {
				out["apis/"+crd.Spec.Group+"/"+v.Name] = document{d.crds, crd.Spec.Group, v.Name}
			}
		}
	}
	return out, nil
}

type document struct {
	crds           []*apiextensionsv1.CustomResourceDefinition
	group, version string
}

func (d document) Schema(contentType string) ([]byte, error) {
	if contentType != "application/json" {
		return nil, fmt.Errorf("openapi: content type %q not supported", contentType)
	}
	doc, err := openapi.BuildV3(d.crds, d.group, d.version)
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

func (d document) ServerRelativeURL() string {
	return "/openapi/v3/apis/" + d.group + "/" + d.version
}
