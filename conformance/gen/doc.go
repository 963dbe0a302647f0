// Package gen is the conformance module's name for the object generator,
// which lives in the public package github.com/crdkit/crdkit/generate: the
// names here forward to it. Its tests check generated objects with the
// server's own OpenAPI validator.
package gen
