package crfake

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdkit/crdkit/internal/crdhead"
)

// SetMaxHistory sets the bound of the watch history for a test and returns
// the function that restores it.
func SetMaxHistory(n int) func() {
	old := maxHistory
	maxHistory = n
	return func() { maxHistory = old }
}

// Compiled reports whether the client has compiled the CRD of a kind
// given as a document.
func Compiled(c *Client, group, kind string) bool {
	r := c.resources[schema.GroupKind{Group: group, Kind: kind}]
	return r != nil && r.lazy.done.Load()
}

// Head returns the head of the client's one CRD.
func Head(c *Client) (crdhead.Head, bool) {
	for _, r := range c.resources {
		return r.lazy.head, true
	}
	return crdhead.Head{}, false
}
