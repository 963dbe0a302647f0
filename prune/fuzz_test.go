package prune

import (
	"reflect"
	"testing"

	"github.com/crdkit/crdkit/schema"
)

// FuzzObject prunes random JSON against the schemas of the table tests and
// checks that Object agrees with the plain reference, that Copy agrees with
// Object and leaves its input alone, and that nothing panics.
func FuzzObject(f *testing.F) {
	cases := loadCases(f)
	schemas := []*schema.Schema{nil}
	for _, tc := range cases {
		if s := mustCompile(f, tc.Schema); s != nil {
			schemas = append(schemas, s)
		}
	}
	gs, gobj := generated(f)
	schemas = append(schemas, gs)
	for i, tc := range cases {
		f.Add(uint8(i+1), tc.Root, []byte(tc.Object))
	}
	f.Add(uint8(len(schemas)-1), true, []byte(toJSON(gobj)))
	f.Fuzz(func(t *testing.T, which uint8, root bool, data []byte) {
		in, err := decode(data)
		if err != nil {
			return
		}
		s := schemas[int(which)%len(schemas)]
		opts := Options{Root: root}

		obj := deepCopyJSON(in)
		paths := Object(obj, s, opts, nil)

		ref := deepCopyJSON(in)
		refPaths := reference(ref, s, root)
		if !reflect.DeepEqual(obj, ref) || !samePaths(paths, refPaths) {
			t.Fatalf("Object(%s) = %s %q, reference gives %s %q", data, toJSON(obj), paths, toJSON(ref), refPaths)
		}

		orig := deepCopyJSON(in)
		cp, cpaths := Copy(in, s, opts, nil)
		if !reflect.DeepEqual(in, orig) {
			t.Fatalf("Copy(%s) changed its input to %s", data, toJSON(in))
		}
		if !reflect.DeepEqual(cp, obj) || !samePaths(cpaths, paths) {
			t.Fatalf("Copy(%s) = %s %q, Object gives %s %q", data, toJSON(cp), cpaths, toJSON(obj), paths)
		}
		if again := Object(obj, s, opts, nil); len(again) != 0 {
			t.Fatalf("Object(%s) is not idempotent: second pass removed %q", data, again)
		}
	})
}
