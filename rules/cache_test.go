package rules

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
	"google.golang.org/protobuf/proto"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// compileExpr (each text parsed once per environment kind, each
// compilation checking a tree rebuilt from the parsed proto) gives what
// env.Compile gives: the same checked expression (types, references,
// source positions, macro calls) and the same issues, byte for byte, the
// first time and from the cache.
func TestCompileExprAsCompile(t *testing.T) {
	base, err := baseEnvSet()
	if err != nil {
		t.Fatal(err)
	}
	exprs := []string{
		`self.size() > 0`,
		`self.all(x, x.startsWith('a')) && self.exists_one(y, y == "b")`,
		`self.map(x, x + "c").filter(y, y.size() < 3).size() == 1`,
		`has(self[0]) || self.?foo.orValue('') == ''`,
		"self.size() >\n  oldSelf.size()",
		`self.matches('^[a-z]+$') ? 1u : 2u`,
		`b'\x00' == bytes('a') && 1.5 < 2.0 && -3 < 0 && null == null`,
		`[1, 2].all(i, i > 0) && {'a': 1}['a'] == 1`,
		`quantity('1Gi').isGreaterThan(quantity('1Mi')) && url('https://x').getHost() == 'x'`,
		`self.size( >`, // parse error
		`self.nope()`,  // check error
		`self + 1`,     // check error
		"x +\n\n  y",   // undeclared references, on lines
		`self.all(x, self.all(y, self.all(z, x == y && y == z)))`,
	}
	for _, ek := range []envKind{storedEnv, newEnv} {
		self := apiservercel.NewListType(apiservercel.StringType, 10)
		env, err := ruleEnv(base, ek, self, self.CelType())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range exprs {
			want, wantIss := env.Compile(e)
			for pass := range 2 {
				got, gotIss := compileExpr(env, ek, e)
				if (wantIss.Err() == nil) != (gotIss.Err() == nil) || (wantIss.Err() != nil && wantIss.String() != gotIss.String()) {
					t.Errorf("compileExpr(%d, %q) pass %d = issues %q, want %q", ek, e, pass, gotIss.String(), wantIss.String())
					continue
				}
				if want == nil {
					if got != nil {
						t.Errorf("compileExpr(%d, %q) pass %d = an AST, want none", ek, e, pass)
					}
					continue
				}
				wp, err1 := cel.AstToCheckedExpr(want)
				gp, err2 := cel.AstToCheckedExpr(got)
				if err1 != nil || err2 != nil || !proto.Equal(wp, gp) {
					t.Errorf("compileExpr(%d, %q) pass %d = %v, want %v", ek, e, pass, gp, wp)
				}
			}
		}
	}
}

// TestSharedEnvOnce checks that concurrent callers of sharedEnv for one key
// get one build, and that a failed build is not remembered.
func TestSharedEnvOnce(t *testing.T) {
	DropCaches()
	env, err := cel.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	k := envKey{decl: declKey{1, 2, 3}, kind: storedEnv}
	var builds atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]*cel.Env, 8)
	for i := range got {
		wg.Go(func() {
			got[i], _ = sharedEnv(k, func() (*cel.Env, error) {
				builds.Add(1)
				<-release
				return env, nil
			})
		})
	}
	time.Sleep(10 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Errorf("sharedEnv from %d goroutines = %d builds, want 1", len(got), n)
	}
	for i, e := range got {
		if e != env {
			t.Errorf("sharedEnv in goroutine %d = %p, want %p", i, e, env)
		}
	}
	bad := envKey{decl: declKey{4}, kind: newEnv}
	for range 2 {
		if _, err := sharedEnv(bad, func() (*cel.Env, error) { builds.Add(1); return nil, errors.New("no") }); err == nil {
			t.Errorf("sharedEnv(failing build) = no error, want one")
		}
	}
	if n := builds.Load(); n != 3 {
		t.Errorf("sharedEnv(failing build) twice = %d builds in all, want 3 (a failure is not remembered)", n)
	}
	DropCaches()
}
