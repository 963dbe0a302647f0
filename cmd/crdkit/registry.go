package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/crdhead"
	"github.com/crdkit/crdkit/internal/docs"
	"github.com/crdkit/crdkit/internal/par"
	"github.com/crdkit/crdkit/internal/verdict"
)

// registry finds the CRD version serving an apiVersion and kind. CRDs are
// registered from a light decode of their documents and compiled on first
// use, once, so that a directory of many CRDs costs only what its objects
// need. It is safe for concurrent use.
type registry struct {
	byKey map[string]*lazyCRD // key: group/version + " " + kind, served versions only
	// byGroupKind holds every CRD by group + " " + kind, to tell a version
	// the CRD does not serve (the server's 404) from a kind no CRD defines.
	byGroupKind map[string]*lazyCRD
	// byType is byKey by kind, then apiVersion: looked up per document
	// without building a key, from strings or from a document's bytes.
	byType map[string]map[string]servedType
	// listKinds holds group + " " + listKind for CRDs whose listKind is
	// not <Kind>List.
	listKinds map[string]bool
	// inputs are the CRDs found among the inputs (not --crds): all of them
	// are compiled, and a refusal fails the run even when no object uses
	// the CRD.
	inputs []*lazyCRD
	// unreadable are the errors of --crds documents whose head could not
	// be read (invalid YAML): see loadRegistry's lenient.
	unreadable []error
	// cache keeps CRD work across runs (nil: off).
	cache *cache
	// kept holds the contents of inputs read while registering, by path,
	// up to keptBudget bytes in all, so that the inputs' reader need not
	// read them again (read).
	kept     sync.Map
	keptSize atomic.Int64
	// inputFiles is the listing of the inputs made while registering
	// (nil when it failed): the inputs' reader need not list them again.
	inputFiles []docs.File

	// The background compilation (prefetch).
	stop      chan struct{}
	closeOnce sync.Once
	// compiled is closed when the background compilation has compiled
	// every CRD it was given (or stopped).
	compiled chan struct{}
	wg       sync.WaitGroup
}

// servedType is a byType entry: the apiVersion and kind it is found by
// (to read a document's type meta into without allocating) and its CRD.
type servedType struct {
	apiVersion, kind string
	l                *lazyCRD
}

// lazyCRD is one CRD document, compiled on first use.
type lazyCRD struct {
	doc docs.Doc
	// chunk is the document not yet converted, when its head was read
	// from its YAML text (yamlCRDHead): it is converted on first use.
	chunk *docs.Chunk
	head  crdHead
	// cache and sum (the SHA-256 of chunk's text, or of doc.JSON when
	// nil) find what an earlier run kept of this document.
	cache *cache
	sum   *[32]byte
	once  sync.Once
	crd   *crdkit.CRD
	err   error
	used  atomic.Bool // an object asked for it (its error, if any, was reported with the object)
}

func (l *lazyCRD) load() (*crdkit.CRD, error) {
	l.once.Do(func() {
		fromChunk := l.chunk != nil
		key, kept, hit := l.cached()
		switch {
		case hit && fromChunk:
			l.doc.JSON = kept[0]
			kept = kept[1:]
		case fromChunk:
			js, _, err := l.chunk.Convert()
			if err != nil {
				l.chunk = nil
				l.err = err
				return
			}
			l.doc.JSON = js
		}
		l.chunk = nil
		// The cache keeps the outcome of the server's validation of the
		// CRD: Load skips it on a hit, and records it on a miss.
		vd := &verdict.Verdict{Known: hit}
		if hit {
			for _, w := range kept {
				vd.Warnings = append(vd.Warnings, string(w))
			}
		}
		l.crd, l.err = crdkit.Load(l.doc.JSON, crdkit.LoadOptions{Verdict: vd})
		if l.err == nil && !hit && vd.Known && l.cache != nil {
			fields := make([][]byte, 0, 1+len(vd.Warnings))
			if fromChunk {
				fields = append(fields, l.doc.JSON)
			}
			for _, w := range vd.Warnings {
				fields = append(fields, []byte(w))
			}
			l.cache.putAsync(key, fields...)
		}
		if l.err != nil {
			where := ""
			if l.doc.Path != "" {
				where = l.doc.Path + ": "
			}
			l.err = &docs.Error{File: l.doc.File, Line: l.doc.Line, Err: fmt.Errorf("%sthe API server would refuse this CRD: %w", where, l.err)}
		}
		l.doc.JSON = nil // compiled: the document is not needed any more
	})
	return l.crd, l.err
}

// cached looks the document up in the cache: the entry of a chunk holds
// its JSON, then the warnings of the CRD validation; that of a document
// converted already, the warnings only.
func (l *lazyCRD) cached() (key cacheKey, fields [][]byte, ok bool) {
	if l.cache == nil {
		return key, nil, false
	}
	if l.chunk != nil {
		if l.sum == nil {
			s := sha256.Sum256(l.chunk.Text)
			l.sum = &s
		}
		key = l.cache.key(entryCRD, l.sum)
		fields, ok = l.cache.get(key)
		return key, fields, ok && len(fields) > 0
	}
	sum := sha256.Sum256(l.doc.JSON)
	key = l.cache.key(entryVerdict, &sum)
	fields, ok = l.cache.get(key)
	return key, fields, ok
}

// crdHead is what registering a CRD needs from its document.
type crdHead = crdhead.Head

// yamlCRDHead reads a CRD's head from its YAML text (crdhead.YAML), ok
// false when the document must be converted to read it.
func yamlCRDHead(text []byte) (crdHead, bool) { return crdhead.YAML(text) }

// textCRDHead reads a CRD's head from a document's text, JSON
// (crdhead.JSON) or YAML (yamlCRDHead), from the cache when an earlier
// run read it (sum is the SHA-256 of text; nil when c is), ok false when
// the document must be converted to read it.
func textCRDHead(c *cache, sum *[32]byte, text []byte) (crdHead, bool) {
	var key cacheKey
	if c != nil {
		key = c.key(entryHead, sum)
		if f, ok := c.get(key); ok && len(f) == 1 {
			var h crdHead
			if json.Unmarshal(f[0], &h) == nil {
				return h, true
			}
		}
	}
	var h crdHead
	var ok bool
	if t := bytes.TrimLeft(text, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		h, ok = crdhead.JSON(text)
	} else {
		h, ok = yamlCRDHead(text)
	}
	if ok && c != nil {
		if js, err := json.Marshal(h); err == nil {
			c.putAsync(key, js)
		}
	}
	return h, ok
}

// isCRD reports whether a document is an apiextensions.k8s.io/v1 CRD.
func isCRD(js []byte) (crdHead, bool) {
	if !bytes.Contains(js, []byte("CustomResourceDefinition")) && !bytes.Contains(js, []byte(`\u`)) {
		// The kind can be written only so (or with \u escapes): not a CRD.
		return crdHead{}, false
	}
	return decodeCRDHead(js)
}

// decodeCRDHead is isCRD for a document that may be a CRD (kept apart so
// that isCRD's answer for the others costs no allocation).
func decodeCRDHead(js []byte) (crdHead, bool) {
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
// document for the same version wins, as a later apply would. input marks
// a CRD found among the inputs.
func (r *registry) add(d docs.Doc, h crdHead, input bool) {
	r.addLazy(&lazyCRD{doc: d, head: h, cache: r.cache}, input)
}

// addLazy registers l, as add does.
func (r *registry) addLazy(l *lazyCRD, input bool) {
	d, h := l.doc, l.head
	for _, v := range h.Spec.Versions {
		if v.Served {
			apiVersion, kind := h.Spec.Group+"/"+v.Name, h.Spec.Names.Kind
			r.byKey[apiVersion+" "+kind] = l
			if r.byType[kind] == nil {
				r.byType[kind] = map[string]servedType{}
			}
			r.byType[kind][apiVersion] = servedType{apiVersion, kind, l}
		}
	}
	if len(h.Spec.Versions) == 0 {
		// Undecodable or versionless: compile now so the refusal is seen.
		if _, err := l.load(); err != nil {
			r.byKey["\x00"+d.File+fmt.Sprint(d.Index)+d.Path] = l
		}
		return
	}
	r.byGroupKind[h.Spec.Group+" "+h.Spec.Names.Kind] = l
	if lk := h.Spec.Names.ListKind; lk != "" && lk != h.Spec.Names.Kind+"List" {
		r.listKinds[h.Spec.Group+" "+lk] = true
	}
	if input {
		r.inputs = append(r.inputs, l)
	}
}

// errNoCRD marks an object no registered CRD serves.
var errNoCRD = errors.New("no CRD serves it")

// unservedError is an object whose group and kind a CRD defines, at a
// version the CRD does not serve: the server answers 404.
type unservedError struct {
	apiVersion, kind string
	crd              crdHead
}

func (e *unservedError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.apiVersion, e.kind, e.hint())
}

// hint says why the server answers 404, for the text output.
func (e *unservedError) hint() string {
	var served []string
	for _, v := range e.crd.Spec.Versions {
		if v.Served {
			served = append(served, e.crd.Spec.Group+"/"+v.Name)
		}
	}
	name := e.crd.Spec.Names.Plural + "." + e.crd.Spec.Group
	if len(served) == 0 {
		return fmt.Sprintf("CRD %s serves no version", name)
	}
	return fmt.Sprintf("CRD %s does not serve %s; it serves %s", name, e.apiVersion, strings.Join(served, ", "))
}

// resource finds the CRD of a resource as kubectl names it on its command
// line: the kind, plural, singular or a short name (case-insensitive),
// optionally followed by "." and the group.
func (r *registry) resource(name string) (*crdkit.CRD, error) {
	res, group, _ := strings.Cut(name, ".")
	var found []*lazyCRD
	for _, l := range r.byGroupKind {
		n := l.head.Spec.Names
		if group != "" && l.head.Spec.Group != group {
			continue
		}
		match := strings.EqualFold(res, n.Kind) || strings.EqualFold(res, n.Plural) || strings.EqualFold(res, n.Singular)
		for _, s := range n.ShortNames {
			match = match || strings.EqualFold(res, s)
		}
		if match && !slices.Contains(found, l) {
			found = append(found, l)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("the server doesn't have a resource type %q (no CRD among --crds names it)", res)
	case 1:
		l := found[0]
		l.used.Store(true)
		return l.load()
	}
	return nil, fmt.Errorf("%q names resources of several groups: add .GROUP", res)
}

// isList reports whether a document of apiVersion and kind is a List to
// expand item by item: a List, a CustomResourceDefinitionList, or a
// <Kind>List of a group and kind a CRD defines (or the listKind it names).
func (r *registry) isList(apiVersion, kind string) bool {
	if isCRDList(apiVersion, kind) || r.listKinds[groupOf(apiVersion)+" "+kind] {
		return true
	}
	base, ok := strings.CutSuffix(kind, "List")
	return ok && base != "" && r.byGroupKind[groupOf(apiVersion)+" "+base] != nil
}

// isCRDList reports whether a document is a List that may hold CRDs: what
// kubectl get prints (kind List) or the API returns.
func isCRDList(apiVersion, kind string) bool {
	return kind == "List" || apiVersion == "apiextensions.k8s.io/v1" && kind == "CustomResourceDefinitionList"
}

// version returns the compiled version serving apiVersion and kind, or
// errNoCRD, or an *unservedError, or the CRD's load error.
func (r *registry) version(apiVersion, kind string) (*crdkit.Version, error) {
	l := r.byType[kind][apiVersion].l
	if l == nil {
		if u := r.byGroupKind[groupOf(apiVersion)+" "+kind]; u != nil && strings.Contains(apiVersion, "/") {
			return nil, &unservedError{apiVersion: apiVersion, kind: kind, crd: u.head}
		}
		return nil, errNoCRD
	}
	l.used.Store(true)
	crd, err := l.load()
	if err != nil {
		return nil, err
	}
	group, name, _ := strings.Cut(apiVersion, "/")
	if v := crd.Version(name); v != nil && group == crd.Group() && v.Served() {
		return v, nil
	}
	return nil, errNoCRD
}

// typeMeta is a document's type meta from what scanTypeMetaBytes read:
// the apiVersion and kind a CRD serves are the registry's own strings (no
// copy per document).
func (r *registry) typeMeta(tb typeMetaBytes) typeMeta {
	var tm typeMeta
	if t, ok := r.byType[string(tb.kind)][string(tb.apiVersion)]; ok {
		tm.APIVersion, tm.Kind = t.apiVersion, t.kind
	} else {
		tm.APIVersion, tm.Kind = string(tb.apiVersion), string(tb.kind)
	}
	tm.Metadata.Name, tm.Metadata.Namespace = string(tb.name), string(tb.namespace)
	return tm
}

// unusedRefusals compiles the CRDs of the inputs that no object asked for
// (most are compiled already, in the background) and returns the errors of
// those the server would refuse.
func (r *registry) unusedRefusals() []error {
	var out []error
	for _, l := range r.inputs {
		if l.used.Load() {
			continue
		}
		if _, err := l.load(); err != nil {
			out = append(out, err)
		}
	}
	return out
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
// (only files that mention CustomResourceDefinition are decoded, on all
// cores; documents register in input order); status is 2 when something
// could not be read or a CRD that does not decode. While it reads the
// inputs it notes the apiVersion and kind their documents name at the top
// level, and starts compiling the CRDs that serve them in the background,
// in the order the inputs need them, on all cores: the objects of the
// first CRD are checked while the next ones compile. The hints are only
// that: a CRD is still compiled when an object needs it, and its errors
// are reported only then. Call close when done.
//
// The CRDs of --crds are read lazily: the head of a YAML document (its
// type meta, group, names and versions) is read from its text
// (yamlCRDHead), and the document is converted and compiled only when an
// object needs it, so that one object against a directory of many CRDs
// costs what its own CRD costs. A --crds document whose head cannot be
// read that way is converted at once; when that fails (invalid YAML), the
// error fails the run, unless lenient: then it goes to reg.unreadable, for
// the caller to report (validate: a warning when every object found its
// CRD, else an error).
//
// With a cache (not nil), what an earlier run of this build learnt of the
// same CRD documents is reused (see cache.go): the output is the same.
func loadRegistry(crds, inputs []string, stderr io.Writer, c *cache) (*registry, int) {
	return loadRegistryWith(crds, inputs, stderr, false, c)
}

func loadRegistryWith(crds, inputs []string, stderr io.Writer, lenient bool, c *cache) (*registry, int) {
	reg := &registry{byKey: map[string]*lazyCRD{}, byType: map[string]map[string]servedType{}, byGroupKind: map[string]*lazyCRD{}, listKinds: map[string]bool{}, stop: make(chan struct{}), compiled: make(chan struct{}), cache: c}
	status := 0
	type crdFile struct {
		path  string
		data  []byte
		ds    []docs.Doc
		heads []crdHead     // of ds
		crds  []bool        // which of ds are CRDs
		lazy  []*docs.Chunk // of ds: a document not yet converted, read by its head
		sums  []*[32]byte   // of ds: the SHA-256 of lazy's text, with a cache
		err   error
		// unreadable: documents of a --crds file that could not be read,
		// when lenient.
		unreadable []error
	}
	var (
		crdFiles [2][]*crdFile // of --crds, of the inputs
		hints    []string
		errs     [2][]error
	)
	// read finds the files of paths that mention CRDs, and with hints the
	// type meta their documents name. The files are read on all cores;
	// what they give is gathered in their order.
	read := func(i int, paths []string, withHints bool) {
		files, err := docs.Files(paths)
		if err != nil {
			if withHints {
				return // the inputs' reader reports it
			}
			errs[i] = append(errs[i], err)
			return
		}
		if withHints {
			reg.inputFiles = files
		}
		type found struct {
			crd   *crdFile
			hints []string
			data  []byte // kept for the inputs' reader (reg.read)
			err   error
		}
		out := make([]found, len(files))
		one := func(j int, buf *[]byte) {
			f := files[j]
			var data []byte
			var err error
			if withHints {
				data, err = readReusing(f.Path, buf)
			} else {
				// A --crds file: it almost always holds CRDs, whose
				// documents keep slices of it.
				data, err = docs.ReadFile(f.Path)
			}
			if err != nil {
				out[j].err = err
				return
			}
			if withHints {
				out[j].hints = typeMetaHints(f.Path, data)
			}
			crds := bytes.Contains(data, []byte("CustomResourceDefinition"))
			if withHints && f.Path != docs.Stdin && (crds || reg.keep(len(data))) {
				data = bytes.Clone(data) // the documents keep slices of it
				if withHints {
					out[j].data = data
				}
			}
			if !crds {
				return // no CRD here: spare the YAML conversion
			}
			out[j].crd = &crdFile{path: f.Path, data: data}
		}
		var bufs sync.Pool
		par.Each(len(files), func(j int) {
			buf, _ := bufs.Get().(*[]byte)
			if buf == nil {
				buf = new([]byte)
			}
			one(j, buf)
			bufs.Put(buf)
		})
		seen := map[string]bool{}
		for j, o := range out {
			if o.data != nil {
				reg.kept.Store(files[j].Path, o.data)
			}
			if o.err != nil {
				errs[i] = append(errs[i], o.err)
				continue
			}
			for _, k := range o.hints {
				if !seen[k] {
					seen[k] = true
					hints = append(hints, k)
				}
			}
			if o.crd != nil {
				crdFiles[i] = append(crdFiles[i], o.crd)
			}
		}
	}
	// split converts the files' documents to JSON and reads their CRD
	// heads, on all cores, the largest files first: a large CRD started
	// last would leave the other cores idle while it converts.
	split := func(fs []*crdFile, lazy bool) {
		order := make([]int, len(fs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return len(fs[b].data) - len(fs[a].data) })
		par.Each(len(fs), func(j int) {
			f := fs[order[j]]
			if lazy {
				splitLazy(f.path, f.data, lenient, reg.cache, func(d docs.Doc, c *docs.Chunk, sum *[32]byte, h crdHead, crd bool) {
					f.ds, f.lazy, f.heads, f.crds = append(f.ds, d), append(f.lazy, c), append(f.heads, h), append(f.crds, crd)
					f.sums = append(f.sums, sum)
				}, func(err error) {
					if lenient {
						f.unreadable = append(f.unreadable, err)
					} else if f.err == nil {
						f.err = err
					}
				})
				return
			}
			f.ds, f.err = splitCRDs(f.path, f.data)
			f.heads = make([]crdHead, len(f.ds))
			f.crds = make([]bool, len(f.ds))
			f.lazy = make([]*docs.Chunk, len(f.ds))
			f.sums = make([]*[32]byte, len(f.ds))
			for k, d := range f.ds {
				f.heads[k], f.crds[k] = isCRD(d.JSON)
			}
		})
	}
	// The inputs are read (for their hints) while the --crds files convert.
	read(0, crds, false)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		read(1, inputs, true)
	}()
	split(crdFiles[0], true)
	<-scanned
	split(crdFiles[1], false)
	for _, es := range errs {
		for _, err := range es {
			fmt.Fprintf(stderr, "crdkit: %v\n", err)
			status = 2
		}
	}
	for i, fs := range crdFiles {
		for _, f := range fs {
			if f.err != nil {
				fmt.Fprintf(stderr, "crdkit: %v\n", f.err)
				status = 2
			}
			reg.unreadable = append(reg.unreadable, f.unreadable...)
			for k, d := range f.ds {
				if f.crds[k] {
					reg.addLazy(&lazyCRD{doc: d, head: f.heads[k], chunk: f.lazy[k], cache: reg.cache, sum: f.sums[k]}, i == 1)
				}
			}
		}
	}
	for _, err := range reg.refused() {
		fmt.Fprintf(stderr, "crdkit: %v\n", err)
		status = 2
	}
	reg.prefetch(hints)
	return reg, status
}

// splitLazy calls add with each document of a --crds file: with its chunk
// (not converted) and head when yamlCRDHead reads a CRD's head from its
// text, else converted (Lists of CRDs expanded into their items) with its
// head and whether it is a CRD. A document that cannot be converted goes
// to fail; unless lenient, the documents after it are left out, as
// splitCRDs leaves them.
//
// With a cache, the heads come from it when an earlier run read them, and
// add gets the SHA-256 of a chunk it gets (sum; nil without a cache).
func splitLazy(file string, data []byte, lenient bool, ch *cache, add func(d docs.Doc, c *docs.Chunk, sum *[32]byte, h crdHead, crd bool), fail func(error)) {
	chunks, err := docs.Chunks(file, data)
	if err != nil {
		fail(err)
		return
	}
	index := 0
	for k := range chunks {
		c := &chunks[k]
		var sum *[32]byte
		if ch != nil {
			s := sha256.Sum256(c.Text)
			sum = &s
		}
		if h, ok := textCRDHead(ch, sum, c.Text); ok {
			switch {
			case h.APIVersion == "apiextensions.k8s.io/v1" && h.Kind == "CustomResourceDefinition":
				add(docs.Doc{File: file, Index: index, Line: c.Line}, c, sum, h, true)
				index++
				continue
			case !isCRDList(h.APIVersion, h.Kind):
				index++ // not a CRD (converting it would give a document: YAML or JSON read it as a mapping)
				continue
			}
		}
		js, warnings, err := c.Convert()
		if err != nil {
			fail(err)
			if !lenient {
				return
			}
			continue
		}
		if js == nil {
			continue
		}
		d := docs.Doc{File: file, Index: index, Line: c.Line, JSON: js, Warnings: warnings}
		index++
		ds := []docs.Doc{d}
		items, ok, ierr := docs.Items(d, isCRDList)
		if ok {
			ds = items
		}
		for _, d := range ds {
			h, crd := isCRD(d.JSON)
			add(d, nil, nil, h, crd)
		}
		if ierr != nil {
			fail(ierr)
			if !lenient {
				return
			}
		}
	}
}

// splitCRDs is docs.Split with Lists of CRDs (kubectl get crds -o yaml)
// expanded into their items.
func splitCRDs(file string, data []byte) ([]docs.Doc, error) {
	ds, err := docs.Split(file, data)
	var out []docs.Doc
	for _, d := range ds {
		items, ok, ierr := docs.Items(d, isCRDList)
		if !ok {
			out = append(out, d)
			continue
		}
		out = append(out, items...)
		if ierr != nil && err == nil {
			err = ierr
		}
	}
	return out, err
}

// prefetch compiles, in the background on GOMAXPROCS goroutines, the
// registered CRDs that serve the keys (apiVersion + " " + kind) and the
// other CRDs of the inputs, the largest first, until close.
func (r *registry) prefetch(keys []string) {
	var todo []*lazyCRD
	queued := map[*lazyCRD]bool{}
	for _, k := range keys {
		if l := r.byKey[k]; l != nil && !queued[l] {
			queued[l] = true
			todo = append(todo, l)
		}
	}
	for _, l := range r.inputs {
		if !queued[l] {
			queued[l] = true
			todo = append(todo, l)
		}
	}
	if len(todo) == 0 {
		close(r.compiled)
		return
	}
	// Largest first (their documents' sizes): the compilation's last
	// CRD is then a small one, and the checks waiting for it wait little.
	// A document whose CRD is not compiled yet has it compiled by the
	// worker that checks it, so the order costs the first documents
	// nothing.
	size := func(l *lazyCRD) int {
		if l.chunk != nil {
			return len(l.chunk.Text)
		}
		return len(l.doc.JSON)
	}
	slices.SortStableFunc(todo, func(a, b *lazyCRD) int { return size(b) - size(a) })
	next := make(chan *lazyCRD, len(todo))
	for _, l := range todo {
		next <- l
	}
	close(next)
	var compiling sync.WaitGroup
	for range min(len(todo), runtime.GOMAXPROCS(0)) {
		r.wg.Add(1)
		compiling.Add(1)
		go func() {
			defer r.wg.Done()
			defer compiling.Done()
			for l := range next {
				select {
				case <-r.stop:
					return
				default:
				}
				l.load()
			}
		}()
	}
	go func() {
		compiling.Wait()
		close(r.compiled)
	}()
}

// close stops the background compilation and waits for the compilations in
// progress and the cache's writes.
func (r *registry) close() {
	r.closeOnce.Do(func() { close(r.stop) })
	r.wg.Wait()
	r.cache.wait()
}

// typeMetaHints returns, for each document of a file (once for a run of
// documents of the same type), the apiVersion and kind it names at the
// top level (apiVersion + " " + kind), as far as a
// light look can tell: a JSON document's top-level keys (values without
// escapes), a YAML document's lines that start with "apiVersion:" or
// "kind:". It never fails; what it misses is compiled when needed.
func typeMetaHints(file string, data []byte) []string {
	chunks, err := docs.Chunks(file, data)
	if err != nil {
		return nil
	}
	var out []string
	var lastAV, lastKind []byte
	for _, c := range chunks {
		var av, kind []byte
		if t := bytes.TrimSpace(c.Text); len(t) > 0 && t[0] == '{' {
			av, kind = jsonTypeMeta(t)
		} else {
			av, kind = yamlTypeMeta(c.Text)
		}
		if len(av) > 0 && len(kind) > 0 && (len(out) == 0 || !bytes.Equal(av, lastAV) || !bytes.Equal(kind, lastKind)) {
			out = append(out, string(av)+" "+string(kind))
			lastAV, lastKind = av, kind
		}
	}
	return out
}

// jsonTypeMeta reads the top-level "apiVersion" and "kind" string values
// of a JSON object, skipping every other value, until it has both (they
// usually come first). It stops at anything it does not expect.
func jsonTypeMeta(b []byte) (apiVersion, kind []byte) {
	i := 1 // past '{'
	ws := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
			i++
		}
	}
	// str reads a string at b[i] == '"' and returns its raw text.
	str := func() ([]byte, bool) {
		start := i + 1
		for j := start; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				i = j + 1
				return b[start:j], true
			}
		}
		return nil, false
	}
	for {
		ws()
		if i >= len(b) || b[i] != '"' {
			return
		}
		key, ok := str()
		if !ok {
			return
		}
		ws()
		if i >= len(b) || b[i] != ':' {
			return
		}
		i++
		ws()
		if i >= len(b) {
			return
		}
		if b[i] == '"' {
			v, ok := str()
			if !ok {
				return
			}
			switch string(key) {
			case "apiVersion":
				apiVersion = v
			case "kind":
				kind = v
			}
			if len(apiVersion) > 0 && len(kind) > 0 {
				return // enough for a hint: spare the rest of the document
			}
		} else if !skipJSON(b, &i) {
			return
		}
		ws()
		if i >= len(b) || b[i] != ',' {
			return
		}
		i++
	}
}

// skipJSON moves *i past the JSON value at b[*i] that is not a string:
// nested objects and arrays (with the strings in them), numbers and
// literals. It reports false when the value does not end.
func skipJSON(b []byte, i *int) bool {
	depth := 0
	for j := *i; j < len(b); j++ {
		switch c := b[j]; c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				*i = j
				return true
			}
			if depth == 0 {
				*i = j + 1
				return true
			}
		case '"':
			for j++; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
		case ',':
			if depth == 0 {
				*i = j
				return true
			}
		}
	}
	return false
}

// yamlTypeMeta reads the values of the lines that start with "apiVersion:"
// and "kind:" (unquoted, or in plain quotes).
func yamlTypeMeta(b []byte) (apiVersion, kind []byte) {
	for l := range bytes.Lines(b) {
		l = bytes.TrimSuffix(l, []byte("\n"))
		for _, f := range []struct {
			key string
			dst *[]byte
		}{{"apiVersion:", &apiVersion}, {"kind:", &kind}} {
			if v, ok := bytes.CutPrefix(l, []byte(f.key)); ok {
				if i := bytes.Index(v, []byte(" #")); i >= 0 {
					v = v[:i]
				}
				v = bytes.TrimSpace(v)
				if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
					v = v[1 : len(v)-1]
				}
				*f.dst = v
			}
		}
		if len(apiVersion) > 0 && len(kind) > 0 {
			return
		}
	}
	return
}

// keptBudget bounds the input bytes the registry keeps for the inputs'
// reader: the first inputs are read once, the others twice, so that memory
// stays flat in the number of documents.
const keptBudget = 8 << 20

// keep reserves n bytes of the budget.
func (r *registry) keep(n int) bool {
	if r.keptSize.Add(int64(n)) <= keptBudget {
		return true
	}
	r.keptSize.Add(-int64(n))
	return false
}

// read returns an input's contents: those kept while registering (handed
// over once), else read from the file.
func (r *registry) read(path string) ([]byte, error) {
	if data, ok := r.kept.LoadAndDelete(path); ok {
		return data.([]byte), nil
	}
	return docs.ReadFile(path)
}

// readReusing reads a file into *buf, reusing its memory: the registry
// reads every input to look for CRDs, and most inputs hold none.
func readReusing(path string, buf *[]byte) ([]byte, error) {
	data, err := docs.ReadFileInto(path, *buf)
	if err != nil {
		return nil, err
	}
	if path != docs.Stdin && cap(data) > cap(*buf) {
		*buf = data[:0] // grown: keep the larger memory for the next file
	}
	return data, nil
}
