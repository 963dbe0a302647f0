package schema

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// matcher is a deterministic automaton built from a pattern's program: it
// answers regexp.MatchString (is there a match anywhere in the string) in
// one pass over the runes, with a table lookup per rune, where Go's regexp
// backtracks or simulates the program thread by thread.
//
// It is the program's subset construction. A state is the set of
// instructions the threads alive at a position wait on: rune instructions,
// the match, and end-of-text assertions (decided at the end). A new thread
// starts at every position, as the unanchored search does; begin-of-text
// assertions pass only for the thread of position 0, so the start state is
// its own state. Runes are read as the regexp reads them (invalid UTF-8 is
// U+FFFD, one byte), and partitioned into classes that no instruction
// tells apart, so that one transition serves a whole class.
//
// compileMatcher gives up (nil: the caller keeps the regexp) on what it does
// not handle, line and word assertions, and on automata too large.
type matcher struct {
	ascii   [utf8.RuneSelf]uint8 // the class of each ASCII rune
	bounds  []rune               // class i covers [bounds[i], bounds[i+1])
	classes int
	next    []uint16 // next[state*classes+class]
	match   []bool   // a match ends here: MatchString is true
	atEnd   []bool   // a match ends here if this is the end of the string
	dead    []bool   // no thread left and none will start
}

// Limits of compileMatcher: beyond them the regexp is used.
const (
	matcherMaxStates  = 256
	matcherMaxClasses = 64
	matcherMaxInsts   = 512
	matcherMaxWork    = 1 << 20 // instructions visited by the construction
)

// compileMatcher builds the matcher of re, or returns nil.
func compileMatcher(re *regexp.Regexp) *matcher {
	// The program regexp.Compile runs: the same parse flags and steps.
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil
	}
	if len(prog.Inst) > matcherMaxInsts {
		return nil
	}
	b := matcherBuilder{prog: prog, ids: map[string]int{}}
	if !b.partition() {
		return nil
	}
	if !b.build() {
		return nil
	}
	return &b.m
}

type matcherBuilder struct {
	prog   *syntax.Prog
	m      matcher
	reps   []rune     // a rune of each class
	sets   [][]uint32 // the instructions of each state
	ids    map[string]int
	marks  []uint32 // closure's visited marks, by instruction
	mark   uint32
	work   int // instructions visited
	buf    []uint32
	keybuf []byte
}

// partition splits the runes into the classes no instruction tells apart.
func (b *matcherBuilder) partition() bool {
	cuts := []rune{0, unicode.MaxRune + 1}
	for i := range b.prog.Inst {
		in := &b.prog.Inst[i]
		switch in.Op {
		case syntax.InstRune:
			if len(in.Rune) == 1 && syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				r0 := in.Rune[0]
				cuts = append(cuts, r0, r0+1)
				for r := unicode.SimpleFold(r0); r != r0; r = unicode.SimpleFold(r) {
					cuts = append(cuts, r, r+1)
				}
				continue
			}
			if len(in.Rune) == 1 {
				cuts = append(cuts, in.Rune[0], in.Rune[0]+1)
				continue
			}
			for j := 0; j+1 < len(in.Rune); j += 2 {
				cuts = append(cuts, in.Rune[j], in.Rune[j+1]+1)
			}
		case syntax.InstRune1:
			cuts = append(cuts, in.Rune[0], in.Rune[0]+1)
		case syntax.InstRuneAnyNotNL:
			cuts = append(cuts, '\n', '\n'+1)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^(syntax.EmptyBeginText|syntax.EmptyEndText) != 0 {
				return false
			}
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	// The rune ranges of a class never reach past MaxRune+1.
	for len(cuts) > 0 && cuts[len(cuts)-1] > unicode.MaxRune+1 {
		cuts = cuts[:len(cuts)-1]
	}
	n := len(cuts) - 1
	if n > matcherMaxClasses {
		return false
	}
	b.m.bounds, b.m.classes, b.reps = cuts, n, cuts[:n]
	for r := rune(0); r < utf8.RuneSelf; r++ {
		b.m.ascii[r] = uint8(b.m.search(r))
	}
	return true
}

// class returns the class of r.
func (m *matcher) class(r rune) int {
	if r < utf8.RuneSelf && r >= 0 {
		return int(m.ascii[r])
	}
	return m.search(r)
}

// search returns the class of r from the bounds: the last at or below r.
func (m *matcher) search(r rune) int {
	i, found := slices.BinarySearch(m.bounds, r)
	if !found {
		i--
	}
	return i
}

// closure adds to dst the instructions waiting on a rune, the match or the
// end of the text reached from pc without reading, with the begin-of-text
// assertion true only when begin.
func (b *matcherBuilder) closure(dst []uint32, pc uint32, begin bool) []uint32 {
	if b.marks[pc] == b.mark {
		return dst
	}
	b.marks[pc] = b.mark
	b.work++
	in := &b.prog.Inst[pc]
	switch in.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		dst = b.closure(dst, in.Out, begin)
		return b.closure(dst, in.Arg, begin)
	case syntax.InstCapture, syntax.InstNop:
		return b.closure(dst, in.Out, begin)
	case syntax.InstFail:
		return dst
	case syntax.InstEmptyWidth:
		op := syntax.EmptyOp(in.Arg)
		if op&syntax.EmptyBeginText != 0 && !begin {
			return dst
		}
		if op&syntax.EmptyEndText != 0 {
			return append(dst, pc) // decided at the end
		}
		return b.closure(dst, in.Out, begin)
	}
	return append(dst, pc) // a rune instruction or the match
}

// endsMatch reports whether the end-of-text assertions of set, at the end of
// the string, reach the match.
func (b *matcherBuilder) endsMatch(set []uint32, begin bool) bool {
	var work []uint32
	b.mark++
	for _, pc := range set {
		in := &b.prog.Inst[pc]
		switch {
		case in.Op == syntax.InstMatch:
			return true
		case in.Op == syntax.InstEmptyWidth:
			work = b.closure(work, in.Out, begin)
		}
	}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		in := &b.prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			return true
		case syntax.InstEmptyWidth: // an end assertion: true here
			work = b.closure(work, in.Out, begin)
		}
	}
	return false
}

// state returns the id of set (sorted), adding it when new; start is the
// state of position 0, never shared.
func (b *matcherBuilder) state(set []uint32, start bool) (int, bool) {
	b.keybuf = b.keybuf[:0]
	for _, pc := range set {
		b.keybuf = append(b.keybuf, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if !start {
		if id, ok := b.ids[string(b.keybuf)]; ok {
			return id, true
		}
	}
	if len(b.sets) >= matcherMaxStates {
		return 0, false
	}
	id := len(b.sets)
	if !start {
		b.ids[string(b.keybuf)] = id
	}
	b.sets = append(b.sets, slices.Clone(set))
	m := &b.m
	hasMatch := false
	for _, pc := range set {
		hasMatch = hasMatch || b.prog.Inst[pc].Op == syntax.InstMatch
	}
	m.match = append(m.match, hasMatch)
	m.atEnd = append(m.atEnd, b.endsMatch(set, start))
	m.dead = append(m.dead, false)
	m.next = append(m.next, make([]uint16, m.classes)...)
	return id, true
}

// build runs the subset construction from the start state.
func (b *matcherBuilder) build() bool {
	b.marks = make([]uint32, len(b.prog.Inst))
	start := uint32(b.prog.Start)
	b.mark++
	set := b.closure(nil, start, true)
	slices.Sort(set)
	if _, ok := b.state(set, true); !ok {
		return false
	}
	for id := 0; id < len(b.sets); id++ {
		for c, rep := range b.reps {
			b.mark++
			out := b.buf[:0]
			for _, pc := range b.sets[id] {
				in := &b.prog.Inst[pc]
				switch in.Op {
				case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
					if in.MatchRune(rep) {
						out = b.closure(out, in.Out, false)
					}
				}
			}
			out = b.closure(out, start, false) // the thread starting here
			slices.Sort(out)
			b.buf = out
			next, ok := b.state(out, false)
			if !ok {
				return false
			}
			b.m.next[id*b.m.classes+c] = uint16(next)
		}
		if b.work > matcherMaxWork {
			return false
		}
	}
	// A dead state is one from which no match is reachable: every
	// transition leads to a dead state and nothing matches from it.
	live := make([]bool, len(b.sets))
	for id := range live {
		live[id] = b.m.match[id] || b.m.atEnd[id]
	}
	for changed := true; changed; {
		changed = false
		for id := range live {
			if live[id] {
				continue
			}
			for _, n := range b.m.next[id*b.m.classes : (id+1)*b.m.classes] {
				if live[n] {
					live[id], changed = true, true
					break
				}
			}
		}
	}
	for id := range live {
		b.m.dead[id] = !live[id]
	}
	return true
}

// MatchString reports whether s holds a match, as regexp.MatchString.
func (m *matcher) MatchString(s string) bool {
	st := 0
	if m.match[0] {
		return true
	}
	for i := 0; i < len(s); {
		r := rune(s[i])
		c := 0
		if r < utf8.RuneSelf {
			c = int(m.ascii[r])
			i++
		} else {
			var w int
			r, w = utf8.DecodeRuneInString(s[i:])
			c = m.class(r)
			i += w
		}
		st = int(m.next[st*m.classes+c])
		if m.match[st] {
			return true
		}
		if m.dead[st] {
			return false
		}
	}
	return m.atEnd[st]
}

// Matcher returns re.MatchString, answered by an automaton built from re
// where one can be (one pass over the string, a table lookup per rune, no
// backtracking or thread simulation) and by re itself elsewhere. Building
// the automaton costs about as much as compiling re again, so callers build
// it once, where they compile re. The result is safe for concurrent use.
func Matcher(re *regexp.Regexp) func(string) bool {
	if m := compileMatcher(re); m != nil {
		return m.MatchString
	}
	return re.MatchString
}
