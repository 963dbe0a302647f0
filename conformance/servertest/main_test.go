// Package servertest runs the real apiextensions-apiserver (package oracle)
// and records its verdicts on the corpus CRDs and on generated objects.
//
// Build once and rerun the binary (never with -trimpath):
//
//	cd conformance && go test -c -o /tmp/servertest.test ./servertest
//	cd servertest && /tmp/servertest.test -test.v
//
// Environment: CRDKIT_CORPUS (corpus root; default ../../../shared/corpus
// from this directory), CRDKIT_CONFORMANCE_CASES (cases per CRD version,
// default 150), CRDKIT_CONFORMANCE_WORKERS (default 8), CRDKIT_RECORD_DIR
// (write every verdict as JSON lines there), CRDKIT_ORDER_RUNS (sends of a
// case refused with several causes, default 10), CRDKIT_ORACLE_VERBOSE.
//
// Refusals with several causes are compared byte for byte, message and
// causes in order, where the server's message is stable: each such case is
// sent 10 times in all, and only where the server's message changes (its
// order follows map iteration) are the causes compared sorted
// (create-message-exact, lint-message-exact). Before a difference counts,
// up to 100 more requests and 3000 runs of the server's validation code in
// this process look for the other order.
//
// testdata/server-create.golden counts the verdicts (code and reason) per
// CRD, version and mode, and per mutation kind; it is compared when the
// default case count is used and rewritten with -update (needed after a
// change of the corpus, the generator or the server version).
package servertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/crdkit/crdkit/internal/corpus"

	"github.com/crdkit/crdkit/conformance/oracle"
)

var (
	srv       *oracle.Server
	startTook time.Duration
)

func TestMain(m *testing.M) {
	// The crdkit binaries the CLI tests build keep a cache of CRD work:
	// give them a directory of this run's, not the user's cache.
	cacheDir, err := os.MkdirTemp("", "crdkit-servertest-cache-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "servertest: %v\n", err)
		os.Exit(1)
	}
	os.Setenv("CRDKIT_CACHE_DIR", cacheDir)
	start := time.Now()
	s, err := oracle.New(oracle.Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "servertest: %v\n", err)
		os.Exit(1)
	}
	srv = s
	startTook = time.Since(start)
	code := m.Run()
	s.Close()
	os.RemoveAll(cacheDir)
	os.Exit(code)
}

// corpusDir returns the corpus CRD directory, or "" when absent.
func corpusDir() string {
	root, ok := corpus.Root()
	if !ok {
		return ""
	}
	return filepath.Join(root, "crds")
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// installed is the one batch of CRDs every test shares: the smoke CRDs and
// the whole corpus, installed together so that the server's two-second
// "just established" delay is paid once.
type installed struct {
	corpus  []oracle.Document
	results []oracle.InstallResult // smoke CRDs first, then corpus
	took    time.Duration
	err     error
}

var (
	installOnce sync.Once
	batch       installed
)

func setup(t testing.TB) *installed {
	t.Helper()
	installOnce.Do(func() {
		docs := [][]byte{[]byte(cronTabCRD)}
		if dir := corpusDir(); dir != "" {
			batch.corpus, batch.err = oracle.LoadCRDs(dir)
			if batch.err != nil {
				return
			}
			for _, d := range batch.corpus {
				docs = append(docs, d.JSON)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		start := time.Now()
		batch.results, batch.err = srv.InstallRawCRDs(ctx, docs)
		batch.took = time.Since(start)
	})
	if batch.err != nil {
		t.Fatalf("install CRDs: %v", batch.err)
	}
	return &batch
}
