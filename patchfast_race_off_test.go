//go:build !race

package crdkit

const raceDetector = false
