package celdiff

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/crdkit/crdkit/rules"
	"github.com/crdkit/crdkit/schema"
)

// defaultSite is a schema node with a default, in both forms.
type defaultSite struct {
	path         string
	up           *structuralschema.Structural
	ours         *schema.Schema
	resourceRoot bool
}

func collectDefaults(up *structuralschema.Structural, ours *schema.Schema, path string, out *[]defaultSite) {
	if up == nil || ours == nil {
		return
	}
	if up.Default.Object != nil {
		*out = append(*out, defaultSite{path, up, ours, up.XEmbeddedResource})
	}
	for _, k := range sortedKeysOf(up.Properties) {
		p := up.Properties[k]
		collectDefaults(&p, ours.Property(k), path+".properties["+k+"]", out)
	}
	collectDefaults(up.Items, ours.Items(), path+".items", out)
	if up.AdditionalProperties != nil {
		a, _, _ := ours.AdditionalProperties()
		collectDefaults(up.AdditionalProperties.Structural, a, path+".additionalProperties", out)
	}
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// upstreamDefault checks a default's rules as the server's ValidateDefaults
// does: an update of the default to itself, then a create.
func upstreamDefault(s *structuralschema.Structural, resourceRoot bool, p *field.Path) (errs field.ErrorList, left int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream panicked: %v", r)
		}
	}()
	v := cel.NewValidator(s, resourceRoot, celconfig.PerCallLimit)
	if v == nil {
		return nil, celconfig.RuntimeCELCostBudget, nil
	}
	ctx := context.Background()
	errs, left = v.Validate(ctx, p, s, s.Default.Object, s.Default.Object, celconfig.RuntimeCELCostBudget)
	if len(errs) == 0 {
		more, left2 := v.Validate(ctx, p, s, s.Default.Object, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, more...)
		left = min(left, left2)
	}
	return errs, left, nil
}

// TestDefaultsAgree compares Validator.ValidateDefault (after CompileNode)
// with the server's CEL check of default values, on every default of the
// corpus versions with rules, as they are and with rules added that fail,
// compare with oldSelf or use optionalOldSelf.
func TestDefaultsAgree(t *testing.T) {
	tgs := targets(t)
	extra := []struct {
		name  string
		rules []apiextensionsv1.ValidationRule
	}{
		{"as is", nil},
		{"false", []apiextensionsv1.ValidationRule{{Rule: "false", Message: "no defaults here"}}},
		{"transition", []apiextensionsv1.ValidationRule{{Rule: "self == oldSelf"}, {Rule: "self != oldSelf", Message: "must change"}}},
		{"optional", []apiextensionsv1.ValidationRule{{Rule: "!oldSelf.hasValue()", OptionalOldSelf: ptrTrue()}}},
		{"messageExpression", []apiextensionsv1.ValidationRule{{Rule: "self != self", MessageExpression: "'is ' + string(self == oldSelf)"}}},
	}
	var n, agree, failing int
	var differ []string
	for _, tg := range tgs {
		var sites []defaultSite
		collectDefaults(tg.structural, tg.schema, "openAPIV3Schema", &sites)
		if len(sites) > 12 {
			sites = sites[:12]
		}
		for _, st := range sites {
			for _, ex := range extra {
				up, ours := st.up, st.ours
				if ex.rules != nil {
					var err error
					if up, ours, err = addRules(st, ex.rules); err != nil {
						t.Fatal(err)
					}
				}
				p := field.NewPath(st.path).Child("default")
				ue, ul, err := upstreamDefault(up, st.resourceRoot, p)
				if err != nil {
					continue
				}
				v, err := rules.CompileNode(ours, st.resourceRoot)
				if err != nil {
					t.Fatal(err)
				}
				oe, ol := v.ValidateDefault(p, up.Default.Object, rules.RuntimeBudget)
				n++
				if len(ue) > 0 {
					failing++
				}
				if a, b := texts(ue), texts(oe); slices.Equal(a, b) && ul == ol {
					agree++
				} else {
					differ = append(differ, fmt.Sprintf("%s %s %s:\n upstream: %s (%d)\n crdkit:   %s (%d)",
						tg.name, st.path, ex.name, strings.Join(a, "\n           "), ul, strings.Join(b, "\n           "), ol))
				}
			}
		}
	}
	for i, d := range differ {
		if i == 15 {
			t.Errorf("%d more disagreements", len(differ)-15)
			break
		}
		t.Error(d)
	}
	if n == 0 {
		t.Fatal("no cases")
	}
	fmt.Printf("conformance: cel-defaults %d/%d cases agree (defaults of corpus versions with rules, with rules added; %d cases with errors upstream)\n", agree, n, failing)
}

func ptrTrue() *bool { b := true; return &b }

// addRules returns both forms of a site's schema with rules appended.
func addRules(st defaultSite, rs []apiextensionsv1.ValidationRule) (*structuralschema.Structural, *schema.Schema, error) {
	up := st.up.DeepCopy()
	for _, r := range rs {
		up.XValidations = append(up.XValidations, r)
	}
	// crdkit's form: from the same structural node, through its JSON.
	props := up.ToKubeOpenAPI()
	js, err := props.MarshalJSON()
	if err != nil {
		return nil, nil, err
	}
	ours, err := schema.CompileJSON(js)
	return up, ours, err
}
