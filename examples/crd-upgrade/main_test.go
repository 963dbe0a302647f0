package main

import (
	"slices"
	"strings"
	"testing"
)

// TestUpgrade checks the example's report: the update is accepted, three
// of the four changes break, and each stored object shows one outcome.
func TestUpgrade(t *testing.T) {
	r, err := check("live.yaml", "next.yaml", "stored.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Update.Allowed || r.Summary.BreakingChanges != 3 || r.Summary.Changes != 4 || !r.Breaks() {
		t.Errorf("check = update %+v, %d changes (%d breaking), want accepted, 4 (3 breaking)", r.Update, r.Summary.Changes, r.Summary.BreakingChanges)
	}
	want := map[string]string{
		"nightly":   "ok",
		"yearly":    "ratcheted spec.retentionDays, change refused, create refused",
		"old-style": "pruned spec.legacyBucket",
		"gcs":       "ratcheted spec, create refused",
	}
	for _, o := range r.Objects {
		var got []string
		if len(o.Pruned) > 0 {
			got = append(got, "pruned "+strings.Join(o.Pruned, ","))
		}
		for _, rt := range o.Ratcheted {
			got = append(got, "ratcheted "+rt.Field)
			if rt.ChangeVerdict != nil && !rt.ChangeVerdict.Allowed {
				got = append(got, "change refused")
			}
		}
		if !o.Create.Allowed {
			got = append(got, "create refused")
		}
		if !o.NoOpUpdate.Allowed {
			got = append(got, "update refused")
		}
		if len(got) == 0 {
			got = []string{"ok"}
		}
		if g := strings.Join(got, ", "); g != want[o.Name] {
			t.Errorf("check: object %s = %q, want %q", o.Name, g, want[o.Name])
		}
		if !slices.Equal(o.Defaulted, []string{"spec.compression"}) {
			t.Errorf("check: object %s defaulted %v, want [spec.compression]", o.Name, o.Defaulted)
		}
	}
	if len(r.Objects) != len(want) {
		t.Errorf("check: %d objects, want %d", len(r.Objects), len(want))
	}
}
