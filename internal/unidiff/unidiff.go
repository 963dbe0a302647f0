// Package unidiff writes the unified diff of two texts, as diff -u prints
// it (the format kubectl diff shows): a "---" and a "+++" header, then
// hunks of changed lines with three lines of context.
//
// Lines are compared whole; the edit script is a shortest one (Myers'
// algorithm), so that hunks are as small as diff's. The work is bounded:
// texts of more than MaxLines lines are compared as one replaced block.
package unidiff

import (
	"fmt"
	"strings"
)

// MaxLines bounds the lines of either text compared line by line: past it
// the whole text is one hunk (diff's answer is then not minimal, but it is
// correct and costs linear time).
const MaxLines = 20000

// context is the number of unchanged lines around each change.
const context = 3

// Diff returns the unified diff of a and b with the header names from and
// to, or "" when they are equal.
func Diff(from, to, a, b string) string {
	if a == b {
		return ""
	}
	x, y := lines(a), lines(b)
	ops := script(x, y)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", from, to)
	for _, h := range hunks(ops) {
		writeHunk(&sb, h, x, y)
	}
	return sb.String()
}

// lines splits s into lines, each keeping its line end; a last line
// without one is marked as diff marks it.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// op is one line of the edit script: kept (both indexes), deleted (x) or
// inserted (y).
type op struct {
	kind byte // ' ', '-', '+'
	x, y int
}

// script is a shortest edit script from x to y.
func script(x, y []string) []op {
	// Common prefix and suffix first: most diffs are small changes in
	// long texts.
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', i, i})
	}
	ops = append(ops, middle(x[pre:len(x)-suf], y[pre:len(y)-suf], pre, pre)...)
	for i := 0; i < suf; i++ {
		ops = append(ops, op{' ', len(x) - suf + i, len(y) - suf + i})
	}
	return ops
}

// middle is the edit script of x and y (offsets ox and oy into the whole
// texts), by Myers' greedy algorithm with its trace kept for the path.
func middle(x, y []string, ox, oy int) []op {
	n, m := len(x), len(y)
	if n+m > 2*MaxLines || n == 0 || m == 0 {
		var ops []op
		for i := range x {
			ops = append(ops, op{'-', ox + i, oy})
		}
		for j := range y {
			ops = append(ops, op{'+', ox + n, oy + j})
		}
		return ops
	}
	max := n + m
	v := make([]int, 2*max+2)
	var trace [][]int
	var d int
search:
	for d = 0; d <= max; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || k != d && v[max+k-1] < v[max+k+1] {
				i = v[max+k+1]
			} else {
				i = v[max+k-1] + 1
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i++
				j++
			}
			v[max+k] = i
			if i >= n && j >= m {
				break search
			}
		}
	}
	// Walk the trace back from (n, m).
	var rev []op
	i, j := n, m
	for ; d > 0; d-- {
		vd := trace[d]
		k := i - j
		var pk int
		if k == -d || k != d && vd[max+k-1] < vd[max+k+1] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		pi := vd[max+pk]
		pj := pi - pk
		for i > pi && j > pj {
			i--
			j--
			rev = append(rev, op{' ', ox + i, oy + j})
		}
		if i == pi {
			j--
			rev = append(rev, op{'+', ox + i, oy + j})
		} else {
			i--
			rev = append(rev, op{'-', ox + i, oy + j})
		}
	}
	for i > 0 && j > 0 {
		i--
		j--
		rev = append(rev, op{' ', ox + i, oy + j})
	}
	ops := make([]op, len(rev))
	for k := range rev {
		ops[k] = rev[len(rev)-1-k]
	}
	return ops
}

// hunks groups the script into runs of changes with their context.
func hunks(ops []op) [][]op {
	var out [][]op
	start := -1
	lastChange := -1
	for i, o := range ops {
		if o.kind == ' ' {
			continue
		}
		if start >= 0 && i-lastChange > 2*context {
			out = append(out, ops[max(start-context, 0):min(lastChange+context+1, len(ops))])
			start = -1
		}
		if start < 0 {
			start = i
		}
		lastChange = i
	}
	if start >= 0 {
		out = append(out, ops[max(start-context, 0):min(lastChange+context+1, len(ops))])
	}
	return out
}

func writeHunk(sb *strings.Builder, h []op, x, y []string) {
	var ax, ay, nx, ny int
	ax, ay = -1, -1
	for _, o := range h {
		if o.kind != '+' {
			if ax < 0 {
				ax = o.x
			}
			nx++
		}
		if o.kind != '-' {
			if ay < 0 {
				ay = o.y
			}
			ny++
		}
	}
	if ax < 0 {
		ax = h[0].x
	}
	if ay < 0 {
		ay = h[0].y
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", rng(ax, nx), rng(ay, ny))
	for _, o := range h {
		var l string
		switch o.kind {
		case '+':
			l = y[o.y]
		default:
			l = x[o.x]
		}
		sb.WriteByte(o.kind)
		sb.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// rng is a hunk range as diff -u prints it: start,count with 1-based
// lines; a count of one is left out, and an empty range starts at the
// line before it.
func rng(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
