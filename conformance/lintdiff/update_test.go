package lintdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/crdmut"
)

// decodeInternal decodes a CRD document as the server does (strict, v1
// defaults) into its v1 and internal forms.
func decodeInternal(js []byte) (*apiextensionsv1.CustomResourceDefinition, *apiextensions.CustomResourceDefinition, error) {
	crd := new(apiextensionsv1.CustomResourceDefinition)
	if _, err := kjson.UnmarshalStrict(js, crd); err != nil {
		return nil, nil, err
	}
	v1 := crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	internal := new(apiextensions.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		return nil, nil, err
	}
	return v1, internal, nil
}

// upstreamUpdate runs what the server's registry runs on a CRD update once
// the preconditions passed (rest.BeforeUpdate): generation, the strategy's
// PrepareForUpdate, live's uid and creation time, rest.ValidateUpdate (the
// common metadata checks and ValidateCustomResourceDefinitionUpdate), and
// the strategy's WarningsOnUpdate when it passes. It returns the CRD as
// prepared, in v1.
func upstreamUpdate(newJS, oldJS []byte) (errs field.ErrorList, warnings []string, out *apiextensionsv1.CustomResourceDefinition, err error) {
	defer func() {
		if r := recover(); r != nil {
			errs, warnings, out, err = nil, nil, nil, fmt.Errorf("upstream panicked: %v", r)
		}
	}()
	_, n, err := decodeInternal(newJS)
	if err != nil {
		return nil, nil, nil, err
	}
	_, o, err := decodeInternal(oldJS)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx := context.Background()
	st := customresourcedefinition.NewStrategy(nil)
	n.Generation = o.Generation
	st.PrepareForUpdate(ctx, n, o)
	if n.UID == "" {
		n.UID = o.UID
	}
	n.CreationTimestamp = o.CreationTimestamp
	errs = rest.ValidateUpdate(ctx, n, o, st)
	if len(errs) == 0 {
		warnings = dedup(st.WarningsOnUpdate(ctx, n, o))
	}
	out = new(apiextensionsv1.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_apiextensions_CustomResourceDefinition_To_v1_CustomResourceDefinition(n, out, nil); err != nil {
		return nil, nil, nil, err
	}
	out.APIVersion, out.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	return errs, warnings, out, nil
}

// asStored gives a CRD document what the server gives it once created and
// established: status (stored versions, accepted names, conditions),
// generation, uid, resourceVersion and creation time.
func asStored(t testing.TB, m map[string]any, established bool, extraStored []string) {
	md := m["metadata"].(map[string]any)
	md["uid"] = "5c3e1f0a-0000-4000-8000-000000000001"
	md["resourceVersion"] = "42"
	md["generation"] = int64(1)
	md["creationTimestamp"] = "2026-01-02T03:04:05Z"
	spec, _ := m["spec"].(map[string]any)
	var stored []any
	for _, s := range extraStored {
		stored = append(stored, s)
	}
	vs, _ := spec["versions"].([]any)
	for _, v := range vs {
		if vm, _ := v.(map[string]any); vm["storage"] == true {
			stored = append(stored, vm["name"])
			break
		}
	}
	status := map[string]any{"storedVersions": stored, "acceptedNames": spec["names"]}
	if established {
		status["conditions"] = []any{
			map[string]any{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found", "lastTransitionTime": "2026-01-02T03:04:05Z"},
			map[string]any{"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted", "lastTransitionTime": "2026-01-02T03:04:05Z"},
		}
	}
	m["status"] = status
}

func clone(t testing.TB, m map[string]any) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(t testing.TB, m map[string]any) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type updatePair struct {
	name     string
	new, old []byte
}

// updatePairs generates revisions of the corpus CRDs: the live CRD as stored
// (established or not, with an older version still stored or not), valid or
// already broken by a create-time mutation (what an older server accepted),
// and a new revision that changes it as CRD authors do, breaks it further,
// keeps it or fixes it.
func updatePairs(t testing.TB, crds map[string][]byte, perCRD int, rng *rand.Rand) []updatePair {
	var out []updatePair
	for _, name := range sortedNames(crds) {
		var base map[string]any
		if err := json.Unmarshal(crds[name], &base); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < perCRD; i++ {
			old := clone(t, base)
			var desc []string
			if rng.IntN(3) == 0 {
				desc = append(desc, "live broken by "+crdmut.Mutate(rng, old, 1+rng.IntN(2)))
			}
			var extra []string
			if rng.IntN(6) == 0 {
				extra = []string{"v0gone"}
				desc = append(desc, "v0gone stored")
			}
			established := rng.IntN(8) != 0
			if !established {
				desc = append(desc, "not established")
			}
			asStored(t, old, established, extra)
			nw := clone(t, old)
			switch c := rng.IntN(10); {
			case c < 6:
				desc = append(desc, "revision: "+crdmut.MutateUpdate(rng, nw, 1+rng.IntN(3)))
			case c < 8:
				desc = append(desc, "revision broken by "+crdmut.Mutate(rng, nw, 1+rng.IntN(2)))
			case c == 8:
				desc = append(desc, "no-op")
			default:
				nw = clone(t, base)
				md := nw["metadata"].(map[string]any)
				md["resourceVersion"] = "42"
				desc = append(desc, "revision is the corpus CRD")
			}
			delete(nw, "status") // the server keeps live's
			out = append(out, updatePair{fmt.Sprintf("%s update %d (%s)", name, i, strings.Join(desc, "; ")), mustJSON(t, nw), mustJSON(t, old)})
		}
	}
	return out
}

// TestUpdateAgrees compares crdkit.UpdateCRD with the server's registry code
// (upstreamUpdate: PrepareForUpdate, rest.ValidateUpdate with
// ValidateCustomResourceDefinitionUpdate, WarningsOnUpdate) on generated
// pairs of revisions of the corpus CRDs: causes (sorted), warnings and the
// prepared CRD (generation, status, spec, metadata).
func TestUpdateAgrees(t *testing.T) {
	crds := corpusCRDs(t)
	n := 20
	if s := os.Getenv("CRDKIT_UPDATE_PAIRS"); s != "" {
		fmt.Sscan(s, &n)
	}
	pairs := updatePairs(t, crds, n, rand.New(rand.NewPCG(3, 4)))
	var agree, refused, withWarnings, panics, skipped, renamed, ties int
	for _, p := range pairs {
		upErrs, upWarn, upCRD, err := upstreamUpdate(p.new, p.old)
		if err != nil {
			if strings.HasPrefix(err.Error(), "upstream panicked") {
				panics++
			} else {
				skipped++
			}
			continue
		}
		nv, _, _ := decodeInternal(p.new)
		ov, _, _ := decodeInternal(p.old)
		res := crdkit.UpdateCRD(nv, ov)
		if nv.Name != ov.Name {
			// The handler refuses another name than the URL's (live's)
			// before the registry code runs.
			if st := (&crdkit.Result{Err: res.Err}).Status(); st == nil || st.Code != 400 {
				t.Errorf("UpdateCRD(%s) = %v, want 400 BadRequest for another name than live's", p.name, res.Err)
			}
			renamed++
			continue
		}
		msg := compareUpdate(res, upErrs, upWarn, upCRD)
		if msg != "" && contributedOnly(causes(upErrs), causes(res.Errors)) && upstreamTies(p, causes(upErrs)) {
			msg = ""
			ties++
		}
		if msg != "" {
			t.Errorf("UpdateCRD(%s): %s\nnew: %s\nold: %s", p.name, msg, truncate(p.new), truncate(p.old))
			continue
		}
		agree++
		if len(upErrs) > 0 {
			refused++
		}
		if len(upWarn) > 0 {
			withWarnings++
		}
	}
	fmt.Printf("conformance: crd-update %d/%d pairs agree (%d refused, %d of them up to the server's run-to-run choice among equally expensive contributors to an exceeded CEL total; %d with warnings; %d renamed, refused 400 by the handler; %d where upstream panics, %d that do not decode)\n",
		agree, len(pairs)-panics-skipped-renamed, refused, ties, withWarnings, renamed, panics, skipped)
}

// compareUpdate describes how crdkit's answer differs from upstream's, or
// returns "".
func compareUpdate(res crdkit.CRDResult, upErrs field.ErrorList, upWarn []string, upCRD *apiextensionsv1.CustomResourceDefinition) string {
	if uc, oc := causes(upErrs), causes(res.Errors); !slices.Equal(uc, oc) {
		return fmt.Sprintf("causes differ\nupstream:\n  %s\ncrdkit:\n  %s", strings.Join(short(uc), "\n  "), strings.Join(short(oc), "\n  "))
	}
	if len(upErrs) > 0 {
		if res.Err == nil {
			return "accepted, upstream refuses"
		}
		return ""
	}
	if res.Err != nil {
		return fmt.Sprintf("refused with %v, upstream accepts", res.Err)
	}
	if !slices.Equal(res.Warnings, upWarn) && !(len(upWarn) > 1 && slices.Equal(slices.Sorted(slices.Values(res.Warnings)), slices.Sorted(slices.Values(upWarn)))) {
		return fmt.Sprintf("warnings %q, upstream %q", res.Warnings, upWarn)
	}
	got := res.CRD.DeepCopy()
	got.ManagedFields, upCRD.ManagedFields = nil, nil
	if !reflect.DeepEqual(got, upCRD) {
		gj, _ := json.Marshal(got)
		uj, _ := json.Marshal(upCRD)
		return fmt.Sprintf("prepared CRD differs\ncrdkit:   %s\nupstream: %s", truncate(gj), truncate(uj))
	}
	return ""
}

const contributed = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"

// contributedOnly reports whether a and b differ only in which expressions
// contributed to an exceeded CEL total, and name as many.
func contributedOnly(a, b []string) bool {
	strip := func(l []string) ([]string, int) {
		var out []string
		n := 0
		for _, x := range l {
			if strings.HasSuffix(x, contributed) {
				n++
			} else {
				out = append(out, x)
			}
		}
		return out, n
	}
	ra, na := strip(a)
	rb, nb := strip(b)
	return na == nb && na > 0 && slices.Equal(ra, rb)
}

// upstreamTies reports whether the server's code, run again on p, picks
// other contributors than first: its pick among equal costs follows Go map
// order (up to 64 runs, stopping at the first change).
func upstreamTies(p updatePair, first []string) bool {
	for range 64 {
		errs, _, _, err := upstreamUpdate(p.new, p.old)
		if err != nil {
			return false
		}
		if !slices.Equal(causes(errs), first) {
			return true
		}
	}
	return false
}

// handwrittenPair turns a hand-written case into a pair: the live CRD as
// stored (status, uid, resourceVersion) and the revision sent with live's
// resourceVersion.
func handwrittenPair(t testing.TB, c crdmut.UpdateCase) updatePair {
	var live, nw map[string]any
	if err := json.Unmarshal([]byte(c.Live), &live); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(c.New))
	dec.UseNumber() // numbers as the case has them (1e400 among them)
	if err := dec.Decode(&nw); err != nil {
		t.Fatal(err)
	}
	asStored(t, live, c.Established, nil)
	if c.StoredVersions != nil {
		var sv []any
		for _, v := range c.StoredVersions {
			sv = append(sv, v)
		}
		live["status"].(map[string]any)["storedVersions"] = sv
	}
	nw["metadata"].(map[string]any)["resourceVersion"] = "42"
	return updatePair{c.Name, mustJSON(t, nw), mustJSON(t, live)}
}

// TestHandwrittenUpdatesAgree compares crdkit.UpdateCRD with the server's
// registry code on the hand-written revisions of crdmut.HandwrittenUpdates,
// and checks each case's Invalid flag against the server's create
// validation of its live CRD.
func TestHandwrittenUpdatesAgree(t *testing.T) {
	var agree, refused, warned int
	for _, c := range crdmut.HandwrittenUpdates {
		t.Run(c.Name, func(t *testing.T) {
			if errs, err := upstreamLint([]byte(c.Live)); err != nil || (len(errs) > 0) != c.Invalid {
				t.Errorf("case %q: Invalid = %v, but the server's create validation of its live CRD gives %v (%v)", c.Name, c.Invalid, errs, err)
			}
			p := handwrittenPair(t, c)
			ov, _, _ := decodeInternal(p.old)
			nv, _, err := decodeInternal(p.new)
			if err != nil {
				// The server's decoding refuses the body (a number past
				// float64's range) before anything else looks at it.
				typed := new(apiextensionsv1.CustomResourceDefinition)
				if _, derr := kjson.UnmarshalStrict(p.new, typed); derr != nil {
					t.Fatal(derr)
				}
				res := crdkit.UpdateCRD(typed, ov)
				if st := (&crdkit.Result{Err: res.Err}).Status(); st == nil || st.Code != 400 || !strings.Contains(st.Message, "cannot be handled as a CustomResourceDefinition: "+err.Error()) {
					t.Errorf("UpdateCRD(%s) = %v, want the decoding's 400 BadRequest (%v)", c.Name, res.Err, err)
					return
				}
				agree++
				refused++
				return
			}
			res := crdkit.UpdateCRD(nv, ov)
			if nv.Name != ov.Name {
				if st := (&crdkit.Result{Err: res.Err}).Status(); st == nil || st.Code != 400 {
					t.Errorf("UpdateCRD(%s) = %v, want 400 BadRequest", c.Name, res.Err)
				}
				agree++
				return
			}
			upErrs, upWarn, upCRD, err := upstreamUpdate(p.new, p.old)
			if err != nil {
				t.Fatal(err)
			}
			if msg := compareUpdate(res, upErrs, upWarn, upCRD); msg != "" {
				t.Errorf("UpdateCRD(%s): %s", c.Name, msg)
				return
			}
			t.Logf("%s: %d causes %q, warnings %q", c.Name, len(upErrs), causes(upErrs), upWarn)
			agree++
			if len(upErrs) > 0 {
				refused++
			}
			if len(upWarn) > 0 {
				warned++
			}
		})
	}
	fmt.Printf("conformance: crd-update-handwritten %d/%d cases agree (%d refused, %d with warnings)\n", agree, len(crdmut.HandwrittenUpdates), refused, warned)
}
