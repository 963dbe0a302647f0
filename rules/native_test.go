package rules

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/crdkit/crdkit/schema"
)

// nativeSchema is the schema of the native tests: self is spec.
const nativeSchema = `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":RULES,"properties":{
  "i":{"type":"integer"},"j":{"type":"integer"},"s":{"type":"string","maxLength":64},"t":{"type":"string","maxLength":64},"b":{"type":"boolean"},
  "n":{"type":"number"},"d":{"type":"string","format":"duration"},"ns":{"type":"string","nullable":true},
  "ios":{"x-kubernetes-int-or-string":true},
  "ls":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":64}},
  "li":{"type":"array","maxItems":10,"items":{"type":"integer"}},
  "lset":{"type":"array","maxItems":10,"x-kubernetes-list-type":"set","items":{"type":"string","maxLength":64}},
  "lns":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":64,"nullable":true}},
  "lo":{"type":"array","maxItems":10,"items":{"type":"object","properties":{"name":{"type":"string","maxLength":64},"port":{"type":"integer"},"type":{"type":"string","maxLength":64},"x":{"type":"object","properties":{"y":{"type":"string","maxLength":64}}}}}},
  "m":{"type":"object","maxProperties":10,"additionalProperties":{"type":"string","maxLength":64}},
  "mn":{"type":"object","maxProperties":10,"additionalProperties":{"type":"string","maxLength":64,"nullable":true}},
  "o":{"type":"object","properties":{"a":{"type":"string"},"a-b":{"type":"string"},"in":{"type":"string"},"z":{"type":"object","nullable":true,"properties":{"q":{"type":"string"}}}}},
  "pu":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
  "e":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"string"}}}}}}}`

// nativeValidator compiles rules, the x-kubernetes-validations of spec, on
// nativeSchema.
func nativeValidator(tb testing.TB, rules ...schema.ValidationRule) *Validator {
	tb.Helper()
	rs, _ := json.Marshal(rules)
	s, err := schema.CompileJSON([]byte(strings.Replace(nativeSchema, "RULES", string(rs), 1)))
	if err != nil {
		tb.Fatal(err)
	}
	v, err := Compile(s)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// nativeRun compiles rule on nativeSchema and evaluates it on spec (and old
// spec) both ways: whether it has a native program, the native program's
// value and sureness, and cel-go's result.
func nativeRun(t *testing.T, rule, spec, oldSpec string) (has, value, sure bool, res ref.Val, err error) {
	t.Helper()
	v := nativeValidator(t, schema.ValidationRule{Rule: rule})
	obj, ok := decodeFuzzJSON(`{"spec":` + spec + `}`)
	if !ok {
		t.Fatalf("bad object %s", spec)
	}
	var old any
	if oldSpec != "" {
		if old, ok = decodeFuzzJSON(`{"spec":` + oldSpec + `}`); !ok {
			t.Fatalf("bad object %s", oldSpec)
		}
	}
	cr := &v.root.props[0].v.rules[0]
	if cr.err != nil {
		t.Fatalf("%s: %v", rule, cr.err)
	}
	seen := false
	nativeCheck = func(c *compiledRule, nv, ns bool, r ref.Val, e error) {
		seen = true
		value, sure, res, err = nv, ns, r, e
	}
	defer func() { nativeCheck = nil }()
	v.validateUntracked(context.Background(), obj, old, RuntimeBudget)
	has = cr.fast.get().native != nil
	if has && !seen {
		t.Fatalf("%s: the native program was not run", rule)
	}
	return has, value, sure, res, err
}

// TestNativeConstructs checks each construct's edge cases: what the native
// program is sure of (true, false) or not, and that cel-go agrees whenever
// it is sure.
func TestNativeConstructs(t *testing.T) {
	const (
		unsure = iota
		yes
		no
		none // no native program
	)
	for _, c := range []struct {
		rule, spec, old string
		want            int
	}{
		// Literals, comparisons, logic.
		{"self.s == 'a'", `{"s":"a"}`, "", yes},
		{"self.s != 'a'", `{"s":"a"}`, "", no},
		{"self.i < 3 && self.i >= -2", `{"i":2}`, "", yes},
		{"self.s < 'b' && self.s >= 'a'", `{"s":"az"}`, "", yes},
		{"self.s > 'b'", `{"s":"ü"}`, "", yes}, // byte order
		{"self.b == true", `{"b":true}`, "", yes},
		{"!self.b", `{"b":true}`, "", no},
		{"self.b ? self.i == 1 : self.s == 'x'", `{"b":false,"s":"x"}`, "", yes},
		// Short-circuit with an error on the other side.
		{"false && self.s == 'x'", `{}`, "", no},
		{"self.s == 'x' && false", `{}`, "", no},
		{"self.s == 'x' || true", `{}`, "", yes},
		{"true || self.s == 'x'", `{}`, "", yes},
		{"self.s == 'x' || false", `{}`, "", unsure},
		{"self.s == 'x' && true", `{}`, "", unsure},
		{"!(self.s == 'x')", `{}`, "", unsure},
		{"self.b ? true : false", `{}`, "", unsure},
		// Absent fields, nulls, wrong Go types.
		{"self.s == 'x'", `{}`, "", unsure},
		{"self.ns == 'x'", `{"ns":null}`, "", unsure},
		{"!has(self.ns)", `{"ns":null}`, "", yes},
		{"has(self.s)", `{"s":""}`, "", yes},
		{"has(self.s)", `{"s":1}`, "", unsure}, // cel-go: an error value
		{"self.s == '1'", `{"s":1}`, "", unsure},
		{"self.i == 1", `{"i":"1"}`, "", unsure},
		{"self.i == 1", `{"i":1.5}`, "", unsure},
		{"has(self.o.z)", `{"o":{"z":null}}`, "", no},
		{"has(self.o.z) || has(self.o.a)", `{"o":{"a":"q"}}`, "", yes},
		{"self.o.a == 'q'", `{"o":null}`, "", unsure},
		{"has(self.ios)", `{"ios":1}`, "", yes},
		{"has(self.ios)", `{"ios":true}`, "", unsure},
		{"has(self.n)", `{"n":1.5}`, "", yes},
		{"has(self.d)", `{"d":"1s"}`, "", unsure}, // a duration that may not parse
		{"has(self.pu)", `{"pu":{"a":1}}`, "", yes},
		// Escaped names.
		{"self.o.a__dash__b == 'x'", `{"o":{"a-b":"x"}}`, "", yes},
		{"self.o.__in__ == 'x'", `{"o":{"in":"x"}}`, "", yes},
		// Maps.
		{"self.m.k == 'v'", `{"m":{"k":"v"}}`, "", yes},
		{"has(self.m.k)", `{"m":{}}`, "", no},
		{"has(self.mn.k)", `{"mn":{"k":null}}`, "", unsure},
		{"'k' in self.m", `{"m":{"k":"v"}}`, "", yes},
		{"'k' in self.m", `{"m":{"j":"v"}}`, "", no},
		{"self.m['k'] == 'v'", `{"m":{"k":"v"}}`, "", yes},
		{"self.m['k'] == 'v'", `{"m":{}}`, "", unsure},
		{"self.m.size() == 2", `{"m":{"a":"1","b":"2"}}`, "", yes},
		{"self.m.all(k, k.size() < 3)", `{"m":{"ab":"1","b":"2"}}`, "", yes},
		{"self.m.exists(k, k == 'b')", `{"m":{"ab":"1","b":"2"}}`, "", yes},
		{"self.m.exists_one(k, k.startsWith('a'))", `{"m":{"ab":"1","ac":"2"}}`, "", no},
		{"self.m.all(k, self.m[k] == 'x')", `{"m":{"ab":"x","b":null}}`, "", unsure},
		// size(): code points.
		{"self.s.size() == 3", `{"s":"ü日x"}`, "", yes},
		{"size(self.s) == 6", `{"s":"ü日x"}`, "", no},
		{"size(self.ls) == 2", `{"ls":["a","b"]}`, "", yes},
		{"self.ls.size() == 0", `{"ls":[]}`, "", yes},
		// Integer arithmetic and overflow.
		{"self.i + 1 > self.i", `{"i":9223372036854775806}`, "", yes},
		{"self.i + 1 > self.i", `{"i":9223372036854775807}`, "", unsure},
		{"self.i - 1 < self.i", `{"i":-9223372036854775808}`, "", unsure},
		{"self.i - self.j == 5", `{"i":2,"j":-3}`, "", yes},
		{"(has(self.s) ? 1 : 0) + (has(self.t) ? 1 : 0) <= 1", `{"s":"a","t":"b"}`, "", no},
		// in.
		{"self.s in ['a', 'b']", `{"s":"b"}`, "", yes},
		{"self.s in ['a', 'b']", `{"s":"c"}`, "", no},
		{"self.i in [1, 2]", `{"i":2}`, "", yes},
		{"'a' in self.ls", `{"ls":["b","a"]}`, "", yes},
		{"'a' in self.lset", `{"lset":["b"]}`, "", no},
		{"'a' in self.lns", `{"lns":[null,"a"]}`, "", yes},
		{"'a' in self.lns", `{"lns":[null,"b"]}`, "", unsure},
		{"!('*' in self.ls && self.ls.size() > 1)", `{"ls":["*"]}`, "", yes},
		// Strings.
		{"self.s.startsWith('unix://') && self.s.endsWith('/') && self.s.contains('x')", `{"s":"unix://x/"}`, "", yes},
		{"!self.s.contains('*')", `{"s":"a*"}`, "", no},
		{"self.s.matches('^[a-z]+$')", `{"s":"abc"}`, "", yes},
		{"self.s.matches('^[a-z]+$')", `{"s":"ab1"}`, "", no},
		{"matches(self.s, 'b')", `{"s":"abc"}`, "", yes},
		{"self.s.matches(self.t)", `{"s":"abc","t":"b"}`, "", none}, // not a constant pattern
		// duration().
		{"duration(self.s) >= duration('1ms')", `{"s":"1s"}`, "", yes},
		{"duration(self.s) >= duration('1ms')", `{"s":"1us"}`, "", no},
		{"duration(self.s) >= duration('1ms')", `{"s":"1x"}`, "", unsure},
		{"duration(self.s) < duration('1h')", `{"s":"-5m"}`, "", yes},
		// Lists: index, comprehensions.
		{"self.ls[1] == 'b'", `{"ls":["a","b"]}`, "", yes},
		{"self.ls[2] == 'b'", `{"ls":["a","b"]}`, "", unsure},
		{"self.ls[-1] == 'b'", `{"ls":["a","b"]}`, "", unsure},
		{"self.ls.all(x, x != '')", `{"ls":[]}`, "", yes},
		{"self.ls.exists(x, x == 'a')", `{"ls":[]}`, "", no},
		{"self.ls.all(x, x.size() < 2)", `{"ls":["a","bb"]}`, "", no},
		{"self.lo.all(l1, self.lo.exists_one(l2, l1.name == l2.name))", `{"lo":[{"name":"a"},{"name":"b"}]}`, "", yes},
		{"self.lo.all(l1, self.lo.exists_one(l2, l1.name == l2.name))", `{"lo":[{"name":"a"},{"name":"a"}]}`, "", no},
		{"self.lo.all(l, l.name == 'a')", `{"lo":[{"name":"a"},{}]}`, "", unsure},
		{"self.lo.all(l, has(l.x) && l.x.y == 'q')", `{"lo":[{"x":{"y":"q"}},{"name":"b"}]}`, "", no},
		{"self.lo.filter(f, f.type == 'A').size() <= 1", `{"lo":[{"type":"A"},{"type":"B"}]}`, "", yes},
		{"self.lo.filter(f, f.type == 'A').size() <= 1", `{"lo":[{"type":"A"},{"type":"A"}]}`, "", no},
		{"self.lo.filter(f, f.type == 'A').size() == 0", `{"lo":[]}`, "", yes},
		{"self.lo.filter(f, f.type == 'A').size() <= 1", `{"lo":[{"type":"A"},{"name":"b"}]}`, "", unsure}, // an absent field
		{"self.lo.filter(f, has(f.type)).size() == 1", `{"lo":[{"type":"A"},{"name":"b"}]}`, "", yes},
		{"self.lo.filter(f, has(f.type)).size() == 1", `{"lo":[{"type":"A"},{"type":null}]}`, "", yes}, // null: absent
		{"self.lns.filter(x, x == 'a').size() == 1", `{"lns":[null,"a"]}`, "", unsure},                 // an element not a string
		{"size(self.lo.filter(f, f.port > 1)) == 1", `{"lo":[{"port":1},{"port":2}]}`, "", yes},
		{"self.ls.filter(x, x == 'a').size() == 2 && self.ls.filter(x, x == 'b').size() == 0", `{"ls":["a","c","a"]}`, "", yes},
		{"self.lo.filter(f, f.name == 'a').all(f, f.port == 1)", `{"lo":[{"name":"a","port":1},{"name":"b"}]}`, "", yes}, // a filter not counted
		{"self.lo.exists(l, !has(l.x) && has(l.name))", `{"lo":[{"x":{},"name":"a"},{"name":"b"}]}`, "", yes},
		{"self.lo.all(l, has(l.port))", `{"lo":[{"port":"1"}]}`, "", unsure}, // present, not an integer
		{"self.lo.all(l, l.port >= 1 && l.port < 3 && 0 < l.port)", `{"lo":[{"port":1},{"port":2}]}`, "", yes},
		{"self.lo.all(l, l.port > 1)", `{"lo":[{"port":1},{"port":2}]}`, "", no},
		{"has(self.s) && !has(self.t)", `{"s":"a"}`, "", yes},
		{"has(self.s)", `{"s":null}`, "", no},
		{"self.lo.map(f, f.port).all(p, p > 0)", `{"lo":[{"port":1},{"port":2}]}`, "", yes},
		{"self.ls.map(x, x + 'a').size() == 1", `{"ls":["a"]}`, "", none}, // string concatenation
		{"(has(self.ls) ? self.ls : []).size() == 1", `{}`, "", no},
		{"(has(self.ls) ? self.ls : []).size() == 1", `{"ls":["a/b"]}`, "", yes},
		{"([] + self.ls).size() == 1", `{"ls":["a/b"]}`, "", none}, // a schema list concatenated
		{"(self.lo.size() > 0 ? self.lo[0].port : 0) > 0", `{"lo":[{"port":5}]}`, "", yes},
		{"self.lo[0] == self.lo[1]", `{"lo":[{"port":5},{"port":5}]}`, "", none}, // object equality
		// oldSelf.
		{"self.s == oldSelf.s", `{"s":"a"}`, `{"s":"a"}`, yes},
		{"self.i >= oldSelf.i", `{"i":1}`, `{"i":2}`, no},
		{"self == oldSelf", `{"s":"a"}`, `{"s":"a"}`, none},
		// Outside the subset.
		{"self.n > 1.0", `{"n":2.0}`, "", none},
		{"self.ios == 1", `{"ios":1}`, "", none},
		{"self.d > duration('1s')", `{"d":"2s"}`, "", none},
		{"self.e.spec == 'x'", `{"e":{"spec":"x"}}`, "", none},
		// Extended strings.
		{"self.s.lowerAscii() == self.s", `{"s":"a-b"}`, "", yes},
		{"self.s.lowerAscii() == self.s", `{"s":"aB"}`, "", no},
		{"self.s.lowerAscii() == 'tacocÆt xii'", `{"s":"TacoCÆt Xii"}`, "", yes},
		{"self.s.substring(7, 8) == '/'", `{"s":"unix:///x"}`, "", yes},
		{"self.s.substring(1, 3) == '日x'", `{"s":"ü日xy"}`, "", yes},
		{"self.s.substring(4) == ''", `{"s":"ü日xy"}`, "", yes},
		{"self.s.substring(2) == 'xy'", `{"s":"ü日xy"}`, "", yes},
		{"self.s.substring(7, 8) == '/'", `{"s":"unix:/"}`, "", unsure},
		{"self.s.substring(2, 1) == ''", `{"s":"abc"}`, "", unsure},
		{"self.s.substring(-1, 1) == ''", `{"s":"abc"}`, "", unsure},
		{"self.s.substring(5) == ''", `{"s":"ü日xy"}`, "", unsure},
		{"self.s.startsWith('unix://') ? (self.s.substring(7, 8) == '/' || self.s.substring(7, 8) == '@') : true", `{"s":"unix://@a"}`, "", yes},
		{"self.s + 'x' == 'ax'", `{"s":"a"}`, "", none},
		{"int(self.s) == 1", `{"s":"1"}`, "", none},
	} {
		has, value, sure, res, err := nativeRun(t, c.rule, c.spec, c.old)
		got := none
		switch {
		case !has:
		case !sure:
			got = unsure
		case value:
			got = yes
		default:
			got = no
		}
		name := []string{"unsure", "sure true", "sure false", "no native program"}
		if got != c.want {
			t.Errorf("%s on %s: %s, want %s (cel-go %v, %v)", c.rule, c.spec, name[got], name[c.want], res, err)
		}
		if has && sure && (err != nil || (res == types.True) != value) {
			t.Errorf("%s on %s: native sure of %v, cel-go %v, %v", c.rule, c.spec, value, res, err)
		}
	}
}

// TestNativeCancelled: a cancelled context is never decided natively
// (cel-go reports the interruption).
func TestNativeCancelled(t *testing.T) {
	rs, _ := json.Marshal([]schema.ValidationRule{{Rule: "self.ls.all(x, x != '')"}})
	s, err := schema.CompileJSON([]byte(strings.Replace(nativeSchema, "RULES", string(rs), 1)))
	if err != nil {
		t.Fatal(err)
	}
	v, err := Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{"spec": map[string]any{"ls": []any{"a"}}}
	v.boundsOnce.Do(func() { v.root.buildBounds(map[*apiservercel.DeclType]*bnode{}) })
	out := result{fast: true}
	v.root.validate(context.Background(), obj, nil, ratchet{}, RuntimeBudget, out.at(nil))
	if out.native != 1 || len(out.errs) != 0 {
		t.Fatalf("not decided natively: %+v", out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out = result{fast: true}
	v.root.validate(ctx, obj, nil, ratchet{}, RuntimeBudget, out.at(nil))
	if out.native != 0 {
		t.Fatalf("decided natively under a cancelled context: %+v", out)
	}
	want, _ := v.ValidateContext(ctx, obj, RuntimeBudget)
	if got, _ := v.ValidateUntracked(ctx, obj, nil, RuntimeBudget); !slices.Equal(fieldErrTexts(got), fieldErrTexts(want)) {
		t.Fatalf("cancelled: %q, want %q", fieldErrTexts(got), fieldErrTexts(want))
	}
}

// TestNativePanicFallsBack checks what happens when a native program
// panics (a bug, never expected): the walk recovers, counts it, and the
// call gives the tracked path's answer with cel-go alone; the native
// program panics only once per call, as the walk does not go on.
func TestNativePanicFallsBack(t *testing.T) {
	v := nativeValidator(t,
		schema.ValidationRule{Rule: "self.s == 'a'", Message: "s must be a"},
		schema.ValidationRule{Rule: "self.i > 0", Message: "i must be positive"})
	obj, _ := decodeFuzzJSON(`{"spec":{"s":"b","i":1}}`)
	want, _ := v.ValidateContext(context.Background(), obj, RuntimeBudget)
	if len(want) != 1 {
		t.Fatalf("tracked: %v", want)
	}
	errs, _, how := v.validateUntracked(context.Background(), obj, nil, RuntimeBudget)
	if how != pathFast || errs.ToAggregate().Error() != want.ToAggregate().Error() {
		t.Fatalf("before: path %d, %v", how, errs)
	}
	// The second rule's native program panics.
	f := v.root.props[0].v.rules[1].fast.get()
	if f.native == nil {
		t.Fatal("no native program")
	}
	calls := 0
	f.native.f = func(*nenv) (nval, bool) { calls++; panic("bug") }
	before := nativePanics.Load()
	defer func() { nativePanics.Store(before) }() // the corpus tests require 0
	errs, _, how = v.validateUntracked(context.Background(), obj, nil, RuntimeBudget)
	if how != pathFellBack || errs.ToAggregate().Error() != want.ToAggregate().Error() {
		t.Errorf("after: path %d, %v; want the tracked path's %v", how, errs, want)
	}
	if n := nativePanics.Load() - before; n != 1 || calls != 1 {
		t.Errorf("%d panics counted, %d calls; want 1 and 1", n, calls)
	}
}

// TestNativeConcurrent evaluates, from several goroutines at once, one
// Validator's native programs for every presence test on a schema value
// (has() on self, on a comprehension variable, on a selection, on a map
// key, and in on a map): each decides at evaluation time whether the
// present value converts (run with -race; before the conversion types were
// worked out at compile time, the first evaluations wrote a shared map).
func TestNativeConcurrent(t *testing.T) {
	rules := []string{
		"has(self.s) && has(self.i) && has(self.lo) && has(self.m) && has(self.o)",
		"self.lo.all(l, has(l.name) && has(l.port) && has(l.x))",
		"has(self.o.a) && has(self.o.z)",
		"has(self.m.k) && has(self.mn.k)",
		"'k' in self.m && 'k' in self.mn",
	}
	var rs []schema.ValidationRule
	for _, r := range rules {
		rs = append(rs, schema.ValidationRule{Rule: r})
	}
	v := nativeValidator(t, rs...)
	for i, r := range rules {
		if v.root.props[0].v.rules[i].fast.get().native == nil {
			t.Fatalf("%s: no native program", r)
		}
	}
	obj, ok := decodeFuzzJSON(`{"spec":{"s":"a","i":1,"lo":[{"name":"a","port":1,"x":{"y":"b"}}],"m":{"k":"v"},"mn":{"k":"v"},"o":{"a":"b","z":{"q":"c"}}}}`)
	if !ok {
		t.Fatal("bad object")
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			<-start
			for range 20 {
				if errs, _ := v.ValidateUntracked(context.Background(), obj, nil, RuntimeBudget); len(errs) > 0 {
					t.Errorf("concurrent ValidateUntracked = %v, want no errors", errs)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
}
