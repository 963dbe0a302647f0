package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crdkit/crdkit/internal/docs"
)

// kindFilter is validate's --skip and --reject, named and read as
// kubeconform's -skip and -reject: comma-separated kinds, each a Kind
// (every apiVersion) or an apiVersion/Kind (apps/v1/Deployment,
// v1/ConfigMap). A document of a skipped kind is not checked; one of a
// rejected kind is refused without being checked; --skip wins when a
// kind is in both.
type kindFilter struct {
	skip, reject map[string]bool
}

// newKindFilter reads the flags' values; an empty entry or one with an
// empty part is an error.
func newKindFilter(skip, reject []string) (kindFilter, error) {
	f := kindFilter{skip: map[string]bool{}, reject: map[string]bool{}}
	for _, l := range []struct {
		flag   string
		values []string
		set    map[string]bool
	}{{"--skip", skip, f.skip}, {"--reject", reject, f.reject}} {
		for _, v := range l.values {
			for _, k := range strings.Split(v, ",") {
				k = strings.TrimSpace(k)
				parts := strings.Split(k, "/")
				if k == "" || len(parts) > 3 || strings.Contains("/"+k+"/", "//") {
					return f, fmt.Errorf("%s: %q is not a kind: give Kind, VERSION/Kind or GROUP/VERSION/Kind (Deployment, v1/ConfigMap, apps/v1/Deployment)", l.flag, k)
				}
				l.set[k] = true
			}
		}
	}
	return f, nil
}

func (f kindFilter) empty() bool { return len(f.skip) == 0 && len(f.reject) == 0 }

// apply answers for a document of a skipped or rejected kind, without
// checking it; ok is false for the others.
func (f kindFilter) apply(d docs.Doc) (r objectResult, ok bool) {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if json.Unmarshal(d.JSON, &tm) != nil {
		return r, false // validate reports it
	}
	in := func(set map[string]bool) bool { return set[tm.Kind] || set[tm.APIVersion+"/"+tm.Kind] }
	r = objectResult{File: d.File, Index: d.Index, Line: d.Line, Path: d.Path, APIVersion: tm.APIVersion, Kind: tm.Kind,
		Name: tm.Metadata.Name, Namespace: tm.Metadata.Namespace, Warnings: d.Warnings}
	switch {
	case in(f.skip):
		r.NotChecked, r.Skipped = true, true
		r.Message = fmt.Sprintf("not checked: kind %s is skipped (--skip)", tm.Kind)
	case in(f.reject):
		r.Rejected = true
		r.Message = fmt.Sprintf("rejected: kind %s is prohibited (--reject)", tm.Kind)
	default:
		return r, false
	}
	return r, true
}

// rejectedResult is how a document of a --reject kind is written: refused
// by crdkit, not by the server, so with no code, reason or causes.
type rejectedResult struct {
	File       string   `json:"file"`
	Index      int      `json:"index"`
	Path       string   `json:"path,omitempty"`
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace,omitempty"`
	Name       string   `json:"name"`
	Line       int      `json:"line,omitempty"`
	Checked    bool     `json:"checked"`
	Allowed    bool     `json:"allowed"`
	Rejected   bool     `json:"rejected"`
	Message    string   `json:"message"`
	Warnings   []string `json:"warnings,omitempty"`
}
