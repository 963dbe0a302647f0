package generate

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// maxPatternTries bounds the attempts to produce a string for a pattern.
const maxPatternTries = 24

// patternString returns a string matched by re whose length in runes is in
// [minLen, maxLen] (maxLen < 0: unbounded), or ok=false. The server checks
// patterns with Go's regexp, so a string re matches is a string the server
// accepts.
func patternString(r *rand.Rand, re *regexp.Regexp, minLen, maxLen int) (string, bool) {
	prog, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return "", false
	}
	prog = prog.Simplify()
	for try := 0; try < maxPatternTries; try++ {
		var b strings.Builder
		// Later tries repeat less, which helps with maxLength.
		extra := 3 - try/6
		if extra < 0 {
			extra = 0
		}
		emitRegexp(r, &b, prog, extra, 0)
		s := b.String()
		n := utf8.RuneCountInString(s)
		if n < minLen || (maxLen >= 0 && n > maxLen) {
			continue
		}
		if re.MatchString(s) {
			return s, true
		}
	}
	return "", false
}

func emitRegexp(r *rand.Rand, b *strings.Builder, re *syntax.Regexp, extra, depth int) {
	if depth > 64 || b.Len() > 512 {
		return
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			b.WriteRune(c)
		}
	case syntax.OpCharClass:
		b.WriteRune(pickClassRune(r, re.Rune))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte("abcxyz019"[r.IntN(9)])
	case syntax.OpCapture:
		for _, s := range re.Sub {
			emitRegexp(r, b, s, extra, depth+1)
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			emitRegexp(r, b, s, extra, depth+1)
		}
	case syntax.OpAlternate:
		emitRegexp(r, b, re.Sub[r.IntN(len(re.Sub))], extra, depth+1)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 0
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, extra
		case syntax.OpPlus:
			lo, hi = 1, 1+extra
		case syntax.OpQuest:
			lo, hi = 0, 1
		default:
			lo, hi = re.Min, re.Max
			if hi < 0 || hi > lo+extra {
				hi = lo + extra
			}
		}
		n := lo
		if hi > lo {
			n += r.IntN(hi - lo + 1)
		}
		for i := 0; i < n; i++ {
			for _, s := range re.Sub {
				emitRegexp(r, b, s, extra, depth+1)
			}
		}
	default:
		// Anchors, word boundaries and empty matches emit nothing.
	}
}

// pickClassRune picks a rune of a character class (pairs of ranges),
// preferring letters and digits so that the result stays readable and
// unlikely to trip other checks.
func pickClassRune(r *rand.Rand, ranges []rune) rune {
	if len(ranges) == 0 {
		return 'a'
	}
	var nice []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for c := lo; c <= hi && c <= 0x7e; c++ {
			if c >= 0x21 && (c < 0x7f) {
				nice = append(nice, c)
			}
			if len(nice) > 256 {
				break
			}
		}
	}
	if len(nice) > 0 {
		var alnum []rune
		for _, c := range nice {
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' {
				alnum = append(alnum, c)
			}
		}
		if len(alnum) > 0 && r.IntN(4) > 0 {
			return alnum[r.IntN(len(alnum))]
		}
		return nice[r.IntN(len(nice))]
	}
	i := r.IntN(len(ranges)/2) * 2
	return ranges[i]
}
