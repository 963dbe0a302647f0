package oracle

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.etcd.io/etcd/server/v3/embed"
	"google.golang.org/grpc/grpclog"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	servertesting "k8s.io/apiextensions-apiserver/pkg/cmd/server/testing"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// VerboseEnv names the environment variable that, when non-empty, keeps the
// logs of the server, etcd and grpc.
const VerboseEnv = "CRDKIT_ORACLE_VERBOSE"

// Options configure [New]. The zero value is ready to use.
type Options struct {
	// Verbose keeps klog, grpc and etcd output and forwards the test server's
	// own progress lines to Logf. When false it is taken from VerboseEnv.
	Verbose bool
	// Logf receives progress lines when Verbose; nil drops them.
	Logf func(format string, args ...any)
	// ExtraFlags are appended to the apiextensions-apiserver flags. Flags that
	// change feature gates need a testing.TB logger upstream and are not
	// supported here.
	ExtraFlags []string
}

// Server is a running etcd plus apiextensions-apiserver. It is safe for
// concurrent use. Close stops both.
type Server struct {
	etcd       *embed.Etcd
	etcdDir    string
	etcdPrefix string
	kubeconfig string
	tearDown   func()

	config *rest.Config
	client *http.Client
	base   *url.URL

	mu   sync.RWMutex
	crds map[string]*apiextensionsv1.CustomResourceDefinition // installed, by metadata.name

	closeOnce sync.Once
}

// Start starts a Server for a test or benchmark and stops it in t.Cleanup.
// It calls t.Fatal when the server does not start.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := New(Options{Logf: t.Logf})
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// New starts etcd and the apiextensions-apiserver and waits until the server
// answers /healthz. The caller must Close the returned Server.
func New(opts Options) (*Server, error) {
	if !opts.Verbose {
		opts.Verbose = os.Getenv(VerboseEnv) != ""
	}
	if !opts.Verbose {
		silence()
	}
	s := &Server{crds: map[string]*apiextensionsv1.CustomResourceDefinition{}}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()

	etcdURL, err := s.startEtcd(opts.Verbose)
	if err != nil {
		return nil, err
	}

	kc, err := os.CreateTemp("", "crdkit-oracle-kubeconfig-")
	if err != nil {
		return nil, err
	}
	s.kubeconfig = kc.Name()
	if _, err := kc.WriteString(dummyKubeconfig); err != nil {
		kc.Close()
		return nil, err
	}
	if err := kc.Close(); err != nil {
		return nil, err
	}

	prefix := make([]byte, 8)
	if _, err := rand.Read(prefix); err != nil {
		return nil, err
	}
	s.etcdPrefix = "/crdkit-" + hex.EncodeToString(prefix)
	flags := append([]string{
		"--etcd-servers", etcdURL,
		"--etcd-prefix", s.etcdPrefix,
		"--authentication-skip-lookup",
		"--authentication-kubeconfig", s.kubeconfig,
		"--authorization-kubeconfig", s.kubeconfig,
		"--kubeconfig", s.kubeconfig,
		"--enable-priority-and-fairness=false",
		"--disable-admission-plugins", "NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,MutatingAdmissionPolicy",
	}, opts.ExtraFlags...)
	lg := &logger{verbose: opts.Verbose, logf: opts.Logf}
	ts, err := servertesting.StartTestServer(lg, nil, flags, nil)
	if err != nil {
		return nil, fmt.Errorf("start apiextensions-apiserver: %w", err)
	}
	s.tearDown = ts.TearDownFn

	s.config = rest.CopyConfig(ts.ClientConfig)
	s.config.QPS = -1 // no client-side rate limit
	s.client, err = rest.HTTPClientFor(s.config)
	if err != nil {
		return nil, err
	}
	host := s.config.Host
	if host == "" {
		return nil, errors.New("loopback client config has no host")
	}
	s.base, err = url.Parse(host)
	if err != nil {
		return nil, err
	}
	if s.base.Scheme == "" {
		s.base, err = url.Parse("https://" + host)
		if err != nil {
			return nil, err
		}
	}
	ok = true
	return s, nil
}

// RESTConfig returns a copy of the loopback client configuration, for
// clients this package does not wrap.
func (s *Server) RESTConfig() *rest.Config { return rest.CopyConfig(s.config) }

// Close stops the apiserver and etcd and removes their temporary files. It is
// safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		if s.tearDown != nil {
			s.tearDown()
		}
		if s.etcd != nil {
			s.etcd.Close()
		}
		if s.etcdDir != "" {
			os.RemoveAll(s.etcdDir)
		}
		if s.kubeconfig != "" {
			os.Remove(s.kubeconfig)
		}
	})
}

func (s *Server) startEtcd(verbose bool) (string, error) {
	dir, err := os.MkdirTemp("", "crdkit-oracle-etcd-")
	if err != nil {
		return "", err
	}
	s.etcdDir = dir
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		ports, err := freePorts(2)
		if err != nil {
			return "", err
		}
		clientURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))}
		peerURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1]))}
		cfg := embed.NewConfig()
		cfg.Name = "crdkit-oracle"
		cfg.Dir = dir
		cfg.UnsafeNoFsync = true
		cfg.ListenPeerUrls = []url.URL{peerURL}
		cfg.AdvertisePeerUrls = []url.URL{peerURL}
		cfg.ListenClientUrls = []url.URL{clientURL}
		cfg.AdvertiseClientUrls = []url.URL{clientURL}
		cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
		// The largest corpus CRDs are close to etcd's default 1.5 MiB request
		// limit once stored; a real cluster's etcd is usually configured alike.
		cfg.MaxRequestBytes = 8 << 20
		if !verbose {
			cfg.LogLevel = "fatal"
		}
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			lastErr = err
			os.RemoveAll(dir)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return "", err
			}
			continue
		}
		select {
		case <-e.Server.ReadyNotify():
		case <-time.After(60 * time.Second):
			e.Server.Stop()
			e.Close()
			return "", errors.New("etcd took too long to start")
		}
		s.etcd = e
		return clientURL.String(), nil
	}
	return "", fmt.Errorf("start etcd: %w", lastErr)
}

func freePorts(n int) ([]int, error) {
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

var silenceOnce sync.Once

// silence turns off klog and grpc logging for the whole process.
func silence() {
	silenceOnce.Do(func() {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("alsologtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		_ = fs.Set("v", "0")
		klog.SetOutput(io.Discard)
		klog.SetLogger(logr.Discard())
		grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, io.Discard, io.Discard))
	})
}

// logger adapts Options to servertesting.Logger.
type logger struct {
	verbose bool
	logf    func(string, ...any)
}

func (l *logger) Logf(format string, args ...any) {
	if l.verbose && l.logf != nil {
		l.logf(format, args...)
	}
}

func (l *logger) Errorf(format string, args ...any) {
	if l.logf != nil {
		l.logf("ERROR: "+format, args...)
	}
}

func (l *logger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

const dummyKubeconfig = `apiVersion: v1
kind: Config
clusters:
- cluster:
    server: http://127.1.2.3:12345
  name: integration
contexts:
- context:
    cluster: integration
    user: test
  name: default-context
current-context: default-context
users:
- name: test
  user:
    password: test
    username: test
`
