// Package handlers holds what crdkit needs to reproduce the API server's
// request handlers (k8s.io/apiserver/pkg/endpoints/handlers) byte for
// byte where their messages name their own Go types: decoding errors
// quote a type as "handlers.<name>", so the types live in a package of
// that name.
package handlers

import (
	"fmt"

	kjson "sigs.k8s.io/json"
)

// jsonPatchOp is a JSON patch operation as the patch handler reads one
// for its strict checks.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// StrictJSONPatch reads a JSON patch's operations as the patch handler
// does in Warn and Strict: the strict errors (unknown keys and duplicates
// in an operation), each prefixed "json patch ", or the handler's error
// text for a patch that does not decode.
func StrictJSONPatch(patch []byte) ([]error, error) {
	var ops []jsonPatchOp
	errs, err := kjson.UnmarshalStrict(patch, &ops)
	if err != nil {
		return nil, fmt.Errorf("error decoding patch: %v", err)
	}
	for i, e := range errs {
		errs[i] = fmt.Errorf("json patch %v", e)
	}
	return errs, nil
}
