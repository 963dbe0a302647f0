package rules

import (
	"errors"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"

	"github.com/crdkit/crdkit/schema"
)

// Process-wide caches of what depends only on the text of an expression
// or on the shape of a type: cel-go's parse of a text (the parser options
// of an environment are those of its kind's base environment: extending
// it with variables and a type provider adds none) and the environment of
// a kind extended with self and oldSelf of a type shape (an environment
// never changes once built and is safe for concurrent use). The server
// parses and extends again at every compilation; the results are the
// same. Each cache is dropped whole when it reaches its bound, so that a
// process checking any number of CRDs keeps a bounded memory.
const (
	maxParsed = 1 << 12 // texts (a parsed expression: a few KB)
	maxEnvs   = 1 << 9  // environments (about 30 KB each for a small type)
)

type parseKey struct {
	kind envKind
	text string
}

var (
	parsedMu sync.RWMutex
	parsed   = map[parseKey]*exprpb.ParsedExpr{}

	envsMu sync.RWMutex
	envs   = map[envKey]*envEntry{}
)

// compileExpr is env.Compile(text) for env of kind ek: the text is parsed
// once per kind (an error is not remembered: the text is parsed again, by
// env, to report it) and each compilation type-checks a fresh copy of the
// parsed expression (cel-go's checker rewrites the tree it checks), except
// the first, which checks the parse itself.
func compileExpr(env *cel.Env, ek envKind, text string) (*cel.Ast, *cel.Issues) {
	k := parseKey{ek, text}
	parsedMu.RLock()
	pe := parsed[k]
	parsedMu.RUnlock()
	if pe == nil {
		pe = fastParseCached(k) // cel-go's parse without its ANTLR parser, or nil (parse.go)
	}
	var a *cel.Ast
	if pe == nil {
		var iss *cel.Issues
		a, iss = env.Parse(text)
		if iss.Err() != nil {
			return nil, iss
		}
		var err error
		if pe, err = cel.AstToParsedExpr(a); err != nil {
			return env.Compile(text)
		}
		parsedMu.Lock()
		if len(parsed) >= maxParsed {
			clear(parsed)
		}
		parsed[k] = pe
		parsedMu.Unlock()
	} else {
		// The cached copy stays as parsed; the first use checks the parse
		// itself (the protobuf form is its copy).
		a = cel.ParsedExprToAstWithSource(pe, common.NewTextSource(text))
	}
	checked, iss := env.Check(a)
	if iss.Err() != nil {
		return nil, iss
	}
	return checked, iss
}

// sharedEnv is the environment of key k, built by build the first time (a
// failed build is not remembered). Callers asking for k while it is being
// built wait for that build rather than building it again.
func sharedEnv(k envKey, build func() (*cel.Env, error)) (*cel.Env, error) {
	envsMu.RLock()
	e := envs[k]
	envsMu.RUnlock()
	if e == nil {
		envsMu.Lock()
		if e = envs[k]; e == nil {
			if len(envs) >= maxEnvs {
				clear(envs)
			}
			e = new(envEntry)
			envs[k] = e
		}
		envsMu.Unlock()
	}
	e.once.Do(func() { e.env, e.err = build() })
	env, err := e.env, e.err
	if env == nil && err == nil {
		err = errors.New("CEL environment: construction failed") // build panicked
	}
	if err != nil {
		envsMu.Lock()
		if envs[k] == e {
			delete(envs, k)
		}
		envsMu.Unlock()
		return nil, err
	}
	return env, nil
}

// envEntry is an environment built once.
type envEntry struct {
	once sync.Once
	env  *cel.Env
	err  error
}

// DropCaches empties the process-wide caches: parsed expressions, rule
// environments, the compilations every Compiler shares, and package
// schema's compiled patterns (schema.DropCaches). Nothing else
// changes: later compilations give the same results, at the cost of a
// first compilation. For measurements of first compilations, or to free
// the caches' memory at once.
func DropCaches() {
	parsedMu.Lock()
	clear(parsed)
	parsedMu.Unlock()
	envsMu.Lock()
	clear(envs)
	envsMu.Unlock()
	processMemo.mu.Lock()
	clear(processMemo.rules)
	processMemo.mu.Unlock()
	schema.DropCaches()
}
