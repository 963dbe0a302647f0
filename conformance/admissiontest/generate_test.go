package admissiontest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/crdkit/crdkit/conformance/oracle"
	"github.com/crdkit/crdkit/generate"
)

// holds reports whether the server's answer is what e states.
func holds(e generate.Expectation, r oracle.Result) bool {
	switch e.Outcome {
	case generate.Accepted:
		return r.Allowed()
	case generate.Refused:
		if r.Code != 422 || r.Status == nil || r.Status.Details == nil {
			return false
		}
		for _, c := range r.Status.Details.Causes {
			if c.Field == e.Field && string(c.Type) == string(e.Type) {
				return true
			}
		}
	}
	return false
}

// TestGenerate sends the generator's valid objects (Valid, seeds 1 to 5)
// of every served version of every corpus CRD to the real server as
// dry-run creates, and its cases with a stated outcome (accepted cases
// with CEL rules, which the generator does not solve, left out).
func TestGenerate(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	nCases := envInt("CRDKIT_ADMISSION_CASES", 40)
	type job struct {
		crd, version, name string
		raw                []byte
		valid              bool
		unsatisfied        int
		expect             generate.Expectation
	}
	var jobs []job
	withRules := 0
	for _, crd := range b.crds {
		for _, v := range b.loaded[crd.Name].Versions() {
			if !v.Served() {
				continue
			}
			g, err := generate.ForVersion(v, generate.Options{Cases: nCases, RuleBreaks: 3})
			if err != nil {
				t.Fatal(err)
			}
			for seed := uint64(1); seed <= 5; seed++ {
				obj, unsat := g.Valid(seed, fmt.Sprintf("valid-%d", seed))
				raw, err := generate.Marshal(obj)
				if err != nil {
					t.Fatal(err)
				}
				jobs = append(jobs, job{crd: crd.Name, version: v.Name(), name: fmt.Sprintf("valid-%d", seed), raw: raw, valid: true, unsatisfied: len(unsat)})
			}
			for _, c := range g.Cases() {
				switch {
				case c.Expect.Outcome == generate.Unstated:
				case c.Expect.Outcome == generate.Accepted && len(c.Rules) > 0:
					withRules++
				default:
					jobs = append(jobs, job{crd: crd.Name, version: v.Name(), name: c.Name, raw: c.Raw, expect: c.Expect})
				}
			}
		}
	}
	var mu sync.Mutex
	var valid, validNamed, stated, ruleBreaks counts
	ch := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				r, err := srv.DryRunCreate(ctx, j.crd, j.version, j.raw, oracle.Warn)
				if err != nil {
					t.Errorf("%s/%s %s: %v", j.crd, j.version, j.name, err)
					continue
				}
				mu.Lock()
				if j.valid {
					valid.add(r.Allowed())
					// A refused valid object must name the rules it could not satisfy.
					validNamed.add(r.Allowed() == (j.unsatisfied == 0))
					if !r.Allowed() && j.unsatisfied == 0 {
						t.Errorf("%s/%s %s refused without unsatisfied rules: %d %v", j.crd, j.version, j.name, r.Code, r.Status)
					}
				} else {
					ok := holds(j.expect, r)
					stated.add(ok)
					if strings.HasPrefix(j.name, "break-rule/") {
						ruleBreaks.add(ok)
					}
					if !ok {
						t.Errorf("%s/%s %s = %d %v, want %s\n%s", j.crd, j.version, j.name, r.Code, r.Status, j.expect, j.raw)
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	fmt.Printf("conformance: generate-valid-accepted %s (refused ones name the CEL rules they could not satisfy: %s)\n", valid, validNamed)
	fmt.Printf("conformance: generate-mutation-refused-as-stated %s (%d accepted cases with CEL rules left out)\n", stated, withRules)
	fmt.Printf("conformance: generate-rule-break-refused-as-stated %s\n", ruleBreaks)
	if valid.of == 0 || stated.of == 0 {
		t.Error("nothing sent")
	}
}
