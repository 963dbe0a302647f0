package conversion_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http/httptest"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdkit/crdkit/conversion"
)

func ExampleNone() {
	obj := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "spec": map[string]any{"cronSpec": "* * * * */5"}}
	conversion.None(obj, "stable.example.com/v2")
	out, _ := json.Marshal(obj)
	fmt.Println(string(out))
	// Output: {"apiVersion":"stable.example.com/v2","kind":"CronTab","spec":{"cronSpec":"* * * * */5"}}
}

// A conversion webhook written with Handler (v1 keeps spec.cronSpec, v2
// calls it spec.schedule), called by the server's client over TLS.
func ExampleHandler() {
	move := func(from, to string) conversion.Func {
		return func(obj map[string]any) (map[string]any, error) {
			if spec, ok := obj["spec"].(map[string]any); ok {
				spec[to] = spec[from]
				delete(spec, from)
			}
			return obj, nil
		}
	}
	h := conversion.NewHandler(conversion.Pairs(map[conversion.Pair]conversion.Func{
		{From: "stable.example.com/v1", To: "stable.example.com/v2"}: move("cronSpec", "schedule"),
		{From: "stable.example.com/v2", To: "stable.example.com/v1"}: move("schedule", "cronSpec"),
	}))
	srv := httptest.NewTLSServer(h)
	defer srv.Close()

	url := srv.URL
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "stable.example.com",
		Conversion: &apiextensionsv1.CustomResourceConversion{
			Strategy: apiextensionsv1.WebhookConverter,
			Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url,
					CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})},
				ConversionReviewVersions: []string{"v1"},
			},
		},
	}}
	client, err := conversion.NewWebhook(crd, conversion.WebhookOptions{})
	if err != nil {
		panic(err)
	}
	stored := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "x", "labels": map[string]any{"app": "a"}},
		"spec":     map[string]any{"cronSpec": "* * * * */5"}}
	out, err := client.Convert(context.Background(), stored, "stable.example.com/v2")
	if err != nil {
		panic(err)
	}
	js, _ := json.Marshal(out)
	fmt.Println(string(js))
	// Output: {"apiVersion":"stable.example.com/v2","kind":"CronTab","metadata":{"labels":{"app":"a"},"name":"x"},"spec":{"schedule":"* * * * */5"}}
}
