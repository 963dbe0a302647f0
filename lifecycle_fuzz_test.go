package crdkit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// FuzzDelete sends DELETEs with arbitrary options (a DeleteOptions body as
// JSON) of an object with arbitrary finalizers, being deleted or not: no
// panic, live untouched, and an answer that is one of the server's three:
// a refusal; the object deleted (the Status of success, or the dry run's
// empty object); or the object kept with the finalizers the garbage
// collector's rules give, a deletion timestamp, a grace period of 0.
func FuzzDelete(f *testing.F) {
	v, live := loadUpdatesExample(f)
	for _, s := range []struct {
		opts, finalizers string
		terminating      bool
	}{
		{`{}`, "", false},
		{`{"dryRun":["All"]}`, "example.com/hold", false},
		{`{"propagationPolicy":"Foreground"}`, "", false},
		{`{"propagationPolicy":"Background","preconditions":{"resourceVersion":"4242"}}`, "orphan", false},
		{`{"orphanDependents":false}`, "a,orphan", true},
		{`{"propagationPolicy":"Sideways","dryRun":["Some"]}`, "", false},
		{`{"ignoreStoreReadErrorWithClusterBreakingPotential":true,"gracePeriodSeconds":-3}`, "", false},
		{`{"preconditions":{"uid":"x"}}`, "foregroundDeletion,orphan", true},
	} {
		f.Add(s.opts, s.finalizers, s.terminating)
	}
	f.Fuzz(func(t *testing.T, body, finalizers string, terminating bool) {
		var opts metav1.DeleteOptions
		if json.Unmarshal([]byte(body), &opts) != nil {
			return
		}
		obj := runtime.DeepCopyJSON(live)
		md := obj["metadata"].(map[string]any)
		var fs []string
		if finalizers != "" {
			fs = strings.Split(finalizers, ",")
			l := make([]any, len(fs))
			for i, x := range fs {
				l[i] = x
			}
			md["finalizers"] = l
		}
		if terminating {
			md["deletionTimestamp"], md["deletionGracePeriodSeconds"] = "2026-01-11T00:00:00Z", int64(0)
		}
		before := runtime.DeepCopyJSON(obj)
		res := v.Delete(obj, DeleteOptions{DeleteOptions: opts})
		if !reflect.DeepEqual(obj, before) {
			t.Fatalf("Delete(%s) modified live", body)
		}
		if res.Err != nil {
			if res.Object != nil || res.Deleted || res.Status() == nil {
				t.Fatalf("Delete(%s) = %v with object %v, deleted %v", body, res.Err, res.Object, res.Deleted)
			}
			return
		}
		orphan, foreground := gcPolicy(&opts, fs)
		want, _ := GCFinalizers(fs, orphan, foreground)
		if res.Deleted {
			if len(want) > 0 || res.Code != 200 || res.Object["kind"] != "Status" && res.Object["kind"] != "CronTab" {
				t.Fatalf("Delete(%s) of finalizers %q = deleted %d %v, want kept with %q", body, fs, res.Code, res.Object, want)
			}
			return
		}
		rmd := res.Object["metadata"].(map[string]any)
		var got []string
		l, _ := rmd["finalizers"].([]any)
		for _, x := range l {
			got = append(got, x.(string))
		}
		if !slices.Equal(got, want) || rmd["deletionGracePeriodSeconds"] != int64(0) || rmd["deletionTimestamp"] == nil || res.Code != 200 && res.Code != 202 {
			t.Fatalf("Delete(%s) of finalizers %q = %d %v, want finalizers %q, a deletion timestamp, grace 0", body, fs, res.Code, rmd, want)
		}
	})
}

// FuzzSelector compiles arbitrary label and field selectors for a version
// with selectable fields and matches an object with arbitrary labels and
// field values: no panic, the server's refusal exactly when its parsers
// or its field-label check refuse, and the same verdict as the server's
// own selectors matched against the label and field sets its registry
// builds (fmt.Sprint of each value, "" where missing).
func FuzzSelector(f *testing.F) {
	crd, err := Load([]byte(widgetCRD))
	if err != nil {
		f.Fatal(err)
	}
	v := crd.Version("v1")
	for _, s := range []struct {
		ls, fs, labelKey, labelValue, color string
		size                                int64
		enabled                             bool
	}{
		{"app=x", "spec.color=red", "app", "x", "red", 3, true},
		{"app in (x,y),!tier", "spec.size!=3,metadata.name=w", "tier", "1", "", -4, false},
		{"tier>1", "spec.enabled=true", "tier", "02", "blue", 0, true},
		{"a!b", "spec.other=d", "", "", "", 0, false},
		{"", `metadata.name=a\,b`, "app", "", "x,y", 1, false},
		{"app notin (a)", "spec.color=", "app", "a", "", 1, false},
	} {
		f.Add(s.ls, s.fs, s.labelKey, s.labelValue, s.color, s.size, s.enabled)
	}
	f.Fuzz(func(t *testing.T, ls, fsel, labelKey, labelValue, color string, size int64, enabled bool) {
		obj := widget("ns", "w", nil, map[string]any{"size": size, "enabled": enabled})
		if color != "" {
			obj["spec"].(map[string]any)["color"] = color
		}
		if labelKey != "" {
			obj["metadata"].(map[string]any)["labels"] = map[string]any{labelKey: labelValue}
		}
		s, err := v.Selector(ListOptions{LabelSelector: ls, FieldSelector: fsel})
		lsel, lerr := labels.Parse(ls)
		fs, ferr := fields.ParseSelector(fsel)
		if ferr == nil {
			fs, ferr = fs.Transform(func(label, value string) (string, string, error) {
				switch label {
				case "metadata.name", "metadata.namespace", "spec.color", "spec.size", "spec.enabled":
					return label, value, nil
				}
				return "", "", fmt.Errorf("field label not supported: %s", label)
			})
		}
		switch {
		case lerr != nil:
			if err == nil || err.Error() != lerr.Error() {
				t.Fatalf("Selector(%q, %q) = %v, want %v", ls, fsel, err, lerr)
			}
			return
		case ferr != nil:
			if err == nil || err.Error() != ferr.Error() {
				t.Fatalf("Selector(%q, %q) = %v, want %v", ls, fsel, err, ferr)
			}
			return
		case err != nil:
			t.Fatalf("Selector(%q, %q) = %v, want a selector", ls, fsel, err)
		}
		set := labels.Set{}
		if labelKey != "" {
			set[labelKey] = labelValue
		}
		fieldSet := fields.Set{"metadata.name": "w", "metadata.namespace": "ns", "spec.color": color,
			"spec.size": fmt.Sprint(size), "spec.enabled": fmt.Sprint(enabled)}
		want := lsel.Matches(set) && fs.Matches(fieldSet)
		if got := s.Matches(obj); got != want {
			t.Fatalf("Selector(%q, %q).Matches(labels %v, fields %v) = %v, want %v", ls, fsel, set, fieldSet, got, want)
		}
	})
}
