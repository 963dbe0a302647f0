package crdkit

import (
	"encoding/json"
	"fmt"

	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/defaulting"
)

// Default applies, in place, what the server's decoder does to an object of
// this version before storing it, short of pruning: non-nullable nulls
// without a default are dropped, then this version's defaults are applied
// (deep copies, at every depth). It is what a controller needs to compare
// its desired object with live state the server has defaulted.
func (v *Version) Default(obj map[string]any) {
	if v.schema == nil {
		return
	}
	defaulting.PruneNulls(obj, v.schema)
	defaulting.Apply(obj, v.schema)
}

// DefaultTyped defaults a typed object (a controller's Go struct, passed as
// a pointer) through its CRD version: the object is converted to JSON,
// defaulted as Version.Default does, and decoded back into obj. Fields the
// struct does not have are dropped by the round trip, as they would be by
// the controller's own client.
func DefaultTyped(v *Version, obj any) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &m); err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("crdkit: %T does not encode to a JSON object", obj)
	}
	v.Default(m)
	out, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, obj)
}
