package versionsort

import "slices"

// Version is one entry of a CRD's spec.versions, reduced to the fields that
// decide ordering, discovery and deprecation warnings.
type Version struct {
	Name       string
	Served     bool
	Storage    bool
	Deprecated bool
	// DeprecationWarning overrides the default warning of a deprecated
	// version when not nil.
	DeprecationWarning *string
}

// Versions is the compiled version list of one CRD: its versions in priority
// order, the preferred and storage versions, and the warning the server sends
// with every request to a deprecated version. It is immutable and safe for
// concurrent use.
type Versions struct {
	ordered   []Version
	warnings  []string // parallel to ordered; "" when not deprecated
	preferred int      // index into ordered, -1 when nothing is served
	storage   int      // index into ordered, -1 when no version is stored
}

// New compiles the versions of a CRD whose spec.group is group and whose
// spec.names.kind is kind. versions is in spec order; New does not modify or
// retain it.
//
// The priority order is that of Sort. The preferred version is the first
// served version in that order, which is what discovery reports as
// preferredVersion for a group served by this CRD alone. The storage version
// is the first version in spec order with Storage set, as the server picks
// it.
func New(group, kind string, versions []Version) *Versions {
	order := make([]int, len(versions))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return Compare(versions[b].Name, versions[a].Name) })
	storage := slices.IndexFunc(versions, func(v Version) bool { return v.Storage })
	vs := &Versions{
		ordered:   make([]Version, len(versions)),
		warnings:  make([]string, len(versions)),
		preferred: -1,
		storage:   -1,
	}
	for i, src := range order {
		v := detach(versions[src])
		vs.ordered[i] = v
		if v.Served && vs.preferred < 0 {
			vs.preferred = i
		}
		if src == storage {
			vs.storage = i
		}
		if v.Deprecated {
			if v.DeprecationWarning != nil {
				vs.warnings[i] = *v.DeprecationWarning
			} else {
				vs.warnings[i] = DefaultWarning(group, kind, v.Name, versions)
			}
		}
	}
	return vs
}

// Len returns the number of versions.
func (vs *Versions) Len() int { return len(vs.ordered) }

// Ordered returns a copy of the versions, highest priority first. Versions
// that rank the same keep their spec order.
func (vs *Versions) Ordered() []Version {
	out := make([]Version, len(vs.ordered))
	for i, v := range vs.ordered {
		out[i] = detach(v)
	}
	return out
}

// detach returns v with its own copy of DeprecationWarning, so that neither
// the caller's input nor a returned value aliases the compiled state.
func detach(v Version) Version {
	if v.DeprecationWarning != nil {
		w := *v.DeprecationWarning
		v.DeprecationWarning = &w
	}
	return v
}

// Names returns the version names, highest priority first.
func (vs *Versions) Names() []string {
	names := make([]string, len(vs.ordered))
	for i, v := range vs.ordered {
		names[i] = v.Name
	}
	return names
}

// Lookup returns the version called name.
func (vs *Versions) Lookup(name string) (Version, bool) {
	if i := vs.index(name); i >= 0 {
		return detach(vs.ordered[i]), true
	}
	return Version{}, false
}

// Preferred returns the name of the highest-priority served version, and
// false when no version is served.
func (vs *Versions) Preferred() (string, bool) {
	if vs.preferred < 0 {
		return "", false
	}
	return vs.ordered[vs.preferred].Name, true
}

// Storage returns the name of the storage version (the first version in spec
// order with Storage set), and false when there is none.
func (vs *Versions) Storage() (string, bool) {
	if vs.storage < 0 {
		return "", false
	}
	return vs.ordered[vs.storage].Name, true
}

// Warning returns the warning the server sends with every request to version
// name: its DeprecationWarning when set, otherwise the text of
// DefaultWarning. It returns "" and false when name is not a deprecated
// version of this CRD.
func (vs *Versions) Warning(name string) (string, bool) {
	i := vs.index(name)
	if i < 0 || !vs.ordered[i].Deprecated {
		return "", false
	}
	return vs.warnings[i], true
}

func (vs *Versions) index(name string) int {
	for i := range vs.ordered {
		if vs.ordered[i].Name == name {
			return i
		}
	}
	return -1
}

// DefaultWarning returns the warning the server sends for requests to the
// deprecated version called deprecated when that version has no
// DeprecationWarning of its own:
//
//	<group>/<deprecated> <kind> is deprecated
//
// followed by "; use <group>/<best> <kind>" when some version qualifies as a
// replacement. A replacement is served, not deprecated, and ranks strictly
// above the deprecated version; best is the highest-ranked replacement (the
// first in spec order among replacements that rank the same). versions is the
// CRD's full spec.versions list, served or not.
func DefaultWarning(group, kind, deprecated string, versions []Version) string {
	msg := group + "/" + deprecated + " " + kind + " is deprecated"
	best := -1
	for i, v := range versions {
		if !v.Served || v.Deprecated || Compare(deprecated, v.Name) >= 0 {
			continue
		}
		if best < 0 || Compare(v.Name, versions[best].Name) > 0 {
			best = i
		}
	}
	if best < 0 {
		return msg
	}
	return msg + "; use " + group + "/" + versions[best].Name + " " + kind
}
