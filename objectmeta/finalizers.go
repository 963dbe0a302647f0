package objectmeta

import (
	"fmt"
	"sort"
	"strings"

	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
)

// FinalizerWarnings are the Warning headers the server sends for the
// finalizer names of a new object (obj["metadata"]["finalizers"]): each
// distinct name once, sorted, first the qualified-name problems, then the
// advice to use a domain-qualified name with a path.
func FinalizerWarnings(obj map[string]any) []string {
	return finalizerWarnings(obj, nil)
}

// FinalizerWarningsOnUpdate are FinalizerWarnings for the finalizers obj
// adds to old's: names old already has get no warning.
func FinalizerWarningsOnUpdate(obj, old map[string]any) []string {
	return finalizerWarnings(obj, old)
}

func finalizerWarnings(obj, old map[string]any) []string {
	md, _ := obj["metadata"].(map[string]any)
	l, _ := md["finalizers"].([]any)
	if len(l) == 0 {
		return nil
	}
	seen := map[string]bool{}
	oldMD, _ := old["metadata"].(map[string]any)
	oldList, _ := oldMD["finalizers"].([]any)
	for _, f := range oldList {
		if s, ok := f.(string); ok {
			seen[s] = true
		}
	}
	var names []string
	for _, f := range l {
		if s, ok := f.(string); ok && !seen[s] {
			seen[s] = true
			names = append(names, s)
		}
	}
	sort.Strings(names)
	var out []string
	for _, f := range names {
		for _, msg := range utilvalidation.IsQualifiedName(f) {
			out = append(out, fmt.Sprintf("metadata.finalizers: %q: %s", f, msg))
		}
		if !strings.Contains(f, "/") && !standardFinalizers[f] {
			if strings.Contains(f, ".") {
				out = append(out, fmt.Sprintf("metadata.finalizers: %q: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers", f))
			} else {
				out = append(out, fmt.Sprintf("metadata.finalizers: %q: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers", f))
			}
		}
	}
	return out
}

// standardFinalizers are the names the server does not warn about.
var standardFinalizers = map[string]bool{"orphan": true, "foregroundDeletion": true, "kubernetes": true}
