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
// (From, valid there as a create would find them) to another (Via) and
// back through the CRD's conversion webhook, each leg one
// ConversionReview of all the objects, checked as the server checks it.
type RoundTrip struct {
	From    string `json:"from"`
	Via     string `json:"via"`
	Objects int    `json:"objects"`
	// Lost are the fields (outside metadata, list indexes as [*]) that an
	// object had at From and lacks when it comes back; Changed the fields
	// that come back with another value or that it did not have.
	Lost    []string `json:"lost,omitempty"`
	Changed []string `json:"changed,omitempty"`
	// Error is the webhook's failure, as the server reports it.
	Error string `json:"error,omitempty"`
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
	var served []*crdkit.Version
	for _, v := range c.Versions() {
		if v.Served() {
			served = append(served, v)
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
	kind := def.Spec.Names.Kind
	if def.Spec.Names.ListKind != "" {
		kind = def.Spec.Names.ListKind
	}
	var out []RoundTrip
	for _, from := range served {
		g, err := generate.ForVersion(from, generate.Options{})
		if err != nil {
			return out, "conversion round trips not made: " + err.Error()
		}
		objs := make([]any, n)
		for i := range objs {
			objs[i], _ = g.Valid(uint64(i+1), fmt.Sprintf("roundtrip-%d", i))
		}
		fromAV := def.Spec.Group + "/" + from.Name()
		list := map[string]any{"apiVersion": fromAV, "kind": kind, "items": objs}
		for _, via := range served {
			if via == from {
				continue
			}
			t := RoundTrip{From: from.Name(), Via: via.Name(), Objects: n}
			there, err := hook.ConvertList(ctx, list, def.Spec.Group+"/"+via.Name())
			var back map[string]any
			if err == nil {
				back, err = hook.ConvertList(ctx, there, fromAV)
			}
			if err != nil {
				t.Error = err.Error()
				out = append(out, t)
				continue
			}
			items, _ := back["items"].([]any)
			for i, o := range objs {
				var got map[string]any
				if i < len(items) {
					got, _ = items[i].(map[string]any)
				}
				removed, added := diffPaths(o.(map[string]any), got)
				t.Lost = addPaths(t.Lost, removed)
				t.Changed = addPaths(t.Changed, added)
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
