package schema

import (
	"regexp"
	"sync"
)

// The patterns compiled so far, process-wide: CRDs repeat theirs (a name
// pattern dozens of times, the same schemas in every version), and a CRD
// check compiles each pattern twice (its structural check asks whether the
// pattern compiles, Compile keeps the compilation). A compiled pattern
// depends only on its text and never changes. Errors are not remembered.
// The cache is dropped whole at maxPatterns entries, and by DropCaches.
const maxPatterns = 1 << 12

var (
	patternsMu sync.RWMutex
	patterns   = map[string]compiledPattern{}
)

// DropCaches empties the process-wide cache of compiled patterns. Nothing
// else changes: later compilations give the same results, at the cost of
// compiling each pattern again. For measurements of first compilations, or
// to free the cache's memory at once.
func DropCaches() {
	patternsMu.Lock()
	clear(patterns)
	patternsMu.Unlock()
}

// sharedPattern is expr compiled (its automaton built on first use), from the cache when
// it was compiled before.
func sharedPattern(expr string) (compiledPattern, error) {
	patternsMu.RLock()
	cp, ok := patterns[expr]
	patternsMu.RUnlock()
	if ok {
		return cp, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return compiledPattern{}, err
	}
	cp = compiledPattern{re, &lazyMatcher{re: re}}
	patternsMu.Lock()
	if len(patterns) >= maxPatterns {
		clear(patterns)
	}
	patterns[expr] = cp
	patternsMu.Unlock()
	return cp, nil
}
