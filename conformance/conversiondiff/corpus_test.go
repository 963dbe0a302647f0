package conversiondiff

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/crdkit/crdkit/internal/corpus"
)

// TestWebhookCorpus converts every corpus object (renamed into the test
// group, kind Thing, at v1 and v3) to v2 and back through the well-behaved
// webhook, one by one and as one list, with both converters and both
// review versions. The objects carry real metadata (labels, annotations,
// owner references, finalizers), which the server restores.
func TestWebhookCorpus(t *testing.T) {
	root, ok := corpus.Root()
	if !ok {
		t.Skip("no corpus (CRDKIT_CORPUS or ../shared/corpus)")
	}
	docs, err := corpus.Walk(filepath.Join(root, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	srv := server(t)
	factory := newFactory(t)
	var objs []map[string]any
	for i, d := range docs {
		o := parse(string(d.JSON))
		o["apiVersion"] = group + []string{"/v1", "/v3"}[i%2]
		o["kind"] = "Thing"
		objs = append(objs, o)
	}
	agree, total, listAgree, listTotal := 0, 0, 0, 0
	for _, rv := range [][]string{{"v1"}, {"v1beta1"}} {
		s := newSides(t, factory, crdFor(srv, "/good", rv))
		for _, to := range []string{"v2", "v1"} {
			items := make([]any, 0, len(objs))
			for i, o := range objs {
				up := upstreamConvert(s.up, roundTrip(o), false, group+"/"+to)
				our := crdkitConvert(s.our, roundTrip(o), false, group+"/"+to)
				total++
				if reflect.DeepEqual(up, our) && up.err == "" {
					agree++
				} else {
					t.Errorf("%s to %s, reviews %v:\n  upstream: %s\n  crdkit:   %s", docs[i].Name, to, rv, up, our)
				}
				items = append(items, roundTrip(o))
			}
			l := map[string]any{"apiVersion": group + "/v1", "kind": "ThingList", "metadata": map[string]any{}, "items": items}
			up := upstreamConvert(s.up, roundTrip(l), true, group+"/"+to)
			our := crdkitConvert(s.our, roundTrip(l), true, group+"/"+to)
			listTotal++
			if reflect.DeepEqual(up, our) && up.err == "" {
				listAgree++
			} else {
				t.Errorf("list to %s, reviews %v:\n  upstream: %.2000s\n  crdkit:   %.2000s", to, rv, up, our)
			}
		}
	}
	fmt.Printf("conformance: conversion-webhook-object %d/%d (%d corpus objects x 2 targets x review v1 and v1beta1)\n", agree, total, len(objs))
	fmt.Printf("conformance: conversion-webhook-list %d/%d\n", listAgree, listTotal)
}
