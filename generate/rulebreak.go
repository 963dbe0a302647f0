package generate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit"
)

// maxRuleTries bounds the values tried per rule site.
const maxRuleTries = 24

// ruleBreaks returns up to Options.RuleBreaks "break-rule" candidates: at
// the values of base whose schema has CEL rules, in walk order, a new
// random value the version's create refuses with exactly one cause, at or
// below the value (a rule's failure, since base is accepted and the new
// value is meant to be valid as Object's are). The expected refusal is
// that cause's field and type: unlike the other breaks it comes from
// crdkit's own answer, which the conformance module checks against the
// real server.
func (g *Generator) ruleBreaks(base map[string]any, sites []site) []candidate {
	opts := crdkit.CreateOptions{FieldValidation: crdkit.Ignore, ManagedFields: crdkit.ManagedFields{Omit: true}}
	probe := func(obj map[string]any) crdkit.Result {
		cp := deepCopy(obj).(map[string]any)
		setName(cp, "rule-break")
		return g.v.Create(cp, opts)
	}
	if probe(base).Err != nil {
		return nil // no accepted base to start from
	}
	st := &state{r: g.rand(0x70b5), opts: g.opts, ratio: g.opts.OptionalRatio}
	var out []candidate
	for _, s := range sites {
		if len(out) >= g.opts.RuleBreaks {
			break
		}
		if s.absent || s.n == nil || len(s.n.rules) == 0 || len(s.path) == 0 {
			continue
		}
		if g.statusSub && s.path[0] == "status" {
			continue
		}
		prefix := serverField(s.path)
		for try := 0; try < maxRuleTries; try++ {
			st.nodes = 0
			v, ok := st.value(s.n, len(s.path))
			if !ok {
				continue
			}
			obj := deepCopy(base).(map[string]any)
			if !set(obj, s.path, v) {
				break
			}
			res := probe(obj)
			refusal := res.Status()
			if refusal == nil || refusal.Code != 422 || refusal.Details == nil || len(refusal.Details.Causes) != 1 {
				continue
			}
			c := refusal.Details.Causes[0]
			if c.Field != prefix && !hasFieldPrefix(c.Field, prefix) {
				continue
			}
			out = append(out, candidate{mutation: "break-rule", path: s.field, apply: setter(s.path, v),
				expect: Expectation{Outcome: Refused, Field: c.Field, Type: field.ErrorType(c.Type)}})
			break
		}
	}
	return out
}

// hasFieldPrefix reports whether f is a field below prefix.
func hasFieldPrefix(f, prefix string) bool {
	return len(f) > len(prefix) && f[:len(prefix)] == prefix && (f[len(prefix)] == '.' || f[len(prefix)] == '[')
}
