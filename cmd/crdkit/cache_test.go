package main

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crdkit/crdkit/internal/corpus"
)

// TestMain gives the package's tests a cache directory of their own, so
// that every test runs with the cache (and none writes to the user's), and
// runs the test binary as crdkit when a test starts it so
// (CRDKIT_TEST_AS_MAIN), for runs in processes of their own.
func TestMain(m *testing.M) {
	if os.Getenv("CRDKIT_TEST_AS_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "crdkit-cache-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("CRDKIT_CACHE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// tookRE matches how long a run took, in the summary line.
var tookRE = regexp.MustCompile(`\([0-9hm.]+[µnm]?s\)`)

// cliRun is one run's output.
type cliRun struct {
	code        int
	out, errOut string
}

func runWithCache(t *testing.T, dir string, args ...string) cliRun {
	t.Helper()
	t.Setenv("CRDKIT_CACHE_DIR", dir)
	code, out, errOut := runCLI(t, args...)
	return cliRun{code, out, tookRE.ReplaceAllString(errOut, "(T)")}
}

// entries lists the cache's entry files with their contents' SHA-256.
func entries(t *testing.T, dir string) map[string]string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, de := range des {
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(b)
		out[de.Name()] = hex.EncodeToString(s[:])
	}
	return out
}

// noCacheArgs is args with --no-cache after the command's name.
func noCacheArgs(args []string) []string {
	return append([]string{args[0], "--no-cache"}, args[1:]...)
}

// corpusDir returns the corpus root, or skips the test without it.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir, ok := corpus.Root()
	if !ok {
		t.Skip("no corpus (../shared/corpus or CRDKIT_CORPUS): the cache is checked on the corpus CRDs")
	}
	return dir
}

// cacheCases are command lines over the corpus whose output must not
// depend on the cache.
func cacheCases(t *testing.T) [][]string {
	dir := corpusDir(t)
	crds, objs := filepath.Join(dir, "crds"), filepath.Join(dir, "objects")
	prometheus := filepath.Join(objs, "prometheus-operator", "prometheus.yaml")
	return [][]string{
		{"validate", "--crds", crds, prometheus},
		{"validate", "-o", "json", "--field-validation", "Warn", "--crds", crds, objs},
		{"validate", "-o", "json", crds, objs}, // the CRDs among the inputs
		{"validate", "--crds", crds, filepath.Join(objs, "argo-rollouts", "rollout-canary.yaml")},
		{"validate", "--crds", crds, filepath.Join(objs, "cert-manager", "issuers.valid.yaml")},
		{"validate", "-o", "yaml", "--field-validation", "Ignore", "-n", "other", "--crds", crds, prometheus},
	}
}

// TestCacheSameOutput runs command lines over the corpus without the cache,
// with an empty one and with the one the first run filled: stdout, stderr
// (but for how long the run took) and the exit status must be the same,
// and the warm run must find what it needs (it writes nothing). (Each
// whole-corpus run compiles every CRD: under -race on a loaded machine,
// a minute each; hence few of them.)
func TestCacheSameOutput(t *testing.T) {
	cases, ok := cacheCases(t), 0
	for _, args := range cases {
		ok++
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			defer func() {
				if t.Failed() {
					ok--
				}
			}()
			dir := t.TempDir()
			want := runWithCache(t, "off", args...)
			cold := runWithCache(t, dir, args...)
			filled := entries(t, dir)
			warm := runWithCache(t, dir, args...)
			for _, r := range []struct {
				name string
				got  cliRun
			}{{"cold", cold}, {"warm", warm}} {
				if r.got != want {
					t.Errorf("crdkit %s (%s cache) = %d\n%s\n%s\nwant (no cache) %d\n%s\n%s", args, r.name, r.got.code, r.got.out, r.got.errOut, want.code, want.out, want.errOut)
				}
			}
			if len(filled) == 0 {
				t.Errorf("crdkit %s wrote no cache entry", args)
			}
			if got := entries(t, dir); fmt.Sprint(got) != fmt.Sprint(filled) {
				t.Errorf("crdkit %s: the warm run changed the cache: %d entries, want %d as the cold run left them", args, len(got), len(filled))
			}
		})
	}
	fmt.Printf("conformance: cached (cold, warm) and uncached runs over the corpus, same stdout, stderr and exit status %d/%d\n", ok, len(cases))
}

// TestCacheOff: --no-cache and CRDKIT_CACHE_DIR=off neither read nor write
// the cache; an unusable cache directory changes nothing but speed.
func TestCacheOff(t *testing.T) {
	args := cacheCases(t)[0]
	want := runWithCache(t, "off", args...)
	dir := t.TempDir()
	if got := runWithCache(t, dir, noCacheArgs(args)...); got != want {
		t.Errorf("crdkit --no-cache %s = %+v, want %+v", args, got, want)
	}
	if n := len(entries(t, dir)); n != 0 {
		t.Errorf("crdkit --no-cache %s wrote %d entries, want none", args, n)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(file, "cache"), file} {
		if got := runWithCache(t, d, args...); got != want {
			t.Errorf("crdkit %s with CRDKIT_CACHE_DIR=%s (not a directory) = %+v, want %+v", args, d, got, want)
		}
	}
}

// TestCacheCorrupt damages every entry a run left (truncated, emptied, a
// byte of the contents flipped, another entry's file under its name) and
// checks that the next run prints the same, and writes the entries again.
func TestCacheCorrupt(t *testing.T) {
	args := cacheCases(t)[0]
	want := runWithCache(t, "off", args...)
	damages := []struct {
		name string
		do   func(b []byte, other []byte) []byte
	}{
		{"truncated", func(b, _ []byte) []byte { return b[:len(b)/2] }},
		{"header only", func(b, _ []byte) []byte { return b[:entryHeaderSize] }},
		{"empty", func([]byte, []byte) []byte { return nil }},
		{"flipped byte", func(b, _ []byte) []byte {
			b = bytes.Clone(b)
			b[len(b)-1] ^= 1
			return b
		}},
		{"flipped length", func(b, _ []byte) []byte {
			b = bytes.Clone(b)
			b[47] ^= 1
			return b
		}},
		{"another entry", func(_, other []byte) []byte { return other }},
		{"extra bytes", func(b, _ []byte) []byte { return append(bytes.Clone(b), 0) }},
	}
	for _, dm := range damages {
		t.Run(dm.name, func(t *testing.T) {
			dir := t.TempDir()
			runWithCache(t, dir, args...)
			good := entries(t, dir)
			names := make([]string, 0, len(good))
			for n := range good {
				names = append(names, n)
			}
			for i, n := range names {
				b, err := os.ReadFile(filepath.Join(dir, n))
				if err != nil {
					t.Fatal(err)
				}
				other, err := os.ReadFile(filepath.Join(dir, names[(i+1)%len(names)]))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, n), dm.do(b, other), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := runWithCache(t, dir, args...); got != want {
				t.Errorf("crdkit %s over %s entries = %+v, want %+v", args, dm.name, got, want)
			}
			if got := entries(t, dir); fmt.Sprint(got) != fmt.Sprint(good) {
				t.Errorf("crdkit %s over %s entries did not write them again", args, dm.name)
			}
		})
	}
}

// TestCacheBuilds: an entry of one build is not another's.
func TestCacheBuilds(t *testing.T) {
	dir := t.TempDir()
	a, b := newCache(dir, []byte("build a")), newCache(dir, []byte("build b"))
	sum := sha256.Sum256([]byte("kind: CustomResourceDefinition"))
	a.put(a.key(entryCRD, &sum), []byte("{}"), []byte("a warning"))
	if f, ok := a.get(a.key(entryCRD, &sum)); !ok || len(f) != 2 || string(f[0]) != "{}" || string(f[1]) != "a warning" {
		t.Errorf("get(put(x)) = %q, %v, want [{} a warning], true", f, ok)
	}
	if f, ok := b.get(b.key(entryCRD, &sum)); ok {
		t.Errorf("another build's get = %q, true, want nothing", f)
	}
	if f, ok := a.get(a.key(entryHead, &sum)); ok {
		t.Errorf("get of another kind = %q, true, want nothing", f)
	}
	// A registry of another build writes entries of its own.
	crds := filepath.Join(corpusDir(t), "crds")
	for i, c := range []*cache{a, b} {
		reg, status := loadRegistry([]string{crds}, nil, &bytes.Buffer{}, c)
		reg.close()
		if status != 0 {
			t.Fatalf("loadRegistry(%s) = %d", crds, status)
		}
		if n, want := len(entries(t, dir)), 1+(i+1)*len(reg.byGroupKind); n < want {
			t.Errorf("build %d: %d entries, want at least %d (a head per CRD per build)", i, n, want)
		}
	}
}

// TestBuildID checks the build ID read from the test binary against the
// one the ELF note holds, read with debug/elf.
func TestBuildID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Skipf("the test binary is not ELF (%v): the note is checked on Linux", err)
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil {
		t.Fatal("the test binary has no .note.go.buildid")
	}
	note, err := s.Data()
	if err != nil || len(note) < 16 {
		t.Fatalf("reading .note.go.buildid: %v", err)
	}
	want := strings.TrimRight(string(note[16:]), "\x00")
	if got := executableBuildID(); got != want {
		t.Errorf("executableBuildID() = %q, want %q", got, want)
	}
	if id, ok := buildIdentity(); !ok || string(id) != "buildid "+want {
		t.Errorf("buildIdentity() = %q, %v, want %q, true", id, ok, "buildid "+want)
	}
	for _, b := range []string{"", "\x7fELF", "\xff Go build ID: \"", "\xff Go build ID: \"\"\n \xff"} {
		if got := buildIDIn([]byte(b)); got != "" {
			t.Errorf("buildIDIn(%q) = %q, want \"\"", b, got)
		}
	}
	if got := buildIDIn([]byte("xx\xff Go build ID: \"abc/def\"\n \xffyy")); got != "abc/def" {
		t.Errorf("buildIDIn(text) = %q, want abc/def", got)
	}
}

// TestCacheEvict: past its bound, the cache removes the entries used
// least recently, down to three quarters of it, and old temporary files;
// other files are left alone.
func TestCacheEvict(t *testing.T) {
	dir := t.TempDir()
	c := newCache(dir, []byte("build"))
	c.max = 10 << 10
	base := time.Now().Add(-48 * time.Hour)
	var keys []cacheKey
	for i := range 8 {
		sum := sha256.Sum256([]byte{byte(i)})
		k := c.key(entryCRD, &sum)
		keys = append(keys, k)
		c.evictOnce = sync.Once{}
		c.evictOnce.Do(func() {}) // no eviction while filling
		c.put(k, make([]byte, 2<<10))
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(c.path(k), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	// Entry 0 was used: its time moves to now.
	if _, ok := c.get(keys[0]); !ok {
		t.Fatal("get(entry 0) found nothing")
	}
	foreign := filepath.Join(dir, "notes.txt")
	oldTmp, newTmp := filepath.Join(dir, tmpPrefix+"1"), filepath.Join(dir, tmpPrefix+"2")
	for _, p := range []string{foreign, oldTmp, newTmp} {
		if err := os.WriteFile(p, make([]byte, 4<<10), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(oldTmp, base, base); err != nil {
		t.Fatal(err)
	}
	c.evict()
	var kept []int
	for i, k := range keys {
		if _, err := os.Stat(c.path(k)); err == nil {
			kept = append(kept, i)
		}
	}
	// 8 entries of 2 KB and a header: 3 fit in 7.5 KB; entry 0 is the newest.
	if fmt.Sprint(kept) != "[0 6 7]" {
		t.Errorf("evict kept entries %v, want [0 6 7]", kept)
	}
	for p, want := range map[string]bool{foreign: true, oldTmp: false, newTmp: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("after evict, %s exists: %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// TestCacheConcurrent runs crdkit in processes of their own (the test
// binary as crdkit) and in goroutines, all at once, on one empty cache:
// every run prints what a run without the cache prints.
func TestCacheConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts processes")
	}
	args := cacheCases(t)[0]
	want := runWithCache(t, "off", args...)
	dir := t.TempDir()
	t.Setenv("CRDKIT_CACHE_DIR", dir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const procs, goroutines = 3, 2
	var wg sync.WaitGroup
	got := make([]cliRun, procs+goroutines)
	for round := range 2 {
		for i := range procs {
			wg.Go(func() {
				cmd := exec.Command(exe, args...)
				cmd.Env = append(os.Environ(), "CRDKIT_TEST_AS_MAIN=1")
				var out, errOut bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errOut
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					code = -1
				}
				got[i] = cliRun{code, out.String(), tookRE.ReplaceAllString(errOut.String(), "(T)")}
			})
		}
		for i := range goroutines {
			wg.Go(func() {
				var out, errOut bytes.Buffer
				code := run(args, &out, &errOut)
				got[procs+i] = cliRun{code, out.String(), tookRE.ReplaceAllString(errOut.String(), "(T)")}
			})
		}
		wg.Wait()
		for i, g := range got {
			if g != want {
				t.Errorf("round %d, run %d: crdkit %s = %d\n%s\n%s\nwant %d\n%s\n%s", round, i, args, g.code, g.out, g.errOut, want.code, want.out, want.errOut)
			}
		}
	}
	if n := len(entries(t, dir)); n == 0 {
		t.Error("the concurrent runs wrote no entry")
	}
	for n := range entries(t, dir) {
		if !isEntryName(n) {
			t.Errorf("the cache holds %s after the runs, want entries only", n)
		}
	}
}

// TestCacheHelp: the commands that compile CRDs say how to turn the cache
// off and where it lives.
func TestCacheHelp(t *testing.T) {
	for _, cmd := range []string{"validate", "get", "apply", "patch", "diff", "bench"} {
		code, out, _ := runCLI(t, cmd, "--help")
		if code != 0 || !strings.Contains(out, "-no-cache") || !strings.Contains(out, "CRDKIT_CACHE_DIR") {
			t.Errorf("crdkit %s --help = %d, want 0 and --no-cache and CRDKIT_CACHE_DIR in:\n%s", cmd, code, out)
		}
	}
}

// TestJSONCRDs: CRDs given as JSON files are read by their head, as YAML
// ones are (crdhead.JSON), and give the same verdicts as the same CRDs in
// YAML, with and without the cache.
func TestJSONCRDs(t *testing.T) {
	root := corpusDir(t)
	docs, err := corpus.Walk(filepath.Join(root, "crds"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	n := 0
	for i, d := range docs {
		if !strings.Contains(string(d.JSON), `"kind":"CustomResourceDefinition"`) {
			continue
		}
		n++
		js := append(bytes.Clone(d.JSON), '\n')
		if i%2 == 0 {
			var b bytes.Buffer
			if err := json.Indent(&b, d.JSON, "", "  "); err != nil {
				t.Fatal(err)
			}
			js = b.Bytes()
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("crd%02d.json", i)), js, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg, status := loadRegistry([]string{dir}, nil, &bytes.Buffer{}, nil)
	reg.close()
	lazy := 0
	for _, l := range reg.byGroupKind {
		if l.chunk != nil {
			lazy++
		}
	}
	if status != 0 || lazy != len(reg.byGroupKind) || len(reg.byGroupKind) != n {
		t.Errorf("loadRegistry(%d JSON CRDs) = %d, %d CRDs of which %d read by their head, want 0, %d, all", n, status, len(reg.byGroupKind), lazy, n)
	}
	objs := filepath.Join(root, "objects")
	want := runWithCache(t, "off", "validate", "-o", "json", "--crds", filepath.Join(root, "crds"), objs)
	cache := t.TempDir()
	for _, c := range []string{cache, cache} {
		if got := runWithCache(t, c, "validate", "-o", "json", "--crds", dir, objs); got != want {
			t.Errorf("crdkit validate --crds JSON-CRDS (cache %s) = %d\n%s\n%s\nwant (YAML CRDs) %d\n%s\n%s", c, got.code, got.out, got.errOut, want.code, want.out, want.errOut)
		}
	}
}

// FuzzCacheEntry: any bytes in an entry's file give no panic, and an entry
// get accepts is one put would write for its fields.
func FuzzCacheEntry(f *testing.F) {
	dir := f.TempDir()
	c := newCache(dir, []byte("build"))
	sum := sha256.Sum256(nil)
	k := c.key(entryCRD, &sum)
	c.put(k, []byte(`{"kind":"CustomResourceDefinition"}`), []byte("a warning"))
	if good, err := os.ReadFile(c.path(k)); err == nil {
		f.Add(good)
		f.Add(good[:len(good)-1])
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(c.path(k), data, 0o644); err != nil {
			t.Fatal(err)
		}
		fields, ok := c.get(k)
		if !ok {
			return
		}
		c.put(k, fields...)
		again, err := os.ReadFile(c.path(k))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, data) {
			t.Errorf("get accepted %q as fields %q, which put writes as %q", data, fields, again)
		}
	})
}
