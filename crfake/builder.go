package crfake

import (
	"fmt"
	"os"
	goruntime "runtime"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crdkit/crdkit"
)

// ClientBuilder builds a Client, as controller-runtime's fake.ClientBuilder
// builds its fake client: the CRDs whose kinds the client serves with the
// server's semantics, the scheme, the initial objects.
type ClientBuilder struct {
	scheme    *runtime.Scheme
	crds      []*crdkit.CRD
	yaml      [][]byte
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
// by Build with crdkit.Load.
func (b *ClientBuilder) WithCRDYAML(docs ...[]byte) *ClientBuilder {
	b.yaml = append(b.yaml, docs...)
	return b
}

// WithCRDFiles adds CRDs from files (one CRD a file), read and compiled by
// Build.
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
func (b *ClientBuilder) BuildClient() (*Client, error) {
	s := b.scheme
	if s == nil {
		s = clientgoscheme.Scheme
	}
	crds := append([]*crdkit.CRD(nil), b.crds...)
	for _, p := range b.files {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("crfake: %w", err)
		}
		b.yaml = append(b.yaml, data)
	}
	b.files = nil
	// Compile on every core: the CRDs' CEL rules are most of a start.
	compiled := make([]*crdkit.CRD, len(b.yaml))
	errs := make([]error, len(b.yaml))
	var wg sync.WaitGroup
	sem := make(chan struct{}, goruntime.GOMAXPROCS(0))
	for i, doc := range b.yaml {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			compiled[i], errs[i] = crdkit.Load(doc)
		}()
	}
	wg.Wait()
	for i, crd := range compiled {
		if errs[i] != nil {
			return nil, fmt.Errorf("crfake: CRD: %w", errs[i])
		}
		crds = append(crds, crd)
	}
	b.yaml = nil
	b.crds = crds

	c := &Client{scheme: s, clock: b.clock, resources: map[schema.GroupKind]*resource{}}
	if c.clock == nil {
		c.clock = time.Now
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	for _, crd := range crds {
		if _, dup := c.resources[schema.GroupKind{Group: crd.Group(), Kind: crd.Kind()}]; dup {
			return nil, fmt.Errorf("crfake: two CRDs define %s.%s", crd.Kind(), crd.Group())
		}
		def := crd.Definition()
		r := &resource{crd: crd, gr: schema.GroupResource{Group: crd.Group(), Resource: def.Spec.Names.Plural},
			objs: map[nsName]*entry{}}
		c.resources[schema.GroupKind{Group: crd.Group(), Kind: crd.Kind()}] = r
		scope := meta.RESTScopeRoot
		if crd.Namespaced() {
			scope = meta.RESTScopeNamespace
		}
		for _, v := range crd.Versions() {
			if !v.Served() {
				continue
			}
			gv := schema.GroupVersion{Group: crd.Group(), Version: v.Name()}
			singular := def.Spec.Names.Singular
			if singular == "" {
				singular = def.Spec.Names.Plural
			}
			mapper.AddSpecific(gv.WithKind(crd.Kind()), gv.WithResource(def.Spec.Names.Plural), gv.WithResource(singular), scope)
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
	for _, f := range b.fake {
		f(fb)
	}
	c.delegate = fb.Build()
	c.mapper = meta.MultiRESTMapper{mapper, c.delegate.RESTMapper()}
	for _, o := range mine {
		if err := c.seed(o); err != nil {
			return nil, fmt.Errorf("crfake: initial object %s/%s: %w", o.GetNamespace(), o.GetName(), err)
		}
	}
	return c, nil
}
