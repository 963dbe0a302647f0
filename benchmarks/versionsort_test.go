package benchmarks

import (
	"slices"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/version"

	"github.com/crdkit/crdkit/versionsort"
)

// vsBenchPairs are the comparisons BenchmarkVersionCompare times, one per
// rule of the ordering.
var vsBenchPairs = []struct{ name, a, b string }{
	{"ga", "v10", "v2"},
	{"beta", "v11beta2", "v10beta3"},
	{"alpha-vs-ga", "v12alpha1", "v1"},
	{"equal", "v1beta1", "v1beta1"},
	{"leading-zero", "v01", "v1"},
	{"kube-vs-other", "v1", "foo"},
	{"other", "foo1", "foo10"},
	{"overflow", "v99999999999999999999", "v1alpha1"},
}

var vsBenchSeed = []string{"foo10", "v1", "v11alpha2", "v10beta3", "v2", "foo1", "v3beta1", "v12alpha1", "v11beta2", "v10"}

var vsBenchSink int

// BenchmarkVersionCompare times versionsort.Compare against the server's
// CompareKubeAwareVersionStrings on the same pairs, and sorting the
// documentation's ten versions both ways (the server sorts with sort.Slice).
func BenchmarkVersionCompare(b *testing.B) {
	for _, p := range vsBenchPairs {
		b.Run(p.name, func(b *testing.B) {
			b.Run("crdkit", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					vsBenchSink += versionsort.Compare(p.a, p.b)
				}
			})
			b.Run("upstream", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					vsBenchSink += version.CompareKubeAwareVersionStrings(p.a, p.b)
				}
			})
		})
	}
	b.Run("sort-seed", func(b *testing.B) {
		buf := make([]string, len(vsBenchSeed))
		b.Run("crdkit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(buf, vsBenchSeed)
				versionsort.Sort(buf)
			}
		})
		b.Run("upstream", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(buf, vsBenchSeed)
				sort.Slice(buf, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(buf[i], buf[j]) > 0 })
			}
		})
	})
}

// TestVersionCompareBenchInputs checks that both implementations agree on
// the benchmark inputs, so the benchmark compares equal work.
func TestVersionCompareBenchInputs(t *testing.T) {
	for _, p := range vsBenchPairs {
		got, want := versionsort.Compare(p.a, p.b), version.CompareKubeAwareVersionStrings(p.a, p.b)
		if (got > 0) != (want > 0) || (got < 0) != (want < 0) {
			t.Errorf("%s: Compare(%q, %q) = %d, upstream %d", p.name, p.a, p.b, got, want)
		}
	}
	mine, theirs := slices.Clone(vsBenchSeed), slices.Clone(vsBenchSeed)
	versionsort.Sort(mine)
	sort.Slice(theirs, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(theirs[i], theirs[j]) > 0 })
	if !slices.Equal(mine, theirs) {
		t.Errorf("Sort = %v, upstream %v", mine, theirs)
	}
}
