package servertest

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crdkit/crdkit/conformance/gen"
	"github.com/crdkit/crdkit/conformance/oracle"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var update = flag.Bool("update", false, "rewrite testdata/server-create.golden")

const (
	defaultCases = 150
	// multiCases is gen's Options.MultiErrors: cases with several errors
	// at once, after the defaultCases, so that the order of causes shows.
	multiCases = 30
	goldenFile = "testdata/server-create.golden"
)

var modes = []oracle.FieldValidation{oracle.Warn, oracle.Strict, oracle.Ignore}

// Verdict is the server's answer to one case in one field-validation mode,
// as recorded (JSON lines under CRDKIT_RECORD_DIR).
type Verdict struct {
	CRD       string         `json:"crd"`
	Version   string         `json:"version"`
	Case      string         `json:"case"`
	Mutation  string         `json:"mutation"`
	Path      string         `json:"path,omitempty"`
	Mode      string         `json:"mode"`
	Namespace string         `json:"namespace,omitempty"`
	Raw       string         `json:"raw"`
	Code      int            `json:"code"`
	Reason    string         `json:"reason,omitempty"`
	Message   string         `json:"message,omitempty"`
	Causes    []Cause        `json:"causes,omitempty"`
	Warnings  []string       `json:"warnings,omitempty"`
	Object    map[string]any `json:"object,omitempty"`
}

// Cause is one metav1.StatusCause.
type Cause struct {
	Field   string `json:"field"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type job struct {
	crd, version string
	c            gen.Case
	mode         oracle.FieldValidation
}

// TestServerRecordsCreateVerdicts installs every corpus CRD in one batch,
// then sends generated cases for every served version as dry-run creates in
// Warn, Strict and Ignore, and records the verdicts.
func TestServerRecordsCreateVerdicts(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	b := setup(t)
	if len(b.corpus) == 0 {
		t.Fatal("corpus has no CRD documents")
	}
	t.Logf("server start %v; batch of %d CRDs (%d from the corpus) installed in %v", startTook, len(b.results), len(b.corpus), b.took)
	var crds []*apiextensionsv1.CustomResourceDefinition
	for i, d := range b.corpus {
		r := b.results[1+i]
		if !r.Established {
			msg := r.Condition
			if r.Status != nil {
				msg = fmt.Sprintf("%s: %s", r.Status.Reason, r.Status.Message)
			}
			t.Errorf("corpus CRD %s (%s #%d) refused: %d %s", r.Name, d.File, d.Index, r.Code, msg)
			continue
		}
		crds = append(crds, r.CRD)
		if len(r.Warnings) > 0 || r.Took > time.Second {
			t.Logf("corpus CRD %s: create took %v, warnings %q", r.Name, r.Took.Round(time.Millisecond), r.Warnings)
		}
	}

	nCases := envInt("CRDKIT_CONFORMANCE_CASES", defaultCases)
	workers := envInt("CRDKIT_CONFORMANCE_WORKERS", 8)
	recordDir := os.Getenv("CRDKIT_RECORD_DIR")
	if recordDir != "" {
		if err := os.MkdirAll(recordDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	summary := map[string]map[string]int{} // "crd version mode" -> "code reason" -> count
	byMutation := map[string]map[string]int{}
	var totalReqs, totalResent int
	var totalTook time.Duration
	validRefused := map[string][]string{}
	agr := newAgreement()
	defer agr.report(t)

	for _, crd := range crds {
		var jobs []job
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			// A create drops status when there is a status subresource:
			// spend the cases elsewhere.
			skipStatus := v.Subresources != nil && v.Subresources.Status != nil
			g, err := gen.New(crd, v.Name, gen.Options{Cases: nCases, MultiErrors: multiCases, SkipStatus: skipStatus})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range g.Cases() {
				for _, m := range modes {
					jobs = append(jobs, job{crd.Name, v.Name, c, m})
				}
			}
		}
		start := time.Now()
		verdicts := runJobs(t, ctx, jobs, workers)
		order, again := messageOrder(t, ctx, jobs, verdicts, workers)
		totalResent += again
		took := time.Since(start)
		if ck := loadCrdkit(t, crd); ck != nil {
			for i := range verdicts {
				compareCreate(agr, ck, &verdicts[i], order[i], func(ours []Cause) bool {
					v := &verdicts[i]
					return messageVaries(ctx, jobs[i], v) || upstreamReorders(crd, v.Version, []byte(v.Raw), v.Causes, ours)
				})
			}
		}
		totalReqs += len(jobs)
		totalTook += took

		accepted, refused := 0, 0
		byCase := map[string]map[string]*Verdict{} // version/case -> mode -> verdict
		for i := range verdicts {
			v := &verdicts[i]
			if v.Code >= 200 && v.Code < 300 {
				accepted++
			} else {
				refused++
			}
			key := fmt.Sprintf("%s %s %s", v.CRD, v.Version, v.Mode)
			cr := fmt.Sprintf("%d %s", v.Code, v.Reason)
			if summary[key] == nil {
				summary[key] = map[string]int{}
			}
			summary[key][cr]++
			mk := fmt.Sprintf("%s %s", v.Mutation, v.Mode)
			if byMutation[mk] == nil {
				byMutation[mk] = map[string]int{}
			}
			byMutation[mk][cr]++
			ck := v.Version + "/" + v.Case
			if byCase[ck] == nil {
				byCase[ck] = map[string]*Verdict{}
			}
			byCase[ck][v.Mode] = v
			if v.Code >= 500 || (v.Code != 201 && v.Code != 400 && v.Code != 422) {
				t.Errorf("%s %s %s [%s]: unexpected code %d %s: %s", v.CRD, v.Version, v.Case, v.Mode, v.Code, v.Reason, v.Message)
			}
			if (v.Mutation == "valid" || v.Mutation == "minimal" || v.Mutation == "rich") && v.Mode == string(oracle.Ignore) && v.Code != 201 {
				validRefused[crd.Name] = append(validRefused[crd.Name], fmt.Sprintf("%s/%s: %d %s", v.Version, v.Case, v.Code, v.Message))
			}
		}
		checkModes(t, byCase)
		if recordDir != "" {
			writeRecords(t, filepath.Join(recordDir, crd.Name+".jsonl"), verdicts)
		}
		t.Logf("conformance: server-create %s %d cases recorded (accepted %d, refused %d) in %v", crd.Name, len(verdicts), accepted, refused, took.Round(time.Millisecond))
	}
	if totalReqs > 0 {
		t.Logf("conformance: server-create total %d requests and %d resent in %v (%v per request with %d workers)", totalReqs, totalResent, totalTook.Round(time.Millisecond), (totalTook / time.Duration(totalReqs+totalResent)).Round(time.Microsecond), workers)
	}
	for _, name := range slices.Sorted(maps.Keys(validRefused)) {
		for _, s := range validRefused[name] {
			t.Logf("generated valid object refused: %s %s", name, s)
		}
	}

	var lines []string
	for _, k := range slices.Sorted(maps.Keys(summary)) {
		lines = append(lines, k+": "+counts(summary[k]))
	}
	lines = append(lines, "")
	for _, k := range slices.Sorted(maps.Keys(byMutation)) {
		lines = append(lines, "mutation "+k+": "+counts(byMutation[k]))
	}
	got := strings.Join(lines, "\n") + "\n"
	for _, l := range lines {
		if strings.HasPrefix(l, "mutation ") {
			t.Log(l)
		}
	}
	compareGolden(t, got, nCases)
}

func runJobs(t *testing.T, ctx context.Context, jobs []job, workers int) []Verdict {
	out := make([]Verdict, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = send(ctx, jobs[i])
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// The server's order of causes follows Go map iteration in places (the
// properties of an object, the fields of an embedded resource): a case's
// message is compared byte for byte only where the server gives the same one
// every time. Each case refused with several causes is sent resends more
// times, in the first mode that refused it so; where crdkit's message then
// differs, up to confirmResends more requests look for another message
// before the difference counts (a map of up to eight entries reverses two
// of them in as few as one iteration in eight).
// CRDKIT_ORDER_RUNS sets the number of sends in all (default 10).
const confirmResends = 100

var resends = envInt("CRDKIT_ORDER_RUNS", 10) - 1

// orderState says how a verdict's message is compared.
type orderState uint8

const (
	orderNone     orderState = iota // not a 422 with several causes
	orderStable                     // the server's message never changed: compared exactly
	orderUnstable                   // it changed: only the sorted causes are compared
)

// messageOrder resends the cases refused with several causes and reports,
// per verdict, whether the server's message for the case is stable: the
// same, with the same causes in the same order, in every answer and every
// mode that refused it with several causes.
func messageOrder(t *testing.T, ctx context.Context, jobs []job, verdicts []Verdict, workers int) (order []orderState, resent int) {
	byCase := map[string][]int{} // version/case -> verdicts refused with several causes
	var again []job
	var againCase []string
	for i, v := range verdicts {
		if v.Code != 422 || len(v.Causes) < 2 {
			continue
		}
		k := v.Version + "/" + v.Case
		if byCase[k] == nil {
			for range resends {
				again = append(again, jobs[i])
				againCase = append(againCase, k)
			}
		}
		byCase[k] = append(byCase[k], i)
	}
	answers := runJobs(t, ctx, again, workers)
	varies := map[string]bool{}
	for k, is := range byCase {
		first := &verdicts[is[0]]
		for _, i := range is[1:] {
			varies[k] = varies[k] || !sameMessage(first, &verdicts[i])
		}
	}
	for j := range answers {
		k := againCase[j]
		varies[k] = varies[k] || !sameMessage(&verdicts[byCase[k][0]], &answers[j])
	}
	out := make([]orderState, len(verdicts))
	for k, is := range byCase {
		for _, i := range is {
			out[i] = orderStable
			if varies[k] {
				out[i] = orderUnstable
			}
		}
	}
	return out, len(again)
}

// messageVaries sends j up to confirmResends times and reports whether the
// server answers with another message than v's. (upstreamReorders then
// looks further.)
func messageVaries(ctx context.Context, j job, v *Verdict) bool {
	for range confirmResends {
		r := send(ctx, j)
		if !sameMessage(v, &r) {
			return true
		}
	}
	return false
}

func sameMessage(a, b *Verdict) bool {
	return a.Code == b.Code && a.Message == b.Message && slices.Equal(a.Causes, b.Causes)
}

// send sends one job as a dry-run create and records the answer.
func send(ctx context.Context, j job) Verdict {
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// The case's namespace, not the body's, addresses the request: a body
	// with another namespace must be refused.
	r, err := srv.Do(rctx, oracle.Request{Op: oracle.OpCreate, DryRun: true, CRD: j.crd, Version: j.version,
		Namespace: j.c.Namespace, Body: j.c.Raw, FieldValidation: j.mode})
	v := Verdict{CRD: j.crd, Version: j.version, Case: j.c.Name, Mutation: j.c.Mutation, Path: j.c.Path, Mode: string(j.mode), Namespace: j.c.Namespace, Raw: string(j.c.Raw), Code: r.Code, Warnings: r.Warnings}
	if err != nil {
		v.Code, v.Message = -1, err.Error()
	}
	if st := r.Status; st != nil {
		// The oracle sorts the causes; the body has them in the server's order.
		var raw metav1.Status
		if json.Unmarshal(r.Body, &raw) == nil && raw.Details != nil && st.Details != nil && len(raw.Details.Causes) == len(st.Details.Causes) {
			st = &raw
		}
		v.Reason, v.Message = string(st.Reason), st.Message
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				v.Causes = append(v.Causes, Cause{c.Field, string(c.Type), c.Message})
			}
		}
	}
	if r.Object != nil {
		v.Object = oracle.Normalize(r.Object)
	}
	return v
}

// checkModes asserts how the three field-validation modes relate: Warn and
// Ignore give the same code; Ignore never reports unknown or duplicate
// fields; a case Warn reports such fields for is a 400 "strict decoding
// error" in Strict.
func checkModes(t *testing.T, byCase map[string]map[string]*Verdict) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(byCase)) {
		w, s, i := byCase[k][string(oracle.Warn)], byCase[k][string(oracle.Strict)], byCase[k][string(oracle.Ignore)]
		if w == nil || s == nil || i == nil {
			continue
		}
		if w.Code != i.Code {
			t.Errorf("%s %s: Warn %d %s, Ignore %d %s", w.CRD, k, w.Code, w.Message, i.Code, i.Message)
		}
		if hasStrictWarning(i.Warnings) {
			t.Errorf("%s %s: Ignore warned %q", w.CRD, k, i.Warnings)
		}
		if hasStrictWarning(w.Warnings) && (s.Code != 400 || !strings.Contains(s.Message, "strict decoding error: ")) {
			t.Errorf("%s %s: Warn warned %q but Strict answered %d %q", w.CRD, k, w.Warnings, s.Code, s.Message)
		}
	}
}

func hasStrictWarning(ws []string) bool {
	return slices.ContainsFunc(ws, func(w string) bool {
		return strings.HasPrefix(w, "unknown field ") || strings.HasPrefix(w, "duplicate field ")
	})
}

func writeRecords(t *testing.T, path string, vs []Verdict) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// compareGolden checks the verdict summary against the golden file when
// the run uses the default case count; -update rewrites it.
func compareGolden(t *testing.T, got string, nCases int) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", goldenFile)
		return
	}
	if nCases != defaultCases {
		t.Logf("CRDKIT_CONFORMANCE_CASES=%d: golden summary not compared", nCases)
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Logf("no golden summary (%v); run with -update to record one", err)
		return
	}
	if string(want) != got {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for _, l := range gl {
			if !slices.Contains(wl, l) {
				t.Errorf("summary line not in golden: %s", l)
			}
		}
		for _, l := range wl {
			if !slices.Contains(gl, l) {
				t.Errorf("golden line missing from summary: %s", l)
			}
		}
	}
}

func counts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s=%d", strings.TrimSpace(k), m[k]))
	}
	return strings.Join(parts, ", ")
}
