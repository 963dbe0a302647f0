package servertest

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/oracle"
	kjson "sigs.k8s.io/json"
)

// agreement counts, per capability, the cases where crdkit and the server
// agree, the cases compared, and the cases not yet comparable (with why).
type agreement struct {
	mu       sync.Mutex
	agree    map[string]int
	total    map[string]int
	skipped  map[string]int
	unstable map[string]int // cases an exact comparison leaves to the sorted one
	samples  map[string][]string
	seen     map[string]bool
}

func newAgreement() *agreement {
	return &agreement{agree: map[string]int{}, total: map[string]int{}, skipped: map[string]int{}, unstable: map[string]int{}, samples: map[string][]string{}, seen: map[string]bool{}}
}

// exact counts one case of an exact comparison whose reference varies
// between answers, which the sorted comparison covers instead.
func (a *agreement) exact(capability string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.unstable[capability]++
}

// record counts one case; for a disagreement it keeps one sample per kind
// (the generator's mutation), so the report shows every distinct problem.
func (a *agreement) record(capability, kind string, ok bool, sample string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.total[capability]++
	if ok {
		a.agree[capability]++
		return
	}
	if !a.seen[capability+" "+kind] && len(a.samples[capability]) < 40 {
		a.seen[capability+" "+kind] = true
		a.samples[capability] = append(a.samples[capability], sample)
	}
}

func (a *agreement) skip(why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.skipped[why]++
}

// report prints the summary lines and fails the test on any disagreement.
func (a *agreement) report(t *testing.T) {
	t.Helper()
	for c := range a.unstable {
		if _, ok := a.total[c]; !ok {
			a.total[c] = 0 // print the line when every case was unstable
		}
	}
	for _, c := range slices.Sorted(maps.Keys(a.total)) {
		if n, ok := a.unstable[c]; ok || strings.HasSuffix(c, "-exact") {
			fmt.Printf("conformance: %s %d/%d (%d unstable)\n", c, a.agree[c], a.total[c], n)
		} else {
			fmt.Printf("conformance: %s %d/%d cases agree\n", c, a.agree[c], a.total[c])
		}
		for _, s := range a.samples[c] {
			t.Errorf("%s disagreement:\n%s", c, s)
		}
	}
	for _, why := range slices.Sorted(maps.Keys(a.skipped)) {
		fmt.Printf("conformance: not compared yet: %d cases (%s)\n", a.skipped[why], why)
	}
}

// compareCreate checks crdkit's dry-run create against the server's verdict,
// x-kubernetes-validations rules included. A 422 with several causes whose
// message the server keeps (order) is also compared byte for byte, causes
// in order; varies looks for evidence that the server's order can change
// before a difference counts.
func compareCreate(a *agreement, crd *crdkit.CRD, v *Verdict, order orderState, varies func(ours []Cause) bool) {
	ver := crd.Version(v.Version)
	if ver == nil {
		a.skip("version not loaded")
		return
	}
	opts := crdkit.CreateOptions{FieldValidation: crdkit.FieldValidation(v.Mode), Namespace: v.Namespace}
	got := createVerdict(ver.CreateJSON([]byte(v.Raw), opts))
	compareDecoded(a, ver, v, opts, got)
	// The version's x-kubernetes-validations rules ran (crdkit found no
	// blocking error): these cases are also counted on their own.
	rulesRan := ver.HasRules() && (got.Code == 201 || got.Code == 422) && !blockingCause(got.Causes)
	want := Verdict{Code: v.Code, Warnings: v.Warnings, Object: v.Object, Causes: v.Causes}
	if v.Code != 201 {
		want.Reason, want.Message = v.Reason, v.Message
	}
	// A name generated from generateName is random on both sides.
	want.Message, got.Message = generatedName.ReplaceAllString(want.Message, `"gen-*****"`), generatedName.ReplaceAllString(got.Message, `"gen-*****"`)
	if want.Code == 422 && order != orderNone {
		same := got.Code == 422 && got.Message == want.Message && slices.Equal(got.Causes, v.Causes)
		if order == orderUnstable || !same && varies(got.Causes) {
			a.exact("create-message-exact")
		} else {
			a.record("create-message-exact", v.Mutation, same,
				fmt.Sprintf("%s %s %s [%s]\n  input: %s\n  server: %s\n  crdkit: %s\n  server causes: %q\n  crdkit causes: %q",
					v.CRD, v.Version, v.Case, v.Mode, truncate(v.Raw, 400), v.Message, got.Message, v.Causes, got.Causes))
		}
	}
	if want.Code == 422 {
		// Where the server's order of errors varies between runs, only
		// the sorted causes and the message up to the list compare.
		want.Message, got.Message = invalidPrefix(want.Message), invalidPrefix(got.Message)
		got.Causes, want.Causes = slices.Clone(got.Causes), slices.Clone(want.Causes)
		sortCauses(got.Causes)
		sortCauses(want.Causes)
		a.record("create-causes", v.Mutation, slices.Equal(got.Causes, want.Causes),
			fmt.Sprintf("%s %s %s [%s]\n  input: %s\n  server: %q\n  crdkit: %q", v.CRD, v.Version, v.Case, v.Mode, truncate(v.Raw, 400), want.Causes, got.Causes))
	}
	desc := fmt.Sprintf("%s %s %s [%s]\n  input: %s", v.CRD, v.Version, v.Case, v.Mode, truncate(v.Raw, 400))
	codeOK := got.Code == want.Code && got.Reason == want.Reason && got.Message == want.Message
	warnOK := slices.Equal(got.Warnings, want.Warnings)
	objOK := true
	defer func() {
		ok := codeOK && warnOK && objOK && causesOK(got, want)
		a.record("create "+v.CRD, "", ok, "")
		if rulesRan {
			a.record("create-rules-evaluated", v.Mutation, ok, desc)
		}
	}()
	a.record("create-code", v.Mutation, codeOK,
		fmt.Sprintf("%s\n  server: %d %s %s\n  crdkit: %d %s %s", desc, want.Code, want.Reason, want.Message, got.Code, got.Reason, got.Message))
	a.record("create-warnings", v.Mutation, warnOK,
		fmt.Sprintf("%s\n  server: %q\n  crdkit: %q", desc, want.Warnings, got.Warnings))
	if want.Code == 201 && got.Code == 201 {
		dropGeneratedName(got.Object)
		dropGeneratedName(want.Object)
		objOK = reflect.DeepEqual(got.Object, want.Object)
		a.record("create-object", v.Mutation, objOK,
			fmt.Sprintf("%s\n  server: %s\n  crdkit: %s", desc, mustJSON(want.Object), mustJSON(got.Object)))
	}
}

// createVerdict is a crdkit result in the form the server's answers are recorded.
func createVerdict(res crdkit.Result) Verdict {
	var got Verdict
	got.Warnings = res.Warnings
	got.Code = 201
	if st := res.Status(); st != nil {
		got.Code, got.Reason, got.Message = int(st.Code), string(st.Reason), st.Message
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				got.Causes = append(got.Causes, Cause{c.Field, string(c.Type), c.Message})
			}
		}
	} else {
		got.Object = oracle.Normalize(jsonRoundTrip(res.Object))
	}
	return got
}

// compareDecoded checks Version.Create on the decoded request body against
// CreateJSON on the body (which the caller compares with the server), where
// the two must agree: bodies that decode to a JSON object without duplicate
// keys. Create takes no bytes, so decode errors and duplicate-field
// warnings are CreateJSON's alone.
func compareDecoded(a *agreement, ver *crdkit.Version, v *Verdict, opts crdkit.CreateOptions, fromJSON Verdict) {
	var obj map[string]any
	if strictErrs, err := kjson.UnmarshalStrict([]byte(v.Raw), &obj, kjson.DisallowDuplicateFields); err != nil || len(strictErrs) > 0 || obj == nil {
		a.skip("Create on a decoded object: body is not a JSON object without duplicate keys")
		return
	}
	// UnmarshalStrict also reports unknown fields, which a map never has,
	// and keeps integers as int64 as the server's decoder does.
	got := createVerdict(ver.Create(obj, opts))
	got.Message = generatedName.ReplaceAllString(got.Message, `"gen-*****"`)
	fromJSON.Message = generatedName.ReplaceAllString(fromJSON.Message, `"gen-*****"`)
	if got.Code == 201 && fromJSON.Code == 201 {
		dropGeneratedName(got.Object)
		dropGeneratedName(fromJSON.Object)
	}
	a.record("create-decoded", v.Mutation, reflect.DeepEqual(got, fromJSON),
		fmt.Sprintf("%s %s %s [%s]\n  input: %s\n  CreateJSON: %s\n  Create: %s", v.CRD, v.Version, v.Case, v.Mode, truncate(v.Raw, 400), mustJSON(fromJSON), mustJSON(got)))
}

func loadCrdkit(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *crdkit.CRD {
	c, err := crdkit.New(crd)
	if err != nil {
		t.Errorf("crdkit refuses %s, which the server accepted: %v", crd.Name, err)
		return nil
	}
	return c
}

func jsonRoundTrip(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return truncate(string(b), 1500)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// generatedName matches a name the generator's generateName case gets
// ("gen-" and five random characters) in a message.
var generatedName = regexp.MustCompile(`"gen-[bcdfghjklmnpqrstvwxz2456789]{5}"`)

// dropGeneratedName removes a name generated from generateName, which is
// random on both sides.
func dropGeneratedName(obj map[string]any) {
	md, _ := obj["metadata"].(map[string]any)
	base, _ := md["generateName"].(string)
	if name, _ := md["name"].(string); base != "" && len(name) == len(base)+5 && strings.HasPrefix(name, base) {
		delete(md, "name")
	}
}

func blockingCause(cs []Cause) bool {
	for _, c := range cs {
		switch c.Reason {
		case "FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany", "FieldValueTypeInvalid":
			return true
		}
	}
	return false
}

func invalidPrefix(msg string) string {
	if i := strings.Index(msg, " is invalid: "); i >= 0 {
		return msg[:i]
	}
	return msg
}

func sortCauses(cs []Cause) {
	slices.SortFunc(cs, func(a, b Cause) int {
		return strings.Compare(a.Field+"\x00"+a.Reason+"\x00"+a.Message, b.Field+"\x00"+b.Reason+"\x00"+b.Message)
	})
}

func causesOK(got, want Verdict) bool {
	if want.Code != 422 {
		return true
	}
	return slices.Equal(got.Causes, want.Causes)
}
