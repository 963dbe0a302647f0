package crfake

import (
	"bytes"
	"fmt"
	"os"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	clientgoapplyconfigurations "k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/crdhead"
)

// ClientBuilder builds a Client, as controller-runtime's fake.ClientBuilder
// builds its fake client: the CRDs whose kinds the client serves with the
// server's semantics, the scheme, the initial objects.
type ClientBuilder struct {
	scheme    *runtime.Scheme
	crds      []*crdkit.CRD
	yaml      [][]byte
	lazy      []*lazyCRD // of the documents, shared by the clients built
	files     []string
	objs      []client.Object
	rtObjs    []runtime.Object
	clock     func() time.Time
	fake      []func(*fake.ClientBuilder)
	statusFor []client.Object
}

// NewClientBuilder returns a builder with client-go's scheme (as
// controller-runtime's fake.NewClientBuilder has) and the current time as
// its clock.
func NewClientBuilder() *ClientBuilder { return &ClientBuilder{} }

// WithScheme sets the scheme: the Go types the client encodes and decodes
// (a controller's own types for its custom resources, built-in kinds).
func (b *ClientBuilder) WithScheme(s *runtime.Scheme) *ClientBuilder { b.scheme = s; return b }

// WithCRDs adds compiled CRDs (crdkit.Load, crdkit.New): their kinds are
// served with the server's semantics.
func (b *ClientBuilder) WithCRDs(crds ...*crdkit.CRD) *ClientBuilder {
	b.crds = append(b.crds, crds...)
	return b
}

// WithCRDYAML adds CRDs as YAML or JSON documents (one CRD each), compiled
// with crdkit.Load on first use of their kinds (see BuildClient).
func (b *ClientBuilder) WithCRDYAML(docs ...[]byte) *ClientBuilder {
	b.yaml = append(b.yaml, docs...)
	return b
}

// WithCRDFiles adds CRDs from files (one CRD a file), read by Build and
// compiled as WithCRDYAML's.
func (b *ClientBuilder) WithCRDFiles(paths ...string) *ClientBuilder {
	b.files = append(b.files, paths...)
	return b
}

// WithObjects adds initial objects. Those of the CRDs' kinds are created as
// the server creates them (defaults, validation; a status they carry is
// then written as a status update would write it); the others go to
// controller-runtime's fake client as they are.
func (b *ClientBuilder) WithObjects(objs ...client.Object) *ClientBuilder {
	b.objs = append(b.objs, objs...)
	return b
}

// WithRuntimeObjects adds initial objects as WithObjects does.
func (b *ClientBuilder) WithRuntimeObjects(objs ...runtime.Object) *ClientBuilder {
	b.rtObjs = append(b.rtObjs, objs...)
	return b
}

// WithStatusSubresource is passed to controller-runtime's fake client, for
// the kinds it serves (a CRD says itself whether it has a status
// subresource).
func (b *ClientBuilder) WithStatusSubresource(objs ...client.Object) *ClientBuilder {
	b.statusFor = append(b.statusFor, objs...)
	return b
}

// WithClock sets the clock of creationTimestamp, deletionTimestamp and
// managed fields times.
func (b *ClientBuilder) WithClock(now func() time.Time) *ClientBuilder { b.clock = now; return b }

// WithFakeClientBuilder configures the controller-runtime fake client that
// serves the kinds no CRD defines (indexes, interceptors, ...).
func (b *ClientBuilder) WithFakeClientBuilder(f func(*fake.ClientBuilder)) *ClientBuilder {
	b.fake = append(b.fake, f)
	return b
}

// Build returns the client. It panics when a CRD does not compile or an
// initial object is refused, as controller-runtime's fake Build panics on
// initial objects it cannot add; BuildClient returns the error instead.
func (b *ClientBuilder) Build() client.WithWatch {
	c, err := b.BuildClient()
	if err != nil {
		panic(err)
	}
	return c
}

// BuildClient returns the client or why it cannot be built.
//
// A CRD given as a document is compiled on first use of its kind, not
// here: Build reads only its head (group, names, scope, versions and
// whether they are served, crdhead), which routes requests, and checks
// that two CRDs do not define one kind. A document whose head it cannot
// read so (or that names no group, kind, plural, scope or version) is
// compiled here, and its error returned as before. The CRDs of initial
// objects are compiled here too. (crfake's doc.go: "When CRDs compile".)
func (b *ClientBuilder) BuildClient() (*Client, error) {
	s := b.scheme
	if s == nil {
		s = clientgoscheme.Scheme
	}
	for _, p := range b.files {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("crfake: %w", err)
		}
		b.yaml = append(b.yaml, data)
	}
	b.files = nil
	// The documents become lazily compiled CRDs, kept by the builder so
	// that every client it builds shares their compilation.
	var eager []*lazyCRD
	for _, doc := range b.yaml {
		l := newLazyCRD(doc)
		if l.doc != nil && !l.headOK {
			eager = append(eager, l)
		}
		b.lazy = append(b.lazy, l)
	}
	b.yaml = nil
	if err := compileAll(eager); err != nil {
		return nil, err
	}

	c := &Client{scheme: s, clock: b.clock, resources: map[schema.GroupKind]*resource{}}
	if c.clock == nil {
		c.clock = time.Now
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	all := make([]*lazyCRD, 0, len(b.crds)+len(b.lazy))
	for _, crd := range b.crds {
		all = append(all, compiledCRD(crd))
	}
	all = append(all, b.lazy...)
	for _, l := range all {
		h := &l.head
		gk := schema.GroupKind{Group: h.Spec.Group, Kind: h.Spec.Names.Kind}
		if _, dup := c.resources[gk]; dup {
			return nil, fmt.Errorf("crfake: two CRDs define %s.%s", gk.Kind, gk.Group)
		}
		r := &resource{lazy: l, gk: gk, namespaced: h.Spec.Scope != "Cluster",
			gr: schema.GroupResource{Group: gk.Group, Resource: h.Spec.Names.Plural}, objs: map[nsName]*entry{}}
		c.resources[gk] = r
		scope := meta.RESTScopeRoot
		if r.namespaced {
			scope = meta.RESTScopeNamespace
		}
		singular := h.Spec.Names.Singular
		if singular == "" {
			singular = strings.ToLower(gk.Kind) // the server's default
		}
		for _, v := range h.Spec.Versions {
			if !v.Served {
				continue
			}
			gv := schema.GroupVersion{Group: gk.Group, Version: v.Name}
			mapper.AddSpecific(gv.WithKind(gk.Kind), gv.WithResource(h.Spec.Names.Plural), gv.WithResource(singular), scope)
		}
	}

	fb := fake.NewClientBuilder().WithScheme(s)
	if len(b.statusFor) > 0 {
		fb = fb.WithStatusSubresource(b.statusFor...)
	}
	var mine []client.Object
	for _, o := range b.objs {
		if c.isCustom(o) {
			mine = append(mine, o)
		} else {
			fb = fb.WithObjects(o)
		}
	}
	for _, o := range b.rtObjs {
		co, ok := o.(client.Object)
		if ok && c.isCustom(co) {
			mine = append(mine, co)
		} else {
			fb = fb.WithRuntimeObjects(o)
		}
	}
	if len(b.fake) == 0 {
		// The type converters fake.ClientBuilder.Build makes when given
		// none, in the same order, but the first built on first use:
		// parsing client-go's schema of the built-in kinds is about 60 ms,
		// most of a client's start, and a test of custom resources alone
		// never needs it. A test that customises the fake builder gets
		// the fake builder's own default.
		fb = fb.WithTypeConverters(&lazyTypeConverter{}, managedfields.NewDeducedTypeConverter())
	}
	for _, f := range b.fake {
		f(fb)
	}
	c.delegate = fb.Build()
	c.mapper = meta.MultiRESTMapper{mapper, c.delegate.RESTMapper()}
	// The initial objects' CRDs compile on every core, before the
	// objects are created one by one.
	var used []*lazyCRD
	for _, o := range mine {
		if gvk, err := c.gvkFor(o); err == nil {
			if l := c.resources[gvk.GroupKind()].lazy; !slices.Contains(used, l) {
				used = append(used, l)
			}
		}
	}
	par(len(used), func(i int) { _, _ = used[i].compiled() })
	for _, o := range mine {
		if err := c.seed(o); err != nil {
			return nil, fmt.Errorf("crfake: initial object %s/%s: %w", o.GetNamespace(), o.GetName(), err)
		}
	}
	return c, nil
}

// lazyCRD is a CRD compiled on first use: its head, read without
// compiling it, and its document until then.
type lazyCRD struct {
	head   crdhead.Head
	headOK bool // head read from the document's text

	once sync.Once
	done atomic.Bool // the document compiled (for tests)
	doc  []byte      // nil once compiled, or for a CRD given compiled
	crd  *crdkit.CRD
	err  error
}

// newLazyCRD reads the head of a CRD document; headOK false when it
// cannot be read from the text, or names no kind, plural or version (the
// document is then compiled at Build, for the error Load gives).
func newLazyCRD(doc []byte) *lazyCRD {
	l := &lazyCRD{doc: doc}
	t := bytes.TrimSpace(doc)
	if len(t) > 0 && t[0] == '{' {
		l.head, l.headOK = crdhead.JSON(t)
	} else {
		l.head, l.headOK = crdhead.YAML(doc)
	}
	h := &l.head
	l.headOK = l.headOK && h.APIVersion == "apiextensions.k8s.io/v1" && h.Kind == "CustomResourceDefinition" &&
		h.Spec.Group != "" && h.Spec.Names.Kind != "" && h.Spec.Names.Plural != "" && len(h.Spec.Versions) > 0 &&
		(h.Spec.Scope == "Namespaced" || h.Spec.Scope == "Cluster")
	return l
}

// compiledCRD is a CRD given compiled, with its head.
func compiledCRD(crd *crdkit.CRD) *lazyCRD {
	l := &lazyCRD{crd: crd}
	l.head = headOf(crd)
	return l
}

// headOf returns a compiled CRD's head.
func headOf(crd *crdkit.CRD) crdhead.Head {
	var h crdhead.Head
	names := crd.Names()
	h.APIVersion, h.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	h.Spec.Group, h.Spec.Scope = crd.Group(), "Namespaced"
	h.Spec.Names.Kind, h.Spec.Names.Plural, h.Spec.Names.Singular = crd.Kind(), names.Plural, names.Singular
	if !crd.Namespaced() {
		h.Spec.Scope = "Cluster"
	}
	for _, v := range crd.Versions() {
		h.Spec.Versions = append(h.Spec.Versions, crdhead.Version{Name: v.Name(), Served: v.Served()})
	}
	return h
}

// compiled returns the CRD, compiling it on the first call: the error is
// crdkit.Load's, which is the server's answer to creating the CRD (a 422
// Invalid for a CRD it refuses), or that the compiled CRD routes
// otherwise than its head read at Build said.
func (l *lazyCRD) compiled() (*crdkit.CRD, error) {
	l.once.Do(func() {
		if l.doc == nil {
			return
		}
		doc := l.doc
		l.doc = nil
		defer l.done.Store(true)
		crd, err := crdkit.Load(doc)
		if err != nil {
			if l.headOK {
				l.err = fmt.Errorf("crfake: CRD %s.%s: %w", l.head.Spec.Names.Plural, l.head.Spec.Group, err)
			} else {
				l.err = fmt.Errorf("crfake: CRD: %w", err)
			}
			return
		}
		if l.headOK {
			if got := headOf(crd); got.Spec.Group != l.head.Spec.Group || got.Spec.Names.Kind != l.head.Spec.Names.Kind ||
				got.Spec.Names.Plural != l.head.Spec.Names.Plural || got.Spec.Scope != l.head.Spec.Scope ||
				!slices.Equal(served(got), served(l.head)) {
				l.err = fmt.Errorf("crfake: CRD %s.%s: the document decodes to other names, scope or versions than its text read at Build", l.head.Spec.Names.Plural, l.head.Spec.Group)
				return
			}
		} else {
			l.head = headOf(crd)
		}
		l.crd = crd
	})
	return l.crd, l.err
}

// served returns the names of the served versions.
func served(h crdhead.Head) []string {
	var out []string
	for _, v := range h.Spec.Versions {
		if v.Served {
			out = append(out, v.Name)
		}
	}
	return out
}

// compileAll compiles the CRDs on every core (the CEL rules are most of a
// compile) and returns the first error, in order.
func compileAll(ls []*lazyCRD) error {
	par(len(ls), func(i int) { _, _ = ls[i].compiled() })
	for _, l := range ls {
		if _, err := l.compiled(); err != nil {
			return err
		}
	}
	return nil
}

// par calls f(0..n-1) on every core.
func par(n int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, goruntime.GOMAXPROCS(0))
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}

// lazyTypeConverter is client-go's type converter of the built-in kinds
// (over a scheme of client-go's kinds alone, as controller-runtime's fake
// client makes it), built on first use.
type lazyTypeConverter struct {
	once sync.Once
	tc   managedfields.TypeConverter
}

func (l *lazyTypeConverter) get() managedfields.TypeConverter {
	l.once.Do(func() {
		s := runtime.NewScheme()
		if err := clientgoscheme.AddToScheme(s); err != nil {
			panic(fmt.Sprintf("failed to construct client-go scheme: %v", err))
		}
		l.tc = clientgoapplyconfigurations.NewTypeConverter(s)
	})
	return l.tc
}

func (l *lazyTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return l.get().ObjectToTyped(obj, opts...)
}

func (l *lazyTypeConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	return l.get().TypedToObject(v)
}
