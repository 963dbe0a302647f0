package structdiff

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/schema"
)

// result is what one implementation says about one openAPIV3Schema.
type result struct {
	decodeErr  error    // the JSON does not decode (or convert) at all
	buildErr   string   // NewStructural / BuildError text, "" when it builds
	errs       []string // ValidateStructural, as "field | type | body", in order
	panicked   string   // upstream panicked (the server answers 500)
	structural bool
}

func (r result) String() string {
	switch {
	case r.panicked != "":
		return "panic: " + r.panicked
	case r.decodeErr != nil:
		return "decode error: " + r.decodeErr.Error()
	case r.buildErr != "":
		return "build error: " + r.buildErr
	case len(r.errs) == 0:
		return "structural"
	}
	return "not structural:\n    " + strings.Join(r.errs, "\n    ")
}

// decodeUpstream decodes an openAPIV3Schema as the server decodes a CRD
// (case-sensitive field names, integers kept as int64) and converts it to
// the internal type, as the server does before every check.
func decodeUpstream(js []byte) (*apiextensions.JSONSchemaProps, error) {
	v1 := new(apiextensionsv1.JSONSchemaProps)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, v1); err != nil {
		return nil, err
	}
	internal := new(apiextensions.JSONSchemaProps)
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, internal, nil); err != nil {
		return nil, err
	}
	return internal, nil
}

// upstreamBuild runs NewStructural on a freshly decoded copy (NewStructural
// iterates maps, so every call may pick another first error).
func upstreamBuild(js []byte) (ss *structuralschema.Structural, buildErr string, err error) {
	internal, err := decodeUpstream(js)
	if err != nil {
		return nil, "", err
	}
	ss, berr := structuralschema.NewStructural(internal)
	if berr != nil {
		return nil, berr.Error(), nil
	}
	return ss, "", nil
}

// upstream runs the server's structural checks. want, when not empty, is a
// build error text to look for: upstream is retried (its map order changes)
// until it reports that text or the retries run out.
func upstream(js []byte, base *field.Path, want string) (r result) {
	defer func() {
		if p := recover(); p != nil {
			r = result{panicked: fmt.Sprint(p)}
		}
	}()
	ss, buildErr, err := upstreamBuild(js)
	if err != nil {
		return result{decodeErr: err}
	}
	for i := 0; buildErr != "" && want != "" && buildErr != want && i < 64; i++ {
		_, buildErr, _ = upstreamBuild(js)
	}
	if buildErr != "" {
		return result{buildErr: buildErr}
	}
	for _, e := range structuralschema.ValidateStructural(base, ss) {
		r.errs = append(r.errs, fmt.Sprintf("%s | %s | %s", e.Field, string(e.Type), e.ErrorBody()))
	}
	r.structural = len(r.errs) == 0
	return r
}

// crdkit runs the same checks with package schema.
func crdkit(js []byte, base *schema.Path) (r result) {
	p, err := schema.ParseProps(js)
	if err != nil {
		return result{decodeErr: err}
	}
	if err := schema.BuildError(p); err != nil {
		return result{buildErr: err.Error()}
	}
	for _, e := range schema.ValidateStructural(p, base) {
		r.errs = append(r.errs, fmt.Sprintf("%s | %s | %s", e.Field, string(e.Type), e.Body()))
	}
	r.structural = len(r.errs) == 0
	return r
}

// verdict classifies one comparison.
type verdict int

const (
	agree verdict = iota
	disagree
	notComparable // a decode error on both sides, or upstream panicked
	knownCaseFold // the input spells a keyword in another case (see caseFolded)
)

// compareJSON runs both implementations on js and says whether they agree,
// with a description of the difference when they do not.
func compareJSON(js []byte) (verdict, string) {
	ours := crdkit(js, schema.NewPath("root"))
	theirs := upstream(js, field.NewPath("root"), ours.buildErr)
	switch {
	case theirs.panicked != "":
		return notComparable, theirs.String()
	case theirs.decodeErr != nil && ours.decodeErr != nil:
		return notComparable, ""
	}
	if k := caseFolded(js); k != "" && theirs.decodeErr == nil {
		if theirs.String() != ours.String() {
			return knownCaseFold, k
		}
	}
	if (theirs.decodeErr == nil) != (ours.decodeErr == nil) ||
		theirs.buildErr != ours.buildErr ||
		!reflect.DeepEqual(theirs.errs, ours.errs) ||
		theirs.structural != ours.structural {
		return disagree, fmt.Sprintf("upstream: %s\ncrdkit:   %s", theirs, ours)
	}
	return agree, ""
}

// schemaKeys are the JSON names of apiextensions v1 JSONSchemaProps.
var schemaKeys = func() []string {
	var ks []string
	t := reflect.TypeFor[apiextensionsv1.JSONSchemaProps]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			ks = append(ks, name)
		}
	}
	return ks
}()

// caseFolded returns the first key of a schema object in js that spells a
// schema keyword in another case ("Type", "ITEMS"), or "". The server decodes
// CRDs case-sensitively and ignores such keys; encoding/json, which
// schema.ParseProps uses, matches them case-insensitively.
func caseFolded(js []byte) string {
	var v any
	if json.Unmarshal(js, &v) != nil {
		return ""
	}
	return caseFoldedNode(v, 0)
}

func caseFoldedNode(v any, depth int) string {
	m, ok := v.(map[string]any)
	if !ok || depth > 10000 {
		return ""
	}
	for k, x := range m {
		for _, s := range schemaKeys {
			if k != s && strings.EqualFold(k, s) {
				return k
			}
		}
		var subs []any
		switch k {
		case "items":
			if l, ok := x.([]any); ok {
				subs = l
			} else {
				subs = []any{x}
			}
		case "allOf", "anyOf", "oneOf":
			subs, _ = x.([]any)
		case "not", "additionalProperties", "additionalItems":
			subs = []any{x}
		case "properties", "patternProperties", "definitions", "dependencies":
			if mm, ok := x.(map[string]any); ok {
				for _, y := range mm {
					subs = append(subs, y)
				}
			}
		}
		for _, s := range subs {
			if r := caseFoldedNode(s, depth+1); r != "" {
				return r
			}
		}
	}
	return ""
}

func newStructural(internal *apiextensions.JSONSchemaProps) (*structuralschema.Structural, error) {
	return structuralschema.NewStructural(internal)
}
