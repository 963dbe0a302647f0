// Package handlers words some errors exactly as the API server's handlers
// package (k8s.io/apiserver/pkg/endpoints/handlers) does. Go's JSON errors
// name the type a value was decoded into, and the server decodes the
// operations of a JSON patch into its own handlers.jsonPatchOp: the type
// here has that name so that "error decoding patch: json: cannot unmarshal
// number into Go value of type []handlers.jsonPatchOp" reads the same.
package handlers

import kjson "sigs.k8s.io/json"

// jsonPatchOp is one JSON patch operation, as the server reads it to find
// duplicate and unknown fields.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// StrictJSONPatch decodes a JSON patch strictly as the patch handler does
// before applying it: err when it is not a list of operations, strictErrs
// for the duplicate and unknown fields of its operations.
func StrictJSONPatch(data []byte) (strictErrs []error, err error) {
	var ops []jsonPatchOp
	return kjson.UnmarshalStrict(data, &ops)
}
