package objectmeta

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/operation"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The plain-metadata shortcuts must give exactly what the server's own
// conversions and validators give whenever they answer. These tests compare
// them on random metadata built from values chosen to sit on every edge the
// shortcuts draw (types, nulls, empty maps and lists, invalid UTF-8, names
// just inside and just outside each rule).

var metaStrings = []string{
	"", "a", "my-name", "my.name", "x1", "-a", "a-", "a.", ".a", "a..b", "A", "aB", "my_name", "a/b",
	"example.com/key", "Example.com/key", "example.com/", "/key", "a/b/c", "e.x/K_e.y-1", "k%", ".", "..",
	"foo-", "ab/-", "\xff", "caf\u00e9", "\u212aey", "<a&b>", "a\u2028b", "0", "kubernetes.io/a",
	"orphan", "foregroundDeletion", strings.Repeat("a", 63), strings.Repeat("a", 64),
	strings.Repeat("a", 253), strings.Repeat("a.", 126) + "a", strings.Repeat("a", 254),
	strings.Repeat("b", 63) + "/" + strings.Repeat("c", 63), "MyName", "12345",
}

var metaTimes = []string{
	"2024-01-02T03:04:05Z", "2024-01-02T03:04:05+01:00", "2024-01-02T03:04:05.123456Z", "2024-01-02T03:04:05-00:30",
	"0001-01-01T00:00:00Z", "2024-13-02T03:04:05Z", "2024-01-02 03:04:05", "2024-01-02T03:04:05", "", "9999-12-31T23:59:59Z",
}

var metaKeys = []string{
	"name", "generateName", "namespace", "uid", "resourceVersion", "selfLink", "generation", "labels",
	"annotations", "finalizers", "creationTimestamp", "ownerReferences", "managedFields", "deletionTimestamp",
	"deletionGracePeriodSeconds", "Name", "unknown",
}

// plainKeys is how many of metaKeys the shortcuts handle.
const plainKeys = 13

// Values of managed fields entries: the server's own, and the edges of
// what the shortcuts accept (field sets that are not objects of objects,
// keys JSON escapes, invalid UTF-8, names at the validators' limits).
var (
	managedStrings = []string{
		"Apply", "Update", "apply", "", "FieldsV1", "FieldsV2", "stable.example.com/v1", "v1", "status", "kubectl",
		"kube-controller-manager", "a\x07b", "caf\u00e9", "\xff", strings.Repeat("m", 128), strings.Repeat("m", 129),
		strings.Repeat("\u00e9", 64), strings.Repeat("\u00e9", 65), strings.Repeat("s", 256), strings.Repeat("s", 257),
	}
	managedSets = []any{
		map[string]any{},
		map[string]any{"f:spec": map[string]any{".": map[string]any{}, "f:replicas": map[string]any{}}},
		map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{"f:a": map[string]any{}}}, "f:spec": map[string]any{"f:list": map[string]any{`k:{"name":"x"}`: map[string]any{".": map[string]any{}, "f:name": map[string]any{}}, `v:"<a&b>"`: map[string]any{}, "i:0": map[string]any{}}}},
		map[string]any{"f:a\u2028b": map[string]any{}, "f:\xff": map[string]any{}},
		map[string]any{"f:a": int64(1)},
		map[string]any{"f:a": map[string]any{"f:b": nil}},
		map[string]any{"f:a": []any{}},
		map[string]any{"f:a": 1.5},
		"x", []any{}, int64(0), true,
	}
	managedKeys = []string{"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"}
)

// randomManagedFields is a managedFields value: mostly entries as the
// server writes them, with one field drawn at random.
func randomManagedFields(r *rand.Rand) any {
	l := []any{}
	for range 1 + r.IntN(2) {
		if r.IntN(20) == 0 {
			l = append(l, []any{nil, "x", map[string]any{}}[r.IntN(3)])
			continue
		}
		e := map[string]any{
			"manager": "kubectl", "operation": []any{"Apply", "Update"}[r.IntN(2)], "apiVersion": "stable.example.com/v1",
			"time": "2024-01-02T03:04:05Z", "fieldsType": "FieldsV1", "fieldsV1": managedSets[1],
		}
		if r.IntN(3) == 0 {
			e["subresource"] = "status"
		}
		for range r.IntN(3) {
			k := managedKeys[r.IntN(len(managedKeys))]
			switch r.IntN(8) {
			case 0:
				delete(e, k)
				continue
			case 1:
				e[k] = []any{nil, int64(1), true, []any{}, map[string]any{}}[r.IntN(5)]
				continue
			}
			switch k {
			case "time":
				e[k] = metaTimes[r.IntN(len(metaTimes))]
			case "fieldsV1":
				e[k] = managedSets[r.IntN(len(managedSets))]
			default:
				e[k] = managedStrings[r.IntN(len(managedStrings))]
			}
		}
		if r.IntN(20) == 0 {
			e[[]string{"unknown", "Manager", "fieldsv1"}[r.IntN(3)]] = "x"
		}
		l = append(l, e)
	}
	return l
}

func randomMetaValue(r *rand.Rand, key string) any {
	pick := func() string { return metaStrings[r.IntN(len(metaStrings))] }
	switch r.IntN(12) {
	case 0:
		return nil
	case 1:
		return []any{int64(-1), int64(0), int64(3), 1.0, 1.5, true}[r.IntN(6)]
	case 2:
		return map[string]any{}
	case 3:
		return []any{}
	case 4:
		return []any{pick(), nil, int64(1)}[:1+r.IntN(3)]
	case 5:
		return map[string]any{pick(): []any{pick(), nil, int64(2), map[string]any{}}[r.IntN(4)]}
	case 6:
		return metaTimes[r.IntN(len(metaTimes))]
	}
	switch key {
	case "labels", "annotations":
		m := map[string]any{}
		for range 1 + r.IntN(3) {
			m[pick()] = pick()
		}
		return m
	case "finalizers":
		l := []any{}
		for range 1 + r.IntN(3) {
			l = append(l, pick())
		}
		return l
	case "generation":
		return int64(r.IntN(5) - 1)
	case "managedFields":
		return randomManagedFields(r)
	case "ownerReferences":
		l := []any{}
		for range 1 + r.IntN(2) {
			ref := map[string]any{}
			for _, k := range []string{"apiVersion", "kind", "name", "uid"} {
				if r.IntN(6) > 0 {
					ref[k] = []any{pick(), "v1", "apps/v1", "Event", "ConfigMap", nil, int64(1)}[r.IntN(7)]
				}
			}
			for _, k := range []string{"controller", "blockOwnerDeletion"} {
				if r.IntN(2) == 0 {
					ref[k] = []any{true, false, nil, "true"}[r.IntN(4)]
				}
			}
			if r.IntN(10) == 0 {
				ref["unknown"] = "x"
			}
			l = append(l, ref)
		}
		return l
	}
	return pick()
}

func randomMeta(r *rand.Rand) map[string]any {
	m := map[string]any{}
	for range r.IntN(7) {
		k := metaKeys[r.IntN(len(metaKeys))]
		if r.IntN(3) > 0 {
			k = metaKeys[r.IntN(plainKeys)] // mostly the fields the shortcut handles
		}
		m[k] = randomMetaValue(r, k)
	}
	return m
}

// checkPlainMeta compares every shortcut with the server's path on m.
func checkPlainMeta(t *testing.T, m map[string]any) (fromMap, toMap, valid, canonical, validNew bool) {
	t.Helper()
	js, _ := json.Marshal(m)
	fast, ok := plainMetaFromMap(m)
	if ok {
		fromMap = true
		for _, strict := range []bool{false, true} {
			for _, drop := range []bool{false, true} {
				slow, found, unknown, err := getJSON(m, GetOptions{ReturnUnknownFieldPaths: strict, DropMalformedFields: drop, Prefix: "metadata"})
				if err != nil || !found || len(unknown) > 0 || !reflect.DeepEqual(slow, fast) {
					t.Fatalf("%s strict=%v drop=%v: plain %#v, server %#v (found %v, unknown %q, err %v)", js, strict, drop, fast, slow, found, unknown, err)
				}
			}
		}
		conv := new(metav1.ObjectMeta)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, conv); err != nil || !reflect.DeepEqual(conv, fast) {
			t.Fatalf("%s: plain %#v, FromUnstructured %#v (%v)", js, fast, conv, err)
		}
	}
	if Canonical(m) {
		canonical = true
		// The server's round trip (Get, then Set's ToUnstructured) must give
		// m back, in every Get mode.
		for _, strict := range []bool{false, true} {
			for _, drop := range []bool{false, true} {
				slow, found, unknown, err := getJSON(m, GetOptions{ReturnUnknownFieldPaths: strict, DropMalformedFields: drop, Prefix: "metadata"})
				if err != nil || !found || len(unknown) > 0 {
					t.Fatalf("%s: Canonical, but the server's Get gives %v, %q, %v", js, found, unknown, err)
				}
				back, err := runtime.DefaultUnstructuredConverter.ToUnstructured(slow)
				if err != nil || !reflect.DeepEqual(back, m) {
					t.Fatalf("%s: Canonical, but the server's round trip gives %#v (%v)", js, back, err)
				}
			}
		}
	}
	for _, namespaced := range []bool{false, true} {
		// ValidNew is Canonical plus plainMetaValid of what FromUnstructured
		// reads, without managed fields, and what it accepts the server's
		// validators accept.
		want := false
		if Canonical(m) {
			if meta, errs := FromUnstructured(map[string]any{"metadata": m}); errs == nil {
				want = plainMetaValid(meta, namespaced) && meta.ManagedFields == nil
			}
		}
		if got := ValidNew(m, namespaced); got != want {
			t.Fatalf("%s namespaced=%v: ValidNew = %v, want %v", js, namespaced, got, want)
		}
		// CanonicalKeysNew then ValidNewKept answer as Canonical and
		// ValidNew, and the keys are m's.
		keys, rest, ok := CanonicalKeysNew(m)
		if ok != Canonical(m) {
			t.Fatalf("%s: CanonicalKeysNew ok = %v, Canonical %v", js, ok, !ok)
		}
		if ok {
			if got := ValidNewKept(m, keys, rest, namespaced); got != want {
				t.Fatalf("%s namespaced=%v: ValidNewKept = %v, want %v", js, namespaced, got, want)
			}
			for i, name := range []string{"name", "generateName", "namespace", "uid", "resourceVersion", "selfLink", "generation", "labels", "annotations", "finalizers", "ownerReferences", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields"} {
				if _, in := m[name]; in != (keys&(1<<i) != 0) {
					t.Fatalf("%s: CanonicalKeysNew keys %b, %s present %v", js, keys, name, in)
				}
			}
			if k2, _ := CanonicalKeys(m); k2 != keys {
				t.Fatalf("%s: CanonicalKeys %b, CanonicalKeysNew %b", js, k2, keys)
			}
		}
		if want {
			meta, _ := FromUnstructured(map[string]any{"metadata": m})
			errs := genericvalidation.ValidateObjectMetaDeclaratively(context.Background(), operation.Create, meta, nil, namespaced, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"), true)
			if errs = append(errs, validateMetaAccessorServer(meta, namespaced)...); len(errs) > 0 {
				t.Fatalf("%s namespaced=%v: ValidNew, but the server says %v", js, namespaced, errs)
			}
			validNew = true
		}
	}
	if mf, ok := m["managedFields"]; ok && ValidManagedFields(mf) {
		// What it accepts the server reads, and validates without error.
		meta, errs := FromUnstructured(map[string]any{"metadata": map[string]any{"managedFields": mf}})
		if errs != nil {
			t.Fatalf("%s: ValidManagedFields, but FromUnstructured says %v", js, errs)
		}
		if errs := v1validation.ValidateManagedFields(meta.ManagedFields, field.NewPath("metadata", "managedFields")); len(errs) > 0 {
			t.Fatalf("%s: ValidManagedFields, but the server says %v", js, errs)
		}
	}
	slow, _, _, err := getJSON(m, GetOptions{DropMalformedFields: true, Prefix: "metadata"})
	if err != nil || slow == nil {
		return
	}
	if out, ok := plainMetaToMap(slow); ok {
		toMap = true
		want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(slow)
		if err != nil || !reflect.DeepEqual(out, want) {
			t.Fatalf("%s: plainMetaToMap %#v, ToUnstructured %#v (%v)", js, out, want, err)
		}
	}
	for _, namespaced := range []bool{false, true} {
		if !plainMetaValid(slow, namespaced) {
			continue
		}
		valid = true
		errs := genericvalidation.ValidateObjectMetaDeclaratively(context.Background(), operation.Create, slow, nil, namespaced, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"), true)
		errs = append(errs, validateMetaAccessorServer(slow, namespaced)...)
		if namespaced == (slow.Namespace != "") {
			// As for an embedded resource (validateResource).
			errs = append(errs, genericvalidation.ValidateObjectMetaDeclaratively(context.Background(), operation.Create, slow, nil, namespaced, validatePathSegment, field.NewPath("metadata"), true)...)
		}
		if len(errs) > 0 {
			t.Fatalf("%s namespaced=%v: plainMetaValid, but the server says %v", js, namespaced, errs)
		}
	}
	return
}

func validateMetaAccessorServer(meta *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	return genericvalidation.ValidateObjectMetaAccessor(meta, namespaced, path.ValidatePathSegmentName, field.NewPath("metadata"))
}

func TestPlainMetaAgreesWithServer(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var fromMap, toMap, valid, canonical, validNew int
	n := 200000
	if raceEnabled {
		n = 20000 // the shortcut counts below still hold
	}
	var managed [5]int // the shortcuts taken with managed fields
	for range n {
		m := randomMeta(r)
		a, b, c, d, e := checkPlainMeta(t, m)
		fromMap, toMap, valid, canonical, validNew = fromMap+b2i(a), toMap+b2i(b), valid+b2i(c), canonical+b2i(d), validNew+b2i(e)
		if mf, ok := m["managedFields"].([]any); ok {
			managed[0], managed[1], managed[2], managed[3] = managed[0]+b2i(a), managed[1]+b2i(b), managed[2]+b2i(c), managed[3]+b2i(d)
			managed[4] += b2i(ValidManagedFields(mf))
		}
	}
	// Also every name-like string alone, where the validators draw lines.
	for _, s := range metaStrings {
		for _, k := range []string{"name", "generateName", "namespace"} {
			_, _, c, _, e := checkPlainMeta(t, map[string]any{"name": "n", "namespace": "ns", k: s})
			valid, validNew = valid+b2i(c), validNew+b2i(e)
		}
		for _, k := range []string{"labels", "annotations"} {
			checkPlainMeta(t, map[string]any{"name": "n", k: map[string]any{s: "v"}})
			checkPlainMeta(t, map[string]any{"name": "n", k: map[string]any{"k": s}})
		}
		checkPlainMeta(t, map[string]any{"name": "n", "finalizers": []any{s}})
	}
	for _, refs := range []any{
		[]any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u", "controller": true, "blockOwnerDeletion": false}},
		[]any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": nil, "controller": nil}, map[string]any{}},
		[]any{map[string]any{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u"}},
	} {
		from, to, _, _, _ := checkPlainMeta(t, map[string]any{"name": "n", "ownerReferences": refs})
		if !(from && to) {
			t.Errorf("ownerReferences %v: shortcut not taken (from map %v, to map %v)", refs, from, to)
		}
	}
	// Every managed fields value alone, in an entry as the server writes
	// it.
	for _, k := range managedKeys {
		var values []any
		for _, v := range managedStrings {
			values = append(values, v)
		}
		for _, v := range metaTimes {
			values = append(values, v)
		}
		values = append(values, managedSets...)
		values = append(values, nil)
		for _, v := range values {
			e := map[string]any{"manager": "m", "operation": "Update", "apiVersion": "v1", "time": "2024-01-02T03:04:05Z",
				"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:a": map[string]any{}}}
			e[k] = v
			checkPlainMeta(t, map[string]any{"name": "n", "managedFields": []any{e}})
		}
	}
	for _, mf := range []any{
		[]any{map[string]any{"manager": "kubectl", "operation": "Apply", "apiVersion": "stable.example.com/v1", "time": "2024-01-02T03:04:05Z",
			"fieldsType": "FieldsV1", "fieldsV1": managedSets[2], "subresource": "status"}},
		[]any{map[string]any{"manager": "a", "operation": "Update", "fieldsV1": map[string]any{}}, map[string]any{}},
		[]any{map[string]any{"manager": nil, "operation": "Update", "time": nil, "fieldsV1": nil, "fieldsType": nil}},
		[]any{map[string]any{"manager": "a", "operation": "Update", "time": "2024-01-02T03:04:05+01:00", "fieldsV1": map[string]any{"f:<a&b>\u2028": map[string]any{}}}},
	} {
		from, to, _, _, _ := checkPlainMeta(t, map[string]any{"name": "n", "managedFields": mf})
		if !(from && to) {
			t.Errorf("managedFields %v: shortcut not taken (from map %v, to map %v)", mf, from, to)
		}
	}
	for _, ts := range metaTimes {
		from, to, _, _, _ := checkPlainMeta(t, map[string]any{"name": "n", "creationTimestamp": ts})
		if _, err := time.Parse(time.RFC3339, ts); err == nil && !(from && to) {
			t.Errorf("creationTimestamp %q: shortcut not taken (from map %v, to map %v)", ts, from, to)
		}
	}
	for _, m := range []map[string]any{
		{"name": "n", "namespace": "ns", "generation": int64(2), "labels": map[string]any{"a": "b"}, "annotations": map[string]any{"k": ""},
			"finalizers": []any{"f"}, "creationTimestamp": "2024-01-02T03:04:05Z", "uid": "u", "resourceVersion": "1", "selfLink": "/x", "generateName": "g-",
			"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "K", "name": "", "uid": "u", "controller": true, "blockOwnerDeletion": false}},
			"managedFields": []any{map[string]any{"manager": "m", "operation": "Update", "apiVersion": "v1", "time": "2024-01-02T03:04:05Z",
				"fieldsType": "FieldsV1", "fieldsV1": managedSets[2], "subresource": "status"}, map[string]any{}, map[string]any{"fieldsV1": map[string]any{}}}},
		{},
	} {
		if _, _, _, c, _ := checkPlainMeta(t, m); !c {
			t.Errorf("%v: not Canonical", m)
		}
	}
	for _, m := range []map[string]any{
		{"name": ""}, {"name": nil}, {"generation": int64(0)}, {"labels": map[string]any{}}, {"finalizers": []any{}},
		{"creationTimestamp": "2024-01-02T03:04:05+01:00"}, {"creationTimestamp": "0001-01-01T00:00:00Z"}, {"creationTimestamp": nil},
		{"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "K", "name": "n"}}},
		{"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u", "controller": nil}}},
		{"name": "\xff"}, {"unknown": "x"},
		{"managedFields": []any{}}, {"managedFields": nil}, {"managedFields": []any{nil}},
		{"managedFields": []any{map[string]any{"manager": ""}}}, {"managedFields": []any{map[string]any{"manager": nil}}},
		{"managedFields": []any{map[string]any{"time": "2024-01-02T03:04:05+01:00"}}},
		{"managedFields": []any{map[string]any{"time": "0001-01-01T00:00:00Z"}}},
		{"managedFields": []any{map[string]any{"fieldsV1": nil}}}, {"managedFields": []any{map[string]any{"fieldsV1": map[string]any{"f:a": int64(1)}}}},
		{"managedFields": []any{map[string]any{"Manager": "m"}}},
	} {
		if Canonical(m) {
			t.Errorf("%v: Canonical", m)
		}
	}
	t.Logf("shortcut taken: from map %d, to map %d, valid %d, canonical %d, valid new %d; with managed fields %v", fromMap, toMap, valid, canonical, validNew, managed)
	if fromMap < 1000 || toMap < 1000 || valid < 100 || canonical < 100 || validNew < 40 {
		t.Errorf("the shortcuts were rarely taken (%d, %d, %d, %d, %d): the test checks too little", fromMap, toMap, valid, canonical, validNew)
	}
	if managed[0] < 100 || managed[1] < 100 || managed[2] < 10 || managed[3] < 10 || managed[4] < 100 {
		t.Errorf("the shortcuts were rarely taken with managed fields (%v): the test checks too little", managed)
	}
}

func FuzzPlainMeta(f *testing.F) {
	f.Add(`{"name":"a","namespace":"b","labels":{"k":"v"}}`)
	f.Add(`{"name":"a-","generateName":"ab/-","finalizers":["orphan","foregroundDeletion"]}`)
	f.Add(`{"annotations":{"Example.com/Key":""},"generation":-1}`)
	f.Add(`{"name":"a","creationTimestamp":"2024-01-02T03:04:05+01:00","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"c","uid":"u","controller":true}]}`)
	f.Add(`{"name":"a","managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2024-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{".":{},"f:a":{}}},"subresource":"status"}]}`)
	f.Add(`{"managedFields":[{"manager":"a\u0007","operation":"Patch","fieldsType":"FieldsV2","time":"2024-01-02T03:04:05+01:00","fieldsV1":{"f:a":1,"v:\"<\u2028>\"":{}}},{},null]}`)
	f.Add(`{"managedFields":[{"fieldsV1":{},"time":null,"manager":null}]}`)
	f.Fuzz(func(t *testing.T, js string) {
		var m map[string]any
		if json.Unmarshal([]byte(js), &m) != nil {
			return
		}
		if g, ok := m["generation"].(float64); ok && g == float64(int64(g)) {
			m["generation"] = int64(g)
		}
		checkPlainMeta(t, m)
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkPlainUpdate checks plainUpdateValid against the server's update
// validators for new metadata m over old metadata o: when it says valid,
// none of them may report anything.
func checkPlainUpdate(t *testing.T, m, o map[string]any) bool {
	t.Helper()
	meta, errs := FromUnstructured(map[string]any{"metadata": m})
	old, oerrs := FromUnstructured(map[string]any{"metadata": o})
	if errs != nil || oerrs != nil {
		return false
	}
	valid := false
	for _, namespaced := range []bool{false, true} {
		if !plainUpdateValid(meta, old, namespaced) {
			continue
		}
		valid = true
		errs := genericvalidation.ValidateObjectMetaAccessor(meta, namespaced, path.ValidatePathSegmentName, field.NewPath("metadata"))
		errs = append(errs, genericvalidation.ValidateObjectMetaAccessorUpdate(meta, old, field.NewPath("metadata"))...)
		errs = append(errs, genericvalidation.ValidateObjectMetaDeclaratively(context.Background(), operation.Update, meta, old, namespaced, nil, field.NewPath("metadata"), true)...)
		if len(errs) > 0 {
			t.Fatalf("%v over %v namespaced=%v: plainUpdateValid, but the server says %v", m, o, namespaced, errs)
		}
	}
	return valid
}

func TestPlainUpdateAgreesWithServer(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	valid := 0
	keys := []string{"name", "namespace", "labels", "annotations", "finalizers", "generation", "uid", "creationTimestamp", "resourceVersion", "generateName", "managedFields"}
	for range 20000 {
		m := randomMeta(r)
		if r.IntN(2) == 0 {
			// Plain metadata with one field drawn at random.
			m = map[string]any{"name": "n", "namespace": "ns", "uid": "u", "generation": int64(2), "labels": map[string]any{"a": "b"}}
			k := keys[r.IntN(len(keys))]
			m[k] = randomMetaValue(r, k)
		}
		o := randomMeta(r)
		if r.IntN(2) == 0 {
			// Mostly the same object: keep the identity fields of m.
			for _, k := range []string{"name", "namespace", "uid", "creationTimestamp", "generation"} {
				if x, ok := m[k]; ok {
					o[k] = x
				} else {
					delete(o, k)
				}
			}
		}
		if r.IntN(4) > 0 {
			m["resourceVersion"] = "5"
		}
		valid += b2i(checkPlainUpdate(t, m, o))
	}
	t.Logf("shortcut taken: %d", valid)
	if valid < 100 {
		t.Errorf("the shortcut was rarely taken (%d): the test checks too little", valid)
	}
}

func FuzzPlainUpdateMeta(f *testing.F) {
	f.Add(`{"name":"a","namespace":"b","resourceVersion":"1","uid":"u","generation":2}`, `{"name":"a","namespace":"b","uid":"u","generation":1}`)
	f.Add(`{"name":"a","resourceVersion":"1","creationTimestamp":"2024-01-02T03:04:05Z"}`, `{"name":"a","creationTimestamp":"2024-01-02T03:04:05+00:00"}`)
	f.Add(`{"name":"a","resourceVersion":"1","managedFields":[{"manager":"m","operation":"Update","fieldsV1":{"f:a":{}}}]}`, `{"name":"a","managedFields":[{"manager":"m","operation":"Apply"}]}`)
	f.Fuzz(func(t *testing.T, js, oldJS string) {
		var m, o map[string]any
		if json.Unmarshal([]byte(js), &m) != nil || json.Unmarshal([]byte(oldJS), &o) != nil || m == nil || o == nil {
			return
		}
		for _, x := range []map[string]any{m, o} {
			if g, ok := x["generation"].(float64); ok && g == float64(int64(g)) {
				x["generation"] = int64(g)
			}
		}
		checkPlainUpdate(t, m, o)
	})
}

// TestPlainUpdateTerminatingAgreesWithServer: the shortcut for objects
// being deleted (deletion timestamp and grace period kept, no new
// finalizer) against the server's validators, on updates that keep,
// change or drop the deletion fields and keep, drop, add or replace
// finalizers.
func TestPlainUpdateTerminatingAgreesWithServer(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	valid := 0
	times := []any{"2024-01-02T03:04:05Z", "2024-01-02T04:04:05+01:00", "2025-01-02T03:04:05Z", nil}
	graces := []any{int64(0), int64(30), int64(-1), nil}
	fins := []any{"example.com/a", "example.com/b", "orphan", "foregroundDeletion", "Bad Name"}
	pickFins := func() []any {
		var l []any
		for _, f := range fins {
			if r.IntN(3) == 0 {
				l = append(l, f)
			}
		}
		return l
	}
	for range 20000 {
		o := map[string]any{"name": "n", "namespace": "ns", "uid": "u", "generation": int64(2), "resourceVersion": "4"}
		if ts := times[r.IntN(len(times))]; ts != nil {
			o["deletionTimestamp"] = ts
		}
		if g := graces[r.IntN(len(graces))]; g != nil {
			o["deletionGracePeriodSeconds"] = g
		}
		if l := pickFins(); l != nil {
			o["finalizers"] = l
		}
		m := map[string]any{}
		for k, x := range o {
			m[k] = x
		}
		switch r.IntN(6) {
		case 0:
			if ts := times[r.IntN(len(times))]; ts != nil {
				m["deletionTimestamp"] = ts
			} else {
				delete(m, "deletionTimestamp")
			}
		case 1:
			if g := graces[r.IntN(len(graces))]; g != nil {
				m["deletionGracePeriodSeconds"] = g
			} else {
				delete(m, "deletionGracePeriodSeconds")
			}
		case 2:
			if l := pickFins(); l != nil {
				m["finalizers"] = l
			} else {
				delete(m, "finalizers")
			}
		case 3:
			k := metaKeys[r.IntN(12)]
			m[k] = randomMetaValue(r, k)
		}
		valid += b2i(checkPlainUpdate(t, m, o))
	}
	t.Logf("shortcut taken: %d", valid)
	if valid < 1000 {
		t.Errorf("the shortcut was rarely taken (%d): the test checks too little", valid)
	}
}

// TestAppendFieldSet compares appendFieldSet with json.Marshal on field
// sets whose keys hold every ASCII character and the characters JSON
// escapes, and refuses what is not a field set.
func TestAppendFieldSet(t *testing.T) {
	var keys []string
	for c := range 128 {
		keys = append(keys, "f:"+string(rune(c)), string(rune(c)))
	}
	keys = append(keys, "caf\u00e9", "\u2028", "a\u2029b", "\U0001F600", `k:{"name":"<x&y>"}`, ".", "")
	r := rand.New(rand.NewPCG(7, 8))
	var random func(depth int) map[string]any
	random = func(depth int) map[string]any {
		m := map[string]any{}
		for range r.IntN(4) {
			if depth < 3 {
				m[keys[r.IntN(len(keys))]] = random(depth + 1)
			} else {
				m[keys[r.IntN(len(keys))]] = map[string]any{}
			}
		}
		return m
	}
	sets := []map[string]any{{}}
	for _, k := range keys {
		sets = append(sets, map[string]any{k: map[string]any{}})
	}
	for range 2000 {
		sets = append(sets, random(0))
	}
	for _, m := range sets {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := appendFieldSet(nil, m, 0); !ok || string(got) != string(want) {
			t.Fatalf("appendFieldSet(%#v) = %s, %v, want %s", m, got, ok, want)
		}
	}
	for _, v := range []any{nil, "x", []any{}, map[string]any{"a": int64(1)}, map[string]any{"a": map[string]any{"b": nil}}, map[string]any{"\xff": map[string]any{}}} {
		if _, ok := appendFieldSet(nil, v, 0); ok {
			t.Errorf("appendFieldSet(%#v) accepted", v)
		}
	}
}
