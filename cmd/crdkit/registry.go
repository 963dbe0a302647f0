package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/docs"
)

// registry finds the CRD version serving an apiVersion and kind. CRDs are
// registered from a light decode of their documents and compiled on first
// use, once, so that a directory of many CRDs costs only what its objects
// need. It is safe for concurrent use.
type registry struct {
	byKey map[string]*lazyCRD // key: group/version + " " + kind, served versions only
}

// lazyCRD is one CRD document, compiled on first use.
type lazyCRD struct {
	doc  docs.Doc
	once sync.Once
	crd  *crdkit.CRD
	err  error
}

func (l *lazyCRD) load() (*crdkit.CRD, error) {
	l.once.Do(func() {
		l.crd, l.err = crdkit.Load(l.doc.JSON)
		if l.err != nil {
			l.err = &docs.Error{File: l.doc.File, Line: l.doc.Line, Err: fmt.Errorf("the API server would refuse this CRD: %w", l.err)}
		}
	})
	return l.crd, l.err
}

// crdHead is what registering a CRD needs from its document.
type crdHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
		} `json:"versions"`
	} `json:"spec"`
}

// isCRD reports whether a document is an apiextensions.k8s.io/v1 CRD.
func isCRD(js []byte) (crdHead, bool) {
	var h crdHead
	if json.Unmarshal(js, &h) != nil && h.APIVersion == "" {
		// A CRD whose spec does not decode still names itself; the
		// loose decode below finds its type meta.
		var tm struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		_ = json.Unmarshal(js, &tm)
		h.APIVersion, h.Kind = tm.APIVersion, tm.Kind
	}
	return h, h.APIVersion == "apiextensions.k8s.io/v1" && h.Kind == "CustomResourceDefinition"
}

// add registers a CRD document for every version it serves; a later
// document for the same version wins, as a later apply would.
func (r *registry) add(d docs.Doc, h crdHead) {
	l := &lazyCRD{doc: d}
	for _, v := range h.Spec.Versions {
		if v.Served {
			r.byKey[h.Spec.Group+"/"+v.Name+" "+h.Spec.Names.Kind] = l
		}
	}
	if len(h.Spec.Versions) == 0 {
		// Undecodable or versionless: compile now so the refusal is seen.
		if _, err := l.load(); err != nil {
			r.byKey["\x00"+d.File+fmt.Sprint(d.Index)] = l
		}
	}
}

// errNoCRD marks an object no registered CRD serves.
var errNoCRD = errors.New("no CRD serves it")

// version returns the compiled version serving apiVersion and kind, or
// errNoCRD, or the CRD's load error.
func (r *registry) version(apiVersion, kind string) (*crdkit.Version, error) {
	l := r.byKey[apiVersion+" "+kind]
	if l == nil {
		return nil, errNoCRD
	}
	crd, err := l.load()
	if err != nil {
		return nil, err
	}
	for _, v := range crd.Versions() {
		if crd.Group()+"/"+v.Name() == apiVersion && v.Served() {
			return v, nil
		}
	}
	return nil, errNoCRD
}

// refused lists the load errors of CRDs compiled at registration (those
// without versions, or that do not decode).
func (r *registry) refused() []error {
	var out []error
	for k, l := range r.byKey {
		if k[0] == 0 {
			_, err := l.load()
			out = append(out, err)
		}
	}
	return out
}

// loadRegistry registers the CRDs of the --crds paths and of the inputs
// (only files that mention CustomResourceDefinition are decoded); status is
// 2 when something could not be read or a CRD that does not decode.
func loadRegistry(crds, inputs []string, stderr io.Writer) (*registry, int) {
	reg := &registry{byKey: map[string]*lazyCRD{}}
	status := 0
	for _, paths := range [][]string{crds, inputs} {
		files, err := docs.Files(paths)
		if err != nil {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
			continue
		}
		for _, f := range files {
			data, err := docs.ReadFile(f.Path)
			if err != nil {
				fmt.Fprintf(stderr, "crdkit: %v\n", err)
				status = 2
				continue
			}
			if !bytes.Contains(data, []byte("CustomResourceDefinition")) {
				continue // no CRD here: spare the YAML conversion
			}
			ds, err := docs.Split(f.Path, data)
			if err != nil {
				fmt.Fprintf(stderr, "crdkit: %v\n", err)
				status = 2
			}
			for _, d := range ds {
				if h, ok := isCRD(d.JSON); ok {
					reg.add(d, h)
				}
			}
		}
	}
	for _, err := range reg.refused() {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		status = 2
	}
	return reg, status
}
