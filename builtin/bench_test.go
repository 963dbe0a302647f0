package builtin

import "testing"

var benchDeployment = []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod","labels":{"app.kubernetes.io/name":"web","app.kubernetes.io/instance":"web-prod"}},"spec":{"replicas":3,"selector":{"matchLabels":{"app.kubernetes.io/name":"web"}},"template":{"metadata":{"labels":{"app.kubernetes.io/name":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27.2","ports":[{"name":"http","containerPort":8080}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"1","memory":"512Mi"}},"readinessProbe":{"httpGet":{"path":"/healthz","port":"http"}}}]}}}}`)

// BenchmarkNew is what the CLI pays once, on its first built-in document.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New()
	}
}

// BenchmarkCheck is one Deployment, Strict.
func BenchmarkCheck(b *testing.B) {
	c := New()
	b.SetBytes(int64(len(benchDeployment)))
	b.ReportAllocs()
	for b.Loop() {
		if res := c.Check(benchDeployment, "apps/v1", "Deployment", Options{FieldValidation: "Strict"}); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}
