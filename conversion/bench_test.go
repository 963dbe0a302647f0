package conversion

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkHandlerReview: a v1 review of n objects through a Handler.
func BenchmarkHandlerReview(b *testing.B) {
	h := NewHandler(rename)
	for _, n := range []int{1, 100} {
		objs := make([]string, n)
		for i := range objs {
			objs[i] = fmt.Sprintf(`{"apiVersion":"a.io/v1","kind":"K","metadata":{"name":"o%d","namespace":"ns","labels":{"app":"x"}},"spec":{"a":%d,"other":[1,2,3]}}`, i, i)
		}
		body := []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"a.io/v2","objects":[` + strings.Join(objs, ",") + `]}}`)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for i := 0; i < b.N; i++ {
				if _, err := h.Review(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRestoreMetadata: the server's metadata policy on one answer.
func BenchmarkRestoreMetadata(b *testing.B) {
	orig := obj(`{"metadata":{"name":"x","namespace":"ns","uid":"u","labels":{"app":"x","tier":"web"},"annotations":{"a":"b"},"finalizers":["f"],"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"p"}]}}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		conv := map[string]any{"metadata": map[string]any{"name": "x", "labels": map[string]any{"app": "x", "tier": "db"}, "annotations": map[string]any{"a": "b"}}}
		if err := RestoreMetadata(orig, conv); err != nil {
			b.Fatal(err)
		}
	}
}
