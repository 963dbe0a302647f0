package rules

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"

	"github.com/crdkit/crdkit/schema"
)

// BenchmarkNative/<shape>/{native,celgo} evaluates one rule on spec of
// nativeSchema: native is its native program, celgo the untracked cel-go
// program validateRules falls back to (the server's evaluation without
// cost tracking), with the activation built as validateRules builds it.
// The shapes are those that take most of a Gateway API create: a field
// against a literal list and a string function, presence tests, a sum of
// sixteen guarded terms, a pairwise all() over a list of objects, filter()
// counted, exists_one() over nested lists.
func BenchmarkNative(b *testing.B) {
	var sum strings.Builder
	for i := range 16 {
		if i > 0 {
			sum.WriteString(" + ")
		}
		n := strconv.Itoa(i)
		sum.WriteString("(self.lo.size() > " + n + " ? self.lo[" + n + "].name.size() : 0)")
	}
	sum.WriteString(" <= 128")
	objs := `{"lo":[{"name":"a","type":"x","port":1},{"name":"b","type":"CORS"}]}`
	for _, c := range []struct{ name, rule, spec string }{
		{"in-contains", `(self.s in ['Exact','PathPrefix']) ? !self.t.contains('//') : true`, `{"s":"PathPrefix","t":"/foo/bar"}`},
		{"has-ne", `!(has(self.o) && self.s != 'CORS')`, `{"s":"PathPrefix","t":"/foo/bar"}`},
		{"matches", `self.t.matches(r"""^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$""")`, `{"t":"/foo/bar/baz"}`},
		{"sum16", sum.String(), `{"lo":[{"name":"a","port":1}]}`},
		{"all-all", `self.lo.all(p1, self.lo.all(p2, p1.name == p2.name && p1.type == p2.type ? (!has(p1.port) || p1.port == 0) == (!has(p2.port) || p2.port == 0) : true))`, objs},
		{"filter-size", `self.lo.filter(f, f.type == 'CORS').size() <= 1`, objs},
		{"exists_one", `self.lo.exists_one(f, has(f.x) && has(f.x.y) && f.x.y == 'a') ? self.lo.size() >= 1 : true`, `{"lo":[{"name":"a","x":{"y":"b"}},{"name":"b"},{"name":"c","x":{"y":"a"}}]}`},
	} {
		n := nativeValidator(b, schema.ValidationRule{Rule: c.rule}).root.props[0].v
		cr := &n.rules[0]
		if cr.err != nil {
			b.Fatalf("%s: %v", c.name, cr.err)
		}
		f := cr.fast.get()
		if f.native == nil || f.prog == nil {
			b.Fatalf("%s: no native or untracked program", c.name)
		}
		obj, ok := decodeFuzzJSON(c.spec)
		if !ok {
			b.Fatalf("%s: bad object", c.name)
		}
		e := &nenv{}
		if !f.native.run(e, obj, nil) {
			b.Fatalf("%s: the native program is not sure the rule holds", c.name)
		}
		b.Run(c.name+"/native", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.native.run(e, obj, nil)
			}
		})
		b.Run(c.name+"/celgo", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				act, _ := n.activations(obj, nil)
				if res, _, err := eval(context.Background(), f.prog, act); err != nil || res != types.True {
					b.Fatalf("%s: %v %v", c.name, res, err)
				}
			}
		})
	}
}
