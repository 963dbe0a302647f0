package versionsort

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in     string
		want   KubeVersion
		wantOK bool
	}{
		{"v1", KubeVersion{Major: 1, Stage: GA}, true},
		{"v0", KubeVersion{Major: 0, Stage: GA}, true},
		{"v10", KubeVersion{Major: 10, Stage: GA}, true},
		{"v01", KubeVersion{Major: 1, Stage: GA}, true},
		{"v2beta10", KubeVersion{Major: 2, Stage: Beta, Minor: 10}, true},
		{"v3alpha1", KubeVersion{Major: 3, Stage: Alpha, Minor: 1}, true},
		{"v1alpha0", KubeVersion{Major: 1, Stage: Alpha, Minor: 0}, true},
		{"v007beta007", KubeVersion{Major: 7, Stage: Beta, Minor: 7}, true},
		{"v9223372036854775807", KubeVersion{Major: 9223372036854775807, Stage: GA}, true},
		{"v0000000000000000000000000001", KubeVersion{Major: 1, Stage: GA}, true},
		{"v1beta9223372036854775807", KubeVersion{Major: 1, Stage: Beta, Minor: 9223372036854775807}, true},
		// Not Kubernetes-style.
		{"", KubeVersion{}, false},
		{"v", KubeVersion{}, false},
		{"1", KubeVersion{}, false},
		{"V1", KubeVersion{}, false},
		{"v1.1", KubeVersion{}, false},
		{"v1alpha1.1", KubeVersion{}, false},
		{"v1alpha", KubeVersion{}, false},
		{"v1beta", KubeVersion{}, false},
		{"valpha1", KubeVersion{}, false},
		{"v1gamma1", KubeVersion{}, false},
		{"v1Alpha1", KubeVersion{}, false},
		{"v1alpha1beta1", KubeVersion{}, false},
		{"v1 ", KubeVersion{}, false},
		{" v1", KubeVersion{}, false},
		{"v1\n", KubeVersion{}, false},
		{"v-1", KubeVersion{}, false},
		{"v+1", KubeVersion{}, false},
		{"v١", KubeVersion{}, false}, // Arabic-Indic digit one: \d is ASCII only
		{"foo1", KubeVersion{}, false},
		{"version1", KubeVersion{}, false},
		// Overflow: strconv.Atoi fails, so the string is ordinary.
		{"v9223372036854775808", KubeVersion{}, false},
		{"v99999999999999999999", KubeVersion{}, false},
		{"v1beta9223372036854775808", KubeVersion{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := Parse(tt.in)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Parse(%q) = %+v, %v, want %+v, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
			if ok != referenceKube(tt.in) {
				t.Errorf("Parse(%q) ok = %v, reference says %v", tt.in, ok, referenceKube(tt.in))
			}
		})
	}
}

func TestKubeVersionString(t *testing.T) {
	for in, want := range map[string]string{"v01": "v1", "v2beta003": "v2beta3", "v0alpha0": "v0alpha0", "v10": "v10"} {
		v, ok := Parse(in)
		if !ok || v.String() != want {
			t.Errorf("Parse(%q).String() = %q (ok %v), want %q", in, v.String(), ok, want)
		}
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"v1", "v1", 0},
		{"v2", "v1", 1},
		{"v1", "v2", -1},
		{"v10", "v9", 1},
		{"v10", "v2", 1},
		{"v1", "v9beta9", 1},
		{"v1", "v9alpha9", 1},
		{"v1beta1", "v9alpha9", 1},
		{"v2beta1", "v1beta9", 1},
		{"v1beta10", "v1beta9", 1},
		{"v1alpha10", "v1alpha2", 1},
		{"v1alpha2", "v1alpha1", 1},
		{"v01", "v1", 0},
		{"v1beta01", "v1beta1", 0},
		{"v001alpha1", "v1alpha001", 0},
		{"v0", "v00", 0},
		{"v1", "foo", 1},
		{"foo", "v1alpha1", -1},
		{"v1alpha1", "zzz", 1},
		{"a", "b", 1},
		{"b", "a", -1},
		{"foo1", "foo10", 1},
		{"foo10", "foo2", 1},
		{"version1", "version2", 1},
		{"", "a", 1},
		{"", "v1", -1},
		{"", "", 0},
		{"v1.0", "v1", -1},
		{"V2", "v1", -1},
		{"v9223372036854775807", "v9223372036854775806", 1},
		{"v9223372036854775808", "v1", -1}, // overflow: ordinary string
		{"v9223372036854775808", "v9223372036854775809", 1},
		{"v1alpha9223372036854775807", "v1alpha0", 1},
		{"v1", "v1alpha9223372036854775807", 1},
	}
	for _, tt := range tests {
		t.Run(tt.a+"_"+tt.b, func(t *testing.T) {
			if got := Compare(tt.a, tt.b); got != tt.want {
				t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := Compare(tt.b, tt.a); got != -tt.want {
				t.Errorf("Compare(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
			}
			if ref := referenceCompare(tt.a, tt.b); ref != tt.want {
				t.Errorf("referenceCompare(%q, %q) = %d, want %d", tt.a, tt.b, ref, tt.want)
			}
		})
	}
}

func TestSortSeed(t *testing.T) {
	want := []string{"v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2", "foo1", "foo10"}
	// Every rotation and the reverse of the seed list sort to the same order.
	inputs := [][]string{slices.Clone(want)}
	rev := slices.Clone(want)
	slices.Reverse(rev)
	inputs = append(inputs, rev)
	for i := 1; i < len(want); i++ {
		inputs = append(inputs, append(slices.Clone(want[i:]), want[:i]...))
	}
	for _, in := range inputs {
		got := slices.Clone(in)
		Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("Sort(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestSortStable(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{[]string{"v1", "v01", "v2", "v001"}, []string{"v2", "v1", "v01", "v001"}},
		{[]string{"v001", "v01", "v1"}, []string{"v001", "v01", "v1"}},
		{[]string{"v1beta1", "v1beta01", "v1"}, []string{"v1", "v1beta1", "v1beta01"}},
		{nil, nil},
		{[]string{}, []string{}},
	}
	for _, tt := range tests {
		got := slices.Clone(tt.in)
		Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Sort(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestCompareAllocs(t *testing.T) {
	pairs := [][2]string{
		{"v10", "v2"}, {"v11beta2", "v10beta3"}, {"foo1", "foo10"}, {"v1", "foo"},
		{"v99999999999999999999", "v1alpha1"}, {"v01", "v1"},
	}
	allocs := testing.AllocsPerRun(100, func() {
		for _, p := range pairs {
			Compare(p[0], p[1])
			Parse(p[0])
		}
	})
	if allocs != 0 {
		t.Errorf("Compare allocates %v times per run, want 0", allocs)
	}
}

func TestVersions(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name          string
		versions      []Version
		wantOrder     []string
		wantPreferred string
		wantStorage   string
		wantWarnings  map[string]string
	}{
		{
			name: "crontab",
			versions: []Version{
				{Name: "v1beta1", Served: true, Deprecated: true},
				{Name: "v1", Served: true, Storage: true},
			},
			wantOrder:     []string{"v1", "v1beta1"},
			wantPreferred: "v1",
			wantStorage:   "v1",
			wantWarnings: map[string]string{
				"v1beta1": "stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab",
			},
		},
		{
			name: "custom warning and unserved top version",
			versions: []Version{
				{Name: "v3", Served: false},
				{Name: "v2", Served: true, Storage: true},
				{Name: "v1", Served: true, Deprecated: true, DeprecationWarning: str("v1 goes away in 2027")},
				{Name: "v1alpha1", Served: true, Deprecated: true},
			},
			wantOrder:     []string{"v3", "v2", "v1", "v1alpha1"},
			wantPreferred: "v2",
			wantStorage:   "v2",
			wantWarnings: map[string]string{
				"v1": "v1 goes away in 2027",
				// v1 ranks higher but is deprecated; v3 is not served.
				"v1alpha1": "stable.example.com/v1alpha1 CronTab is deprecated; use stable.example.com/v2 CronTab",
			},
		},
		{
			name: "replacement must rank strictly higher",
			versions: []Version{
				{Name: "v1", Served: true},
				{Name: "v2", Served: true, Storage: true, Deprecated: true},
				{Name: "v3alpha1", Served: true},
				{Name: "v3beta1", Served: true},
			},
			wantOrder:     []string{"v2", "v1", "v3beta1", "v3alpha1"},
			wantPreferred: "v2",
			wantStorage:   "v2",
			wantWarnings:  map[string]string{"v2": "stable.example.com/v2 CronTab is deprecated"},
		},
		{
			name: "non-kube names",
			versions: []Version{
				{Name: "foo10", Served: true, Deprecated: true},
				{Name: "foo1", Served: true, Storage: true},
			},
			wantOrder:     []string{"foo1", "foo10"},
			wantPreferred: "foo1",
			wantStorage:   "foo1",
			wantWarnings:  map[string]string{"foo10": "stable.example.com/foo10 CronTab is deprecated; use stable.example.com/foo1 CronTab"},
		},
		{
			name: "equal rank keeps spec order",
			versions: []Version{
				{Name: "v01", Served: true},
				{Name: "v1", Served: true, Storage: true},
				{Name: "v1beta1", Served: true, Deprecated: true},
			},
			wantOrder:     []string{"v01", "v1", "v1beta1"},
			wantPreferred: "v01",
			wantStorage:   "v1",
			wantWarnings:  map[string]string{"v1beta1": "stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v01 CronTab"},
		},
		{
			name: "first storage in spec order, nothing served",
			versions: []Version{
				{Name: "v1", Storage: true},
				{Name: "v2", Storage: true},
			},
			wantOrder:    []string{"v2", "v1"},
			wantStorage:  "v1",
			wantWarnings: map[string]string{},
		},
		{
			name:         "empty",
			wantOrder:    []string{},
			wantWarnings: map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.versions)
			vs := New("stable.example.com", "CronTab", in)
			if got := vs.Names(); !slices.Equal(got, tt.wantOrder) {
				t.Errorf("Names() = %v, want %v", got, tt.wantOrder)
			}
			if vs.Len() != len(tt.versions) {
				t.Errorf("Len() = %d, want %d", vs.Len(), len(tt.versions))
			}
			p, ok := vs.Preferred()
			if p != tt.wantPreferred || ok != (tt.wantPreferred != "") {
				t.Errorf("Preferred() = %q, %v, want %q", p, ok, tt.wantPreferred)
			}
			s, ok := vs.Storage()
			if s != tt.wantStorage || ok != (tt.wantStorage != "") {
				t.Errorf("Storage() = %q, %v, want %q", s, ok, tt.wantStorage)
			}
			for _, v := range tt.versions {
				w, ok := vs.Warning(v.Name)
				want, wantOK := tt.wantWarnings[v.Name]
				if w != want || ok != wantOK {
					t.Errorf("Warning(%q) = %q, %v, want %q, %v", v.Name, w, ok, want, wantOK)
				}
				got, found := vs.Lookup(v.Name)
				if !found || got.Name != v.Name || got.Served != v.Served || got.Storage != v.Storage || got.Deprecated != v.Deprecated {
					t.Errorf("Lookup(%q) = %+v, %v", v.Name, got, found)
				}
			}
			if _, ok := vs.Warning("nope"); ok {
				t.Errorf("Warning(%q) reported a deprecated version", "nope")
			}
			if _, ok := vs.Lookup("nope"); ok {
				t.Errorf("Lookup(%q) found a version", "nope")
			}
		})
	}
}

func TestVersionsImmutable(t *testing.T) {
	w := "custom"
	in := []Version{{Name: "v1", Served: true, Deprecated: true, DeprecationWarning: &w}, {Name: "v2", Served: true, Storage: true}}
	vs := New("g", "K", in)
	w = "changed"
	in[1].Name = "v9"
	out := vs.Ordered()
	*out[1].DeprecationWarning = "changed again"
	out[0].Name = "x"
	if got, _ := vs.Warning("v1"); got != "custom" {
		t.Errorf("Warning(v1) = %q after caller mutation, want %q", got, "custom")
	}
	if got := vs.Names(); !slices.Equal(got, []string{"v2", "v1"}) {
		t.Errorf("Names() = %v after caller mutation, want [v2 v1]", got)
	}
	if v, _ := vs.Lookup("v1"); *v.DeprecationWarning != "custom" {
		t.Errorf("Lookup(v1).DeprecationWarning = %q, want %q", *v.DeprecationWarning, "custom")
	}
}

func TestDefaultWarning(t *testing.T) {
	many := []Version{
		{Name: "v1", Served: true}, {Name: "v1alpha1", Served: true}, {Name: "v1beta2", Served: true},
		{Name: "v2", Served: true}, {Name: "v2beta2", Served: true}, {Name: "v3", Served: false},
		{Name: "v3beta1", Served: false},
	}
	tests := []struct {
		deprecated string
		versions   []Version
		want       string
	}{
		{"v1", many, "example.com/v1 Widget is deprecated; use example.com/v2 Widget"},
		{"v1alpha1", many, "example.com/v1alpha1 Widget is deprecated; use example.com/v2 Widget"},
		{"v3", many, "example.com/v3 Widget is deprecated"},
		{"v2", []Version{{Name: "v2", Served: true, Deprecated: true}, {Name: "v3", Served: true, Deprecated: true}}, "example.com/v2 Widget is deprecated"},
		// The deprecated name need not be in the list.
		{"v0", []Version{{Name: "foo", Served: true}, {Name: "v0alpha1", Served: true}}, "example.com/v0 Widget is deprecated"},
		{"foo", []Version{{Name: "bar", Served: true}, {Name: "zzz", Served: true}}, "example.com/foo Widget is deprecated; use example.com/bar Widget"},
	}
	for _, tt := range tests {
		if got := DefaultWarning("example.com", "Widget", tt.deprecated, tt.versions); got != tt.want {
			t.Errorf("DefaultWarning(%q) = %q, want %q", tt.deprecated, got, tt.want)
		}
	}
}

// referenceKube and referenceCompare restate the rules with a regular
// expression and strconv, the slow way, as an oracle for Parse and Compare.
var referenceRE = regexp.MustCompile(`^v([0-9]+)(?:(alpha|beta)([0-9]+))?$`)

func referenceParse(s string) (major, stage, minor int, ok bool) {
	m := referenceRE.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, 0, false
	}
	major, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, 0, 0, false
	}
	stage = map[string]int{"alpha": 0, "beta": 1, "": 2}[m[2]]
	if m[2] != "" {
		if minor, err = strconv.Atoi(m[3]); err != nil {
			return 0, 0, 0, false
		}
	}
	return major, stage, minor, true
}

func referenceKube(s string) bool {
	_, _, _, ok := referenceParse(s)
	return ok
}

func referenceCompare(a, b string) int {
	if a == b {
		return 0
	}
	ma, sa, na, oka := referenceParse(a)
	mb, sb, nb, okb := referenceParse(b)
	if !oka || !okb {
		switch {
		case oka:
			return 1
		case okb:
			return -1
		}
		return -strings.Compare(a, b)
	}
	for _, d := range [][2]int{{sa, sb}, {ma, mb}, {na, nb}} {
		if d[0] != d[1] {
			if d[0] > d[1] {
				return 1
			}
			return -1
		}
	}
	return 0
}

func FuzzCompare(f *testing.F) {
	seed := []string{"v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2", "foo1", "foo10",
		"v01", "", "v", "v1alpha", "v9223372036854775808", "v9223372036854775807"}
	for i, a := range seed {
		f.Add(a, seed[(i+1)%len(seed)], seed[(i+5)%len(seed)])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ab, ba := Compare(a, b), Compare(b, a)
		if ab != -ba {
			t.Fatalf("Compare(%q, %q) = %d but Compare(%q, %q) = %d", a, b, ab, b, a, ba)
		}
		if ab < -1 || ab > 1 {
			t.Fatalf("Compare(%q, %q) = %d, want -1, 0 or 1", a, b, ab)
		}
		if ref := referenceCompare(a, b); ref != ab {
			t.Fatalf("Compare(%q, %q) = %d, reference %d", a, b, ab, ref)
		}
		if Compare(a, a) != 0 {
			t.Fatalf("Compare(%q, %q) != 0", a, a)
		}
		bc, ac := Compare(b, c), Compare(a, c)
		if ab >= 0 && bc >= 0 && ac < 0 {
			t.Fatalf("not transitive: %q >= %q >= %q but Compare(%q, %q) = %d", a, b, c, a, c, ac)
		}
		if ab == 0 && bc == 0 && ac != 0 {
			t.Fatalf("equality not transitive: %q == %q == %q but Compare(%q, %q) = %d", a, b, c, a, c, ac)
		}
		s := []string{c, a, b}
		Sort(s)
		for i := 0; i+1 < len(s); i++ {
			if Compare(s[i], s[i+1]) < 0 {
				t.Fatalf("Sort gave %q before %q, which ranks higher", s[i], s[i+1])
			}
		}
	})
}
