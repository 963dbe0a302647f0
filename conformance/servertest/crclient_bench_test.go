package servertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/oracle"
	"github.com/crdkit/crdkit/crfake"
)

// The crclient benchmarks: crfake's client against controller-runtime's
// client on the real server (the shared one), as a controller's test suite
// would use either. They live here, beside the server they measure
// against; the conformance run does not run benchmarks.
//
//	cd conformance && go test -run '^$' -bench 'BenchmarkCRClient' -benchtime 1x -count 3 ./servertest

// BenchmarkCRClientStart starts a client serving the corpus CRDs and the
// seed CronTab: crfake compiles them and builds the client; upstream starts
// etcd and the apiextensions-apiserver, installs them (waiting until they
// are established) and builds controller-runtime's client.
func BenchmarkCRClientStart(b *testing.B) {
	if corpusDir() == "" {
		b.Skip("corpus not found: set CRDKIT_CORPUS (docs/fetch-corpus.sh)")
	}
	docs := [][]byte{[]byte(cronTabCRD)}
	corpusDocs, err := oracle.LoadCRDs(corpusDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range corpusDocs {
		docs = append(docs, d.JSON)
	}
	name := fmt.Sprintf("corpus-%d", len(docs))
	b.Run(name+"/crdkit", func(b *testing.B) {
		var valid [][]byte
		for _, d := range docs {
			if _, err := crdkit.Load(d); err == nil {
				valid = append(valid, d) // the server refuses the others too
			}
		}
		b.ResetTimer()
		for b.Loop() {
			if _, err := crfake.NewClientBuilder().WithScheme(crScheme()).WithCRDYAML(valid...).BuildClient(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/upstream", func(b *testing.B) {
		for b.Loop() {
			s, err := oracle.New(oracle.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			_, err = s.InstallRawCRDs(ctx, docs)
			cancel()
			if err != nil {
				s.Close()
				b.Fatal(err)
			}
			if _, err := client.NewWithWatch(s.RESTConfig(), client.Options{Scheme: crScheme()}); err != nil {
				s.Close()
				b.Fatal(err)
			}
			b.StopTimer()
			s.Close()
			b.StartTimer()
		}
	})
}

// BenchmarkCRClientOps runs 1,000 operations on CronTabs, 250 rounds of
// create, get, update (the spec changed) and list of the namespace.
func BenchmarkCRClientOps(b *testing.B) {
	if corpusDir() == "" {
		b.Skip("corpus not found: set CRDKIT_CORPUS (docs/fetch-corpus.sh)")
	}
	bt := setup(b)
	crds := crfakeCRDs(b, bt)
	scheme := crScheme()
	mc, err := crfake.NewClientBuilder().WithScheme(scheme).WithCRDs(crds...).BuildClient()
	if err != nil {
		b.Fatal(err)
	}
	cfg := srv.RESTConfig()
	cfg.QPS, cfg.Burst = -1, -1 // no client-side rate limit
	real, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme, Mapper: mc.RESTMapper()})
	if err != nil {
		b.Fatal(err)
	}
	iter := 0
	ops := func(b *testing.B, c client.Client) {
		ctx := context.Background()
		iter++
		ns := fmt.Sprintf("bench-%d", iter)
		for i := range 250 {
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "stable.example.com/v1", "kind": "CronTab",
				"metadata": map[string]any{"name": fmt.Sprintf("c%d", i), "namespace": ns},
				"spec":     map[string]any{"cronSpec": "* * * * *", "tags": []any{"a"}},
			}}
			if err := c.Create(ctx, u); err != nil {
				b.Fatal(err)
			}
			g := &unstructured.Unstructured{}
			g.SetGroupVersionKind(u.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(u), g); err != nil {
				b.Fatal(err)
			}
			if err := unstructured.SetNestedField(g.Object, "img", "spec", "image"); err != nil {
				b.Fatal(err)
			}
			if err := c.Update(ctx, g); err != nil {
				b.Fatal(err)
			}
			l := &unstructured.UnstructuredList{}
			l.SetAPIVersion("stable.example.com/v1")
			l.SetKind("CronTabList")
			if err := c.List(ctx, l, client.InNamespace(ns)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("crontab/1000-ops/crdkit", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			fc, err := crfake.NewClientBuilder().WithScheme(scheme).WithCRDs(crds...).BuildClient()
			if err != nil {
				b.Fatal(err)
			}
			ops(b, fc)
		}
	})
	b.Run("crontab/1000-ops/upstream", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			ops(b, real)
		}
	})
}

// reportCPU returns the function that reports the process's CPU time
// (user and system) per operation since reportCPU was called, as cpu-s/op.
// The server runs in this process, so the upstream side's figure is all
// the work of its requests (client, apiserver, etcd); crfake's includes
// the idle server's background work. On a loaded machine it moves less
// than wall time, which depends on the share of the cores each side's
// threads get (crfake runs on one goroutine, the server on many).
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
		}
	}
}
