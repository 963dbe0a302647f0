// Package admissiontest checks crdkit's admission webhooks and object
// generator against the real servers: k8s.io/apiserver's validating and
// mutating webhook admission plugins (the API server's own webhook client,
// driven with a static webhook configuration on a fake informer, as the
// apiextensions server alone serves no webhook configurations) call the
// examples/admission-webhook handler over TLS on 127.0.0.1 for objects that
// embed objects of the corpus CRDs, and their verdicts, messages, warnings
// and patched objects are compared with what the real apiextensions server
// (package oracle) answers for the embedded objects created directly. The
// generator's valid objects and stated mutations are sent to the real
// server as dry-run creates.
//
//	cd conformance && go test -v ./admissiontest
//
// Environment: CRDKIT_CORPUS, CRDKIT_ADMISSION_CASES (generated cases per
// CRD version, default 40).
package admissiontest
