package crdkit

import (
	"slices"
	"testing"
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
    selectableFields:
    - jsonPath: .spec.color
    - jsonPath: .spec.size
    - jsonPath: .spec.enabled
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
              size: {type: integer}
              enabled: {type: boolean}
              replicas: {type: integer, maximum: 20}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
`

func widget(ns, name string, labels map[string]any, spec map[string]any) map[string]any {
	md := map[string]any{"name": name, "namespace": ns}
	if labels != nil {
		md["labels"] = labels
	}
	return map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": md, "spec": spec}
}

func TestSelector(t *testing.T) {
	crd, err := Load([]byte(widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	v := crd.Version("v1")
	objs := []map[string]any{
		widget("b", "w1", map[string]any{"app": "x", "tier": "1"}, map[string]any{"color": "red", "size": int64(3), "enabled": true}),
		widget("a", "w2", map[string]any{"app": "y"}, map[string]any{"color": "blue", "size": int64(-4), "enabled": false}),
		widget("a-b", "w3", nil, map[string]any{}),
		widget("a", "w0", map[string]any{"app": int64(1)}, nil),
	}
	for _, tc := range []struct {
		opts ListOptions
		want []string // namespace/name, in order
		err  string
	}{
		{ListOptions{}, []string{"a-b/w3", "a/w0", "a/w2", "b/w1"}, ""}, // storage key order: '-' before '/'
		{ListOptions{Namespace: "a"}, []string{"a/w0", "a/w2"}, ""},
		{ListOptions{LabelSelector: "app=x"}, []string{"b/w1"}, ""},
		{ListOptions{LabelSelector: "app"}, []string{"a/w2", "b/w1"}, ""}, // w0's labels are not all strings: none
		{ListOptions{LabelSelector: "app!=x"}, []string{"a-b/w3", "a/w0", "a/w2"}, ""},
		{ListOptions{LabelSelector: "tier>0"}, []string{"b/w1"}, ""},
		{ListOptions{LabelSelector: "app in (x,y),!tier"}, []string{"a/w2"}, ""},
		{ListOptions{LabelSelector: "app=="}, nil, ""},
		{ListOptions{FieldSelector: "spec.color=red"}, []string{"b/w1"}, ""},
		{ListOptions{FieldSelector: "spec.color!=red"}, []string{"a-b/w3", "a/w0", "a/w2"}, ""},
		{ListOptions{FieldSelector: "spec.size=-4"}, []string{"a/w2"}, ""},
		{ListOptions{FieldSelector: "spec.size=03"}, nil, ""},
		{ListOptions{FieldSelector: "spec.enabled=true"}, []string{"b/w1"}, ""},
		{ListOptions{FieldSelector: "spec.enabled="}, []string{"a-b/w3", "a/w0"}, ""},
		{ListOptions{FieldSelector: "metadata.name=w3,metadata.namespace=a-b"}, []string{"a-b/w3"}, ""},
		{ListOptions{FieldSelector: "spec.color==red,spec.size!=9", LabelSelector: "app=x"}, []string{"b/w1"}, ""},
		{ListOptions{LabelSelector: "app=x y"}, nil, "found 'y', expected: ',' or 'end of string'"},
		{ListOptions{LabelSelector: "a!b"}, nil, "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"},
		{ListOptions{LabelSelector: "tier>x"}, nil, `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`},
		{ListOptions{FieldSelector: "spec.other=d"}, nil, "field label not supported: spec.other"},
		{ListOptions{FieldSelector: ".spec.color=red"}, nil, "field label not supported: .spec.color"},
		{ListOptions{FieldSelector: "metadata.name"}, nil, "invalid selector: 'metadata.name'; can't understand 'metadata.name'"},
		{ListOptions{LabelSelector: "a!b", FieldSelector: "spec.other=d"}, nil, "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"},
	} {
		got, err := v.List(objs, tc.opts)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("List(%+v) = %v, want error %s", tc.opts, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("List(%+v) = %v", tc.opts, err)
			continue
		}
		var names []string
		for _, o := range got {
			name, ns := objectKey(o)
			names = append(names, ns+"/"+name)
		}
		if !slices.Equal(names, tc.want) {
			t.Errorf("List(%+v) = %q, want %q", tc.opts, names, tc.want)
		}
	}
}

func TestSelectorAllocs(t *testing.T) {
	crd, err := Load([]byte(widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	s, err := crd.Version("v1").Selector(ListOptions{LabelSelector: "app in (x,y),tier", FieldSelector: "spec.size=3,spec.enabled=true,metadata.name!=z"})
	if err != nil {
		t.Fatal(err)
	}
	obj := widget("b", "w1", map[string]any{"app": "x", "tier": "1"}, map[string]any{"color": "red", "size": int64(3), "enabled": true})
	if !s.Matches(obj) {
		t.Fatal("Matches = false, want true")
	}
	if n := testing.AllocsPerRun(100, func() { s.Matches(obj) }); n != 0 {
		t.Errorf("Matches allocates %v times, want 0", n)
	}
}
