package objectmeta

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// What the server's request handlers do to the metadata of every object
// they create or update, before the strategy sees it: system fields wiped,
// owner references de-duplicated, managed fields kept only when the field
// manager can decode them.

// WipeSystemFields deletes from md, modifying it, the fields the server
// never takes from a create request (rest.WipeObjectMetaSystemFields):
// creationTimestamp, uid, deletionTimestamp, deletionGracePeriodSeconds and
// selfLink.
func WipeSystemFields(md map[string]any) {
	for _, k := range [...]string{"creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		delete(md, k)
	}
}

// WipeSystemFieldsTyped is WipeSystemFields for a typed object's metadata.
func WipeSystemFieldsTyped(meta *metav1.ObjectMeta) {
	meta.CreationTimestamp = metav1.Time{}
	meta.UID = ""
	meta.DeletionTimestamp = nil
	meta.DeletionGracePeriodSeconds = nil
	meta.SelfLink = ""
}

// DedupOwnerReferences removes, in place, every owner reference of md that
// repeats an earlier one exactly (the same UID and the same fields), as the
// server's handlers do before the field manager runs. It returns the UIDs
// of the removed references, in order; md must be canonical metadata (as
// Set writes it).
func DedupOwnerReferences(md map[string]any) []string {
	refs, _ := md["ownerReferences"].([]any)
	if len(refs) < 2 {
		return nil
	}
	var kept []any
	var dups []string
	seen := map[string]bool{}
	for _, r := range refs {
		uid := ownerUID(r)
		if seen[uid] && containsRef(kept, r) {
			dups = append(dups, uid)
			continue
		}
		seen[uid] = true
		kept = append(kept, r)
	}
	if len(dups) > 0 {
		md["ownerReferences"] = kept
	}
	return dups
}

func ownerUID(r any) string {
	m, _ := r.(map[string]any)
	uid, _ := m["uid"].(string)
	return uid
}

func containsRef(refs []any, r any) bool {
	for _, k := range refs {
		if reflect.DeepEqual(k, r) {
			return true
		}
	}
	return false
}

// DuplicateOwnerReferencesWarning is the Warning header the server sends
// when it removed duplicate owner references (uids from
// DedupOwnerReferences).
func DuplicateOwnerReferencesWarning(uids []string) string {
	return fmt.Sprintf(".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: %v", strings.Join(uids, ", "))
}

// DedupOwnerReferencesTyped is DedupOwnerReferences for a typed object's
// metadata.
func DedupOwnerReferencesTyped(meta *metav1.ObjectMeta) []string {
	if len(meta.OwnerReferences) < 2 {
		return nil
	}
	var kept []metav1.OwnerReference
	var dups []string
	seen := map[string]bool{}
	for _, r := range meta.OwnerReferences {
		uid := string(r.UID)
		if seen[uid] && containsTypedRef(kept, r) {
			dups = append(dups, uid)
			continue
		}
		seen[uid] = true
		kept = append(kept, r)
	}
	if len(dups) > 0 {
		meta.OwnerReferences = kept
	}
	return dups
}

func containsTypedRef(refs []metav1.OwnerReference, r metav1.OwnerReference) bool {
	for _, k := range refs {
		if reflect.DeepEqual(k, r) {
			return true
		}
	}
	return false
}

// ManagedFieldsOnCreate returns the entries the server's field manager
// keeps of the managed fields a create request sends, before it adds its
// own: none unless there is at least one entry and every entry decodes
// (operation Apply or Update, an apiVersion, fieldsType FieldsV1, fieldsV1 a
// field set); of those, the entries whose apiVersion the resource has
// (known reports it; others cannot be converted and are dropped) and that
// claim a field the new object obj does not have (against an empty live
// object every field of obj counts as added, so the other managers lose
// them, and managers left with no field are dropped).
//
// The fields are matched structurally, without the schema: a field under an
// atomic list or map of obj counts as present, where the server, which
// types the object, would keep it.
func ManagedFieldsOnCreate(entries []metav1.ManagedFieldsEntry, obj any, known func(apiVersion string) bool) []metav1.ManagedFieldsEntry {
	var kept []metav1.ManagedFieldsEntry
	for _, i := range managedFieldsKept(entries, obj, known) {
		kept = append(kept, entries[i])
	}
	return kept
}

// managedFieldsKept is ManagedFieldsOnCreate's answer as the indexes of
// the entries kept, in order.
func managedFieldsKept(entries []metav1.ManagedFieldsEntry, obj any, known func(apiVersion string) bool) []int {
	if len(entries) == 0 {
		return nil
	}
	sets := make([]*fieldpath.Set, len(entries))
	for i, e := range entries {
		switch e.Operation {
		case metav1.ManagedFieldsOperationApply, metav1.ManagedFieldsOperationUpdate:
		default:
			return nil
		}
		if e.APIVersion == "" || e.FieldsType != "FieldsV1" {
			return nil
		}
		raw := []byte("{}")
		if e.FieldsV1 != nil {
			raw = e.FieldsV1.Raw
		}
		sets[i] = &fieldpath.Set{}
		if sets[i].FromJSON(bytes.NewReader(raw)) != nil {
			return nil
		}
	}
	var kept []int
	for i, e := range entries {
		if !known(e.APIVersion) {
			continue
		}
		claims := false
		sets[i].Iterate(func(p fieldpath.Path) {
			claims = claims || !present(obj, p)
		})
		if claims {
			kept = append(kept, i)
		}
	}
	return kept
}

// present reports whether obj has the field at p.
func present(obj any, p fieldpath.Path) bool {
	cur := obj
	for _, pe := range p {
		switch {
		case pe.FieldName != nil:
			m, ok := cur.(map[string]any)
			if !ok {
				return false
			}
			if cur, ok = m[*pe.FieldName]; !ok {
				return false
			}
		case pe.Index != nil:
			l, ok := cur.([]any)
			if !ok || *pe.Index < 0 || *pe.Index >= len(l) {
				return false
			}
			cur = l[*pe.Index]
		case pe.Key != nil, pe.Value != nil:
			l, ok := cur.([]any)
			if !ok {
				return false
			}
			found := false
			for _, e := range l {
				if matches(e, pe) {
					cur, found = e, true
					break
				}
			}
			if !found {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func matches(e any, pe fieldpath.PathElement) bool {
	if pe.Value != nil {
		return value.Equals(value.NewValueInterface(e), *pe.Value)
	}
	m, ok := e.(map[string]any)
	if !ok {
		return false
	}
	for _, f := range *pe.Key {
		v, ok := m[f.Name]
		if !ok || !value.Equals(value.NewValueInterface(v), f.Value) {
			return false
		}
	}
	return true
}

// ValidManagedFields reports that v, a managedFields value, is canonical
// (as Canonical requires) and that ValidateManagedFields finds nothing in
// it: every entry has operation Apply or Update, fieldsType FieldsV1 or
// none, a manager of at most 128 bytes of printable characters and a
// subresource of at most 256 bytes. false means "ask".
func ValidManagedFields(v any) bool {
	if !canonicalManagedFields(v) {
		return false
	}
	for _, e := range v.([]any) {
		m := e.(map[string]any)
		manager, _ := m["manager"].(string)
		op, _ := m["operation"].(string)
		ft, _ := m["fieldsType"].(string)
		sub, _ := m["subresource"].(string)
		entry := metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationType(op), FieldsType: ft, Subresource: sub}
		if !managedFieldsValid([]metav1.ManagedFieldsEntry{entry}) {
			return false
		}
	}
	return true
}

// ResetManagedFields keeps in md["managedFields"], modifying md, only the
// entries ManagedFieldsOnCreate keeps for the object obj whose metadata md
// is; md must be canonical metadata.
func ResetManagedFields(md map[string]any, obj any, known func(apiVersion string) bool) {
	resetManagedFields(md, obj, known, true)
}

// resetManagedFields is ResetManagedFields; fast lets plain entries take
// a direct path (tests compare both paths): read as plainManagedFields
// reads them, and those kept written back as they are when they are in
// the form the converter writes (canonicalManagedFields), else as
// plainManagedFieldsEntryToMap writes them.
func resetManagedFields(md map[string]any, obj any, known func(apiVersion string) bool, fast bool) {
	v, ok := md["managedFields"]
	if !ok {
		return
	}
	if entries, ok := plainManagedFields(v); ok && fast {
		kept := managedFieldsKept(entries, obj, known)
		if len(kept) == 0 {
			delete(md, "managedFields")
			return
		}
		l, _ := v.([]any)
		out := make([]any, len(kept))
		canonical, written := canonicalManagedFields(v), true
		for i, k := range kept {
			if canonical {
				out[i] = l[k]
				continue
			}
			if out[i], written = plainManagedFieldsEntryToMap(&entries[k]); !written {
				break // the converter's way, below
			}
		}
		if written {
			md["managedFields"] = out
			return
		}
	}
	var meta metav1.ObjectMeta
	if runtime.DefaultUnstructuredConverter.FromUnstructured(map[string]any{"managedFields": v}, &meta) != nil {
		delete(md, "managedFields")
		return
	}
	kept := ManagedFieldsOnCreate(meta.ManagedFields, obj, known)
	if len(kept) == 0 {
		delete(md, "managedFields")
		return
	}
	out := make([]any, len(kept))
	for i := range kept {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&kept[i])
		if err != nil {
			delete(md, "managedFields")
			return
		}
		out[i] = m
	}
	md["managedFields"] = out
}
