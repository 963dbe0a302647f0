package builtin

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	c := New()
	tests := []struct {
		name, body, mode, ns string
		want                 string // "" accepted, else the message
		warnings             []string
	}{
		{name: "clean", body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2}}`, mode: "Strict"},
		{name: "unknown strict", body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replica":2}}`, mode: "Strict",
			want: `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica"`},
		{name: "unknown warn", body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replica":2}}`, mode: "Warn",
			warnings: []string{`unknown field "spec.replica"`}},
		{name: "unknown ignore", body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replica":2}}`, mode: "Ignore"},
		{name: "type error", body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":"2"}}`, mode: "Warn",
			want: `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`},
		{name: "bad service name", body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"1web"}}`, mode: "Strict",
			want: `Service "1web" is invalid: metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`},
		{name: "namespace mismatch", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"x"}}`, mode: "Strict", ns: "y",
			want: `the namespace of the provided object does not match the namespace sent on the request`},
		{name: "cluster scoped namespace dropped", body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"system:x","namespace":"x"}}`, mode: "Strict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tm struct{ APIVersion, Kind string }
			_ = jsonUnmarshal([]byte(tt.body), &tm)
			res := c.Check([]byte(tt.body), tm.APIVersion, tm.Kind, Options{FieldValidation: tt.mode, Namespace: tt.ns})
			got := ""
			if res.Err != nil {
				got = res.Err.Error()
			}
			if got != tt.want {
				t.Errorf("Check(%s) = %s, want %s", tt.name, got, tt.want)
			}
			if strings.Join(res.Warnings, "|") != strings.Join(tt.warnings, "|") {
				t.Errorf("Check(%s) warnings = %q, want %q", tt.name, res.Warnings, tt.warnings)
			}
		})
	}
}

// A Checker is shared by the CLI's workers.
func TestCheckConcurrent(t *testing.T) {
	c := New()
	done := make(chan string)
	for i := range 4 {
		go func() {
			var last string
			for range 50 {
				res := c.Check(benchDeployment, "apps/v1", "Deployment", Options{FieldValidation: []string{"Strict", "Warn"}[i%2]})
				if res.Err != nil {
					last = res.Err.Error()
				}
			}
			done <- last
		}()
	}
	for range 4 {
		if got := <-done; got != "" {
			t.Errorf("Check(concurrent) = %s, want accepted", got)
		}
	}
}

func TestVersions(t *testing.T) {
	c := New()
	for _, tt := range []struct{ group, kind, want string }{
		{"apps", "Deployment", "apps/v1"},
		{"extensions", "Ingress", "networking.k8s.io/v1"},
		{"extensions", "Deployment", "apps/v1"},
		{"autoscaling", "HorizontalPodAutoscaler", "autoscaling/v2,autoscaling/v1"},
		{"batch", "CronJob", "batch/v1"},
		{"policy", "PodSecurityPolicy", ""},
		{"example.com", "Widget", ""},
	} {
		if got := strings.Join(c.Versions(tt.group, tt.kind), ","); got != tt.want {
			t.Errorf("Versions(%s, %s) = %s, want %s", tt.group, tt.kind, got, tt.want)
		}
	}
}
