package oracle

import (
	"cmp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serverOnlyMeta are the root metadata fields only a server can fill.
var serverOnlyMeta = []string{"uid", "creationTimestamp", "resourceVersion"}

// TimePlaceholder replaces the time of every managedFields entry in
// Normalize.
const TimePlaceholder = "<time>"

// DatePlaceholder replaces Table cells of "date" columns in Normalize.
const DatePlaceholder = "<date>"

// Normalize removes, in place, the fields of a server answer that no offline
// implementation can reproduce, and returns obj:
//   - root metadata.uid, creationTimestamp, resourceVersion, and the time
//     of each metadata.managedFields entry (TimePlaceholder; the entries,
//     their order and fields are kept);
//   - for a List, the same fields of every item, and the list's
//     metadata.resourceVersion;
//   - for a meta.k8s.io Table, the same fields of each row's object and the
//     table's metadata.resourceVersion; cells of columns of type "date" (the
//     Age column and date-typed printer columns are rendered relative to
//     the current time) become DatePlaceholder.
//
// metadata.generation is kept: the server sets it deterministically (1 on
// create, +1 when anything outside metadata changes on update, unchanged on
// a status update) and crdkit reproduces it. Remove it with DropGeneration
// when comparing with something that does not model it. A metadata map left
// empty is kept.
func Normalize(obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	kind, _ := obj["kind"].(string)
	switch {
	case kind == "Table":
		dropMeta(obj, "resourceVersion")
		var dateCols []int
		if cols, ok := obj["columnDefinitions"].([]any); ok {
			for i, c := range cols {
				if cm, ok := c.(map[string]any); ok && cm["type"] == "date" {
					dateCols = append(dateCols, i)
				}
			}
		}
		rows, _ := obj["rows"].([]any)
		for _, r := range rows {
			rm, ok := r.(map[string]any)
			if !ok {
				continue
			}
			if cells, ok := rm["cells"].([]any); ok {
				for _, i := range dateCols {
					if i < len(cells) && cells[i] != nil {
						cells[i] = DatePlaceholder
					}
				}
			}
			if o, ok := rm["object"].(map[string]any); ok {
				dropMeta(o, serverOnlyMeta...)
			}
		}
	case len(kind) > 4 && kind[len(kind)-4:] == "List":
		dropMeta(obj, "resourceVersion")
		items, _ := obj["items"].([]any)
		for _, it := range items {
			if o, ok := it.(map[string]any); ok {
				dropMeta(o, serverOnlyMeta...)
			}
		}
	default:
		dropMeta(obj, serverOnlyMeta...)
	}
	return obj
}

// DropGeneration removes root metadata.generation in place and returns obj.
func DropGeneration(obj map[string]any) map[string]any {
	dropMeta(obj, "generation")
	return obj
}

func dropMeta(obj map[string]any, fields ...string) {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return
	}
	for _, f := range fields {
		delete(md, f)
	}
	mf, _ := md["managedFields"].([]any)
	for _, e := range mf {
		if m, ok := e.(map[string]any); ok && m["time"] != nil {
			m["time"] = TimePlaceholder
		}
	}
}

// SortCauses sorts st.Details.Causes in place by (field, reason, message):
// the server's order varies between runs.
func SortCauses(st *metav1.Status) {
	if st == nil || st.Details == nil {
		return
	}
	slices.SortStableFunc(st.Details.Causes, func(a, b metav1.StatusCause) int {
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Message, b.Message))
	})
}
