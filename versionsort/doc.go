// Package versionsort orders Kubernetes API version strings the way the API
// server does for CustomResourceDefinitions: in discovery (the preferred
// version), in `kubectl get` resource resolution, and when it picks the
// replacement it names in a deprecation warning.
//
// # Terminology
//
// A Kubernetes-style version is "v" followed by a major number, optionally
// followed by "alpha" or "beta" and a minor number: v1, v2beta1, v10alpha3.
// Every other string (foo1, v1.0, V1, v1alpha) is an ordinary string. Priority
// runs GA > beta > alpha, then by major, then by minor; any Kubernetes-style
// version ranks above any ordinary string, and ordinary strings rank in
// reverse lexical order. Sorted by priority, highest first:
//
//	v10 v2 v1 v11beta2 v10beta3 v3beta1 v12alpha1 v11alpha2 foo1 foo10
//
// The reference is CompareKubeAwareVersionStrings in
// k8s.io/apimachinery/pkg/version and the deprecation warning built by
// k8s.io/apiextensions-apiserver; Compare agrees with the former in sign on
// every input, including numbers too large for an int (such a string is an
// ordinary string) and different spellings of one number ("v01" ranks the
// same as "v1").
//
// # Use
//
// Compare and Sort work on plain strings. New compiles the versions of one
// CRD (name, served, storage, deprecated, deprecation warning) into a
// Versions value that answers the priority order, the preferred version, the
// storage version and the warning sent with requests to a deprecated version.
// The package imports only the standard library; callers holding
// apiextensions types copy the five fields they need.
//
// # Concurrency
//
// The functions keep no state. A *Versions is immutable once New returns and
// is safe for concurrent use.
//
// # Errors
//
// No function fails. Parse reports whether a string is Kubernetes-style;
// every other input is ordered as an ordinary string.
//
// # Security
//
// Compare and Parse run in time linear in the length of their inputs; Sort
// makes O(n log n) comparisons and New at most O(n²) for n versions. Nothing
// keeps state: version strings of any length and content are safe to pass.
//
// # Performance
//
// Compare and Parse do not allocate; a comparison is a single pass over each
// string with no regular expression.
package versionsort
