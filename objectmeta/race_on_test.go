//go:build race

package objectmeta

// raceEnabled: the race detector slows the agreement loops tenfold.
const raceEnabled = true
