// Package oracle runs the real CustomResourceDefinition API server
// (k8s.io/apiextensions-apiserver v0.37.x) in-process, on an embedded etcd,
// and sends it raw requests. It is the reference crdkit is measured against:
// where crdkit and this server disagree, crdkit is wrong.
//
// # Terminology
//
// A Server is one etcd (127.0.0.1, explicit free ports, no fsync, temporary
// data directory) plus one apiextensions-apiserver started through
// k8s.io/apiextensions-apiserver/pkg/cmd/server/testing.StartTestServer with
// the flags of upstream's integration fixtures: a dummy kubeconfig that is
// never contacted, --authentication-skip-lookup,
// --enable-priority-and-fairness=false and the admission plugins that need a
// kube-apiserver disabled. Requests use the server's loopback credentials.
//
// [Server.InstallCRDs] creates a batch of CRDs, waits until each is
// Established and then waits once more until the newest Established
// condition is older than two seconds: the server sleeps two seconds in every
// create of a custom object while its CRD is younger than that, so CRDs must
// be installed in batches, never one per test case. It also sends one list
// request per CRD so that the server builds the CRD's handlers (schemas,
// validators, CEL programs, storage) before the first burst of parallel
// requests. A CRD the server refuses
// comes back with its full metav1.Status (code, reason, message, causes):
// this is the CRD-validation oracle. [Server.CreateCRDRaw] asks for that
// verdict without the wait (optionally as a dry run).
//
// [Server.Do] sends one custom-object request with a raw JSON body exactly as
// given (duplicate keys and number spellings survive): create, update (PUT),
// status update, get, get as a meta.k8s.io/v1 Table, delete; each optionally
// as a dry run and with a fieldValidation mode. The [Result] holds the HTTP
// code, the metav1.Status of a refusal, the Warning header texts and the
// decoded body of a success. A 500 "error resolving resource" (the server
// failed to build a CRD's handlers, seen once under heavy CPU contention,
// before any request handling) is retried up to three times.
//
// # Comparing
//
// The server fills some fields no offline implementation can reproduce:
// [Normalize] removes them. The order of Status causes, and of the
// aggregated message, varies between runs: [SortCauses] sorts causes by
// (field, reason, message).
//
// # Concurrency
//
// A Server is safe for concurrent use by parallel subtests once started.
// Feature gates and klog are process-global: use one gate configuration per
// test process. Output of klog, grpc and etcd is silenced unless the
// environment variable CRDKIT_ORACLE_VERBOSE is non-empty.
//
// # Build
//
// Never build with -trimpath: StartTestServer finds its certificate fixtures
// through runtime.Caller. The package links the whole apiserver and etcd (about
// 1,500 packages), which is why it lives in its own Go module.
package oracle
