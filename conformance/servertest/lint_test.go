package servertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/crdmut"
	"github.com/crdkit/crdkit/conformance/oracle"
)

// TestLintAgreesWithServer sends every corpus CRD, the hand-written invalid
// CRDs and seeded mutations of the corpus CRDs to the real server as dry-run
// CRD creates, and compares its verdict (code, reason, sorted causes) with
// what crdkit.Load says. Cases whose server causes involve checks crdkit
// does not make yet (defaults, CEL) are counted apart, with the reason.
func TestLintAgreesWithServer(t *testing.T) {
	cases := corpusCRDCases(t, envInt("CRDKIT_LINT_SERVER_MUTATIONS", 6), rand.NewPCG(7, 11), "mutation",
		func(rng *rand.Rand, m map[string]any) string { return crdmut.Mutate(rng, m, 1+rng.IntN(3)) })
	for _, h := range crdmut.Handwritten {
		cases = append(cases, crdCase{h.Name, string(regroup(t, []byte(h.JSON)))})
	}

	ctx := context.Background()
	agree, outOfScope, compared := 0, map[string]int{}, 0
	var exactAgree, exactN, exactUnstable int
	for _, c := range cases {
		r, err := srv.CreateCRDRaw(ctx, []byte(c.json), oracle.CreateCRDOptions{DryRun: true})
		if err != nil || r.Code >= 500 {
			// The server panics on some CRDs (selectable fields on a schema
			// it cannot build) and answers 500; crdkit reports an internal
			// error instead.
			outOfScope["the server fails with 500"]++
			continue
		}
		want := verdictOf(r.Code, r.Status)
		if gap := scopeGap(want); gap != "" {
			outOfScope[gap]++
			continue
		}
		got := normalizeCEL(crdkitVerdict([]byte(c.json)))
		want = normalizeCEL(want)
		compared++
		if got != want {
			t.Errorf("Load(%s) disagrees with the server\nserver: %s\ncrdkit: %s", c.name, want, got)
			continue
		}
		agree++
		// Where the server refuses with several causes and gives the same
		// message every time, crdkit's must be the same byte for byte.
		server := rawStatus(r)
		if r.Code != 422 || server == nil || server.Details == nil || len(server.Details.Causes) < 2 {
			continue
		}
		if lintMessageVaries(ctx, c.json, server, resends) {
			exactUnstable++
			continue
		}
		ours := crdkitStatus([]byte(c.json))
		if sameStatus(server, ours) {
			exactN++
			exactAgree++
			continue
		}
		if lintMessageVaries(ctx, c.json, server, confirmResends) {
			exactUnstable++
			continue
		}
		exactN++
		t.Errorf("Load(%s): the server's message and causes differ in order\nserver: %s\n  %q\ncrdkit: %s\n  %q", c.name, server.Message, server.Details.Causes, ours.Message, ours.Details.Causes)
	}
	fmt.Printf("conformance: lint-server %d/%d cases agree\n", agree, compared)
	fmt.Printf("conformance: lint-message-exact %d/%d (%d unstable)\n", exactAgree, exactN, exactUnstable)
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range outOfScope {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Printf("conformance: lint-server not compared yet: %d cases (%s)\n", outOfScope[k], k)
	}
	if os.Getenv("CRDKIT_ORACLE_VERBOSE") != "" {
		t.Logf("%d cases", len(cases))
	}
}

// crdCase is a CRD document sent to the server as a dry-run create.
type crdCase struct{ name, json string }

// corpusCRDCases returns every corpus CRD, moved to another group (regroup)
// so that a dry run does not collide with the corpus CRDs other tests
// install (409 AlreadyExists), each followed by perCRD mutations of it
// made by mutate with one generator seeded by src, named after the
// document, label, the mutation's number and mutate's description. It
// skips t when the corpus is absent.
func corpusCRDCases(t *testing.T, perCRD int, src rand.Source, label string, mutate func(*rand.Rand, map[string]any) string) []crdCase {
	t.Helper()
	dir := corpusDir()
	if dir == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	docs, err := oracle.LoadCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []crdCase
	rng := rand.New(src)
	for _, d := range docs {
		name := fmt.Sprintf("%s#%d", filepath.Base(d.File), d.Index)
		doc := regroup(t, d.JSON)
		cases = append(cases, crdCase{name, string(doc)})
		for i := 0; i < perCRD; i++ {
			var m map[string]any
			if err := json.Unmarshal(doc, &m); err != nil {
				t.Fatal(err)
			}
			desc := mutate(rng, m)
			b, _ := json.Marshal(m)
			cases = append(cases, crdCase{fmt.Sprintf("%s %s %d %s", name, label, i, desc), string(b)})
		}
	}
	return cases
}

// rawStatus decodes the Status of a refusal from the body, where the causes
// are in the server's order (the oracle sorts those of Result.Status).
func rawStatus(r oracle.Result) *metav1.Status {
	var st metav1.Status
	if r.Status == nil || json.Unmarshal(r.Body, &st) != nil {
		return nil
	}
	return &st
}

// lintMessageVaries sends doc n more times, concurrently, and reports
// whether the server answers with another message or cause order than st.
func lintMessageVaries(ctx context.Context, doc string, st *metav1.Status, n int) bool {
	varies := make([]bool, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := srv.CreateCRDRaw(ctx, []byte(doc), oracle.CreateCRDOptions{DryRun: true})
			varies[i] = err != nil || !sameStatus(st, rawStatus(r))
		})
	}
	wg.Wait()
	return slices.Contains(varies, true)
}

func sameStatus(a, b *metav1.Status) bool {
	if a == nil || b == nil || a.Message != b.Message || (a.Details == nil) != (b.Details == nil) {
		return false
	}
	return a.Details == nil || slices.Equal(a.Details.Causes, b.Details.Causes)
}

// crdkitStatus is the Status of crdkit's refusal of doc, nil when it
// accepts it.
func crdkitStatus(doc []byte) *metav1.Status {
	_, err := crdkit.Load(doc)
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		return nil
	}
	st := se.Status()
	return &st
}

// verdictOf renders a CRD create answer: code, reason and sorted causes.
func verdictOf(code int, st *metav1.Status) string {
	if code == 201 || st == nil {
		return fmt.Sprint(code)
	}
	return renderStatus(code, string(st.Reason), causesOf(st.Details))
}

func renderStatus(code int, reason string, causes []string) string {
	return fmt.Sprintf("%d %s\n  %s", code, reason, strings.Join(causes, "\n  "))
}

// causesOf renders causes as "field | type | message", sorted, as the
// lint differential test does.
func causesOf(d *metav1.StatusDetails) []string {
	if d == nil {
		return nil
	}
	out := make([]string, 0, len(d.Causes))
	for _, c := range d.Causes {
		out = append(out, fmt.Sprintf("%s | %s | %s", c.Field, causeTypeText(string(c.Type)), c.Message))
	}
	slices.Sort(out)
	return out
}

// causeTypeText is the text field.ErrorType prints for a cause type, which
// is what crdmut.Gap matches on.
func causeTypeText(t string) string {
	return field.ErrorType(t).String()
}

// scopeGap names the later work a server verdict depends on, or "".
func scopeGap(verdict string) string {
	for _, line := range strings.Split(verdict, "\n") {
		if g := crdmut.Gap(strings.TrimSpace(line)); g != "" {
			return g
		}
	}
	return ""
}

func crdkitVerdict(doc []byte) string {
	_, err := crdkit.Load(doc)
	if err == nil {
		return "201"
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		return "error: " + err.Error()
	}
	st := se.Status()
	return renderStatus(int(st.Code), string(st.Reason), causesOf(st.Details))
}

// regroup moves a CRD document to the group "lint." + its group.
func regroup(t *testing.T, doc []byte) []byte {
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	spec, _ := m["spec"].(map[string]any)
	names, _ := spec["names"].(map[string]any)
	group, _ := spec["group"].(string)
	plural, _ := names["plural"].(string)
	spec["group"] = "lint." + group
	m["metadata"].(map[string]any)["name"] = plural + ".lint." + group
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
