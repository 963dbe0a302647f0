package openapi

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// ErrNotFound reports that no CRD serves the requested group version: the
// server answers 404 for its document.
var ErrNotFound = errors.New("openapi: no CRD serves this group version")

// V2 is the part of the server's /openapi/v2 document built for a set of CRDs.
type V2 struct {
	Paths       map[string]spec.PathItem  `json:"paths"`
	Definitions spec.Definitions          `json:"definitions"`
	Parameters  map[string]spec.Parameter `json:"parameters"`
}

// BuildV3 returns the document the server serves at /openapi/v3/apis/GROUP/VERSION
// for the CRDs that serve that group version, or ErrNotFound. The CRDs must be
// ones the server accepts (see crdkit.Lint) and, as on the server, established.
// The built-in component schemas (ObjectMeta, Status, …) are shared between
// documents: do not modify them.
func BuildV3(crds []*apiextensionsv1.CustomResourceDefinition, group, version string) (*spec3.OpenAPI, error) {
	b := loadBuiltins()
	doc := &spec3.OpenAPI{
		Version: "3.0.0",
		Info:    &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes CRD Swagger", Version: "v0.1.0"}},
		Paths:   &spec3.Paths{Paths: map[string]*spec3.Path{}},
		Components: &spec3.Components{
			Schemas: map[string]*spec.Schema{},
		},
	}
	found := false
	for _, crd := range crds {
		if crd == nil || crd.Spec.Group != group {
			continue
		}
		for i := range crd.Spec.Versions {
			v := &crd.Spec.Versions[i]
			if v.Name != version || !v.Served {
				continue
			}
			found = true
			if err := addV3(doc, b, crd, v); err != nil {
				return nil, err
			}
		}
	}
	if !found {
		return nil, ErrNotFound
	}
	return doc, nil
}

// BuildV2 returns the paths, definitions and shared parameters the server's
// /openapi/v2 document holds for the served versions of the CRDs. Built-in
// definitions (ObjectMeta, Status, …) are referenced, not included.
func BuildV2(crds []*apiextensionsv1.CustomResourceDefinition) (*V2, error) {
	out := &V2{Paths: map[string]spec.PathItem{}, Definitions: spec.Definitions{}, Parameters: map[string]spec.Parameter{}}
	b := loadBuiltins()
	for _, crd := range crds {
		if crd == nil {
			continue
		}
		for i := range crd.Spec.Versions {
			v := &crd.Spec.Versions[i]
			if !v.Served {
				continue
			}
			if err := addV2(out, b, crd, v); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func namesFor(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) *names {
	n := &names{
		group: crd.Spec.Group, version: v.Name, kind: crd.Spec.Names.Kind, listKind: crd.Spec.Names.ListKind,
		plural: crd.Spec.Names.Plural, namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
	}
	if v.Subresources != nil {
		n.status = v.Subresources.Status != nil
		n.scale = v.Subresources.Scale != nil
	}
	return n
}

var metadataDescription = metav1beta1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]
var listMetadataDescription = metav1beta1.PartialObjectMetadataList{}.SwaggerDoc()["metadata"]

const (
	embeddedAPIVersion = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	embeddedKind       = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// kindSchema builds the definition of the kind at one version.
func kindSchema(b *builtins, crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion, n *names, v2 bool) *spec.Schema {
	prefix := v3Prefix
	if v2 {
		prefix = v2Prefix
	}
	var s *spec.Schema
	var props *apiextensionsv1.JSONSchemaProps
	if v.Schema != nil {
		props = v.Schema.OpenAPIV3Schema
	}
	switch {
	case props == nil:
		s = &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}}}
	case v2 && ((props.XPreserveUnknownFields != nil && *props.XPreserveUnknownFields) || crd.Spec.PreserveUnknownFields):
		s = &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}}}
	default:
		s = fromCRDSchema(props, false, 0)
		if v2 {
			toV2(s, 0)
		}
		s.SetProperty("metadata", *spec.RefSchema(prefix + objectMetaModel).WithDescription(metadataDescription))
		s.SetProperty("apiVersion", b.apiVersion)
		s.SetProperty("kind", b.kind)
		addEmbedded(s, b, prefix, v2, 0)
	}
	s.AddExtension("x-kubernetes-group-version-kind", []any{map[string]any{"group": n.group, "version": n.version, "kind": n.kind}})
	if sf := selectableFields(v); sf != nil {
		s.AddExtension("x-kubernetes-selectable-fields", sf)
	}
	return s
}

func selectableFields(v *apiextensionsv1.CustomResourceDefinitionVersion) []any {
	if len(v.SelectableFields) == 0 {
		return nil
	}
	out := make([]any, len(v.SelectableFields))
	for i, f := range v.SelectableFields {
		out[i] = map[string]any{"fieldPath": strings.TrimPrefix(f.JSONPath, ".")}
	}
	return out
}

// addEmbedded gives every embedded resource its apiVersion, kind and metadata. It mutates s.
func addEmbedded(s *spec.Schema, b *builtins, prefix string, v2 bool, depth int) {
	if s == nil || depth > maxDepth {
		return
	}
	for k := range s.Properties {
		p := s.Properties[k]
		addEmbedded(&p, b, prefix, v2, depth+1)
		s.Properties[k] = p
	}
	if s.Items != nil {
		addEmbedded(s.Items.Schema, b, prefix, v2, depth+1)
	}
	if s.AdditionalProperties != nil {
		addEmbedded(s.AdditionalProperties.Schema, b, prefix, v2, depth+1)
	}
	if p, _ := s.Extensions.GetBool("x-kubernetes-preserve-unknown-fields"); p && v2 {
		return
	}
	if e, _ := s.Extensions.GetBool("x-kubernetes-embedded-resource"); !e {
		return
	}
	apiVersion, kind := b.apiVersion, b.kind
	s.SetProperty("apiVersion", *apiVersion.WithDescription(embeddedAPIVersion))
	s.SetProperty("kind", *kind.WithDescription(embeddedKind))
	s.SetProperty("metadata", *spec.RefSchema(prefix + objectMetaModel).WithDescription(metadataDescription))
	hasKind, hasAPIVersion := false, false
	for _, r := range s.Required {
		hasKind = hasKind || r == "kind"
		hasAPIVersion = hasAPIVersion || r == "apiVersion"
	}
	if !hasKind {
		s.Required = append(s.Required, "kind")
	}
	if !hasAPIVersion {
		s.Required = append(s.Required, "apiVersion")
	}
}

func listSchema(b *builtins, v *apiextensionsv1.CustomResourceDefinitionVersion, n *names, v2 bool) *spec.Schema {
	prefix := v3Prefix
	if v2 {
		prefix = v2Prefix
	}
	doc := fmt.Sprintf("List of %s. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md", n.plural)
	s := new(spec.Schema).
		Typed("object", "").
		WithDescription(fmt.Sprintf("%s is a list of %s", n.listKind, n.kind)).
		WithRequired("items").
		SetProperty("items", *spec.ArrayProperty(spec.RefSchema(prefix + n.model())).WithDescription(doc)).
		SetProperty("metadata", *spec.RefSchema(prefix + listMetaModel).WithDescription(listMetadataDescription))
	s.SetProperty("apiVersion", b.apiVersion)
	s.SetProperty("kind", b.kind)
	s.AddExtension("x-kubernetes-group-version-kind", []map[string]string{{"group": n.group, "version": n.version, "kind": n.listKind}})
	if sf := selectableFields(v); sf != nil {
		s.AddExtension("x-kubernetes-selectable-fields", sf)
	}
	return s
}

// groupByPath groups routes by path, keeping the server's route order.
func groupByPath(rs []route) ([]string, map[string][]route) {
	var order []string
	by := map[string][]route{}
	for _, r := range rs {
		if _, ok := by[r.path]; !ok {
			order = append(order, r.path)
		}
		by[r.path] = append(by[r.path], r)
	}
	return order, by
}

type paramKey struct{ name, in string }

// commonParams are the non-body parameters every route of a path has.
func commonParams(rs []route) (map[paramKey]bool, []param) {
	count := map[paramKey]int{}
	data := map[paramKey]param{}
	for _, r := range rs {
		for _, p := range r.params {
			k := paramKey{p.name, p.in}
			count[k]++
			data[k] = p
		}
	}
	keys := map[paramKey]bool{}
	var ps []param
	for k, c := range count {
		if c == len(rs) && k.in != "body" {
			keys[k] = true
			ps = append(ps, data[k])
		}
	}
	sortParams(ps)
	return keys, ps
}

func sortParams(ps []param) {
	sort.Slice(ps, func(i, j int) bool {
		return ps[i].name < ps[j].name || (ps[i].name == ps[j].name && ps[i].in < ps[j].in)
	})
}

func addV3(doc *spec3.OpenAPI, b *builtins, crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) error {
	n := namesFor(crd, v)
	kind := kindSchema(b, crd, v, n, false)
	wrapRefs(kind, 0)
	list := listSchema(b, v, n, false)
	wrapRefs(list, 0)
	schemas := doc.Components.Schemas
	if _, ok := schemas[n.model()]; ok {
		return fmt.Errorf("OpenAPI V3 merge schema conflict on %s", n.model())
	}
	schemas[n.model()] = kind
	schemas[n.listModel()] = list
	b.closure(schemas, objectMetaModel)
	b.closure(schemas, statusModel)
	b.closure(schemas, deleteOptionsModel)
	b.closure(schemas, patchModel)
	if n.scale {
		b.closure(schemas, scaleModel)
	}
	order, by := groupByPath(n.routes())
	for _, path := range order {
		rs := by[path]
		common, cps := commonParams(rs)
		item := &spec3.Path{}
		for _, p := range cps {
			sp, err := v3Param(p)
			if err != nil {
				return err
			}
			item.Parameters = append(item.Parameters, sp)
		}
		for _, r := range rs {
			op := &spec3.Operation{OperationProps: spec3.OperationProps{
				Description: r.desc,
				OperationId: r.opID,
				Tags:        r.tags,
				Responses:   &spec3.Responses{ResponsesProps: spec3.ResponsesProps{StatusCodeResponses: map[int]*spec3.Response{}}},
			}}
			op.Extensions = spec.Extensions{"x-kubernetes-group-version-kind": r.gvk, "x-kubernetes-action": r.action}
			for _, resp := range r.responses {
				op.Responses.StatusCodeResponses[resp.code] = &spec3.Response{ResponseProps: spec3.ResponseProps{
					Description: resp.msg, Content: content(mediaTypes, resp.model)}}
			}
			op.Responses.StatusCodeResponses[401] = &spec3.Response{ResponseProps: spec3.ResponseProps{Description: "Unauthorized"}}
			var ps []param
			for _, p := range r.params {
				if !common[paramKey{p.name, p.in}] && p.in != "body" {
					ps = append(ps, p)
				}
			}
			sortParams(ps)
			for _, p := range ps {
				sp, err := v3Param(p)
				if err != nil {
					return err
				}
				op.Parameters = append(op.Parameters, sp)
			}
			if body := bodyParam(r); body != nil {
				op.RequestBody = &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{
					Content: content(r.consumes, body.body), Description: body.desc, Required: body.required}}
			}
			setOp3(item, r.method, op)
		}
		doc.Paths.Paths[path] = item
	}
	return nil
}

// bodyParam is the route's body parameter; the body it reads is the last one declared.
func bodyParam(r route) *param {
	var out *param
	for i := range r.params {
		if r.params[i].in == "body" {
			if out == nil {
				p := r.params[i]
				out = &p
			} else {
				out.body = r.params[i].body
			}
		}
	}
	return out
}

func content(types []string, model string) map[string]*spec3.MediaType {
	c := make(map[string]*spec3.MediaType, len(types))
	s := &spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(v3Prefix + model)}}
	for _, t := range types {
		c[t] = &spec3.MediaType{MediaTypeProps: spec3.MediaTypeProps{Schema: s}}
	}
	return c
}

func v3Param(p param) (*spec3.Parameter, error) {
	t, f, err := typeFormat(p.dataType)
	if err != nil {
		return nil, err
	}
	return &spec3.Parameter{ParameterProps: spec3.ParameterProps{
		Name: p.name, In: p.in, Description: p.desc, Required: p.required,
		Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{t}, Format: f, UniqueItems: true}},
	}}, nil
}

func setOp3(item *spec3.Path, method string, op *spec3.Operation) {
	switch method {
	case "GET":
		item.Get = op
	case "POST":
		item.Post = op
	case "PUT":
		item.Put = op
	case "DELETE":
		item.Delete = op
	case "PATCH":
		item.Patch = op
	}
}

func v2Param(p param, bodyModel string) (spec.Parameter, error) {
	sp := spec.Parameter{ParamProps: spec.ParamProps{Name: p.name, In: p.in, Description: p.desc, Required: p.required}}
	if p.in == "body" {
		sp.Schema = spec.RefSchema(v2Prefix + bodyModel)
		return sp, nil
	}
	t, f, err := typeFormat(p.dataType)
	if err != nil {
		return sp, err
	}
	sp.Type, sp.Format, sp.UniqueItems = t, f, true
	return sp, nil
}

func addV2(out *V2, b *builtins, crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) error {
	n := namesFor(crd, v)
	kind := kindSchema(b, crd, v, n, true)
	pruneDefaults(kind, 0)
	out.Definitions[n.model()] = *kind
	out.Definitions[n.listModel()] = *listSchema(b, v, n, true)

	order, by := groupByPath(n.routes())
	paths := make(map[string]*spec.PathItem, len(order))
	for _, path := range order {
		rs := by[path]
		common, cps := commonParams(rs)
		item := &spec.PathItem{}
		for _, p := range cps {
			sp, err := v2Param(p, "")
			if err != nil {
				return err
			}
			item.Parameters = append(item.Parameters, sp)
		}
		for _, r := range rs {
			op := &spec.Operation{OperationProps: spec.OperationProps{
				Description: r.desc,
				Consumes:    r.consumes,
				Produces:    mediaTypes,
				Schemes:     []string{"https"},
				Tags:        r.tags,
				ID:          r.opID,
				Responses:   &spec.Responses{ResponsesProps: spec.ResponsesProps{StatusCodeResponses: map[int]spec.Response{}}},
			}}
			op.Extensions = spec.Extensions{"x-kubernetes-group-version-kind": r.gvk, "x-kubernetes-action": r.action}
			for _, resp := range r.responses {
				op.Responses.StatusCodeResponses[resp.code] = spec.Response{ResponseProps: spec.ResponseProps{
					Description: resp.msg, Schema: spec.RefSchema(v2Prefix + resp.model)}}
			}
			op.Responses.StatusCodeResponses[401] = spec.Response{ResponseProps: spec.ResponseProps{Description: "Unauthorized"}}
			bodyModel := ""
			if body := bodyParam(r); body != nil {
				bodyModel = body.body
			}
			var ps []param
			for _, p := range r.params {
				if !common[paramKey{p.name, p.in}] {
					ps = append(ps, p)
				}
			}
			sortParams(ps)
			op.Parameters = []spec.Parameter{}
			for _, p := range ps {
				sp, err := v2Param(p, bodyModel)
				if err != nil {
					return err
				}
				op.Parameters = append(op.Parameters, sp)
			}
			switch r.method {
			case "GET":
				item.Get = op
			case "POST":
				item.Post = op
			case "PUT":
				item.Put = op
			case "DELETE":
				item.Delete = op
			case "PATCH":
				item.Patch = op
			}
		}
		paths[path] = item
	}
	enc := paramEncoder{}
	names, shared, err := sharedParameters(paths, enc)
	if err != nil {
		return err
	}
	for k, p := range shared {
		out.Parameters[k] = p
	}
	for path, item := range paths {
		for _, op := range []*spec.Operation{item.Get, item.Put, item.Post, item.Delete, item.Patch} {
			if op != nil {
				if err := replaceShared(op.Parameters, names, enc); err != nil {
					return err
				}
			}
		}
		if err := replaceShared(item.Parameters, names, enc); err != nil {
			return err
		}
		out.Paths[path] = *item
	}
	return nil
}

// shareable says whether the server lifts p into the document's shared parameters.
func shareable(p *spec.Parameter) bool {
	switch {
	case (p.In == "query" || p.In == "path") && p.Name == "name":
		return false
	case p.In == "query" && (p.Name == "fieldValidation" || p.Name == "dryRun"):
		return false
	case p.Schema != nil && p.In == "body" && p.Name == "body" && !strings.HasPrefix(p.Schema.Ref.String(), "#/definitions/io.k8s.apimachinery"):
		return false
	}
	return true
}

// sharedParameters names the shared parameters of one version's paths by a hash of
// their JSON, as the server does.
func sharedParameters(paths map[string]*spec.PathItem, enc paramEncoder) (map[string]string, map[string]spec.Parameter, error) {
	seen := map[string]spec.Parameter{}
	var keys []string
	collect := func(ps []spec.Parameter) error {
		for i := range ps {
			p := &ps[i]
			if !shareable(p) {
				continue
			}
			k, err := enc.json(p)
			if err != nil {
				return err
			}
			if _, ok := seen[k]; !ok {
				seen[k] = *p
				keys = append(keys, k)
			}
		}
		return nil
	}
	for _, item := range paths {
		for _, op := range []*spec.Operation{item.Get, item.Put, item.Post, item.Delete, item.Patch} {
			if op != nil {
				if err := collect(op.Parameters); err != nil {
					return nil, nil, err
				}
			}
		}
		if err := collect(item.Parameters); err != nil {
			return nil, nil, err
		}
	}
	sort.Strings(keys)
	names := map[string]string{}
	shared := map[string]spec.Parameter{}
	for _, k := range keys {
		base := seen[k].Name
		if base == "" {
			base = "param"
		}
		name := base + "-" + hash(k)
		for i := 1; ; i++ {
			if _, ok := shared[name]; !ok {
				break
			}
			name = base + "-" + strconv.Itoa(i)
		}
		shared[name] = seen[k]
		names[k] = name
	}
	return names, shared, nil
}

func hash(s string) string {
	h := fnv.New64()
	h.Write([]byte(s))
	return base64.URLEncoding.EncodeToString(h.Sum(make([]byte, 0, 8))[:6])
}

// replaceShared turns shared parameters into references. It mutates ps.
func replaceShared(ps []spec.Parameter, names map[string]string, enc paramEncoder) error {
	for i := range ps {
		js, err := enc.json(&ps[i])
		if err != nil {
			return err
		}
		if name, ok := names[js]; ok {
			ps[i] = spec.Parameter{Refable: spec.Refable{Ref: spec.MustCreateRef("#/parameters/" + name)}}
		}
	}
	return nil
}

// paramEncoder caches the JSON of the parameters one version's routes
// repeat; the fields it keys on are all the builder sets.
type paramEncoder map[paramFields]string

type paramFields struct {
	name, in, desc, typ, format, ref string
	required, unique                 bool
}

func (e paramEncoder) json(p *spec.Parameter) (string, error) {
	k := paramFields{p.Name, p.In, p.Description, p.Type, p.Format, p.Ref.String(), p.Required, p.UniqueItems}
	if p.Schema != nil {
		k.ref = "schema:" + p.Schema.Ref.String()
	}
	if js, ok := e[k]; ok {
		return js, nil
	}
	bs, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	e[k] = string(bs)
	return string(bs), nil
}

// Models returns the schemas the server builds the field manager of crd's
// custom resources from (server-side apply and managedFields): the kind of
// every version, as the v3 document defines it, and the built-in
// definitions they reference, keyed by definition name. The server merges
// the same definitions (buildOpenAPIModelsForApply in the custom-resource
// handler) and converts them with managedfields.NewTypeConverter (the
// autoscaling/v1 Scale among them when a version has the scale
// subresource). The
// built-in schemas are shared: do not modify them.
func Models(crd *apiextensionsv1.CustomResourceDefinition) (map[string]*spec.Schema, error) {
	b := loadBuiltins()
	out := map[string]*spec.Schema{}
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		n := namesFor(crd, v)
		kind := kindSchema(b, crd, v, n, false)
		wrapRefs(kind, 0)
		if _, ok := out[n.model()]; ok {
			return nil, fmt.Errorf("OpenAPI V3 merge schema conflict on %s", n.model())
		}
		out[n.model()] = kind
	}
	b.closure(out, objectMetaModel)
	for _, v := range crd.Spec.Versions {
		if v.Subresources != nil && v.Subresources.Scale != nil {
			// The scale subresource's field manager shares the type
			// converter, in which the server's static definitions give
			// the autoscaling/v1 Scale its schema (an apply of a Scale
			// is checked against it).
			b.closure(out, scaleModel)
			break
		}
	}
	return out, nil
}
