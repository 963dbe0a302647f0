package crdmut

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// updateMutations are the changes CRD authors make between two revisions of
// a CRD, allowed or not on update.
var updateMutations = []struct {
	name string
	f    func(rng *rand.Rand, crd map[string]any) bool
}{
	{"kind renamed", func(_ *rand.Rand, c map[string]any) bool {
		k, _ := names(c)["kind"].(string)
		names(c)["kind"] = k + "X"
		return true
	}},
	{"listKind renamed", func(_ *rand.Rand, c map[string]any) bool {
		names(c)["listKind"] = "CrdkitRenamedList"
		return true
	}},
	{"plural renamed", func(_ *rand.Rand, c map[string]any) bool {
		p, _ := names(c)["plural"].(string)
		names(c)["plural"] = p + "x"
		return true
	}},
	{"singular renamed", func(_ *rand.Rand, c map[string]any) bool {
		names(c)["singular"] = "crdkitsingular"
		return true
	}},
	{"shortNames and categories", func(rng *rand.Rand, c map[string]any) bool {
		names(c)["shortNames"] = []any{[]string{"cx", "Bad_Short"}[rng.IntN(2)]}
		names(c)["categories"] = []any{"all", "crdkit"}
		return true
	}},
	{"group changed", func(_ *rand.Rand, c map[string]any) bool {
		g, _ := spec(c)["group"].(string)
		spec(c)["group"] = "other." + g
		return true
	}},
	{"scope flipped", func(_ *rand.Rand, c map[string]any) bool {
		if spec(c)["scope"] == "Namespaced" {
			spec(c)["scope"] = "Cluster"
		} else {
			spec(c)["scope"] = "Namespaced"
		}
		return true
	}},
	{"version added", func(rng *rand.Rand, c map[string]any) bool {
		v := deepCopy(storageVersion(c)).(map[string]any)
		v["name"] = []string{"v99", "v2beta1", "v1alpha9"}[rng.IntN(3)]
		v["storage"] = false
		spec(c)["versions"] = append(versions(c), v)
		return true
	}},
	{"version removed", func(rng *rand.Rand, c map[string]any) bool {
		vs := versions(c)
		if len(vs) < 2 {
			return false
		}
		i := rng.IntN(len(vs))
		if vs[i].(map[string]any)["storage"] == true {
			// the storage flag moves to another version
			vs[(i+1)%len(vs)].(map[string]any)["storage"] = true
		}
		spec(c)["versions"] = append(vs[:i:i], vs[i+1:]...)
		return true
	}},
	{"storage moved", func(rng *rand.Rand, c map[string]any) bool {
		vs := versions(c)
		if len(vs) < 2 {
			v := deepCopy(storageVersion(c)).(map[string]any)
			v["name"] = "v2"
			spec(c)["versions"] = append(vs, v)
			vs = versions(c)
		}
		j := rng.IntN(len(vs))
		for i, v := range vs {
			v.(map[string]any)["storage"] = i == j
		}
		return true
	}},
	{"version unserved", func(rng *rand.Rand, c map[string]any) bool {
		vs := versions(c)
		vs[rng.IntN(len(vs))].(map[string]any)["served"] = false
		return true
	}},
	{"version deprecated", func(rng *rand.Rand, c map[string]any) bool {
		v := versions(c)[rng.IntN(len(versions(c)))].(map[string]any)
		v["deprecated"] = true
		if rng.IntN(2) == 0 {
			v["deprecationWarning"] = "use something else"
		}
		return true
	}},
	{"schema tightened", func(rng *rand.Rand, c map[string]any) bool {
		n, ok := pickNode(rng, c)
		if !ok {
			return false
		}
		switch t, _ := n.m["type"].(string); t {
		case "string":
			n.m["maxLength"] = int64(rng.IntN(3))
			if rng.IntN(2) == 0 {
				n.m["enum"] = []any{"a", "b"}
			}
		case "integer", "number":
			n.m["maximum"] = int64(rng.IntN(3))
		case "array":
			n.m["maxItems"] = int64(rng.IntN(2))
		case "object":
			if props, ok := n.m["properties"].(map[string]any); ok && len(props) > 0 {
				keys := sortedKeys(props)
				n.m["required"] = []any{keys[rng.IntN(len(keys))]}
			} else {
				n.m["maxProperties"] = int64(1)
			}
		default:
			return false
		}
		return true
	}},
	{"schema loosened", func(rng *rand.Rand, c map[string]any) bool {
		n, ok := pickNode(rng, c)
		if !ok {
			return false
		}
		changed := false
		for _, k := range []string{"maxLength", "maximum", "minimum", "enum", "required", "pattern", "maxItems", "minItems", "format"} {
			if _, ok := n.m[k]; ok {
				delete(n.m, k)
				changed = true
			}
		}
		if !changed {
			n.m["x-kubernetes-preserve-unknown-fields"] = true
		}
		return true
	}},
	{"property removed", func(rng *rand.Rand, c map[string]any) bool {
		n, ok := pickNode(rng, c)
		props, _ := n.m["properties"].(map[string]any)
		if !ok || len(props) == 0 {
			return false
		}
		keys := sortedKeys(props)
		delete(props, keys[rng.IntN(len(keys))])
		return true
	}},
	{"type changed", func(rng *rand.Rand, c map[string]any) bool {
		n, ok := pickNode(rng, c)
		if !ok || n.root {
			return false
		}
		if n.m["type"] == "string" {
			n.m["type"] = "integer"
		} else if n.m["type"] == "integer" {
			n.m["type"] = "string"
		} else {
			return false
		}
		return true
	}},
	{"rule added", func(rng *rand.Rand, c map[string]any) bool {
		n, ok := pickNode(rng, c)
		if !ok {
			return false
		}
		r := []map[string]any{
			{"rule": "true"},
			{"rule": "self == oldSelf", "message": "immutable"},
			{"rule": "self.crdkitNoSuchField == 1"},
			{"rule": "1 + 1"},
			{"rule": "true", "messageExpression": "'x' + string(1)"},
			{"rule": "oldSelf.hasValue()", "optionalOldSelf": true},
		}[rng.IntN(6)]
		l, _ := n.m["x-kubernetes-validations"].([]any)
		n.m["x-kubernetes-validations"] = append(l, r)
		return true
	}},
	{"rule changed", func(rng *rand.Rand, c map[string]any) bool {
		var rules []map[string]any
		for _, v := range versions(c) {
			var nodes []nodeRef
			if root := rootOf(v); root != nil {
				collectNodes(root, "", true, &nodes, 0)
			}
			for _, n := range nodes {
				l, _ := n.m["x-kubernetes-validations"].([]any)
				for _, r := range l {
					if m, ok := r.(map[string]any); ok {
						rules = append(rules, m)
					}
				}
			}
		}
		if len(rules) == 0 {
			return false
		}
		r := rules[rng.IntN(len(rules))]
		switch rng.IntN(3) {
		case 0:
			r["rule"] = fmt.Sprintf("(%v) || true", r["rule"])
		case 1:
			r["rule"] = fmt.Sprintf("%v\n", r["rule"])
		default:
			r["message"] = "changed message"
		}
		return true
	}},
	{"selectable fields", func(rng *rand.Rand, c map[string]any) bool {
		v := versions(c)[rng.IntN(len(versions(c)))].(map[string]any)
		var fs []any
		for i := 0; i < 1+rng.IntN(10); i++ {
			fs = append(fs, map[string]any{"jsonPath": []string{".metadata.name", ".spec", ".crdkitNope", fmt.Sprintf(".spec.f%d", i)}[rng.IntN(4)]})
		}
		v["selectableFields"] = fs
		return true
	}},
	{"conversion changed", func(rng *rand.Rand, c map[string]any) bool {
		conv := []map[string]any{
			{"strategy": "None"},
			{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": []any{"v1"}, "clientConfig": map[string]any{"url": "https://conv.example.com/convert"}}},
			{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": []any{"v1", "v1beta1"}, "clientConfig": map[string]any{"service": map[string]any{"name": "conv", "namespace": "default"}, "caBundle": "bm90IGEgY2VydA=="}}},
			{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": []any{"v9"}, "clientConfig": map[string]any{"url": "https://conv.example.com/convert"}}},
		}
		spec(c)["conversion"] = conv[rng.IntN(len(conv))]
		return true
	}},
	{"approval annotation", func(rng *rand.Rand, c map[string]any) bool {
		md := c["metadata"].(map[string]any)
		an, _ := md["annotations"].(map[string]any)
		if an == nil {
			an = map[string]any{}
			md["annotations"] = an
		}
		an["api-approved.kubernetes.io"] = []string{"https://github.com/kubernetes/kubernetes/pull/1", "unapproved, testing", "not a url"}[rng.IntN(3)]
		return true
	}},
	{"labels changed", func(_ *rand.Rand, c map[string]any) bool {
		md := c["metadata"].(map[string]any)
		md["labels"] = map[string]any{"crdkit": "updated"}
		return true
	}},
}

// MutateUpdate applies k random changes of the kind that separate two
// revisions of a CRD (names, scope, group, versions added and removed,
// storage moved, schemas tightened and loosened, rules added and changed,
// selectable fields, conversion, annotations) and describes them.
func MutateUpdate(rng *rand.Rand, crd map[string]any, k int) string {
	var desc []string
	for j := 0; j < k; j++ {
		m := updateMutations[rng.IntN(len(updateMutations))]
		if m.f(rng, crd) {
			desc = append(desc, m.name)
		}
	}
	return strings.Join(desc, ", ")
}

func storageVersion(c map[string]any) map[string]any {
	for _, v := range versions(c) {
		if m := v.(map[string]any); m["storage"] == true {
			return m
		}
	}
	return versions(c)[0].(map[string]any)
}

func rootOf(v any) map[string]any {
	vm, _ := v.(map[string]any)
	s, _ := vm["schema"].(map[string]any)
	root, _ := s["openAPIV3Schema"].(map[string]any)
	return root
}

func pickNode(rng *rand.Rand, c map[string]any) (nodeRef, bool) {
	var nodes []nodeRef
	for i, v := range versions(c) {
		if root := rootOf(v); root != nil {
			collectNodes(root, fmt.Sprintf("versions[%d]", i), true, &nodes, 0)
		}
	}
	if len(nodes) == 0 {
		return nodeRef{}, false
	}
	return nodes[rng.IntN(len(nodes))], true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, x := range t {
			l[i] = deepCopy(x)
		}
		return l
	}
	return v
}
