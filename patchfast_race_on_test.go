//go:build race

package crdkit

// raceDetector: the race detector slows the random agreement loops tenfold.
const raceDetector = true
