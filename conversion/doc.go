// Package conversion converts custom resources between the versions of a
// CRD as the Kubernetes API server (apiextensions-apiserver v0.37) does.
//
// Strategy None is [None] and [NoneList]: only apiVersion changes.
//
// Strategy Webhook has two sides. [Webhook] is the server's client: it
// sends the ConversionReview the server sends (v1 or v1beta1, the first of
// the CRD's conversionReviewVersions the server supports; a new uid; the
// desired apiVersion; only the objects not at it), over the server's
// transport (client-go's REST client, the CRD's caBundle, a 30 s timeout),
// and checks the answer as the server does, with its error texts: the
// review's kind and uid (v1), a Success result, the number of objects, each
// object's apiVersion, kind, name, namespace and uid. Metadata comes back
// from the original object except labels and annotations
// ([RestoreMetadata]). [Handler] is the other side, an http.Handler for
// writing a conversion webhook in Go with per-pair ([Pairs]) or
// hub-and-spoke ([HubAndSpoke]) converters.
//
// # Value model
//
// Objects are map[string]any as encoding/json decodes them, with integers
// as int64 (sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts).
//
// # Concurrency
//
// A Webhook is immutable and safe for concurrent use; so is a Handler whose
// converter is.
//
// # Errors
//
// Webhook errors are the texts the server's webhook converter returns,
// before the server wraps them in its own status (the facade,
// crdkit.CRD.Convert and Version.Read, adds that).
//
// # Security
//
// The client bounds each call with its timeout and the answer's size
// (WebhookOptions.MaxResponseBytes) and sends no credentials. Like the
// server it follows redirects. The Handler reads at most MaxRequestBytes,
// refuses bodies that are not reviews, and turns a converter's error or
// panic into a Failure result.
package conversion
