package upgrade

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conversion"
	"github.com/crdkit/crdkit/generate"
)

// Options configure CheckWith.
type Options struct {
	// Webhook, when set, calls the next revision's conversion webhook (as
	// conversion.NewWebhook does) to round-trip generated objects between
	// its served versions. Nil: no round trips.
	Webhook *conversion.WebhookOptions
	// RoundTripObjects is how many objects are generated per served
	// version (default 10).
	RoundTripObjects int
}

// RoundTrip is the round trip of objects generated at one served version
// (From, valid there) through another (Via) and back, as the server makes
// it when Via is its storage version: each object is created at From (its
// defaults added, unknown fields pruned), converted to Via by the CRD's
// conversion webhook, pruned with Via's schema as it is stored, read back
// with Via's defaults, converted to From by the webhook and pruned with
// From's schema. Each webhook call is one ConversionReview of one object,
// its answer checked as the server checks it. This is what a client
// writing at From and reading at From sees while the cluster stores Via,
// and the create's response.
type RoundTrip struct {
	From string `json:"from"`
	Via  string `json:"via"`
	// Objects is the number of generated objects sent (a generated object
	// that the create at From refuses is not sent).
	Objects int `json:"objects"`
	// Lost are the fields (outside metadata, list indexes as [*]) that an
	// object had as created at From and lacks when it comes back; Changed
	// the fields that come back with another value or that it did not
	// have.
	Lost    []string `json:"lost,omitempty"`
	Changed []string `json:"changed,omitempty"`
	// Failed is the number of objects whose round trip the webhook failed,
	// and Error the first failure, as the server answers the create (its
	// message, a 500).
	Failed int    `json:"failed,omitempty"`
	Error  string `json:"error,omitempty"`
	// Results are the objects' round trips, in order.
	Results []ObjectTrip `json:"-"`
}

// ObjectTrip is the round trip of one generated object.
type ObjectTrip struct {
	// Object is the generated object, sent in the create at From.
	Object map[string]any
	// Created is the object as the create at From answers it without
	// conversion (From stored): the base of the comparison.
	Created map[string]any
	// Back is the object as the create at From answers it with Via
	// stored, nil when the webhook failed.
	Back map[string]any
	// Lost and Changed compare Back with Created, as in RoundTrip; Error
	// is the webhook's failure.
	Lost, Changed []string
	Error         string
}

// Breaks reports whether data does not survive the round trip.
func (t RoundTrip) Breaks() bool { return len(t.Lost) > 0 || len(t.Changed) > 0 || t.Error != "" }

// roundTrips round-trips generated objects between every ordered pair of
// the served versions of c (the next revision, as stored) through its
// conversion webhook. It returns why none were made when c has no webhook.
func roundTrips(ctx context.Context, c *crdkit.CRD, opts Options) ([]RoundTrip, string) {
	def := c.Definition()
	conv := def.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter {
		return nil, ""
	}
	var served []string
	for _, v := range c.Versions() {
		if v.Served() {
			served = append(served, v.Name())
		}
	}
	if len(served) < 2 {
		return nil, ""
	}
	hook, err := conversion.NewWebhook(def, *opts.Webhook)
	if err != nil {
		return nil, "conversion round trips not made: " + err.Error()
	}
	n := opts.RoundTripObjects
	if n <= 0 {
		n = 10
	}
	// storing[v] is the next revision with v its storage version.
	storing := map[string]*crdkit.CRD{}
	for _, v := range served {
		d := def.DeepCopy()
		for i := range d.Spec.Versions {
			d.Spec.Versions[i].Storage = d.Spec.Versions[i].Name == v
		}
		if storing[v], err = crdkit.New(d, crdkit.LoadOptions{AllowInvalid: true}); err != nil {
			return nil, "conversion round trips not made: " + err.Error()
		}
	}
	create := func(c *crdkit.CRD, version string, obj map[string]any) crdkit.Result {
		ns := ""
		if c.Namespaced() {
			ns = "default"
		}
		return c.Version(version).Create(obj, crdkit.CreateOptions{Namespace: ns, FieldValidation: crdkit.Ignore,
			ManagedFields: crdkit.ManagedFields{Omit: true}, Convert: crdkit.ConvertOptions{Context: ctx, Webhook: hook}})
	}
	var out []RoundTrip
	for _, from := range served {
		at := storing[from]
		g, err := generate.ForVersion(at.Version(from), generate.Options{})
		if err != nil {
			return out, "conversion round trips not made: " + err.Error()
		}
		var objs, created []map[string]any
		for i := range n {
			o, _ := g.Valid(uint64(i+1), fmt.Sprintf("roundtrip-%d", i))
			if res := create(at, from, o); res.Err == nil {
				objs, created = append(objs, o), append(created, res.Object)
			}
		}
		for _, via := range served {
			if via == from {
				continue
			}
			t := RoundTrip{From: from, Via: via, Objects: len(objs)}
			for i, o := range objs {
				ot := ObjectTrip{Object: o, Created: created[i]}
				res := create(storing[via], from, o)
				if res.Err != nil {
					ot.Error = res.Err.Error()
					if t.Failed++; t.Error == "" {
						t.Error = ot.Error
					}
				} else {
					ot.Back = res.Object
					removed, added := diffPaths(created[i], res.Object)
					ot.Lost, ot.Changed = addPaths(nil, removed), addPaths(nil, added)
					t.Lost = addPaths(t.Lost, removed)
					t.Changed = addPaths(t.Changed, added)
				}
				t.Results = append(t.Results, ot)
			}
			out = append(out, t)
		}
	}
	return out, ""
}

var listIndex = regexp.MustCompile(`\[\d+\]`)

// addPaths adds each path (list indexes as [*]) to the sorted set to.
func addPaths(to, paths []string) []string {
	for _, p := range paths {
		p = listIndex.ReplaceAllString(p, "[*]")
		if i, found := slices.BinarySearch(to, p); !found {
			to = slices.Insert(to, i, p)
		}
	}
	return to
}
