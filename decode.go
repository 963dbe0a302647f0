package crdkit

// DecodeJSON answers with the object the server's decoder makes of the
// JSON document data sent to this version, which is what admission
// webhooks and the rest of a create or update see: the body decoded
// (strictly in Warn and Strict), root metadata round-tripped through
// ObjectMeta, unknown fields pruned, non-nullable nulls dropped, embedded
// resources coerced and the defaults of the object's own version applied;
// then unknown and duplicate fields are Warning headers in Warn and a 400
// in Strict, and an object of another group or version is refused with the
// server's 400. These are the first steps of CreateJSON, in its order.
//
// Result.Object keeps what the request set that only a later step clears
// (uid, resourceVersion, status under a status subresource, generation).
func (v *Version) DecodeJSON(data []byte, opts CreateOptions) Result {
	if data == nil {
		data = []byte{}
	}
	r := &request{v: v, mode: opts.mode(), raw: data}
	r.decode()            // type meta, then the body (duplicates in Warn and Strict)
	r.coerce()            // root metadata, prune, non-nullable nulls, embedded resources
	r.defaultOwnVersion() // defaults of the object's own version
	r.fieldValidation()   // unknown and duplicate fields: a 400 or warnings
	r.checkAPIVersion()
	if !r.failed() {
		r.res.Object = r.obj
	}
	return r.res
}
