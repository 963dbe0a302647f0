package upstreamdiff

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/version"

	"github.com/crdkit/crdkit/versionsort"
)

// vsCases are version strings chosen to reach every rule of the comparison:
// stages, majors and minors, leading zeros, overflow, near misses of the
// Kubernetes form, and ordinary strings.
var vsCases = []string{
	"v1", "v2", "v10", "v11", "v01", "v001", "v0", "v00",
	"v1alpha1", "v1alpha2", "v1alpha10", "v1beta1", "v1beta2", "v1beta10", "v2alpha1", "v2beta1",
	"v10beta3", "v11beta2", "v3beta1", "v12alpha1", "v11alpha2", "v1beta01", "v0alpha0",
	"v9223372036854775807", "v9223372036854775808", "v18446744073709551616", "v99999999999999999999",
	"v1alpha9223372036854775807", "v1alpha9223372036854775808", "v0000000000000000000000000000001",
	"", "v", "V1", "1", "v1.0", "v1.1", "v1alpha", "v1beta", "valpha1", "v1gamma1", "v1Alpha1",
	"v1alpha1beta1", "v1 ", " v1", "v1\n", "v-1", "v+1", "v١", "vv1",
	"foo", "foo1", "foo10", "bar", "a", "b", "version1", "version2", "version10", "alpha", "beta",
}

func vsSign(n int) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

func vsCheck(t *testing.T, a, b string) {
	t.Helper()
	got := versionsort.Compare(a, b)
	want := vsSign(version.CompareKubeAwareVersionStrings(a, b))
	if got != want {
		t.Errorf("Compare(%q, %q) = %d, upstream sign %d", a, b, got, want)
	}
}

func TestVersionCompareTable(t *testing.T) {
	for _, a := range vsCases {
		for _, b := range vsCases {
			vsCheck(t, a, b)
		}
	}
}

// TestVersionCompareRandom compares 10,000 random strings over a small
// alphabet, each against its neighbours and a few fixed versions.
func TestVersionCompareRandom(t *testing.T) {
	alphabet := []string{"v", "1", "0", "2", "9", "alpha", "beta", "a", "x", "."}
	r := rand.New(rand.NewPCG(7, 1))
	strs := make([]string, 10000)
	for i := range strs {
		var b strings.Builder
		n := r.IntN(6)
		if r.IntN(3) > 0 {
			b.WriteString("v") // most strings start like a version
		}
		for j := 0; j < n; j++ {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		strs[i] = b.String()
	}
	fixed := []string{"v1", "v2beta1", "v1alpha1", "foo", ""}
	for i, a := range strs {
		vsCheck(t, a, strs[(i+1)%len(strs)])
		vsCheck(t, a, strs[(i*7919)%len(strs)])
		for _, b := range fixed {
			vsCheck(t, a, b)
		}
		if t.Failed() {
			return
		}
	}
	// Sorting agrees with upstream's ordering of the same strings: every
	// adjacent pair is in non-increasing upstream priority.
	sorted := slices.Clone(strs[:500])
	versionsort.Sort(sorted)
	for i := 0; i+1 < len(sorted); i++ {
		if version.CompareKubeAwareVersionStrings(sorted[i], sorted[i+1]) < 0 {
			t.Fatalf("Sort put %q before %q, which upstream ranks higher", sorted[i], sorted[i+1])
		}
	}
}

// TestVersionSortMatchesServer sorts as the server's callers do (sort.Slice
// with the upstream comparison) and compares with Sort. For lists of up to 12
// entries, the server's sort keeps equal-ranked strings in input order, as
// Sort does, so the results are identical.
func TestVersionSortMatchesServer(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for n := 0; n < 2000; n++ {
		list := make([]string, r.IntN(13))
		for i := range list {
			list[i] = vsCases[r.IntN(len(vsCases))]
		}
		want := slices.Clone(list)
		sort.Slice(want, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(want[i], want[j]) > 0 })
		got := slices.Clone(list)
		versionsort.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("Sort(%q) = %q, server order %q", list, got, want)
		}
	}
}

func FuzzVersionCompare(f *testing.F) {
	for i, a := range vsCases {
		f.Add(a, vsCases[(i*7+3)%len(vsCases)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		vsCheck(t, a, b)
		vsCheck(t, b, a)
	})
}
