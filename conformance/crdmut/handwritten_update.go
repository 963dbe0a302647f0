package crdmut

import (
	"crypto/ed25519"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"time"
)

// UpdateCase is a hand-written revision of a live CRD. Live is the CRD as a
// server holds it without its status (callers add the status a server gives
// it); it may be one the server would refuse today (what older servers
// accepted). Established says whether the live CRD's Established condition
// is true.
type UpdateCase struct {
	Name        string
	Live, New   string
	Established bool
	// StoredVersions, when set, are the live CRD's status.storedVersions
	// (else its storage version).
	StoredVersions []string
	// Invalid says that the server refuses Live on create: a real server
	// can hold it only if it is written to its storage directly.
	Invalid bool
	// Stored says that a real server can hold Live, established, only if
	// it is written to its storage directly (a create leaves it not
	// established, as for an invalid CA bundle).
	Stored bool
}

type edit func(m map[string]any)

// widget is a CronTab-like CRD (group update.example.com, one version v1)
// after the edits.
func widget(edits ...edit) string {
	m := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.update.example.com"},
		"spec": map[string]any{
			"group": "update.example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"spec": map[string]any{"type": "object", "properties": map[string]any{
						"size":  map[string]any{"type": "integer"},
						"name":  map[string]any{"type": "string"},
						"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
						"ports": map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}, "port": map[string]any{"type": "integer"}}}},
					}},
					"status": map[string]any{"type": "object", "properties": map[string]any{"ready": map[string]any{"type": "boolean"}}},
				},
			}}}},
		},
	}
	for _, e := range edits {
		e(m)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func ver(m map[string]any, i int) map[string]any {
	return m["spec"].(map[string]any)["versions"].([]any)[i].(map[string]any)
}

func rootSchema(m map[string]any, i int) map[string]any {
	return ver(m, i)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
}

func specProps(m map[string]any, i int) map[string]any {
	return rootSchema(m, i)["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
}

func specNode(m map[string]any, i int) map[string]any {
	return rootSchema(m, i)["properties"].(map[string]any)["spec"].(map[string]any)
}

// prop sets spec.<name> of version 0 to s.
func prop(name string, s map[string]any) edit {
	return func(m map[string]any) { specProps(m, 0)[name] = s }
}

func setSpec(k string, v any) edit {
	return func(m map[string]any) { m["spec"].(map[string]any)[k] = v }
}

func metaName(name string) edit {
	return func(m map[string]any) { m["metadata"].(map[string]any)["name"] = name }
}

// hugeDefault adds a number property whose default is past float64's
// range (the server's decoding refuses it with a 400).
func hugeDefault(m map[string]any) {
	specProps(m, 0)["ratio"] = map[string]any{"type": "number", "default": json.Number("1e400")}
}

func setName(k, v string) edit {
	return func(m map[string]any) { m["spec"].(map[string]any)["names"].(map[string]any)[k] = v }
}

func specRule(r map[string]any) edit {
	return func(m map[string]any) {
		n := specNode(m, 0)
		l, _ := n["x-kubernetes-validations"].([]any)
		n["x-kubernetes-validations"] = append(l, r)
	}
}

// addVersion appends a copy of version 0 named name (not storage).
func addVersion(name string, served bool) edit {
	return func(m map[string]any) {
		b, _ := json.Marshal(ver(m, 0))
		var v map[string]any
		_ = json.Unmarshal(b, &v)
		v["name"], v["storage"], v["served"] = name, false, served
		m["spec"].(map[string]any)["versions"] = append(m["spec"].(map[string]any)["versions"].([]any), v)
	}
}

// storageAt makes version i the storage version.
func storageAt(i int) edit {
	return func(m map[string]any) {
		for j, v := range m["spec"].(map[string]any)["versions"].([]any) {
			v.(map[string]any)["storage"] = j == i
		}
	}
}

func dropVersion(i int) edit {
	return func(m map[string]any) {
		vs := m["spec"].(map[string]any)["versions"].([]any)
		m["spec"].(map[string]any)["versions"] = append(vs[:i:i], vs[i+1:]...)
	}
}

func annotate(k, v string) edit {
	return func(m map[string]any) {
		md := m["metadata"].(map[string]any)
		a, _ := md["annotations"].(map[string]any)
		if a == nil {
			a = map[string]any{}
			md["annotations"] = a
		}
		a[k] = v
	}
}

func selectable(n int) edit {
	return func(m map[string]any) {
		var fs []any
		for i := 0; i < n; i++ {
			name := "f" + string(rune('a'+i))
			specProps(m, 0)[name] = map[string]any{"type": "string"}
			fs = append(fs, map[string]any{"jsonPath": ".spec." + name})
		}
		ver(m, 0)["selectableFields"] = fs
	}
}

func webhook(reviewVersions []any, ca string) edit {
	return func(m map[string]any) {
		cc := map[string]any{"url": "https://conv.example.com/convert"}
		if ca != "" {
			cc["caBundle"] = ca
		}
		m["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": reviewVersions, "clientConfig": cc}}
	}
}

func labeled(m map[string]any) {
	m["metadata"].(map[string]any)["labels"] = map[string]any{"revision": "2"}
}

// A rule whose cost is over the per-expression limit (4.6x: quadratic in a
// list of up to 1000 strings of up to 100 bytes, costlyTags), though the
// schema's total stays under its own limit.
var costlyRule = map[string]any{"rule": "self.tags.all(x, self.tags.exists(y, x == y))"}

var costlyTags = prop("tags", map[string]any{"type": "array", "maxItems": 1000, "items": map[string]any{"type": "string", "maxLength": 100}})

// smallTags bounds spec.tags so that rules over it stay cheap.
var smallTags = prop("tags", map[string]any{"type": "array", "maxItems": 10, "items": map[string]any{"type": "string", "maxLength": 10}})

// testCA is a self-signed certificate authority (PEM, base64 as in JSON),
// made from a fixed ed25519 seed so that it is the same on every run.
var testCA = func() string {
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "crdkit test ca"},
		NotBefore:             time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}()

// HandwrittenUpdates are revisions of a small CRD covering every rule of
// the server's CRD update validation: immutable names and scope, versions
// and stored versions, schemas tightened and loosened, rules added,
// changed and already invalid, the relaxations for what the live CRD
// already has, selectable fields and conversion.
var HandwrittenUpdates = []UpdateCase{
	{Name: "no-op", Live: widget(), New: widget(), Established: true},
	{Name: "labels only (generation kept)", Live: widget(), New: widget(labeled), Established: true},
	{Name: "schema loosened (generation bumped)", Live: widget(prop("size", map[string]any{"type": "integer", "maximum": 5})), New: widget(), Established: true},
	{Name: "schema tightened", Live: widget(), New: widget(prop("size", map[string]any{"type": "integer", "maximum": 5}), prop("name", map[string]any{"type": "string", "maxLength": 3, "enum": []any{"a", "b"}})), Established: true},
	{Name: "field removed", Live: widget(), New: widget(func(m map[string]any) { delete(specProps(m, 0), "tags") }), Established: true},
	{Name: "type changed", Live: widget(), New: widget(prop("size", map[string]any{"type": "string"})), Established: true},
	{Name: "required added", Live: widget(), New: widget(func(m map[string]any) { specNode(m, 0)["required"] = []any{"size"} }), Established: true},
	{Name: "kind renamed, established", Live: widget(), New: widget(setName("kind", "Gadget"), setName("listKind", "GadgetList")), Established: true},
	{Name: "kind renamed, not established", Live: widget(), New: widget(setName("kind", "Gadget"), setName("listKind", "GadgetList")), Established: false},
	{Name: "plural renamed", Live: widget(), New: widget(setName("plural", "gadgets")), Established: true},
	{Name: "singular, listKind, short names and categories changed", Live: widget(), New: widget(setName("singular", "wdg"), setName("listKind", "WidgetItems"), func(m map[string]any) {
		n := m["spec"].(map[string]any)["names"].(map[string]any)
		n["shortNames"], n["categories"] = []any{"wd"}, []any{"all"}
	}), Established: true},
	{Name: "group changed", Live: widget(), New: widget(setSpec("group", "other.example.com")), Established: true},
	{Name: "scope changed, established", Live: widget(), New: widget(setSpec("scope", "Cluster")), Established: true},
	{Name: "scope changed, not established", Live: widget(), New: widget(setSpec("scope", "Cluster")), Established: false},
	{Name: "version added", Live: widget(), New: widget(addVersion("v2", true)), Established: true},
	{Name: "version added, storage moved to it", Live: widget(), New: widget(addVersion("v2", true), storageAt(1)), Established: true},
	{Name: "stored version removed", Live: widget(addVersion("v2", true), storageAt(1)), New: widget(addVersion("v2", true), storageAt(1), dropVersion(0)), Established: true, StoredVersions: []string{"v1", "v2"}},
	{Name: "version no longer stored removed", Live: widget(addVersion("v2", true), storageAt(1)), New: widget(addVersion("v2", true), storageAt(1), dropVersion(0)), Established: true, StoredVersions: []string{"v2"}},
	{Name: "storage moved back, both stored", Live: widget(addVersion("v2", true), storageAt(1)), New: widget(addVersion("v2", true)), Established: true, StoredVersions: []string{"v1", "v2"}},
	{Name: "version unserved and deprecated", Live: widget(addVersion("v2", true)), New: widget(addVersion("v2", false), func(m map[string]any) {
		ver(m, 0)["deprecated"], ver(m, 0)["deprecationWarning"] = true, "v1 is going away"
	}), Established: true},
	{Name: "no storage version", Live: widget(), New: widget(func(m map[string]any) { ver(m, 0)["storage"] = false }), Established: true},
	{Name: "rule added", Live: widget(), New: widget(specRule(map[string]any{"rule": "self.size >= 0"})), Established: true},
	{Name: "transition rule added", Live: widget(), New: widget(specRule(map[string]any{"rule": "self.size == oldSelf.size", "message": "size is immutable"})), Established: true},
	{Name: "rule changed to one that does not compile", Live: widget(specRule(map[string]any{"rule": "self.size >= 0"})), New: widget(specRule(map[string]any{"rule": "self.size >= 'a'"})), Established: true},
	{Name: "rule message changed", Live: widget(specRule(map[string]any{"rule": "self.size >= 0"})), New: widget(specRule(map[string]any{"rule": "self.size >= 0", "message": "size must not be negative"})), Established: true},
	{Name: "rule with a 1.37 function added", Live: widget(smallTags), New: widget(smallTags, specRule(map[string]any{"rule": "self.tags.includes('a') || true"})), Established: true},
	{Name: "rule with a 1.37 function kept", Live: widget(smallTags, specRule(map[string]any{"rule": "self.tags.includes('a') || true"})), New: widget(smallTags, specRule(map[string]any{"rule": "self.tags.includes('a') || true"}), prop("size", map[string]any{"type": "integer", "minimum": 0})), Established: true, Invalid: true},
	{Name: "rule with a 1.37 function moved to another node", Live: widget(smallTags, specRule(map[string]any{"rule": "self.tags.includes('a') || true"})), New: widget(smallTags, func(m map[string]any) {
		rootSchema(m, 0)["x-kubernetes-validations"] = []any{map[string]any{"rule": "self.spec.tags.includes('a') || true"}}
	}), Established: true, Invalid: true},
	{Name: "rule with a 1.37 function, same text on another node", Live: widget(smallTags, specRule(map[string]any{"rule": "self.tags.includes('a') || true"})), New: widget(smallTags, specRule(map[string]any{"rule": "self.tags.includes('a') || true"}), func(m map[string]any) {
		specProps(m, 0)["more"] = map[string]any{"type": "object", "properties": map[string]any{"tags": map[string]any{"type": "array", "maxItems": 5, "items": map[string]any{"type": "string", "maxLength": 5}}},
			"x-kubernetes-validations": []any{map[string]any{"rule": "self.tags.includes('a') || true"}}}
	}), Established: true, Invalid: true},
	{Name: "messageExpression with a 1.37 function kept", Live: widget(smallTags, specRule(map[string]any{"rule": "true", "messageExpression": "self.tags.includes('a') ? 'a' : 'b'"})), New: widget(smallTags, specRule(map[string]any{"rule": "false || true", "messageExpression": "self.tags.includes('a') ? 'a' : 'b'"})), Established: true, Invalid: true},
	{Name: "costly rule kept, schema unchanged", Live: widget(costlyTags, specRule(costlyRule)), New: widget(costlyTags, specRule(costlyRule), labeled), Established: true, Invalid: true},
	{Name: "costly rule kept, another version added", Live: widget(costlyTags, specRule(costlyRule)), New: widget(costlyTags, specRule(costlyRule), addVersion("v2", true)), Established: true, Invalid: true},
	{Name: "costly rule kept, schema changed", Live: widget(costlyTags, specRule(costlyRule)), New: widget(costlyTags, specRule(costlyRule), prop("size", map[string]any{"type": "integer", "minimum": 0})), Established: true, Invalid: true},
	{Name: "costly rule added", Live: widget(costlyTags), New: widget(costlyTags, specRule(costlyRule)), Established: true},
	{Name: "set of objects kept", Live: widget(prop("set", map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "object"}})), New: widget(prop("set", map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "object"}}), prop("set2", map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "object"}})), Established: true, Invalid: true},
	{Name: "set of atomic objects added (warning)", Live: widget(), New: widget(prop("set", map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "object", "x-kubernetes-map-type": "atomic"}})), Established: true},
	{Name: "set of atomic objects kept (no warning)", Live: widget(prop("set", map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "object", "x-kubernetes-map-type": "atomic"}})), New: widget(prop("set", map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "object", "x-kubernetes-map-type": "atomic"}}), labeled), Established: true},
	{Name: "unrecognized format added (warning)", Live: widget(prop("when", map[string]any{"type": "string", "format": "timestamp"})), New: widget(prop("when", map[string]any{"type": "string", "format": "timestamp"}), prop("at", map[string]any{"type": "string", "format": "instant"})), Established: true},
	{Name: "map list key not required kept", Live: widget(prop("ports", map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"}, "items": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})), New: widget(prop("ports", map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"}, "items": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}), labeled), Established: true, Invalid: true},
	{Name: "map list key made optional", Live: widget(prop("ports", map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"}, "items": map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{"name": map[string]any{"type": "string"}}}})), New: widget(prop("ports", map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"}, "items": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})), Established: true},
	{Name: "unpruned default kept", Live: widget(prop("opts", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "default": map[string]any{"a": "x", "zz": "unknown"}})), New: widget(prop("opts", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "default": map[string]any{"a": "x", "zz": "unknown"}}), labeled), Established: true, Invalid: true},
	{Name: "unpruned default added", Live: widget(), New: widget(prop("opts", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "default": map[string]any{"a": "x", "zz": "unknown"}})), Established: true},
	{Name: "default added", Live: widget(), New: widget(prop("size", map[string]any{"type": "integer", "default": 3})), Established: true},
	{Name: "selectable fields added", Live: widget(), New: widget(selectable(2)), Established: true},
	{Name: "selectable fields over the limit kept", Live: widget(selectable(9)), New: widget(selectable(9), labeled), Established: true, Invalid: true},
	{Name: "selectable fields over the limit changed", Live: widget(selectable(9)), New: widget(selectable(10)), Established: true, Invalid: true},
	{Name: "metadata.name changed", Live: widget(), New: widget(metaName("gadgets.update.example.com")), Established: true},
	{Name: "default past float64 added", Live: widget(), New: widget(hugeDefault), Established: true},
	{Name: "metadata.name changed and default past float64 added (the decoding's 400 first)", Live: widget(), New: widget(metaName("gadgets.update.example.com"), hugeDefault), Established: true},
	{Name: "selectable fields over the limit added", Live: widget(), New: widget(selectable(9)), Established: true},
	{Name: "conversion webhook added", Live: widget(), New: widget(webhook([]any{"v1"}, "")), Established: true},
	{Name: "conversion webhook with a CA", Live: widget(), New: widget(webhook([]any{"v1"}, testCA)), Established: true},
	{Name: "conversion webhook with an invalid CA, established", Live: widget(), New: widget(webhook([]any{"v1"}, "bm90IGEgY2VydA==")), Established: true},
	{Name: "conversion webhook with an invalid CA, not established", Live: widget(), New: widget(webhook([]any{"v1"}, "bm90IGEgY2VydA==")), Established: false},
	{Name: "conversion webhook invalid CA kept, not established", Live: widget(webhook([]any{"v1"}, "bm90IGEgY2VydA==")), New: widget(webhook([]any{"v1"}, "bm90IGEgY2VydA=="), labeled), Established: false},
	{Name: "conversion webhook invalid CA kept, established", Live: widget(webhook([]any{"v1"}, "bm90IGEgY2VydA==")), New: widget(webhook([]any{"v1"}, "bm90IGEgY2VydA=="), labeled), Established: true, Stored: true},
	{Name: "conversion webhook CA made invalid", Live: widget(webhook([]any{"v1"}, testCA)), New: widget(webhook([]any{"v1"}, "bm90IGEgY2VydA==")), Established: true},
	{Name: "conversion review versions unrecognized, added", Live: widget(), New: widget(webhook([]any{"v9"}, "")), Established: true},
	{Name: "conversion review versions unrecognized, kept", Live: widget(webhook([]any{"v9"}, "")), New: widget(webhook([]any{"v9", "v8"}, "")), Established: true, Invalid: true},
	{Name: "conversion back to None", Live: widget(webhook([]any{"v1"}, "")), New: widget(setSpec("conversion", map[string]any{"strategy": "None"})), Established: true},
	{Name: "preserveUnknownFields set", Live: widget(), New: widget(setSpec("preserveUnknownFields", true)), Established: true},
	{Name: "protected group, approval unchanged (missing)", Live: widget(setSpec("group", "update.k8s.io"), func(m map[string]any) {
		m["metadata"].(map[string]any)["name"] = "widgets.update.k8s.io"
	}), New: widget(setSpec("group", "update.k8s.io"), func(m map[string]any) { m["metadata"].(map[string]any)["name"] = "widgets.update.k8s.io" }, labeled), Established: true, Invalid: true},
	{Name: "protected group, approval made invalid", Live: widget(setSpec("group", "update.k8s.io"), func(m map[string]any) {
		m["metadata"].(map[string]any)["name"] = "widgets.update.k8s.io"
	}, annotate("api-approved.kubernetes.io", "https://github.com/kubernetes/enhancements/pull/1111")), New: widget(setSpec("group", "update.k8s.io"), func(m map[string]any) { m["metadata"].(map[string]any)["name"] = "widgets.update.k8s.io" }, annotate("api-approved.kubernetes.io", "approved")), Established: true},
	{Name: "not structural, kept with preserveUnknownFields", Live: widget(setSpec("preserveUnknownFields", true), func(m map[string]any) { specProps(m, 0)["free"] = map[string]any{} }), New: widget(setSpec("preserveUnknownFields", true), func(m map[string]any) { specProps(m, 0)["free"] = map[string]any{} }, labeled), Established: true, Invalid: true},
	{Name: "not structural, pruning turned on", Live: widget(setSpec("preserveUnknownFields", true), func(m map[string]any) { specProps(m, 0)["free"] = map[string]any{} }), New: widget(func(m map[string]any) { specProps(m, 0)["free"] = map[string]any{} }), Established: true, Invalid: true},
	{Name: "schema missing in a served version, kept", Live: widget(addVersion("v2", true), func(m map[string]any) { delete(ver(m, 1), "schema") }), New: widget(addVersion("v2", true), func(m map[string]any) { delete(ver(m, 1), "schema") }, labeled), Established: true, Invalid: true},
	{Name: "schema missing in an unserved version, kept", Live: widget(addVersion("v2", false), func(m map[string]any) { delete(ver(m, 1), "schema") }), New: widget(addVersion("v2", false), func(m map[string]any) { delete(ver(m, 1), "schema") }, labeled), Established: true, Invalid: true},
	{Name: "invalid type kept", Live: widget(prop("odd", map[string]any{"type": "foo"})), New: widget(prop("odd", map[string]any{"type": "foo"}), labeled), Established: true, Invalid: true},
	{Name: "invalid type added", Live: widget(), New: widget(prop("odd", map[string]any{"type": "foo"})), Established: true},
	{Name: "name changed", Live: widget(), New: widget(func(m map[string]any) { m["metadata"].(map[string]any)["name"] = "gadgets.update.example.com" }), Established: true},
}
