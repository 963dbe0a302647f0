package celdiff

import (
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestPlanFailuresAgree compares rules.Check with the server on rules and
// messageExpressions whose program the planner may fail to build (a type
// conversion of a constant, a constant regular expression of matches,
// find or findAll) and their valid twins: crdkit plans programs lazily
// except where planning can fail, so these must report the server's
// "program instantiation failed" all the same.
func TestPlanFailuresAgree(t *testing.T) {
	rules := []struct{ rule, msg string }{
		{"self.matches('[')", ""},
		{"self.matches('a+')", ""},
		{"self.find('(') == ''", ""},
		{"self.find('a') == ''", ""},
		{"self.findAll('[').size() == 0", ""},
		{"self.findAll('a', 2).size() == 0", ""},
		{"int('x') == 1", ""},
		{"int('7') == 7", ""},
		{"string(int('y')) == self", ""},
		{"uint(-1) == 1u", ""},
		{"double('zz') > 1.0", ""},
		{"duration('1x') > duration('0s')", ""},
		{"timestamp('bad') == timestamp('bad')", ""},
		{"timestamp('2020-01-01T00:00:00Z') < timestamp('2021-01-01T00:00:00Z')", ""},
		{"bytes('a') == b'a' && dyn(self) == self && type(self) == string", ""},
		{"self.size() > 0", "string(int('q'))"},
		{"self.size() > 0", "'x' + string(int('3'))"},
		{"self.size() > 0", "self.matches('(') ? 'a' : 'b'"},
		{"[1, 2, 3].exists(x, x == int(self.size()))", ""},
		{"{'a': 1, 'a': 2}['a'] == 1", ""},
		{"self in ['a', 'b', int('c')]", ""},
		{"matches(self, '[')", ""},
		{"matches(self, 'a|b')", ""},
		{"self.matches(string('['))", ""},
		{"self.matches(dyn('a+'))", ""},
		{"self.matches(self) && self.find(self) == ''", ""},
		{"self.matches('(?P<n>a)(?P<n>b)')", ""},
		{"self.matches('\\\\p{Nope}')", ""},
		{"self.find('a{1001}') == ''", ""},
		{"self.findAll('(?i)a', 3).size() < 4", ""},
		{"int(['x'][0]) == 1", ""},
		{"dyn([int('x')]) == [1]", ""},
		{"dyn({'a': [uint(-2)]}) == {}", ""},
		{"type(int('x')) == int", ""},
		{"int(self) == 1", ""},
		{"self.size() > 0", "self.matches('[') ? 'a' : 'b'"},
		{"self.size() > 0", "self.matches('[a-z]') ? 'a' : 'b'"},
	}
	tl := &lintTally{}
	for i, r := range rules {
		v := fmt.Sprintf("{rule: %q}", r.rule)
		if r.msg != "" {
			v = fmt.Sprintf("{rule: %q, messageExpression: %q}", r.rule, r.msg)
		}
		doc := strings.ReplaceAll(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: plans.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: plans, kind: Plan}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          s: {type: string, maxLength: 10, x-kubernetes-validations: [RULE]}
`, "RULE", v)
		crd := new(apiextensionsv1.CustomResourceDefinition)
		if err := yaml.UnmarshalStrict([]byte(doc), crd); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		tl.check(fmt.Sprintf("case %d %q %q", i, r.rule, r.msg), crd)
	}
	for _, d := range tl.differ {
		t.Error(d)
	}
	if tl.skipped > 0 {
		t.Errorf("%d cases where upstream panics", tl.skipped)
	}
	fmt.Printf("conformance: cel-plan-failures %d/%d cases agree (%d refused upstream)\n", tl.agree, tl.n, tl.refused)
}
