// Package conversiondiff checks crdkit's conversion webhook client
// (conversion.Webhook) against the server's own webhook converter
// (k8s.io/apiextensions-apiserver v0.37.2 pkg/apiserver/conversion, built
// with NewCRConverterFactory and NewConverter as the server builds it),
// both calling the same test webhooks on 127.0.0.1 over TLS: a
// conversion.Handler, and misbehaving webhooks that edit its answers
// (wrong uid, count, apiVersion, kind, name, namespace or uid, invalid or
// non-string labels and annotations, changed finalizers, extra fields,
// Failure results, other review kinds and versions, non-JSON bodies, HTTP
// errors, redirects), in ConversionReview v1 and v1beta1, for single
// objects and lists. Errors are compared byte for byte (the request uid,
// random on each side, replaced); objects with reflect.DeepEqual.
//
// The package has no API; its tests are the product:
//
//	go test ./conversiondiff
//
// The corpus objects (for conversion-webhook-object) are read from
// $CRDKIT_CORPUS, or ../shared/corpus beside the repository; that test
// skips when it is absent.
package conversiondiff
