package lintdiff

type handwrittenCase struct{ name, json string }

const crdHead = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"crontabs.stable.example.com"},"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"crontabs","singular":"crontab","kind":"CronTab","shortNames":["ct"]},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":`
const crdTail = `}}]}}`

// handwritten are the seed documentation's non-structural examples and other
// fixed cases.
var handwritten = []handwrittenCase{
	{"seed non-structural example 1", crdHead + `{"properties":{"foo":{"pattern":"abc"},"metadata":{"type":"object","properties":{"name":{"type":"string","pattern":"^a"},"finalizers":{"type":"array","items":{"type":"string","pattern":"my-finalizer"}}}}},"anyOf":[{"properties":{"bar":{"type":"integer","minimum":42}},"required":["bar"],"description":"foo bar object"}]}` + crdTail},
	{"seed non-structural example 2", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"foo":{"type":"string","pattern":"abc"},"bar":{"type":"integer"}}}},"anyOf":[{"properties":{"spec":{"properties":{"bar":{"minimum":42}},"required":["bar"]}}},{"properties":{"spec":{"properties":{"baz":{"type":"string"}}}}}]}` + crdTail},
	{"seed non-structural example 3", crdHead + `{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string"},"labels":{"type":"object"}}},"spec":{"type":"object","properties":{"x":{"type":"array"}}}},"allOf":[{"properties":{"spec":{"properties":{"y":{"type":"string"}}}}}]}` + crdTail},
	{"structural crontab", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"cronSpec":{"type":"string"},"image":{"type":"string"},"replicas":{"type":"integer"}}}}}` + crdTail},
	{"int-or-string allOf pattern", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"port":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^a"}]}}}}}` + crdTail},
	{"embedded resource without properties", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"t":{"type":"object","x-kubernetes-embedded-resource":true,"additionalProperties":{"type":"string"}}}}}}` + crdTail},
	{"map list without keys", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","port","name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string","nullable":true},"port":{"type":"object"}}}}}}}}` + crdTail},
	{"set of objects", crdHead + `{"type":"object","properties":{"spec":{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","nullable":true}},"m":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}}}}` + crdTail},
	{"rules with field paths", crdHead + `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"true","fieldPath":".a"},{"rule":"true","fieldPath":"['a']"},{"rule":"true","fieldPath":".m['k']"},{"rule":"true","fieldPath":"a"},{"rule":"true","fieldPath":"[a]"},{"rule":"true","fieldPath":".b"}],"properties":{"a":{"type":"string"},"m":{"type":"object","additionalProperties":{"type":"string"}}}}}}` + crdTail},
	{"defaults in metadata", crdHead + `{"type":"object","properties":{"metadata":{"type":"object","default":{}},"kind":{"type":"string","default":"x"},"spec":{"type":"object","properties":{"e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"properties":{"metadata":{"type":"object","additionalProperties":{"type":"string","default":"a"},"x-kubernetes-embedded-resource":true}}}}}}}` + crdTail},
	{"empty schema", crdHead + `{}` + crdTail},
	{"root array", crdHead + `{"type":"array","items":{"type":"string"},"additionalProperties":true}` + crdTail},
}
