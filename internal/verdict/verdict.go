// Package verdict carries the outcome of the server's CRD validation on one
// document between crdkit's facade (crdkit.Load) and crdkit's command,
// whose cache of compiled CRDs keeps it so that a later run on the same
// document by the same build need not validate the CRD again.
//
// It is internal: only this module's command sets it. A Verdict that does
// not come from an earlier Load of the same document by the same build
// gives a CRD the server might refuse.
package verdict

// Verdict is the CRD validation's outcome on a document. Load fills it
// when it validates (Known false on entry), and skips the validation when
// Known is true on entry.
type Verdict struct {
	// Known reports that the CRD passed the server's validation on create
	// (definition.Validate) with Warnings.
	Known bool
	// Warnings are the validation's warnings (definition.WarningsOnCreate),
	// in order; the handler's and the decoder's are not among them.
	Warnings []string
}
