package yamljson_test

import (
	"fmt"

	"github.com/crdkit/crdkit/internal/yamljson"
)

func ExampleConvert() {
	manifest := []byte(`kind: Deployment # keys come out sorted
apiVersion: apps/v1
spec:
  replicas: 3
  paused: no
  template:
    spec:
      containers:
      - name: web
        image: "nginx:1.27"
        args: [--port, "8080"]
`)
	js, ok := yamljson.Convert(nil, manifest)
	fmt.Println(ok, string(js))

	_, ok = yamljson.Convert(nil, []byte("a: &anchor 1\nb: *anchor\n"))
	fmt.Println(ok) // left to sigs.k8s.io/yaml
	// Output:
	// true {"apiVersion":"apps/v1","kind":"Deployment","spec":{"paused":false,"replicas":3,"template":{"spec":{"containers":[{"args":["--port","8080"],"image":"nginx:1.27","name":"web"}]}}}}
	// false
}
