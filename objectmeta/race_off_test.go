//go:build !race

package objectmeta

const raceEnabled = false
