package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"

	"github.com/crdkit/crdkit/schema"
)

// exprGen writes random well-typed expressions over nativeSchema's fields.
type exprGen struct{ r *rand.Rand }

func (g exprGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g exprGen) boolean(d int) string {
	if d <= 0 {
		return g.pick("true", "false", "has(self.s)", "has(self.o.z)", "has(self.m.k)", "self.b", "has(self.ns)", "has(self.ios)", "has(self.lo)")
	}
	d--
	switch g.r.IntN(17) {
	case 0:
		return g.str(d) + g.pick(" == ", " != ", " < ", " >= ") + g.str(d)
	case 1:
		return g.integer(d) + g.pick(" == ", " != ", " < ", " <= ", " > ", " >= ") + g.integer(d)
	case 2:
		return "!" + g.boolean(d)
	case 3:
		return "(" + g.boolean(d) + g.pick(" && ", " || ") + g.boolean(d) + ")"
	case 4:
		return "(" + g.boolean(d) + " ? " + g.boolean(d) + " : " + g.boolean(d) + ")"
	case 5:
		return g.str(d) + g.pick(".startsWith(", ".endsWith(", ".contains(") + g.str(d) + ")"
	case 6:
		return g.str(d) + ".matches(" + g.pick("'^[a-z]+$'", "'b'", "'^$'", "'ü'", "'^.{2}$'") + ")"
	case 7:
		return g.str(d) + " in " + g.pick("['a', 'b', '']", "self.ls", "self.lset", "self.lns", "self.m", "[]")
	case 8:
		return g.integer(d) + " in " + g.pick("[1, 2, -1]", "self.li", "[]")
	case 9:
		return "self.ls." + g.pick("all", "exists", "exists_one") + "(x, " + strings.ReplaceAll(g.boolean(d), "self.s", "x") + ")"
	case 10:
		return "self.lo." + g.pick("all", "exists", "exists_one") + "(l, " + g.pick("l.name == 'a'", "has(l.x) && l.x.y == 'q'", "l.port > 0", "!has(l.type)", "l.type in ['A', 'B']") + ")"
	case 11:
		return "self.m." + g.pick("all", "exists", "exists_one") + "(k, " + g.pick("k.size() < 3", "k.startsWith('a')", "self.m[k] == 'x'", "k == 'b'") + ")"
	case 12:
		return "duration(" + g.str(d) + ") " + g.pick("<", ">=", "==") + " duration('" + g.pick("1ms", "0s", "1h", "-1s") + "')"
	case 13:
		return "self.ls.all(x, self.ls.exists_one(y, x == y))"
	case 14:
		return "self.lo.filter(f, " + g.pick("f.type == 'A'", "has(f.name)", "f.port > 1") + ").size() <= " + g.integer(0)
	case 15:
		return "self.lo.map(f, f.port).all(p, p " + g.pick("> 0", "< 100") + ")"
	}
	return "self.s == oldSelf.s"
}

func (g exprGen) integer(d int) string {
	if d <= 0 {
		return g.pick("self.i", "self.j", "0", "1", "-1", "9223372036854775807", "-9223372036854775807", "65535")
	}
	d--
	switch g.r.IntN(8) {
	case 0:
		return "size(" + g.str(d) + ")"
	case 1:
		return g.pick("self.ls", "self.li", "self.lo", "self.m", "self.lns") + ".size()"
	case 2:
		return "(" + g.integer(d) + g.pick(" + ", " - ") + g.integer(d) + ")"
	case 3:
		return "self.li[" + g.integer(d) + "]"
	case 4:
		return "(" + g.boolean(d) + " ? " + g.integer(d) + " : " + g.integer(d) + ")"
	case 5:
		return "(has(self.s) ? 1 : 0)"
	case 6:
		return "self.lo[0].port"
	}
	return g.integer(0)
}

func (g exprGen) str(d int) string {
	if d <= 0 {
		return g.pick("self.s", "self.t", "'a'", "''", "'ü日'", "'unix://'", "self.ns", "self.o.a", "self.o.a__dash__b", "self.m.k")
	}
	d--
	switch g.r.IntN(7) {
	case 0:
		return "self.ls[" + g.integer(d) + "]"
	case 4:
		return g.str(d) + ".lowerAscii()"
	case 5:
		return g.str(d) + ".substring(" + g.pick("0", "1", "2", "7", "-1") + g.pick("", ", 1", ", 2", ", 8", ", 0") + ")"
	case 1:
		return "(" + g.boolean(d) + " ? " + g.str(d) + " : " + g.str(d) + ")"
	case 2:
		return "self.m['" + g.pick("k", "a", "") + "']"
	case 3:
		return "(has(self.s) ? self.s : '')"
	}
	return g.str(0)
}

// randSpec returns a random spec for nativeSchema: fields absent, null, of
// the declared type or of another.
func randSpec(r *rand.Rand) map[string]any {
	str := func() any {
		return []any{"", "a", "b", "ab", "ü日", "AbC", "unix://x/", "unix:///", "unix://@a", "1ms", "-1s", "1h", "x*", nil, int64(1), true}[r.IntN(16)]
	}
	integer := func() any {
		return []any{int64(0), int64(1), int64(-1), int64(65535), int64(9223372036854775807), int64(-9223372036854775808), "1", nil, 1.5}[r.IntN(9)]
	}
	list := func(el func() any) any {
		if r.IntN(8) == 0 {
			return []any{nil, "x", map[string]any{}}[r.IntN(3)]
		}
		l := make([]any, r.IntN(4))
		for i := range l {
			l[i] = el()
		}
		return l
	}
	obj := func() any {
		o := map[string]any{}
		for _, k := range []string{"name", "port", "type", "x"} {
			if r.IntN(2) == 0 {
				continue
			}
			switch k {
			case "port":
				o[k] = integer()
			case "x":
				o[k] = map[string]any{"y": str()}
			default:
				o[k] = []any{"a", "b", "A", "B", nil}[r.IntN(5)]
			}
		}
		return o
	}
	fields := map[string]func() any{
		"i": integer, "j": integer, "s": str, "t": str, "ns": str, "b": func() any { return []any{true, false, nil, "true"}[r.IntN(4)] },
		"ios": func() any { return []any{int64(1), "1", true}[r.IntN(3)] },
		"ls":  func() any { return list(str) }, "lset": func() any { return list(str) }, "lns": func() any { return list(str) },
		"li": func() any { return list(integer) }, "lo": func() any { return list(obj) },
		"m": func() any {
			m := map[string]any{}
			for range r.IntN(4) {
				m[[]string{"k", "a", "ab", "b", ""}[r.IntN(5)]] = str()
			}
			return m
		},
		"o": func() any {
			return map[string]any{"a": str(), "a-b": str(), "z": []any{nil, map[string]any{"q": "x"}}[r.IntN(2)]}
		},
	}
	spec := map[string]any{}
	for k, f := range fields {
		if r.IntN(4) != 0 {
			spec[k] = f()
		}
	}
	return spec
}

// nativeAgree evaluates rules on obj (and old) with cel-go and natively and
// fails where the native program is sure of something cel-go does not say.
// It returns how many evaluations had a native program and how many of
// those it was sure of.
func nativeAgree(t *testing.T, rules []string, objs []any) (evals, sure int) {
	t.Helper()
	vr := make([]schema.ValidationRule, len(rules))
	for i, r := range rules {
		vr[i] = schema.ValidationRule{Rule: r}
	}
	rs, _ := json.Marshal(vr)
	s, err := schema.CompileJSON([]byte(strings.Replace(nativeSchema, "RULES", string(rs), 1)))
	if err != nil {
		return 0, 0
	}
	v, err := Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() && v != nil && len(v.root.props) > 0 {
		var ok, untracked, native int
		for i := range v.root.props[0].v.rules {
			cr := &v.root.props[0].v.rules[i]
			if cr.err != nil {
				continue
			}
			ok++
			if f := cr.fast.get(); f.prog != nil {
				untracked++
				if f.native != nil {
					native++
				}
			}
		}
		t.Logf("batch: %d rules, %d compile, %d untracked, %d native", len(rules), ok, untracked, native)
	}
	// Each rule directly on each spec (as a create and as an update of the
	// previous one), whatever its sizes and types: the native program must
	// be unsure where cel-go errs.
	n := v.root.props[0].v
	for i, o := range objs {
		spec := o.(map[string]any)["spec"]
		var old any
		if i > 0 {
			old = objs[i-1].(map[string]any)["spec"]
		}
		js, _ := json.Marshal(spec)
		ojs, _ := json.Marshal(old)
		for _, prev := range []any{nil, old} {
			for j := range n.rules {
				cr := &n.rules[j]
				if cr.err != nil || cr.fast == nil {
					continue
				}
				f := cr.fast.get()
				if f.native == nil || cr.usesOldSelf && prev == nil {
					continue
				}
				act, opt := n.activations(spec, prev)
				ra := act
				if cr.optional {
					ra = opt
				}
				res, _, err := eval(context.Background(), f.prog, ra)
				nv, ns := f.native.eval(&nenv{}, spec, prev)
				evals++
				if !ns {
					continue
				}
				sure++
				if err != nil || (res == types.True) != nv {
					t.Errorf("%s on %s (old %s): native sure of %v, cel-go %v, %v", cr.rule.Rule, js, ojs, nv, res, err)
				}
			}
		}
	}
	if n := nativePanics.Load(); n != 0 {
		t.Fatalf("%d native evaluations panicked", n)
	}
	return evals, sure
}

// TestNativeRandom compares native programs with cel-go on random
// expressions over random values.
func TestNativeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	g := exprGen{r}
	batches := 150
	if testing.Short() {
		batches = 20
	}
	var evals, sure, rulesN int
	for range batches {
		var rules []string
		for range 40 {
			rules = append(rules, g.boolean(1+r.IntN(3)))
		}
		var objs []any
		for range 30 {
			objs = append(objs, map[string]any{"spec": randSpec(r)})
		}
		e, s := nativeAgree(t, rules, objs)
		evals, sure, rulesN = evals+e, sure+s, rulesN+len(rules)
	}
	t.Logf("%d random rules: %d native evaluations, %d sure", rulesN, evals, sure)
	if sure == 0 || sure == evals {
		t.Errorf("the random differential does not exercise both outcomes: %d evaluations, %d sure", evals, sure)
	}
}

// FuzzNative compares native programs with cel-go on a fuzzed rule (or
// one generated from seed when the rule is empty) over a fuzzed object and
// random ones.
func FuzzNative(f *testing.F) {
	f.Add("self.s == 'a' || self.i + 1 > 0", `{"s":"a","i":9223372036854775807}`, uint64(1))
	f.Add("self.lo.all(l1, self.lo.exists_one(l2, l1.name == l2.name))", `{"lo":[{"name":"a"},{"name":"a"}]}`, uint64(2))
	f.Add("!has(self.ns) || self.ns.size() < 3", `{"ns":null}`, uint64(3))
	f.Add("self.m.all(k, k.matches('^[a-z]+$'))", `{"m":{"ab":"x","":null}}`, uint64(4))
	f.Add("duration(self.s) >= duration('1ms')", `{"s":"1.5ms"}`, uint64(5))
	f.Add("", `{}`, uint64(6))
	f.Fuzz(func(t *testing.T, rule, spec string, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 3))
		if rule == "" {
			rule = exprGen{r}.boolean(1 + r.IntN(4))
		}
		o, ok := decodeFuzzJSON(spec)
		if !ok {
			return
		}
		objs := []any{map[string]any{"spec": o}}
		for range 4 {
			objs = append(objs, map[string]any{"spec": randSpec(r)})
		}
		nativeAgree(t, []string{rule}, objs)
		if t.Failed() {
			t.Log(fmt.Sprintf("rule %q", rule))
		}
	})
}
