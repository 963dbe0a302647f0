package openapi

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/common"
)

// Definition names of the built-in types the routes reference.
const (
	statusModel        = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	patchModel         = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
	deleteOptionsModel = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	scaleModel         = "io.k8s.api.autoscaling.v1.Scale"
	objectMetaModel    = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	listMetaModel      = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
	typeMetaModel      = "io.k8s.apimachinery.pkg.apis.meta.v1.TypeMeta"
)

var (
	mediaTypes      = []string{"application/json", "application/yaml"}
	patchMediaTypes = []string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}
)

// param is one route parameter before it is rendered for v2 or v3.
type param struct {
	name, in, desc, dataType string
	required                 bool
	body                     string // definition name of a body parameter
}

type response struct {
	code  int
	msg   string
	model string
}

// route is one operation the server's builder registers for a CRD version.
type route struct {
	method, path, action string
	opID                 string
	tags                 []string
	desc                 string
	consumes             []string
	params               []param
	responses            []response
	gvk                  metav1.GroupVersionKind
}

// names is what the routes of one CRD version need to know.
type names struct {
	group, version, kind, listKind, plural string
	namespaced                             bool
	status, scale                          bool
}

func (n *names) model() string     { return gvkToModelName(n.group, n.version, n.kind) }
func (n *names) listModel() string { return gvkToModelName(n.group, n.version, n.listKind) }

func gvkToModelName(g, v, k string) string {
	parts := strings.Split(g, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + v + "." + k
}

// routes lists the operations in the server's order.
func (n *names) routes() []route {
	model, list := n.model(), n.listModel()
	root := "/apis/" + n.group + "/" + n.version + "/" + n.plural
	var rs []route
	if n.namespaced {
		r := n.route(root, "", "GET", "list", "list", list, "")
		r.setOperation("list" + n.kind + "ForAllNamespaces")
		rs = append(rs, r)
		root = "/apis/" + n.group + "/" + n.version + "/namespaces/{namespace}/" + n.plural
	}
	rs = append(rs,
		n.route(root, "", "GET", "list", "list", list, ""),
		n.route(root, "", "POST", "post", "create", model, model),
		n.route(root, "", "DELETE", "deletecollection", "deletecollection", statusModel, ""),
		n.route(root, "/{name}", "GET", "get", "read", model, ""),
		n.route(root, "/{name}", "PUT", "put", "replace", model, model),
		n.route(root, "/{name}", "DELETE", "delete", "delete", statusModel, ""),
		n.route(root, "/{name}", "PATCH", "patch", "patch", model, patchModel),
	)
	if n.status {
		rs = append(rs,
			n.route(root, "/{name}/status", "GET", "get", "read", model, ""),
			n.route(root, "/{name}/status", "PUT", "put", "replace", model, model),
			n.route(root, "/{name}/status", "PATCH", "patch", "patch", model, patchModel),
		)
	}
	if n.scale {
		rs = append(rs,
			n.route(root, "/{name}/scale", "GET", "get", "read", scaleModel, ""),
			n.route(root, "/{name}/scale", "PUT", "put", "replace", scaleModel, scaleModel),
			n.route(root, "/{name}/scale", "PATCH", "patch", "patch", scaleModel, patchModel),
		)
	}
	return rs
}

func subresource(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) == 3 {
		return parts[2]
	}
	return ""
}

func (n *names) description(path, verb string) string {
	var article string
	switch verb {
	case "list":
		article = " objects of kind "
	case "read", "replace", "patch":
		article = " the specified "
	case "create", "delete":
		article = articleFor(n.kind, " ")
	}
	sub := subresource(path)
	if sub != "" {
		sub = " " + sub + " of"
	}
	switch verb {
	case "patch":
		return "partially update" + sub + article + n.kind
	case "deletecollection":
		if sub != "" {
			sub += " a"
		}
		return "delete collection of" + sub + " " + n.kind
	}
	return verb + sub + article + n.kind
}

func articleFor(noun, pad string) string {
	if !strings.HasSuffix(noun, "ss") && strings.HasSuffix(noun, "s") {
		return pad
	}
	article := "a"
	if noun != "" && strings.ContainsRune("aeiou", unicode.ToLower(rune(noun[0]))) {
		article = "an"
	}
	return pad + article + pad
}

func (n *names) route(root, path, method, action, verb, model, reads string) route {
	r := route{
		method: method,
		path:   root + path,
		action: action,
		desc:   n.description(path, verb),
		gvk:    metav1.GroupVersionKind{Group: n.group, Version: n.version, Kind: n.kind},
	}
	namespaced := ""
	if n.namespaced {
		namespaced = "Namespaced"
	}
	r.setOperation(verb + namespaced + n.kind + titleCase(subresource(path)))
	r.params = append(r.params, param{name: "pretty", in: "query", dataType: "string",
		desc: "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget)."})
	if strings.Contains(r.path, "{namespace}") {
		r.params = append(r.params, param{name: "namespace", in: "path", dataType: "string", required: true,
			desc: "object name and auth scope, such as for teams and projects"})
	}
	if strings.Contains(r.path, "{name}") {
		r.params = append(r.params, param{name: "name", in: "path", dataType: "string", required: true,
			desc: "name of the " + n.kind})
	}
	if method == "PATCH" {
		r.consumes = patchMediaTypes
	} else {
		r.consumes = mediaTypes
	}
	switch action {
	case "get":
		r.params = optionParams(r.params, metav1.GetOptions{})
	case "list", "deletecollection":
		r.params = optionParams(r.params, metav1.ListOptions{})
	case "put":
		r.params = optionParams(r.params, metav1.UpdateOptions{})
	case "patch":
		r.params = optionParams(r.params, metav1.PatchOptions{})
	case "post":
		r.params = optionParams(r.params, metav1.CreateOptions{})
	case "delete":
		r.params = optionParams(r.params, metav1.DeleteOptions{})
		r.params = append(r.params, param{name: "body", in: "body", body: deleteOptionsModel})
	}
	if reads != "" {
		r.params = append(r.params, param{name: "body", in: "body", body: reads, required: true})
	}
	r.responses = append(r.responses, response{200, "OK", model})
	switch action {
	case "post":
		r.responses = append(r.responses, response{202, "Accepted", model}, response{201, "Created", model})
	case "delete":
		r.responses = append(r.responses, response{202, "Accepted", model})
	case "put":
		r.responses = append(r.responses, response{201, "Created", model})
	}
	return r
}

func titleCase(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
}

// operationVerbs are the verbs the server strips from an operation name; the
// first (shortest) match wins, as in the server's trie.
var operationVerbs = []string{"get", "log", "read", "replace", "patch", "delete", "deletecollection", "watch", "connect", "proxy", "list", "create"}

// setOperation derives the operation id and tags from the operation name and path.
func (r *route) setOperation(op string) {
	prefix := ""
	for i := 1; i <= len(op) && prefix == ""; i++ {
		for _, v := range operationVerbs {
			if v == op[:i] {
				prefix = v
				break
			}
		}
	}
	if prefix == "" {
		r.opID, r.tags = op, nil
		return
	}
	op = op[len(prefix):]
	parts := strings.Split(strings.Trim(r.path, "/"), "/")
	var tags []string
	if len(parts) >= 2 && parts[0] == "apis" {
		trimmed := strings.TrimSuffix(parts[1], ".k8s.io")
		prefix += validOperationID(trimmed, true)
		tag := validOperationID(trimmed, false)
		if len(parts) > 2 {
			prefix += validOperationID(parts[2], true)
			tag += "_" + validOperationID(parts[2], false)
		}
		tags = append(tags, tag)
	}
	r.opID, r.tags = prefix+validOperationID(op, true), tags
}

func validOperationID(s string, capitalizeFirst bool) string {
	var b strings.Builder
	capitalize := capitalizeFirst
	for i, r := range s {
		if unicode.IsLetter(r) || r == '_' || (i != 0 && unicode.IsDigit(r)) {
			if capitalize {
				b.WriteRune(unicode.ToUpper(r))
				capitalize = false
			} else {
				b.WriteRune(r)
			}
		} else {
			capitalize = true
		}
	}
	return b.String()
}

type documentable interface{ SwaggerDoc() map[string]string }

// optionParams appends the query parameters of an options struct, one per
// scalar field, as the server's installer derives them.
func optionParams(dst []param, obj documentable) []param {
	st := reflect.TypeOf(obj)
	doc := obj.SwaggerDoc()
	for i := 0; i < st.NumField(); i++ {
		sf := st.Field(i)
		switch sf.Type.Kind() {
		case reflect.Interface, reflect.Struct:
			continue
		case reflect.Pointer:
			if k := sf.Type.Elem().Kind(); k == reflect.Interface || k == reflect.Struct {
				continue
			}
		}
		tag := sf.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			continue
		}
		dst = append(dst, param{name: name, in: "query", desc: doc[name], dataType: jsonType(sf.Type.String())})
	}
	return dst
}

func jsonType(t string) string {
	switch strings.TrimPrefix(t, "*") {
	case "bool":
		return "boolean"
	case "uint8", "int", "int32", "int64", "uint32", "uint64", "[]int32":
		return "integer"
	case "float64", "float32":
		return "number"
	case "string", "byte", "v1.Time", "v1.DeletionPropagation", "v1.ResourceVersionMatch", "v1.IncludeObjectPolicy", "[]string", "[]*string":
		return "string"
	}
	return t
}

func typeFormat(dataType string) (string, string, error) {
	t, f := common.OpenAPITypeFormat(dataType)
	if t == "" {
		return "", "", fmt.Errorf("openapi: parameter type %q is not a simple type", dataType)
	}
	return t, f, nil
}
