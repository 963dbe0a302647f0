package main

import (
	"io"
	"testing"
)

func BenchmarkZZOne(b *testing.B) {
	args := []string{"validate", "--crds", "../../../shared/corpus/crds", "../../../shared/corpus/objects/prometheus-operator/prometheus.yaml"}
	run(args, io.Discard, io.Discard)
	for b.Loop() {
		run(args, io.Discard, io.Discard)
	}
}
