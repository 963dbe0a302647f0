package versionsort

import (
	"math"
	"slices"
	"strconv"
)

// Stage is the maturity of a Kubernetes-style version. A higher stage ranks
// above a lower one regardless of the numbers: v1 > v9beta9 > v9alpha9.
type Stage int8

// Stages in increasing priority.
const (
	Alpha Stage = iota
	Beta
	GA
)

// String returns "alpha", "beta" or "" (GA), the text the stage takes in a
// version string.
func (s Stage) String() string {
	switch s {
	case Alpha:
		return "alpha"
	case Beta:
		return "beta"
	}
	return ""
}

// KubeVersion is a parsed Kubernetes-style version: v<Major>, or
// v<Major>alpha<Minor> / v<Major>beta<Minor>. Minor is 0 for GA versions.
type KubeVersion struct {
	Major int
	Stage Stage
	Minor int
}

// String returns the canonical spelling (no leading zeros), e.g. "v2beta1".
func (v KubeVersion) String() string {
	b := make([]byte, 0, 24)
	b = append(b, 'v')
	b = strconv.AppendInt(b, int64(v.Major), 10)
	if v.Stage != GA {
		b = append(b, v.Stage.String()...)
		b = strconv.AppendInt(b, int64(v.Minor), 10)
	}
	return string(b)
}

// Parse reports whether s is a Kubernetes-style version and returns its parts.
//
// s must be exactly "v", one or more ASCII digits, and optionally "alpha" or
// "beta" followed by one or more ASCII digits. Leading zeros are allowed and
// ignored ("v01" is v1). A number that does not fit in an int makes s not
// Kubernetes-style, as the server's strconv.Atoi-based parser does.
func Parse(s string) (KubeVersion, bool) {
	if len(s) < 2 || s[0] != 'v' {
		return KubeVersion{}, false
	}
	major, i, ok := digits(s, 1)
	if !ok {
		return KubeVersion{}, false
	}
	if i == len(s) {
		return KubeVersion{Major: major, Stage: GA}, true
	}
	var stage Stage
	switch rest := s[i:]; {
	case len(rest) > 5 && rest[:5] == "alpha":
		stage, i = Alpha, i+5
	case len(rest) > 4 && rest[:4] == "beta":
		stage, i = Beta, i+4
	default:
		return KubeVersion{}, false
	}
	minor, j, ok := digits(s, i)
	if !ok || j != len(s) {
		return KubeVersion{}, false
	}
	return KubeVersion{Major: major, Stage: stage, Minor: minor}, true
}

// digits reads a non-empty run of ASCII digits starting at s[i]. It returns
// the value, the index after the run, and false when the run is empty or its
// value overflows int.
func digits(s string, i int) (n, end int, ok bool) {
	start := i
	var v uint64
	overflow := false
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		if overflow {
			continue
		}
		d := uint64(s[i] - '0')
		if v > (math.MaxInt-d)/10 {
			overflow = true
			continue
		}
		v = v*10 + d
	}
	if i == start || overflow {
		return 0, i, false
	}
	return int(v), i, true
}

// Compare orders two version strings by Kubernetes version priority. The
// result is positive when a ranks above b, negative when b ranks above a, and
// zero when they rank the same. Its sign always equals that of the server's
// CompareKubeAwareVersionStrings:
//
//   - equal strings rank the same;
//   - a Kubernetes-style version ranks above any other string;
//   - between Kubernetes-style versions GA > beta > alpha, then the higher
//     major, then the higher minor ranks above; spellings of the same number
//     rank the same ("v01" and "v1");
//   - other strings rank in reverse lexical (byte) order: "a" above "b".
//
// The result is always -1, 0 or +1. Compare does not allocate.
func Compare(a, b string) int {
	if a == b {
		return 0
	}
	va, oka := Parse(a)
	vb, okb := Parse(b)
	switch {
	case !oka && !okb:
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	case !oka:
		return -1
	case !okb:
		return 1
	}
	switch {
	case va.Stage != vb.Stage:
		return sign(int(va.Stage) - int(vb.Stage))
	case va.Major != vb.Major:
		return cmpInt(va.Major, vb.Major)
	}
	return cmpInt(va.Minor, vb.Minor)
}

func sign(d int) int {
	switch {
	case d > 0:
		return 1
	case d < 0:
		return -1
	}
	return 0
}

func cmpInt(a, b int) int {
	switch {
	case a > b:
		return 1
	case a < b:
		return -1
	}
	return 0
}

// Sort sorts versions in place by priority, highest first. The sort is
// stable: strings that rank the same (such as "v1" and "v01") keep their
// relative order. The server sorts with an unstable sort, which for the
// short lists found in CRDs (at most 12 entries) happens to keep that
// order too.
func Sort(versions []string) {
	slices.SortStableFunc(versions, func(a, b string) int { return Compare(b, a) })
}
