// Package crfake is a controller-runtime client (client.WithWatch) whose
// custom resources behave as the Kubernetes API server treats them, through
// crdkit's pipelines, and whose other kinds behave as controller-runtime's
// own fake client (pkg/client/fake) does, to which it delegates them.
//
// # The name
//
// "fake" is what the ecosystem calls an in-memory stand-in for a client:
// client-go's generated fake clientsets, controller-runtime's
// pkg/client/fake. The "cr" says which client it stands in for
// (controller-runtime's) and gives the package an import name of its own,
// so that a test can keep importing controller-runtime's fake beside it.
// NewClientBuilder mirrors fake.NewClientBuilder, so that switching a test
// over is one line: add WithCRDs (or WithCRDYAML) to the builder.
//
// The package is a Go module of its own (github.com/crdkit/crdkit/crfake)
// so that controller-runtime and its dependencies never enter the
// library's go.mod.
//
// # What is modelled
//
// For the kinds of the CRDs given to the builder, the client keeps a store
// as etcd would: objects by resource, namespace and name at the CRD's
// storage version, a resourceVersion counter shared by every object, a uid
// per object, creationTimestamp from the builder's clock. Each call runs
// crdkit's pipeline for the request (Version.CreateJSON, UpdateJSON,
// UpdateStatusJSON, Patch, Apply, Delete, List, Scale, UpdateScaleJSON,
// PatchScale) over the live object read at the request's version
// (Version.Read), then stores the result converted to the storage version.
// An update that changes nothing keeps the object's resourceVersion and
// sends no watch event, as the server does. Errors are the
// *apierrors.StatusError values the server answers (crdkit's), so
// apierrors.IsInvalid, IsConflict, IsNotFound and ReasonForError behave as
// with a real server. Watch sends the events of the writes in order: from
// a resourceVersion, the events after it (the latest 10,000 are kept; an
// older one is the server's 410 Expired), else ADDED for each object that
// exists, then the events to come; an object that leaves or enters the
// watch's selectors is DELETED or ADDED for it.
//
// # When CRDs compile
//
// A CRD given as a document (WithCRDYAML, WithCRDFiles) is compiled
// (crdkit.Load: decoding, the server's CRD validation, schemas, CEL rules)
// on the first request for its kind, once (a sync.Once per CRD, shared by
// every client of the builder; concurrent first requests wait for the one
// compilation). Build reads only each document's head from its text
// (package internal/crdhead: group, names, scope, the versions and whether
// they are served), which is what routing requests and the RESTMapper
// need, so a start costs next to nothing however many CRDs it is given.
// Build checks cheaply what it can: that the head is read (a document
// whose head is not read from its text, or that names no group, kind,
// plural, scope or version, is compiled at Build, and its error returned
// as before) and that no two CRDs define one kind. A CRD the server would
// refuse (an invalid schema, a rule that does not compile) is refused on
// the first request for its kind, and every one after it: the error is
// crdkit.Load's, the server's answer to the CRD's create (a 422 Invalid
// *apierrors.StatusError, so apierrors.IsInvalid holds), after
// "crfake: CRD <plural>.<group>: ". The CRDs of initial objects
// (WithObjects, WithRuntimeObjects) are compiled at Build, on every core,
// and Build returns their refusal. CRDs given compiled (WithCRDs) are
// used as they are.
//
// What a call returns is the caller's, as a decoded answer is: every map
// and slice of an unstructured object or list item is new (the client
// shares only strings and other immutable scalars with its store), and the
// objects a caller gives are encoded, not kept. Each stored object's read
// at a version is made once and copied for each answer by a plan made
// with it; the store keeps its keys in the server's list order, so a list
// neither sorts nor, without selectors, selects.
//
// List pages (Limit, Continue) answer as the server's do: every page
// reads the snapshot of the first page's revision (objects created,
// changed or deleted since do not show, changed ones show as they were),
// with its resourceVersion and remainingItemCount, and a continue token in
// the server's form whose key is relative to the list's namespace. A list
// at an exact resourceVersion (with a Limit, or resourceVersionMatch Exact)
// reads that revision's snapshot; resourceVersion "0" is answered whole,
// without pages, as the watch cache answers it. Snapshots come from the
// watch history: once it no longer reaches back to a page's revision the
// page is the server's 410 ("The provided continue parameter is too
// old..."). Crafted or malformed tokens get the server's 400s, a
// resourceVersion that is not a number its 400, and a revision not yet
// written (in a token or a resourceVersion) the watch cache's 504 "Too
// large resource version", at once where the server waits 3 s for it.
//
// Typed objects (Go structs registered in the client's scheme) and
// unstructured objects both work: the client encodes them as JSON, as
// controller-runtime's REST client does, and decodes the server's answer
// into them.
//
// Not modelled: admission webhooks, conversion webhooks (a CRD whose
// strategy is Webhook is converted by calling its webhook only where crdkit
// does), watch bookmarks and garbage collection of dependents. A write of
// the scale subresource stores the object as the server does
// (Result.Parent): the new replica count and the managed fields entry the
// server records for the Scale's manager.
package crfake
