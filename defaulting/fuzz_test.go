package defaulting

import (
	"reflect"
	"testing"

	"github.com/crdkit/crdkit/schema"
)

// fuzzSchemas cover the cases that interact: nested defaults, defaults
// holding nulls, nullable and non-nullable nodes with and without defaults,
// additionalProperties (schema and boolean), items, preserve-unknown-fields,
// embedded resources and int-or-string.
var fuzzSchemas = []string{
	allocSchema,
	`{"type":"object","properties":{
	  "a":{"type":"object","default":{"b":null,"l":[null]},"properties":{
	    "b":{"type":"string","default":"B"},
	    "c":{"type":"string","nullable":true,"default":"C"},
	    "d":{"type":"string"},
	    "l":{"type":"array","items":{"type":"object","default":{},"properties":{"x":{"type":"integer","default":1}}}}}},
	  "m":{"type":"object","additionalProperties":{"type":"object","nullable":false,"default":{"k":null},
	    "properties":{"k":{"type":"string","default":"K"},"n":{"type":"string","nullable":true}}}},
	  "n":{"type":"array","nullable":true,"items":{"type":"array","items":{"type":"string","default":"s"}}}}}`,
	`{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{
	  "e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,
	    "properties":{"apiVersion":{"type":"string","default":"v1"},"metadata":{"type":"object","default":{"name":"x"}}}},
	  "p":{"x-kubernetes-int-or-string":true,"default":80},
	  "q":{"type":"object","additionalProperties":true},
	  "r":{"type":"object","additionalProperties":{"type":"string"}},
	  "s":{"type":"array","items":{"type":"string","nullable":true,"default":"S"}}}}`,
	`{"type":"object","properties":{"p":{},"q":{"default":{"t":null}},"r":{"nullable":true},
	  "s":{"properties":{"t":{"default":"T"}}}},
	  "additionalProperties":{"type":"object","default":{},"properties":{"u":{"default":1},"w":{"nullable":true}}}}`,
}

func FuzzApply(f *testing.F) {
	for _, tc := range applyCases {
		f.Add(uint8(0), []byte(tc.in))
	}
	for _, tc := range pruneCases {
		f.Add(uint8(1), []byte(tc.in))
	}
	f.Add(uint8(0), []byte(cleanObject))
	f.Add(uint8(1), []byte(`{"a":null,"m":{"x":null,"y":{"k":null,"n":null}},"n":[[null,"a"],null]}`))
	f.Add(uint8(1), []byte(`{"a":{"d":null,"l":[null,{},{"x":null}]}}`))
	f.Add(uint8(2), []byte(`{"e":{"metadata":null,"u":null},"p":null,"q":{"z":null},"r":{"z":null},"s":[null]}`))

	schemas := make([]*schema.Schema, len(fuzzSchemas))
	for i, js := range fuzzSchemas {
		schemas[i] = compile(f, js)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := schemas[int(which)%len(schemas)]
		parse := func() any {
			v, err := decodeJSON(data)
			if err != nil {
				t.Skip()
			}
			return v
		}

		// Null pruning agrees with the plain walk and is idempotent.
		pruned, ref := parse(), parse()
		PruneNulls(pruned, s)
		refPruneNulls(ref, s)
		if !reflect.DeepEqual(pruned, ref) {
			t.Fatalf("PruneNulls(%s) = %s, reference gives %s", data, encode(pruned), encode(ref))
		}
		again := refCopyTyped(pruned)
		PruneNulls(again, s)
		if !reflect.DeepEqual(again, pruned) {
			t.Fatalf("PruneNulls not idempotent on %s: %s then %s", data, encode(pruned), encode(again))
		}

		// Defaulting agrees with the plain walk and is idempotent.
		once, ref := parse(), parse()
		Apply(once, s)
		refApply(ref, s)
		if !reflect.DeepEqual(once, ref) {
			t.Fatalf("Apply(%s) = %s, reference gives %s", data, encode(once), encode(ref))
		}
		twice := refCopyTyped(once)
		Apply(twice, s)
		if !reflect.DeepEqual(twice, once) {
			t.Fatalf("Apply not idempotent on %s: %s then %s", data, encode(once), encode(twice))
		}
		checkApplyProperty(t, s, parse())
	})
}

// refCopyTyped copies a decoded value keeping its number types.
func refCopyTyped(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = refCopyTyped(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = refCopyTyped(x)
		}
		return l
	}
	return v
}
