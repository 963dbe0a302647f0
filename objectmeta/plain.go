package objectmeta

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The server turns object metadata into metav1.ObjectMeta and back through
// JSON and reflection, and validates it with regular expressions, several
// times per request. Most metadata holds a name, a namespace, labels,
// annotations, finalizers and the managed fields the server writes, and
// nothing else; for such "plain" metadata the functions below give the
// same results directly. Each of them
// answers ok=false for anything else, and the callers then take the
// server's own path. plain_test.go checks them against that path.

// plainMetaFromMap is the JSON round trip of an unstructured metadata map
// into ObjectMeta (Get), for a map that holds only string fields,
// generation, labels, annotations, finalizers, owner references,
// creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds and
// managed fields, all with well-formed values: the decoded ObjectMeta then
// has no unknown field and no error.
func plainMetaFromMap(m map[string]any) (*metav1.ObjectMeta, bool) {
	meta := new(metav1.ObjectMeta)
	for k, v := range m {
		switch k {
		case "name", "generateName", "namespace", "uid", "resourceVersion", "selfLink":
			s, ok := plainString(v)
			if !ok {
				return nil, false
			}
			switch k {
			case "name":
				meta.Name = s
			case "generateName":
				meta.GenerateName = s
			case "namespace":
				meta.Namespace = s
			case "uid":
				meta.UID = types.UID(s)
			case "resourceVersion":
				meta.ResourceVersion = s
			default:
				meta.SelfLink = s
			}
		case "generation":
			switch g := v.(type) {
			case nil:
			case int64:
				meta.Generation = g
			default:
				return nil, false
			}
		case "labels", "annotations":
			sm, ok := plainStringMap(v)
			if !ok {
				return nil, false
			}
			if k == "labels" {
				meta.Labels = sm
			} else {
				meta.Annotations = sm
			}
		case "finalizers":
			l, ok := plainStringList(v)
			if !ok {
				return nil, false
			}
			meta.Finalizers = l
		case "ownerReferences":
			refs, ok := plainOwnerRefs(v)
			if !ok {
				return nil, false
			}
			meta.OwnerReferences = refs
		case "creationTimestamp":
			t, ok := plainTime(v)
			if !ok {
				return nil, false
			}
			if t != nil {
				meta.CreationTimestamp = *t
			}
		case "deletionTimestamp":
			t, ok := plainTime(v)
			if !ok {
				return nil, false
			}
			meta.DeletionTimestamp = t
		case "deletionGracePeriodSeconds":
			switch g := v.(type) {
			case nil:
			case int64:
				meta.DeletionGracePeriodSeconds = &g
			default:
				return nil, false
			}
		case "managedFields":
			mf, ok := plainManagedFields(v)
			if !ok {
				return nil, false
			}
			meta.ManagedFields = mf
		default:
			return nil, false
		}
	}
	return meta, true
}

// plainTime accepts null (nil) or an RFC 3339 time, read as
// metav1.Time.UnmarshalJSON reads it: in local time.
func plainTime(v any) (*metav1.Time, bool) {
	switch ts := v.(type) {
	case nil:
		return nil, true
	case string:
		t, err := time.Parse(time.RFC3339, ts)
		if err != nil {
			return nil, false
		}
		return &metav1.Time{Time: t.Local()}, true
	}
	return nil, false
}

// plainManagedFields accepts null or a non-empty list of managed fields
// entries that hold only manager, operation, apiVersion, fieldsType and
// subresource (strings or null), time (as plainTime) and fieldsV1 (null,
// or an object of objects at any depth, as field sets are written). The
// JSON decoder hands fieldsV1 to FieldsV1.UnmarshalJSON as the bytes
// encoding/json wrote for it, which are json.Marshal's of the value.
func plainManagedFields(v any) ([]metav1.ManagedFieldsEntry, bool) {
	if v == nil {
		return nil, true
	}
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return nil, false
	}
	out := make([]metav1.ManagedFieldsEntry, len(l))
	for i, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		entry := &out[i]
		for k, x := range m {
			switch k {
			case "manager", "operation", "apiVersion", "fieldsType", "subresource":
				s, ok := plainString(x)
				if !ok {
					return nil, false
				}
				switch k {
				case "manager":
					entry.Manager = s
				case "operation":
					entry.Operation = metav1.ManagedFieldsOperationType(s)
				case "apiVersion":
					entry.APIVersion = s
				case "fieldsType":
					entry.FieldsType = s
				default:
					entry.Subresource = s
				}
			case "time":
				t, ok := plainTime(x)
				if !ok {
					return nil, false
				}
				entry.Time = t
			case "fieldsV1":
				if x == nil {
					continue
				}
				raw, ok := appendFieldSet(nil, x, 0)
				if !ok {
					return nil, false
				}
				entry.FieldsV1 = &metav1.FieldsV1{Raw: raw}
			default:
				return nil, false
			}
		}
	}
	return out, true
}

// appendFieldSet appends to b what json.Marshal writes for v, an object
// of fieldSetShape: members in sorted key order, keys quoted as
// appendJSONString quotes them. It reports false for a v of another shape.
func appendFieldSet(b []byte, v any, depth int) ([]byte, bool) {
	m, ok := v.(map[string]any)
	if !ok || depth > maxWalkDepth {
		return b, false
	}
	b = append(b, '{')
	if len(m) > 0 {
		var small [8]string
		keys := small[:0]
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if !utf8.ValidString(k) {
				return b, false
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			if b, ok = appendFieldSet(b, m[k], depth+1); !ok {
				return b, false
			}
		}
	}
	return append(b, '}'), true
}

// appendJSONString appends s, valid UTF-8, quoted as encoding/json quotes
// strings: '"' and '\\' escaped with a backslash, \b \f \n \r \t, other
// control characters and the HTML characters <, > and & as \u00XX, U+2028
// and U+2029 as \u2028 and \u2029.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// fieldSetShape reports whether v is an object whose members are objects,
// at any depth (bounded), with keys that are valid UTF-8: the shape of a
// FieldsV1 field set, whose JSON round trip gives it back as it is.
func fieldSetShape(v any, depth int) bool {
	m, ok := v.(map[string]any)
	if !ok || depth > maxWalkDepth {
		return false
	}
	for k, e := range m {
		if !utf8.ValidString(k) || !fieldSetShape(e, depth+1) {
			return false
		}
	}
	return true
}

// plainString accepts a string that JSON carries unchanged (valid UTF-8) or
// null, which leaves the field empty.
func plainString(v any) (string, bool) {
	switch s := v.(type) {
	case nil:
		return "", true
	case string:
		return s, utf8.ValidString(s)
	}
	return "", false
}

// plainStringMap accepts null or a non-empty map of strings with valid UTF-8
// keys and values.
func plainStringMap(v any) (map[string]string, bool) {
	if v == nil {
		return nil, true
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil, false
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := e.(string)
		if !ok || !utf8.ValidString(k) || !utf8.ValidString(s) {
			return nil, false
		}
		out[k] = s
	}
	return out, true
}

// plainStringList accepts null or a non-empty list of valid UTF-8 strings.
func plainStringList(v any) ([]string, bool) {
	if v == nil {
		return nil, true
	}
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return nil, false
	}
	out := make([]string, len(l))
	for i, e := range l {
		s, ok := e.(string)
		if !ok || !utf8.ValidString(s) {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// plainOwnerRefs accepts null or a non-empty list of owner references
// that hold only apiVersion, kind, name and uid (strings or null) and
// controller and blockOwnerDeletion (booleans; null leaves them unset).
func plainOwnerRefs(v any) ([]metav1.OwnerReference, bool) {
	if v == nil {
		return nil, true
	}
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return nil, false
	}
	out := make([]metav1.OwnerReference, len(l))
	for i, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		ref := &out[i]
		for k, x := range m {
			switch k {
			case "apiVersion", "kind", "name", "uid":
				s, ok := plainString(x)
				if !ok {
					return nil, false
				}
				switch k {
				case "apiVersion":
					ref.APIVersion = s
				case "kind":
					ref.Kind = s
				case "name":
					ref.Name = s
				default:
					ref.UID = types.UID(s)
				}
			case "controller", "blockOwnerDeletion":
				var p *bool
				switch b := x.(type) {
				case nil:
				case bool:
					p = &b
				default:
					return nil, false
				}
				if k == "controller" {
					ref.Controller = p
				} else {
					ref.BlockOwnerDeletion = p
				}
			default:
				return nil, false
			}
		}
	}
	return out, true
}

// plainMetaToMap is runtime.DefaultUnstructuredConverter.ToUnstructured of
// meta (Set) when meta has nothing but the fields
// plainMetaFromMap reads, and no empty non-nil map or list.
func plainMetaToMap(meta *metav1.ObjectMeta) (map[string]any, bool) {
	if (meta.OwnerReferences != nil && len(meta.OwnerReferences) == 0) ||
		(meta.ManagedFields != nil && len(meta.ManagedFields) == 0) ||
		(meta.Labels != nil && len(meta.Labels) == 0) || (meta.Annotations != nil && len(meta.Annotations) == 0) ||
		(meta.Finalizers != nil && len(meta.Finalizers) == 0) {
		return nil, false
	}
	var managed []any
	if meta.ManagedFields != nil {
		managed = make([]any, len(meta.ManagedFields))
		for i := range meta.ManagedFields {
			m, ok := plainManagedFieldsEntryToMap(&meta.ManagedFields[i])
			if !ok {
				return nil, false
			}
			managed[i] = m
		}
	}
	out := make(map[string]any, 4)
	for _, f := range [...]struct {
		key, value string
	}{
		{"name", meta.Name}, {"generateName", meta.GenerateName}, {"namespace", meta.Namespace},
		{"uid", string(meta.UID)}, {"resourceVersion", meta.ResourceVersion}, {"selfLink", meta.SelfLink},
	} {
		if f.value != "" {
			out[f.key] = f.value
		}
	}
	if meta.Generation != 0 {
		out["generation"] = meta.Generation
	}
	if !meta.CreationTimestamp.IsZero() {
		// metav1.Time.ToUnstructured: RFC 3339 in UTC, whole seconds.
		out["creationTimestamp"] = meta.CreationTimestamp.UTC().Format(time.RFC3339)
	}
	if ts := meta.DeletionTimestamp; ts != nil {
		// A zero time goes back as null.
		out["deletionTimestamp"] = nil
		if !ts.IsZero() {
			out["deletionTimestamp"] = ts.UTC().Format(time.RFC3339)
		}
	}
	if g := meta.DeletionGracePeriodSeconds; g != nil {
		out["deletionGracePeriodSeconds"] = *g
	}
	if meta.Labels != nil {
		out["labels"] = anyMap(meta.Labels)
	}
	if meta.Annotations != nil {
		out["annotations"] = anyMap(meta.Annotations)
	}
	if meta.OwnerReferences != nil {
		l := make([]any, len(meta.OwnerReferences))
		for i, r := range meta.OwnerReferences {
			m := map[string]any{"apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name, "uid": string(r.UID)}
			if r.Controller != nil {
				m["controller"] = *r.Controller
			}
			if r.BlockOwnerDeletion != nil {
				m["blockOwnerDeletion"] = *r.BlockOwnerDeletion
			}
			l[i] = m
		}
		out["ownerReferences"] = l
	}
	if meta.Finalizers != nil {
		l := make([]any, len(meta.Finalizers))
		for i, f := range meta.Finalizers {
			l[i] = f
		}
		out["finalizers"] = l
	}
	if managed != nil {
		out["managedFields"] = managed
	}
	return out, true
}

// plainManagedFieldsEntryToMap is ToUnstructured of one managed fields
// entry: the fields that are set (omitempty), the time in UTC whole
// seconds (metav1.Time.ToUnstructured), fieldsV1 decoded from its bytes
// as the converter decodes what FieldsV1.MarshalJSON gives. It answers
// false for a set time that is zero (the converter writes no time),
// fieldsV1 bytes that are empty, do not start with '{' (CBOR, or JSON with
// leading space, which the converter refuses) or do not decode to an
// object of objects (plainManagedFields' shape, which any JSON decoder
// reads alike).
func plainManagedFieldsEntryToMap(e *metav1.ManagedFieldsEntry) (map[string]any, bool) {
	out := make(map[string]any, 7)
	for _, f := range [...]struct {
		key, value string
	}{
		{"manager", e.Manager}, {"operation", string(e.Operation)}, {"apiVersion", e.APIVersion},
		{"fieldsType", e.FieldsType}, {"subresource", e.Subresource},
	} {
		if f.value != "" {
			out[f.key] = f.value
		}
	}
	if e.Time != nil {
		if e.Time.IsZero() {
			return nil, false
		}
		out["time"] = e.Time.UTC().Format(time.RFC3339)
	}
	if e.FieldsV1 != nil {
		raw := e.FieldsV1.Raw
		if len(raw) == 0 || raw[0] != '{' {
			return nil, false
		}
		var set map[string]any
		if json.Unmarshal(raw, &set) != nil || !fieldSetShape(set, 0) {
			return nil, false
		}
		out["fieldsV1"] = set
	}
	return out, true
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// plainMetaValid reports that the server's checks of new object metadata
// (ValidateObjectMetaDeclaratively with NameIsDNSSubdomain, then
// ValidateObjectMetaAccessor with path-segment names) certainly find
// nothing: plain metadata whose name, generateName, namespace, labels,
// annotations and finalizers are in the simplest valid forms and whose
// managed fields entries pass (managedFieldsValid). false means "ask the
// server's validators", not "invalid".
func plainMetaValid(meta *metav1.ObjectMeta, namespaced bool) bool {
	if len(meta.OwnerReferences) > 0 || meta.DeletionTimestamp != nil ||
		meta.DeletionGracePeriodSeconds != nil || meta.UID != "" || meta.Generation < 0 {
		return false
	}
	if !managedFieldsValid(meta.ManagedFields) {
		return false
	}
	if !isDNSSubdomain(meta.Name) {
		return false
	}
	if gn := meta.GenerateName; gn != "" && !generateNameValid(gn) {
		return false
	}
	if namespaced != (meta.Namespace != "") || (namespaced && !isDNSLabel(meta.Namespace)) {
		return false
	}
	for k, v := range meta.Labels {
		if !isLabelKey(k, false) || (v != "" && !isLabelName(v)) {
			return false
		}
	}
	size := 0
	for k, v := range meta.Annotations {
		if !isLabelKey(k, true) {
			return false
		}
		size += len(k) + len(v)
	}
	if size > 256*1024 {
		return false
	}
	orphan, foreground := false, false
	for _, f := range meta.Finalizers {
		if !isLabelKey(f, false) {
			return false
		}
		orphan = orphan || f == metav1.FinalizerOrphanDependents
		foreground = foreground || f == metav1.FinalizerDeleteDependents
	}
	return !(orphan && foreground)
}

// managedFieldsValid is ValidateManagedFields finding nothing: every
// entry's operation Apply or Update, its fieldsType empty or FieldsV1, its
// manager at most 128 bytes of printable characters, its subresource at
// most 256 bytes.
func managedFieldsValid(entries []metav1.ManagedFieldsEntry) bool {
	for i := range entries {
		e := &entries[i]
		switch e.Operation {
		case metav1.ManagedFieldsOperationApply, metav1.ManagedFieldsOperationUpdate:
		default:
			return false
		}
		if e.FieldsType != "" && e.FieldsType != "FieldsV1" || len(e.Manager) > 128 || len(e.Subresource) > 256 {
			return false
		}
		for _, r := range e.Manager {
			if !unicode.IsPrint(r) {
				return false
			}
		}
	}
	return true
}

// generateNameValid is plainMetaValid's check of a non-empty generateName.
// The server masks a trailing dash as its name validator does (generic.go
// maskTrailingDash) before the subdomain check, and checks the unmasked
// prefix as a path segment.
func generateNameValid(gn string) bool {
	masked := gn
	if len(gn) > 1 && gn[len(gn)-1] == '-' {
		masked = gn[:len(gn)-2] + "a"
	}
	return isDNSSubdomain(masked) && !strings.ContainsAny(gn, "/%")
}

// plainUpdateValid reports that the server's checks of updated metadata
// (ValidateObjectMetaAccessor with path-segment names and
// ValidateObjectMetaAccessorUpdate, and ValidateObjectMetaDeclaratively for
// an update) certainly find nothing: plain new metadata (as plainMetaValid,
// with the uid allowed) that keeps old's name, namespace, uid and creation
// timestamp, has a resourceVersion, does not lower the generation, and,
// for an object being deleted, keeps its deletion timestamp and grace
// period and adds no finalizer. false means "ask the server's validators".
func plainUpdateValid(meta, old *metav1.ObjectMeta, namespaced bool) bool {
	if (old.DeletionTimestamp != nil || old.DeletionGracePeriodSeconds != nil) && !sameDeletion(meta, old) ||
		meta.DeletionTimestamp != nil && old.DeletionTimestamp == nil ||
		meta.DeletionGracePeriodSeconds != nil && old.DeletionGracePeriodSeconds == nil || meta.ResourceVersion == "" ||
		meta.Generation < old.Generation || meta.Name != old.Name || meta.Namespace != old.Namespace ||
		meta.UID != old.UID || !meta.CreationTimestamp.UTC().Equal(old.CreationTimestamp.UTC()) {
		return false
	}
	m := *meta
	m.UID = ""
	m.DeletionTimestamp, m.DeletionGracePeriodSeconds = nil, nil
	return plainMetaValid(&m, namespaced)
}

// sameDeletion reports that meta keeps old's deletion timestamp and grace
// period (as the immutability checks compare them) and that every
// finalizer of meta is one of old's (no new finalizers while deleting).
func sameDeletion(meta, old *metav1.ObjectMeta) bool {
	if (meta.DeletionTimestamp == nil) != (old.DeletionTimestamp == nil) ||
		meta.DeletionTimestamp != nil && !meta.DeletionTimestamp.UTC().Equal(old.DeletionTimestamp.UTC()) {
		return false
	}
	if (meta.DeletionGracePeriodSeconds == nil) != (old.DeletionGracePeriodSeconds == nil) ||
		meta.DeletionGracePeriodSeconds != nil && *meta.DeletionGracePeriodSeconds != *old.DeletionGracePeriodSeconds {
		return false
	}
	for _, f := range meta.Finalizers {
		if !slices.Contains(old.Finalizers, f) {
			return false
		}
	}
	return true
}

// isDNSLabel is a lower-case RFC 1123 label of at most 63 characters.
func isDNSLabel(s string) bool {
	return len(s) <= 63 && isLabelOf(s, false)
}

// isDNSSubdomain is a lower-case RFC 1123 subdomain of at most 253
// characters.
func isDNSSubdomain(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if !isLabelOf(part, false) {
			return false
		}
	}
	return true
}

// isLabelOf is a non-empty run of lower-case letters (any letters when
// upper is set), digits and dashes that starts and ends with a letter or a
// digit.
func isLabelOf(s string, upper bool) bool {
	if len(s) == 0 || !isAlnum(s[0], upper) || !isAlnum(s[len(s)-1], upper) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '-' && !isAlnum(c, upper) {
			return false
		}
	}
	return true
}

func isAlnum(c byte, upper bool) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || upper && c >= 'A' && c <= 'Z'
}

// isLabelName is the name part of a label key (and a non-empty label
// value): at most 63 letters, digits, '-', '_' or '.', starting and ending
// with a letter or a digit.
func isLabelName(s string) bool {
	if len(s) == 0 || len(s) > 63 || !isAlnum(s[0], true) || !isAlnum(s[len(s)-1], true) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '-' && c != '_' && c != '.' && !isAlnum(c, true) {
			return false
		}
	}
	return true
}

// isLabelKey is a qualified name: a label name with an optional DNS
// subdomain prefix and '/'. With folded set the prefix may hold upper-case
// letters (annotation keys are checked lower-cased).
func isLabelKey(k string, folded bool) bool {
	prefix, name, found := strings.Cut(k, "/")
	if !found {
		return isLabelName(k)
	}
	if strings.Contains(name, "/") || !isLabelName(name) || len(prefix) > 253 {
		return false
	}
	for part := range strings.SplitSeq(prefix, ".") {
		if !isLabelOf(part, folded) {
			return false
		}
	}
	return true
}

// Canonical reports whether the server's round trip of m through
// ObjectMeta (Get, then Set) certainly gives back a map deep-equal to m:
// plain metadata whose fields are all in the form the way back writes them
// (non-empty valid UTF-8 strings, a non-zero generation, non-empty maps and
// lists of strings, owner references with all four names and no null, a
// creation time already in UTC whole seconds, managed fields entries of
// non-empty strings, such a time and field sets), with no null anywhere. The
// facade then leaves such metadata as it is instead of rebuilding it. false
// means "take the round trip", not "not canonical".
func Canonical(m map[string]any) bool {
	_, ok := CanonicalKeys(m)
	return ok
}

// Keys is a set of root metadata keys, as CanonicalKeys finds them.
type Keys uint16

// The keys canonical metadata may hold; any other key makes it not
// canonical.
const (
	KeyName Keys = 1 << iota
	KeyGenerateName
	KeyNamespace
	KeyUID
	KeyResourceVersion
	KeySelfLink
	KeyGeneration
	KeyLabels
	KeyAnnotations
	KeyFinalizers
	KeyOwnerReferences
	KeyCreationTimestamp
	KeyDeletionTimestamp
	KeyDeletionGracePeriodSeconds
	KeyManagedFields
)

// CanonicalKeys is Canonical that also returns, when m is canonical, the
// keys m holds: callers that leave m as it is then know which keys are
// there without looking them up.
func CanonicalKeys(m map[string]any) (Keys, bool) {
	keys, _, ok := canonicalKeys(m, false)
	return keys, ok
}

// CanonicalKeysNew is CanonicalKeys that also checks, as ValidNew does, the
// keys of m the create steps leave as they are: rest reports that labels,
// annotations, finalizers and generateName pass and that m has no owner
// references or managed fields (ValidNew leaves those to the server's
// validators). With
// ValidNewKept it answers as ValidNew would once the steps set the name,
// namespace and generation, without a second pass over m.
func CanonicalKeysNew(m map[string]any) (keys Keys, rest, ok bool) {
	return canonicalKeys(m, true)
}

// canonicalKeys is CanonicalKeys; with checkNew it also works out rest
// (CanonicalKeysNew).
func canonicalKeys(m map[string]any, checkNew bool) (keys Keys, rest, ok bool) {
	rest = checkNew
	orphan, foreground := false, false
	for k, v := range m {
		var key Keys
		switch k {
		case "name":
			key = KeyName
		case "generateName":
			key = KeyGenerateName
			if gn, isStr := v.(string); rest && (!isStr || !generateNameValid(gn)) {
				rest = false
			}
		case "namespace":
			key = KeyNamespace
		case "uid":
			key = KeyUID
		case "resourceVersion":
			key = KeyResourceVersion
		case "selfLink":
			key = KeySelfLink
		case "generation":
			if g, ok := v.(int64); !ok || g == 0 {
				return 0, false, false
			}
			keys |= KeyGeneration
			continue
		case "labels", "annotations":
			sm, ok := v.(map[string]any)
			if !ok || len(sm) == 0 {
				return 0, false, false
			}
			labels := k == "labels"
			size := 0
			for lk, e := range sm {
				s, ok := e.(string)
				if !ok || !utf8.ValidString(lk) || !utf8.ValidString(s) {
					return 0, false, false
				}
				switch {
				case !rest:
				case labels:
					rest = isLabelKey(lk, false) && (s == "" || isLabelName(s))
				default:
					rest = isLabelKey(lk, true)
					size += len(lk) + len(s)
				}
			}
			if size > 256*1024 {
				rest = false
			}
			if labels {
				keys |= KeyLabels
			} else {
				keys |= KeyAnnotations
			}
			continue
		case "finalizers":
			l, ok := v.([]any)
			if !ok || len(l) == 0 {
				return 0, false, false
			}
			for _, e := range l {
				s, ok := e.(string)
				if !ok || !utf8.ValidString(s) {
					return 0, false, false
				}
				if rest {
					rest = isLabelKey(s, false)
					orphan = orphan || s == metav1.FinalizerOrphanDependents
					foreground = foreground || s == metav1.FinalizerDeleteDependents
				}
			}
			keys |= KeyFinalizers
			continue
		case "ownerReferences":
			if !canonicalOwnerRefs(v) {
				return 0, false, false
			}
			keys |= KeyOwnerReferences
			rest = false
			continue
		case "creationTimestamp":
			if !canonicalTime(v) {
				return 0, false, false
			}
			keys |= KeyCreationTimestamp
			continue
		case "deletionTimestamp":
			s, ok := v.(string)
			if !ok {
				return 0, false, false
			}
			t, err := time.Parse(time.RFC3339, s)
			if err != nil || t.IsZero() || t.UTC().Format(time.RFC3339) != s {
				return 0, false, false
			}
			keys |= KeyDeletionTimestamp
			continue
		case "deletionGracePeriodSeconds":
			if _, ok := v.(int64); !ok {
				return 0, false, false
			}
			keys |= KeyDeletionGracePeriodSeconds
			continue
		case "managedFields":
			if !canonicalManagedFields(v) {
				return 0, false, false
			}
			keys |= KeyManagedFields
			rest = false // left to the server's validators on a create
			continue
		default:
			return 0, false, false
		}
		// The plain string fields.
		if s, ok := v.(string); !ok || s == "" || !utf8.ValidString(s) {
			return 0, false, false
		}
		keys |= key
	}
	return keys, rest && !(orphan && foreground), true
}

// ValidNewKept answers as ValidNew(m, namespaced) for canonical metadata m
// whose keys other than name, namespace and generation are still those
// CanonicalKeysNew found (keys, rest) apart from system fields removed
// since: it looks only at the name, the namespace and the generation.
func ValidNewKept(m map[string]any, keys Keys, rest, namespaced bool) bool {
	if !rest || keys&(KeyUID|KeyOwnerReferences) != 0 {
		return false
	}
	name, ok := m["name"].(string)
	if !ok || !isDNSSubdomain(name) {
		return false
	}
	ns, hasNS := m["namespace"]
	if hasNS {
		s, ok := ns.(string)
		if !ok || !namespaced || !isDNSLabel(s) {
			return false
		}
	} else if namespaced {
		return false
	}
	if g, set := m["generation"]; set {
		if g, ok := g.(int64); !ok || g <= 0 {
			return false
		}
	}
	return true
}

// canonicalTime is Canonical for a time: an RFC 3339 string already in
// the form metav1.Time.ToUnstructured writes (UTC, whole seconds), not the
// zero time (which it leaves out).
func canonicalTime(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	t, err := time.Parse(time.RFC3339, s)
	return err == nil && !t.IsZero() && t.UTC().Format(time.RFC3339) == s
}

// canonicalManagedFields is Canonical for the managedFields list: each
// entry holds manager, operation, apiVersion, fieldsType and subresource
// as non-empty valid UTF-8 strings, time as canonicalTime, and fieldsV1 as
// an object of objects (fieldSetShape), each only if present.
func canonicalManagedFields(v any) bool {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return false
	}
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		for k, x := range m {
			switch k {
			case "manager", "operation", "apiVersion", "fieldsType", "subresource":
				if s, ok := x.(string); !ok || s == "" || !utf8.ValidString(s) {
					return false
				}
			case "time":
				if !canonicalTime(x) {
					return false
				}
			case "fieldsV1":
				if !fieldSetShape(x, 0) {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

// canonicalOwnerRefs is Canonical for the ownerReferences list: each item
// has apiVersion, kind, name and uid as valid UTF-8 strings (the way back
// writes all four, empty or not) and controller and blockOwnerDeletion, if
// present, as booleans.
func canonicalOwnerRefs(v any) bool {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return false
	}
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		names := 0
		for k, x := range m {
			switch k {
			case "apiVersion", "kind", "name", "uid":
				s, ok := x.(string)
				if !ok || !utf8.ValidString(s) {
					return false
				}
				names++
			case "controller", "blockOwnerDeletion":
				if _, ok := x.(bool); !ok {
					return false
				}
			default:
				return false
			}
		}
		if names != 4 {
			return false
		}
	}
	return true
}

// ValidNew reports that the metadata map m of a new object certainly
// passes the server's checks of new object metadata (ValidateCreate and
// ValidateAccessor of what FromUnstructured reads): canonical metadata
// (Canonical) that plainMetaValid accepts, checked on the map itself in
// one pass, so that no ObjectMeta needs to be built. false means "build
// it and ask".
func ValidNew(m map[string]any, namespaced bool) bool {
	hasName, hasNS := false, false
	orphan, foreground := false, false
	for k, v := range m {
		switch k {
		case "name", "generateName", "namespace", "resourceVersion", "selfLink":
			s, ok := v.(string)
			if !ok || s == "" || !utf8.ValidString(s) {
				return false
			}
			switch k {
			case "name":
				if !isDNSSubdomain(s) {
					return false
				}
				hasName = true
			case "generateName":
				if !generateNameValid(s) {
					return false
				}
			case "namespace":
				if !namespaced || !isDNSLabel(s) {
					return false
				}
				hasNS = true
			}
		case "generation":
			if g, ok := v.(int64); !ok || g <= 0 {
				return false
			}
		case "labels", "annotations":
			sm, ok := v.(map[string]any)
			if !ok || len(sm) == 0 {
				return false
			}
			size := 0
			for lk, e := range sm {
				s, ok := e.(string)
				if !ok || !utf8.ValidString(lk) || !utf8.ValidString(s) {
					return false
				}
				if k == "labels" {
					if !isLabelKey(lk, false) || (s != "" && !isLabelName(s)) {
						return false
					}
					continue
				}
				if !isLabelKey(lk, true) {
					return false
				}
				size += len(lk) + len(s)
			}
			if size > 256*1024 {
				return false
			}
		case "finalizers":
			l, ok := v.([]any)
			if !ok || len(l) == 0 {
				return false
			}
			for _, e := range l {
				f, ok := e.(string)
				if !ok || !utf8.ValidString(f) || !isLabelKey(f, false) {
					return false
				}
				orphan = orphan || f == metav1.FinalizerOrphanDependents
				foreground = foreground || f == metav1.FinalizerDeleteDependents
			}
		case "creationTimestamp":
			if !canonicalTime(v) {
				return false
			}
		default:
			// uid, ownerReferences and managedFields send plainMetaValid
			// to the server's validators; anything else is not canonical.
			return false
		}
	}
	return hasName && namespaced == hasNS && !(orphan && foreground)
}
