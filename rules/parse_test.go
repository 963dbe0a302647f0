package rules

import (
	"encoding/json"
	"fmt"
	"go/ast"
	gobuild "go/build"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/crdkit/crdkit/internal/corpus"
)

// parseEnvs are the server's environments of each kind, as compileExpr
// parses with them (rule environments extend these without changing the
// parser).
func parseEnvs(tb testing.TB) map[envKind]*cel.Env {
	tb.Helper()
	base, err := baseEnvSet()
	if err != nil {
		tb.Fatal(err)
	}
	return map[envKind]*cel.Env{storedEnv: base.StoredExpressionsEnv(), newEnv: base.NewExpressionsEnv()}
}

// celParse is cel-go's parse of text in env, as compileExpr caches it.
func celParse(env *cel.Env, text string) (*exprpb.ParsedExpr, error) {
	a, iss := env.Parse(text)
	if iss.Err() != nil {
		return nil, iss.Err()
	}
	return cel.AstToParsedExpr(a)
}

// diffParse compares fastParse with cel-go on text in every environment
// kind: a parse fastParse gives must be cel-go's. It reports whether
// fastParse handled the text and whether it agreed with cel-go (gave nil or
// cel-go's parse) in every kind.
func diffParse(tb testing.TB, envs map[envKind]*cel.Env, text string) (handled, agree bool) {
	tb.Helper()
	handled, agree = true, true
	for _, ek := range []envKind{storedEnv, newEnv} {
		fast := fastParse(ek, text)
		if fast == nil {
			handled = false
			continue
		}
		want, err := celParse(envs[ek], text)
		if err != nil {
			tb.Errorf("fastParse(%d, %q) accepted a text cel-go rejects: %v", ek, text, err)
			agree = false
			continue
		}
		if !proto.Equal(fast, want) {
			tb.Errorf("fastParse(%d, %q) = %s, want %s", ek, text, prototext.Format(fast), prototext.Format(want))
			agree = false
		}
	}
	return handled, agree
}

// corpusExpressions are the rule and messageExpression texts of the
// corpus CRDs, sorted and without duplicates.
func corpusExpressions(tb testing.TB) []string {
	tb.Helper()
	root, ok := corpus.Root()
	if !ok {
		tb.Skip("no corpus: set CRDKIT_CORPUS or check out ../shared/corpus")
	}
	docs, err := corpus.Walk(filepath.Join(root, "crds"))
	if err != nil {
		tb.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if k == "x-kubernetes-validations" {
					rs, _ := c.([]any)
					for _, r := range rs {
						m, _ := r.(map[string]any)
						for _, f := range []string{"rule", "messageExpression"} {
							if s, ok := m[f].(string); ok && s != "" {
								seen[s] = true
							}
						}
					}
				}
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	for _, d := range docs {
		var v any
		if json.Unmarshal(d.JSON, &v) == nil {
			walk(v)
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	if len(out) == 0 {
		tb.Skip("no x-kubernetes-validations in the corpus")
	}
	return out
}

func TestFastParseCorpus(t *testing.T) {
	envs := parseEnvs(t)
	texts := corpusExpressions(t)
	handled, agreed := 0, 0
	var missed []string
	for _, s := range texts {
		h, ok := diffParse(t, envs, s)
		if ok {
			agreed++
		}
		if h {
			handled++
		} else if _, err := celParse(envs[storedEnv], s); err == nil {
			missed = append(missed, s)
		}
	}
	for i, s := range missed {
		if i == 10 {
			break
		}
		t.Logf("not handled: %q", s)
	}
	fmt.Printf("conformance: fast parse equal to cel-go %d/%d corpus rule and messageExpression texts (handled %d, in both environments)\n", agreed, len(texts), handled)
	if !t.Failed() && handled < len(texts)*9/10 {
		t.Errorf("fastParse handled %d of %d corpus texts, want at least 90%%", handled, len(texts))
	}
}

// upstreamTexts are the string literals of upstream test sources in the
// module cache: cel-go's parser tests and the server's CRD validation
// tests, read at test time.
func upstreamTexts(tb testing.TB) []string {
	tb.Helper()
	modcache := os.Getenv("GOMODCACHE")
	if modcache == "" {
		modcache = filepath.Join(strings.Split(gobuild.Default.GOPATH, string(os.PathListSeparator))[0], "pkg", "mod")
	}
	// The versions go.mod requires.
	gomod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		tb.Fatal(err)
	}
	versions := map[string]string{}
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && strings.HasPrefix(f[1], "v") {
			versions[f[0]] = f[1]
		}
	}
	mod := func(path string) string { return path + "@" + versions[path] }
	cel, ae := mod("github.com/google/cel-go"), mod("k8s.io/apiextensions-apiserver")
	files := []string{
		cel + "/parser/parser_test.go",
		cel + "/parser/unparser_test.go",
		cel + "/cel/cel_test.go",
		ae + "/pkg/apis/apiextensions/validation/validation_test.go",
		ae + "/pkg/apiserver/schema/cel/validation_test.go",
		ae + "/pkg/apiserver/schema/cel/compilation_test.go",
	}
	seen := map[string]bool{}
	for _, f := range files {
		path := filepath.Join(modcache, f)
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			tb.Logf("upstream source %s: %v", f, err)
			continue
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && s != "" && len(s) < 4096 {
					seen[s] = true
				}
			}
			return true
		})
	}
	if len(seen) == 0 {
		tb.Skip("no upstream test sources in the module cache")
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// tallyParses compares fastParse with cel-go on each text (diffParse) and
// counts the texts fastParse takes, those cel-go accepts and those where
// the two agree.
func tallyParses(t *testing.T, envs map[envKind]*cel.Env, texts []string) (handled, valid, agreed int) {
	t.Helper()
	for _, s := range texts {
		if _, err := celParse(envs[storedEnv], s); err == nil {
			valid++
		}
		h, ok := diffParse(t, envs, s)
		if h {
			handled++
		}
		if ok {
			agreed++
		}
	}
	return handled, valid, agreed
}

func TestFastParseUpstreamTexts(t *testing.T) {
	envs := parseEnvs(t)
	texts := upstreamTexts(t)
	handled, valid, agreed := tallyParses(t, envs, texts)
	fmt.Printf("conformance: fast parse equal to cel-go or not taken %d/%d upstream test strings (handled %d of the %d cel-go accepts)\n", agreed, len(texts), handled, valid)
}

// Edge cases of the lexer and the grammar, compared with cel-go (no
// expectation here is typed by hand: each is cel-go's answer).
var fastParseEdges = []string{
	"-1", "--1", "---1", "- -1", "- 1", "-1.5", "-.5", ".5", "1.", "1.e5", "1e5", "1E+5", "1e-5u", "1e", "0x", "0x1F", "0x1Fu", "0X1",
	"-0x8000000000000000", "-9223372036854775808", "9223372036854775808", "-9223372036854775809", "18446744073709551615u", "18446744073709551616u",
	"1e999", "1e-999", "-1u", "01", "1u", "1U", "-1.size()", "-a", "!-1", "!-a", "-!a", "!!a", "!!!a", "--a", "-(1)", "-(-1)", "a--1", "a---1", "a-1", "a -1",
	"a.b.c", "a.namespace", "namespace", "a.in", "a.true", "true", "null", "in", "a in b", "a in b == c", "a < b < c", "a == b != c",
	"a ? b : c", "a ? b : c ? d : e", "a ? b ? c : d : e", "(a ? b : c) ? d : e", "a || b && c", "a && b || c && d", "a && b && c && d && e",
	"a || b || c || d || e || f || g", "(a && b) && (c && d)", "1 + 2 * 3 - 4 / 5 % 6", "(1 + 2) * 3", "a[0][1]", "a[b[c]]", "a.b(c).d[e]",
	"f()", "f(a)", "f(a, b)", "f(a,)", "a.f()", "a.f(b, c)", "[]", "[,]", "[1,]", "[1, 2]", "[1,,2]", "{}", "{,}", "{1: 2}", "{1: 2,}",
	"{a ? b : c : d}", "{'a': 1, 'b': {'c': [1, 2]}}", "a{}", "a.b{c: 1}", ".a", ".a.b", "a.?b", "a[?0]", "[?a]", "{?a: b}", "`a`", "a.`b`",
	"has(a.b)", "has(a)", "has(a.b.c)", "has(a[0])", "has(a.b, c)", "a.has(b)", "has(has(a.b))", "has(a.b).c",
	"a.all(x, x > 0)", "a.all(x, y, x > 0)", "a.all(x.y, true)", "a.exists(x, x)", "a.exists_one(x, x)", "a.existsOne(x, x)",
	"a.map(x, x + 1)", "a.map(x, x > 1, x + 1)", "a.map(x)", "a.filter(x, x > 1)", "a.all(__result__, true)", "a.all(x, a.all(y, x == y))",
	"a.sortBy(x, x)", "a.transformList(i, v, v)", "cel.bind(x, 1, x)", "a.optMap(x, x)", "all(a, b)", "map(a, b)",
	`"a"`, `'a'`, `"""a"""`, `'''a'''`, `"""a"b"""`, `""""a"""`, `"""a""""`, `"""`, `""`, `r"a\b"`, `R'a\'`, `r"""a\"""`, `b"a"`, `B'\x00\377'`,
	`br"\x00"`, `rb"a"`, `b"\u00e9"`, `"\u00e9"`, `"\U0001F600"`, `"\ud800"`, `"\400"`, `"\377"`, `"\x7f\X7F"`, `"\a\b\f\n\r\t\v\\\"\'\?\` + "`" + `"`,
	`"\q"`, `"\"`, `"a` + "\n" + `b"`, `"""a` + "\r\n" + `b"""`, `r'''a` + "\r" + `b'''`, `"é" + "😀"`, `'é' == a // é` + "\n" + ` && b`,
	"a // comment", "// only a comment", "a /* no */", "a\n&&\nb", "a\r\n&& b", "a\t\f&& b", "1 = 1", "a & b", "a | b", "a #", "",
	"self.x == oldSelf.x", "self.size() <= 10 && self.all(k, k.matches('^[a-z]+$'))", "int(self) > 0", "type(self) == string",
}

func TestFastParseEdges(t *testing.T) {
	envs := parseEnvs(t)
	handled, agreed := 0, 0
	for _, s := range fastParseEdges {
		h, ok := diffParse(t, envs, s)
		if h {
			handled++
		}
		if ok {
			agreed++
		}
	}
	fmt.Printf("conformance: fast parse equal to cel-go or not taken %d/%d edge cases (handled %d)\n", agreed, len(fastParseEdges), handled)
}

// TestFastParseMacros checks that fastParse knows every macro of the
// server's environments: each is either expanded here or makes fastParse
// give up.
func TestFastParseMacros(t *testing.T) {
	for ek, env := range parseEnvs(t) {
		for _, m := range env.Macros() {
			if !macroNames[m.Function()] {
				t.Errorf("environment %d has macro %s, which fastParse does not know", ek, m.MacroKey())
			}
		}
	}
}

// TestFastParseLimits: texts past cel-go's limits, or near them, give nil
// or cel-go's parse, fast.
func TestFastParseLimits(t *testing.T) {
	envs := parseEnvs(t)
	long := func(s string, n int) string { return strings.Repeat(s, n) }
	cases := map[string]string{
		"MB of (":          long("(", 1<<20),
		"MB of !":          long("!", 1<<20),
		"MB of [":          long("[", 1<<20),
		"MB of -":          long("-", 1<<20),
		"nested parens":    long("(", 300) + "a" + long(")", 300),
		"nested parens 60": long("(", 60) + "a" + long(")", 60),
		"nested lists":     long("[", 300) + long("]", 300),
		"nested calls":     long("f(", 300) + "a" + long(")", 300),
		"select chain":     "a" + long(".b", 300),
		"select chain 150": "a" + long(".b", 150),
		"plus chain":       "a" + long(" + a", 300),
		"plus chain 90":    "a" + long(" + a", 90),
		"and chain":        "a" + long(" && a", 3000),
		"ternary chain":    long("a ? b : ", 300) + "c",
		"not run":          long("!", 50000) + "a",
		"size limit":       `"` + long("a", 100_000-2) + `"`,
		"size limit + 1":   `"` + long("a", 100_000-1) + `"`,
		"size limit cp":    `"` + long("é", 100_000-2) + `"`,
		"size limit cp+1":  `"` + long("é", 100_000-1) + `"`,
	}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			text := cases[name]
			start := time.Now()
			fast := fastParse(storedEnv, text)
			if d := time.Since(start); d > time.Second {
				t.Errorf("fastParse(%s) took %v", name, d)
			}
			if fast == nil || len(text) > 200_000 {
				return
			}
			diffParse(t, envs, text)
		})
	}
}

// randomExpr writes a random expression of the shapes CRD rules use, with
// random spacing, comments and newlines, and now and then a mistake.
type parseGen struct {
	r   *rand.Rand
	b   strings.Builder
	bad bool // allow mistakes
}

func (g *parseGen) sp() {
	switch g.r.IntN(12) {
	case 0:
		g.b.WriteString("\n  ")
	case 1:
		g.b.WriteString(" // note é\n")
	case 2, 3, 4:
		g.b.WriteString(" ")
	case 5:
		g.b.WriteString("\t")
	}
}

func (g *parseGen) pick(opts ...string) string { return opts[g.r.IntN(len(opts))] }

func (g *parseGen) expr(depth int) {
	if g.bad && g.r.IntN(200) == 0 {
		g.b.WriteString(g.pick("(", ")", ",", "?", ":", "=", ".", "[", "}", "'", "\\", "`", "&", "#", "in", "1e", "0x"))
	}
	if depth <= 0 {
		g.atom()
		return
	}
	switch g.r.IntN(14) {
	case 0, 1:
		g.expr(depth - 1)
		g.sp()
		g.b.WriteString(g.pick("&&", "||"))
		g.sp()
		g.expr(depth - 1)
	case 2, 3:
		g.expr(depth - 1)
		g.sp()
		g.b.WriteString(g.pick("==", "!=", "<", "<=", ">", ">=", "in", "+", "-", "*", "/", "%"))
		g.sp()
		g.expr(depth - 1)
	case 4:
		g.expr(depth - 1)
		g.sp()
		g.b.WriteString("?")
		g.sp()
		g.expr(depth - 1)
		g.sp()
		g.b.WriteString(":")
		g.sp()
		g.expr(depth - 1)
	case 5:
		g.b.WriteString(g.pick("!", "-", "!!", "--", "- ", "!-"))
		g.expr(depth - 1)
	case 6:
		g.b.WriteString("(")
		g.expr(depth - 1)
		g.b.WriteString(")")
	case 7:
		g.member(depth)
		g.b.WriteString("." + g.pick("all", "exists", "exists_one", "map", "filter", "map", "existsOne", "sortBy"))
		v := g.pick("x", "y", "k", "__result__")
		g.b.WriteString("(" + v + ",")
		g.sp()
		g.expr(depth - 1)
		if g.r.IntN(4) == 0 {
			g.b.WriteString(", ")
			g.expr(depth - 1)
		}
		g.b.WriteString(")")
	case 8:
		g.b.WriteString("has(")
		g.member(depth)
		g.b.WriteString("." + g.pick("a", "b", "namespace"))
		g.b.WriteString(")")
	case 9:
		g.b.WriteString("[")
		n := g.r.IntN(4)
		for i := 0; i < n; i++ {
			if i > 0 {
				g.b.WriteString(",")
				g.sp()
			}
			g.expr(depth - 1)
		}
		if g.r.IntN(4) == 0 {
			g.b.WriteString(",")
		}
		g.b.WriteString("]")
	case 10:
		g.b.WriteString("{")
		n := g.r.IntN(3)
		for i := 0; i < n; i++ {
			if i > 0 {
				g.b.WriteString(", ")
			}
			g.expr(depth - 1)
			g.b.WriteString(":")
			g.sp()
			g.expr(depth - 1)
		}
		g.b.WriteString("}")
	case 11:
		g.b.WriteString(g.pick("size", "int", "string", "f", "quantity", "has"))
		g.b.WriteString("(")
		n := g.r.IntN(3)
		for i := 0; i < n; i++ {
			if i > 0 {
				g.b.WriteString(", ")
			}
			g.expr(depth - 1)
		}
		g.b.WriteString(")")
	default:
		g.member(depth)
	}
}

func (g *parseGen) member(depth int) {
	g.atom()
	for n := g.r.IntN(4); n > 0; n-- {
		switch g.r.IntN(4) {
		case 0, 1:
			g.b.WriteString("." + g.pick("a", "b", "spec", "namespace", "size", "_x1", "in", "all"))
		case 2:
			g.b.WriteString("." + g.pick("size", "matches", "startsWith", "lowerAscii", "all") + "(")
			if depth > 0 && g.r.IntN(2) == 0 {
				g.expr(depth - 1)
			}
			g.b.WriteString(")")
		default:
			g.b.WriteString("[")
			if depth > 0 {
				g.expr(depth - 1)
			} else {
				g.atom()
			}
			g.b.WriteString("]")
		}
	}
}

func (g *parseGen) atom() {
	switch g.r.IntN(9) {
	case 0:
		g.b.WriteString(g.pick("self", "oldSelf", "x", "y", "a", "namespace", "null", "true", "false"))
	case 1:
		g.b.WriteString(g.pick("0", "1", "-1", "42", "0x1f", "-0x10", "7u", "0xffU", "9223372036854775807", "-9223372036854775808", "99999999999999999999"))
	case 2:
		g.b.WriteString(g.pick("1.5", "-2.0", ".5", "1e3", "2E-2", "-1e400", "3.25e+1"))
	case 3:
		g.b.WriteString(g.pick(`'a'`, `"b c"`, `'it\'s'`, `"\n\t"`, `"\u00e9"`, `'é'`, `"\x41"`, `"\101"`, `r"\d+"`, `'''multi
line'''`, `"""x"y"""`, `""`, `"\z"`))
	case 4:
		g.b.WriteString(g.pick(`b"ab"`, `b'\xff'`, `b"\377"`, `b"é"`, `br'\x'`))
	default:
		g.b.WriteString(g.pick("self", "oldSelf", "self.spec", "x", "y", "k"))
	}
}

func randomExpr(r *rand.Rand, bad bool) string {
	g := parseGen{r: r, bad: bad}
	g.expr(1 + r.IntN(5))
	return g.b.String()
}

func TestFastParseRandom(t *testing.T) {
	envs := parseEnvs(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 17))
	n := 4000
	if testing.Short() {
		n = 500
	}
	texts := make([]string, n)
	for i := range texts {
		texts[i] = randomExpr(r, i%2 == 1)
	}
	handled, valid, agreed := tallyParses(t, envs, texts)
	fmt.Printf("conformance: fast parse equal to cel-go or not taken %d/%d random expressions (handled %d of the %d cel-go accepts)\n", agreed, n, handled, valid)
}

func FuzzFastParse(f *testing.F) {
	root, ok := corpus.Root()
	if ok {
		if _, err := os.Stat(filepath.Join(root, "crds")); err == nil {
			for _, s := range corpusExpressions(f) {
				f.Add(s)
			}
		}
	}
	for _, s := range fastParseEdges {
		f.Add(s)
	}
	envs := parseEnvs(f)
	f.Fuzz(func(t *testing.T, text string) {
		start := time.Now()
		fastParse(storedEnv, text)
		if d := time.Since(start); d > 5*time.Second { // a hang, not a slow machine
			t.Errorf("fastParse(%q) took %v", text, d)
		}
		diffParse(t, envs, text)
	})
}

// BenchmarkParse: fastParse against cel-go's parse (with the conversion
// compileExpr caches) on the corpus texts, per text.
func BenchmarkParse(b *testing.B) {
	envs := parseEnvs(b)
	texts := corpusExpressions(b)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, s := range texts {
				fastParse(storedEnv, s)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/text")
	})
	b.Run("cel-go", func(b *testing.B) {
		b.ReportAllocs()
		env := envs[storedEnv]
		for i := 0; i < b.N; i++ {
			for _, s := range texts {
				celParse(env, s)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/text")
	})
}

// TestFastParseDepth sweeps nesting depths across cel-go's recursion
// limits: fastParse must give nil wherever cel-go refuses.
func TestFastParseDepth(t *testing.T) {
	envs := parseEnvs(t)
	shapes := map[string]func(n int) string{
		"parens":    func(n int) string { return strings.Repeat("(", n) + "a" + strings.Repeat(")", n) },
		"lists":     func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) },
		"maps":      func(n int) string { return strings.Repeat("{1: ", n) + "1" + strings.Repeat("}", n) },
		"calls":     func(n int) string { return strings.Repeat("f(", n) + "a" + strings.Repeat(")", n) },
		"members":   func(n int) string { return "a" + strings.Repeat(".f(a", n) + strings.Repeat(")", n) },
		"selects":   func(n int) string { return "a" + strings.Repeat(".b", n) },
		"indexes":   func(n int) string { return "a" + strings.Repeat("[0]", n) },
		"index in":  func(n int) string { return strings.Repeat("a[", n) + "0" + strings.Repeat("]", n) },
		"plus":      func(n int) string { return "a" + strings.Repeat(" + a", n) },
		"times":     func(n int) string { return "a" + strings.Repeat(" * a", n) },
		"mixed":     func(n int) string { return "a" + strings.Repeat(" + a * a", n) },
		"relations": func(n int) string { return "a" + strings.Repeat(" == a", n) },
		"ternaries": func(n int) string { return strings.Repeat("a ? b : ", n) + "c" },
		"nested ?":  func(n int) string { return strings.Repeat("(a ? ", n) + "b" + strings.Repeat(" : c)", n) },
		"negations": func(n int) string { return strings.Repeat("-(", n) + "a" + strings.Repeat(")", n) },
		"ands":      func(n int) string { return strings.Repeat("(a && ", n) + "b" + strings.Repeat(")", n) },
		"macros":    func(n int) string { return strings.Repeat("a.all(x, ", n) + "x" + strings.Repeat(")", n) },
		"plus deep": func(n int) string { return strings.Repeat("(a + ", n) + "b" + strings.Repeat(")", n) },
		"chain in":  func(n int) string { return strings.Repeat("a + a + a + a + (", n) + "b" + strings.Repeat(")", n) },
		"sel in":    func(n int) string { return strings.Repeat("a.b.c.d.e(", n) + "b" + strings.Repeat(")", n) },
	}
	names := make([]string, 0, len(shapes))
	for n := range shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			lastFast, firstRefused := 0, 0
			for n := 1; n <= 300; n += 1 + n/25 {
				s := shapes[name](n)
				if h, _ := diffParse(t, envs, s); h {
					lastFast = n
				}
				if _, err := celParse(envs[storedEnv], s); err != nil && firstRefused == 0 {
					firstRefused = n
				}
			}
			t.Logf("%s: fastParse up to %d, cel-go refuses from %d", name, lastFast, firstRefused)
		})
	}
}
