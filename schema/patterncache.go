package schema

import (
	"regexp"
	"regexp/syntax"
	"sync"
)

// The patterns compiled so far, process-wide: CRDs repeat theirs (a name
// pattern dozens of times, the same schemas in every version). The
// structural check of a CRD only parses a pattern it has not met compiled
// (checkPattern). A compiled pattern
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

// checkPattern returns the error regexp.Compile returns for expr, without
// compiling it when it was not compiled before: every error of
// regexp.Compile is its parser's (syntax.Parse in Perl mode; the
// simplification and compilation that follow never fail), and parsing is
// about a third of a compilation. The structural check of a CRD asks only
// this; a first check of a CRD without defaults compiles nothing.
func checkPattern(expr string) error {
	patternsMu.RLock()
	_, ok := patterns[expr]
	patternsMu.RUnlock()
	if ok {
		return nil
	}
	_, err := syntax.Parse(expr, syntax.Perl)
	return err
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
