package crdkit

import "errors"

// Read returns what the server answers when an object stored in etcd (as
// the stored JSON object, at the storage version or any other version the
// CRD defines) is read at this version. It follows the storage decoder's
// order (research/upstream.md §2.6): coerce with malformed metadata
// dropped and the generation repaired, default with the schema of the
// stored version, convert (strategy None) and coerce with this version's
// schema. Request-version defaults are not applied on reads, as on the
// server. stored is not modified.
func (v *Version) Read(stored map[string]any) (map[string]any, error) {
	cp, err := normalizeValue(stored, 0)
	if err != nil {
		return nil, err
	}
	obj, _ := cp.(map[string]any)
	if obj == nil {
		return nil, errors.New("stored object is not a JSON object")
	}
	return v.crd.read(obj, v.name, true), nil
}

// read is the server's read path for a stored object, in place, one step
// per line. rootMeta false skips the root metadata round trips, for an
// object whose metadata is already canonical.
func (c *CRD) read(obj map[string]any, version string, rootMeta bool) map[string]any {
	_, _, _ = c.coerce(obj, coercion{dropInvalidMeta: true, rootMeta: rootMeta}) // storage decoder (§2.2)
	repairGeneration(obj)                                                        // generation 0 becomes 1
	c.defaultOwnVersion(obj)                                                     // defaults of the stored version
	obj["apiVersion"] = c.Group() + "/" + version                                // conversion, strategy None
	_, _, _ = c.coerce(obj, coercion{})                                          // coercion with the target schema
	return obj
}

// repairGeneration sets a zero generation to 1, as the storage decoder does.
func repairGeneration(obj map[string]any) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		if g, _ := md["generation"].(int64); g == 0 {
			md["generation"] = int64(1)
		}
	}
}

// storeAndRead returns what the server answers after storing obj: converted
// to the storage version and coerced there, then read back (coerced with
// malformed metadata dropped, defaulted with the storage version's schema),
// converted to the version asked for and coerced with its schema.
func (c *CRD) storeAndRead(obj map[string]any, version string, statusDefaults bool) map[string]any {
	storage := c.StorageVersion()
	if storage == version && c.readIsIdentity && !statusDefaults {
		// The object was pruned, null-pruned, coerced and defaulted with this
		// very schema; the CRD is valid, so its defaults are pruned and hold
		// no null; only metadata changed since (and status, when it had no
		// defaults to come back): the read path's steps are identities here
		// (the server differentials check the returned objects and tables).
		return finishRead(obj)
	}
	if storage != version {
		obj["apiVersion"] = c.Group() + "/" + storage
		_, _, _ = c.coerce(obj, coercion{dropInvalidMeta: true})
	}
	return finishRead(c.read(obj, version, false))
}

// finishRead removes the null creationTimestamp the ObjectMeta round trip
// leaves, which the server fills in.
func finishRead(obj map[string]any) map[string]any {
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ts, set := md["creationTimestamp"]; set && ts == nil {
			delete(md, "creationTimestamp")
		}
	}
	return obj
}
