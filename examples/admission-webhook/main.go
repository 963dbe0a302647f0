// Command admission-webhook serves crdkit's validating (/validate) and
// mutating (/mutate) admission webhooks over TLS for the CRDs it is given:
// objects of those CRDs, and the manifests that other objects carry under
// spec.manifests, are checked as their API server would check them, then
// by a policy hook (see package webhook).
//
//	go run ./examples/admission-webhook --crds examples/crontab/crd.yaml
//
// Without --cert and --key it makes a self-signed certificate for
// 127.0.0.1 and writes it to --ca-out, for the webhook configuration's
// caBundle. It listens on 127.0.0.1 only.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/examples/admission-webhook/webhook"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, nil); err != nil {
		fmt.Fprintln(os.Stderr, "admission-webhook:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends; ready, when not nil, receives the address
// once the server listens.
func run(ctx context.Context, args []string, out io.Writer, ready chan<- string) error {
	fs := flag.NewFlagSet("admission-webhook", flag.ContinueOnError)
	var crdFiles stringList
	fs.Var(&crdFiles, "crds", "a CRD file (repeatable)")
	addr := fs.String("addr", "127.0.0.1:8443", "address to listen on (loopback only)")
	certFile := fs.String("cert", "", "TLS certificate (PEM); with --key")
	keyFile := fs.String("key", "", "TLS key (PEM)")
	caOut := fs.String("ca-out", "", "where to write the self-signed certificate (PEM)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(crdFiles) == 0 {
		return errors.New("no --crds given")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		return fmt.Errorf("--addr %s: only loopback addresses are served", *addr)
	}
	var crds []*crdkit.CRD
	for _, f := range crdFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		crd, err := crdkit.Load(data)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		crds = append(crds, crd)
	}
	var cert tls.Certificate
	if *certFile != "" {
		if cert, err = tls.LoadX509KeyPair(*certFile, *keyFile); err != nil {
			return err
		}
	} else {
		var pemCert []byte
		if cert, pemCert, err = selfSigned(host); err != nil {
			return err
		}
		if *caOut != "" {
			if err := os.WriteFile(*caOut, pemCert, 0o644); err != nil {
				return err
			}
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           webhook.New(crds),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
	}
	fmt.Fprintf(out, "serving /validate and /mutate on https://%s for %d CRDs\n", ln.Addr(), len(crds))
	if ready != nil {
		ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeTLS(ln, "", "") }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shut)
	}
}

// selfSigned makes a certificate for host valid for a day.
func selfSigned(host string) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "crdkit admission-webhook example"},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.ParseIP(host)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }
