package schema

// propIndex finds a declared property by name without hashing the whole
// name: a collision-free table over the declared names, addressed by one
// multiplication of a word made of the name's length and four of its
// bytes. Compile searches for a multiplier that spreads the names without
// collision; when it finds none (or a name is empty), Property uses the Go
// map instead. Lookups of undeclared names land on a slot whose name
// differs and return nil.
type propIndex struct {
	mul   uint64 // odd
	shift uint64 // 64 - log2(len(slots))
	slots []propSlot
}

type propSlot struct {
	name string
	node *Schema
	req  bool // name is in the schema's required list
}

// slot picks the slot of a non-empty name: the top bits of the product of
// mul and a word of the length and the first, second, middle and last
// bytes of the name. Multiplying carries every bit of the word into the
// top bits, so nothing else is needed to mix them.
func (ix *propIndex) slot(name string) uint64 {
	n := len(name)
	w := uint64(n) | uint64(name[0])<<16 | uint64(name[n-1])<<24 | uint64(name[n>>1])<<32
	if n > 1 {
		w |= uint64(name[1]) << 40
	}
	return (w * ix.mul) >> (ix.shift & 63)
}

// markRequired flags the slots of the required names that are declared.
// A walk over an object that counts the flagged keys it meets has met
// every required name exactly when the count is len(required): names
// listed twice or not declared flag fewer slots than required has entries.
func (ix *propIndex) markRequired(required []string) {
	for _, r := range required {
		if r == "" {
			continue
		}
		if sl := &ix.slots[ix.slot(r)]; sl.name == r {
			sl.req = true
		}
	}
}

// lookupReq is lookup that also says whether the name is required.
func (ix *propIndex) lookupReq(name string) (*Schema, bool) {
	if len(name) == 0 {
		return nil, false
	}
	s := &ix.slots[ix.slot(name)]
	if s.name == name {
		return s.node, s.req
	}
	return nil, false
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

// lookupName is lookup that also returns the slot's copy of the name.
func (ix *propIndex) lookupName(name string) (string, *Schema) {
	if len(name) == 0 {
		return "", nil
	}
	s := &ix.slots[ix.slot(name)]
	if s.name == name {
		return s.name, s.node
	}
	return "", nil
}

// buildPropIndex returns an index over names (parallel to nodes), or nil
// when no multiplier in a small search spreads them without collision in
// a table of up to eight times their number, or when a name is empty.
func buildPropIndex(names []string, nodes []*Schema) *propIndex {
	for _, n := range names {
		if n == "" {
			return nil
		}
	}
	bits := uint64(1)
	for 1<<bits < 2*len(names) {
		bits++
	}
	for ; bits <= 16 && 1<<bits <= 8*max(len(names), 4); bits++ {
		ix := &propIndex{shift: 64 - bits, slots: make([]propSlot, 1<<bits)}
		x := uint64(0x9e3779b97f4a7c15)
	seeds:
		for range 64 {
			// The multipliers: a splitmix64 sequence, made odd.
			x += 0x9e3779b97f4a7c15
			z := (x ^ x>>30) * 0xbf58476d1ce4e5b9
			z = (z ^ z>>27) * 0x94d049bb133111eb
			ix.mul = (z ^ z>>31) | 1
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
