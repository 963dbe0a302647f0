// Command conversion-webhook is a conversion webhook for crd.yaml, built
// on conversion.Handler: it renames spec.cronSpec (v1) to spec.schedule
// (v2) and back, over TLS.
//
//	go run ./examples/conversion-webhook [-addr 127.0.0.1:8443] [-cert FILE -key FILE] [-ca-out FILE]
//
// Without -cert and -key it makes a self-signed certificate for 127.0.0.1
// and localhost and writes it to -ca-out (default
// /tmp/conversion-webhook-ca.pem), the caBundle a client needs.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/crdkit/crdkit/conversion"
)

const (
	v1 = "convert.example.com/v1"
	v2 = "convert.example.com/v2"
)

// rename moves spec.from to spec.to.
func rename(from, to string) conversion.Func {
	return func(obj map[string]any) (map[string]any, error) {
		spec, _ := obj["spec"].(map[string]any)
		if v, ok := spec[from]; ok {
			spec[to] = v
			delete(spec, from)
		}
		return obj, nil
	}
}

// handler converts between v1 and v2.
func handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/convert", conversion.NewHandler(conversion.Pairs(map[conversion.Pair]conversion.Func{
		{From: v1, To: v2}: rename("cronSpec", "schedule"),
		{From: v2, To: v1}: func(obj map[string]any) (map[string]any, error) {
			spec, _ := obj["spec"].(map[string]any)
			if s, _ := spec["suspend"].(bool); s {
				return nil, fmt.Errorf("a suspended CronJob has no v1 form")
			}
			delete(spec, "suspend")
			return rename("schedule", "cronSpec")(obj)
		},
	})))
	return mux
}

// selfSigned is a certificate for 127.0.0.1 and localhost, and its PEM.
func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "conversion-webhook"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// newServer is the webhook's server on ln.
func newServer(cert tls.Certificate) *http.Server {
	return &http.Server{
		Handler:           handler(),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8443", "listen address")
	certFile := flag.String("cert", "", "TLS certificate (PEM); a self-signed one when empty")
	keyFile := flag.String("key", "", "TLS key (PEM)")
	caOut := flag.String("ca-out", "/tmp/conversion-webhook-ca.pem", "where to write the self-signed certificate")
	flag.Parse()
	var cert tls.Certificate
	var err error
	if *certFile != "" {
		cert, err = tls.LoadX509KeyPair(*certFile, *keyFile)
	} else {
		var caPEM []byte
		if cert, caPEM, err = selfSigned(); err == nil {
			err = os.WriteFile(*caOut, caPEM, 0o644)
			log.Printf("self-signed certificate written to %s", *caOut)
		}
	}
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("serving conversion reviews on https://%s/convert", ln.Addr())
	log.Fatal(newServer(cert).ServeTLS(ln, "", ""))
}
