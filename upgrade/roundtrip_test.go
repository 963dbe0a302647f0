package upgrade_test

import (
	"context"
	"encoding/pem"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conversion"
	"github.com/crdkit/crdkit/upgrade"
)

// twoVersions is a CRD whose v1 spec.size is v2's spec.replicas, with a
// spec.note in v1 only, converted by a webhook.
const twoVersions = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, kind: Gadget}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: {url: "https://127.0.0.1:1/convert"}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size, note]
            properties:
              size: {type: integer, minimum: 1, maximum: 9}
              note: {type: string, enum: [a, b]}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [replicas]
            properties:
              replicas: {type: integer, minimum: 1, maximum: 9}
`

func rename(from, to string) conversion.Func {
	return func(obj map[string]any) (map[string]any, error) {
		if spec, ok := obj["spec"].(map[string]any); ok {
			if v, ok := spec[from]; ok {
				spec[to] = v
				delete(spec, from)
			}
		}
		return obj, nil
	}
}

// TestRoundTrips checks the conversion round trips of the report over a
// webhook that keeps size (as replicas) and loses note: v1 -> v2 -> v1
// loses spec.note, v2 -> v1 -> v2 keeps everything (versions in the
// server's priority order); a webhook that cannot be reached fails every
// object's round trip. conformance/servertest's
// TestUpgradeRoundTripsAgreeWithServer compares them with the server.
func TestRoundTrips(t *testing.T) {
	convert := conversion.Pairs(map[conversion.Pair]conversion.Func{
		{From: "example.com/v1", To: "example.com/v2"}: func(obj map[string]any) (map[string]any, error) {
			obj, _ = rename("size", "replicas")(obj)
			delete(obj["spec"].(map[string]any), "note")
			return obj, nil
		},
		{From: "example.com/v2", To: "example.com/v1"}: rename("replicas", "size"),
	})
	srv := httptest.NewTLSServer(conversion.NewHandler(convert))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	// The same conversion, adding fields that neither version knows: the
	// server prunes them where it stores the object and where it reads it
	// back, so they are neither lost nor changed.
	withJunk := func(f conversion.Func) conversion.Func {
		return func(obj map[string]any) (map[string]any, error) {
			obj, err := f(obj)
			if err == nil {
				obj["spec"].(map[string]any)["junk"] = true
				obj["junk"] = 1
			}
			return obj, err
		}
	}
	junk := httptest.NewTLSServer(conversion.NewHandler(conversion.Pairs(map[conversion.Pair]conversion.Func{
		{From: "example.com/v1", To: "example.com/v2"}: withJunk(func(obj map[string]any) (map[string]any, error) {
			obj, _ = rename("size", "replicas")(obj)
			delete(obj["spec"].(map[string]any), "note")
			return obj, nil
		}),
		{From: "example.com/v2", To: "example.com/v1"}: withJunk(rename("replicas", "size")),
	})))
	defer junk.Close()
	junkCA := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: junk.Certificate().Raw})

	live := new(apiextensionsv1.CustomResourceDefinition)
	if err := yaml.Unmarshal([]byte(twoVersions), live); err != nil {
		t.Fatal(err)
	}
	live, err := crdkit.Installed(live)
	if err != nil {
		t.Fatal(err)
	}
	next := live.DeepCopy()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	for _, tc := range []struct {
		name string
		url  string
		ca   []byte
		want []upgrade.RoundTrip // Error compared by prefix
	}{
		{"lossy webhook", srv.URL + "/convert", ca, []upgrade.RoundTrip{
			{From: "v2", Via: "v1", Objects: 3},
			{From: "v1", Via: "v2", Objects: 3, Lost: []string{"spec.note"}},
		}},
		{"lossy webhook adding unknown fields", junk.URL + "/convert", junkCA, []upgrade.RoundTrip{
			{From: "v2", Via: "v1", Objects: 3},
			{From: "v1", Via: "v2", Objects: 3, Lost: []string{"spec.note"}},
		}},
		{"unreachable webhook", "https://127.0.0.1:1/convert", ca, []upgrade.RoundTrip{
			{From: "v2", Via: "v1", Objects: 3, Failed: 3, Error: "conversion webhook for example.com/v2, Kind=Gadget failed: Post"},
			{From: "v1", Via: "v2", Objects: 3, Failed: 3, Error: "conversion webhook for example.com/v1, Kind=Gadget failed: Post"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := upgrade.CheckWith(ctx, live, next, nil, upgrade.Options{
				Webhook:          &conversion.WebhookOptions{URL: tc.url, CABundle: tc.ca, Timeout: 5 * time.Second},
				RoundTripObjects: 3,
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.RoundTripNote != "" {
				t.Fatalf("CheckWith(%s).RoundTripNote = %q, want none", tc.name, r.RoundTripNote)
			}
			if len(r.RoundTrips) != len(tc.want) {
				t.Fatalf("CheckWith(%s).RoundTrips = %+v, want %+v", tc.name, r.RoundTrips, tc.want)
			}
			for i, got := range r.RoundTrips {
				w := tc.want[i]
				if got.From != w.From || got.Via != w.Via || got.Objects != w.Objects || got.Failed != w.Failed || len(got.Results) != w.Objects || !slices.Equal(got.Lost, w.Lost) ||
					!slices.Equal(got.Changed, w.Changed) || !strings.HasPrefix(got.Error, w.Error) || (w.Error == "") != (got.Error == "") {
					t.Errorf("CheckWith(%s).RoundTrips[%d] = %+v, want %+v", tc.name, i, got, w)
				}
			}
			if !r.Breaks() || r.Summary.RoundTripsLossy == 0 {
				t.Errorf("CheckWith(%s).Breaks() = %v (%d lossy), want true", tc.name, r.Breaks(), r.Summary.RoundTripsLossy)
			}
		})
	}

	// Without webhook options, or for a CRD without a webhook, no round trips.
	r, err := upgrade.Check(live, next, nil)
	if err != nil || len(r.RoundTrips) != 0 || r.Breaks() {
		t.Errorf("Check(no webhook options) = %+v, %v; want no round trips, nothing broken", r, err)
	}
}
