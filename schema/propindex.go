package schema

// propIndex finds a declared property by name without hashing the whole
// name: a collision-free table over the declared names, addressed by a
// mix of the name's length and four of its bytes. Compile searches for a
// seed that spreads the names without collision; when it finds none (or a
// name is empty), Property uses the Go map instead. Lookups of undeclared
// names land on a slot whose name differs and return nil.
type propIndex struct {
	seed  uint32
	shift uint32 // 32 - log2(len(slots))
	slots []propSlot
}

type propSlot struct {
	name string
	node *Schema
}

// mix hashes the length and the first, second, middle and last bytes of a
// non-empty name; shift keeps the top bits.
func (ix *propIndex) slot(name string) uint32 {
	n := len(name)
	h := uint32(n)*0x9e3779b1 ^ ix.seed
	h ^= uint32(name[0]) | uint32(name[n>>1])<<8 | uint32(name[n-1])<<16 | uint32(name[min(1, n-1)])<<24
	h *= 0x85ebca6b
	h ^= h >> 15
	h *= 0xc2b2ae35
	return h >> ix.shift
}

// lookup returns the node of a declared name, nil for any other name.
func (ix *propIndex) lookup(name string) *Schema {
	if len(name) == 0 {
		return nil
	}
	s := &ix.slots[ix.slot(name)]
	if s.name == name {
		return s.node
	}
	return nil
}

// buildPropIndex returns an index over names (parallel to nodes), or nil
// when no seed in a small search spreads them without collision in a table
// of up to eight times their number, or when a name is empty.
func buildPropIndex(names []string, nodes []*Schema) *propIndex {
	for _, n := range names {
		if n == "" {
			return nil
		}
	}
	bits := uint32(1)
	for 1<<bits < 2*len(names) {
		bits++
	}
	for ; bits <= 16 && 1<<bits <= 8*max(len(names), 4); bits++ {
		ix := &propIndex{shift: 32 - bits, slots: make([]propSlot, 1<<bits)}
	seeds:
		for seed := uint32(0); seed < 64; seed++ {
			ix.seed = seed * 0x27d4eb2f
			clear(ix.slots)
			for i, n := range names {
				sl := &ix.slots[ix.slot(n)]
				if sl.name != "" {
					continue seeds
				}
				sl.name, sl.node = n, nodes[i]
			}
			return ix
		}
	}
	return nil
}
