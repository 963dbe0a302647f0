package upgrade

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdkit/crdkit"
)

// Verdict is the server's answer to one request: its code, and for a
// refusal its reason, message and causes.
type Verdict struct {
	Allowed bool                `json:"allowed"`
	Code    int32               `json:"code"`
	Reason  metav1.StatusReason `json:"reason,omitempty"`
	Message string              `json:"message,omitempty"`
	Causes  []Cause             `json:"causes,omitempty"`
}

// Cause is one cause of a refusal.
type Cause struct {
	Field   string `json:"field"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func verdictOf(err error, okCode int32) Verdict {
	if err == nil {
		return Verdict{Allowed: true, Code: okCode}
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		return Verdict{Code: 500, Message: err.Error()}
	}
	st := se.Status()
	v := Verdict{Code: st.Code, Reason: st.Reason, Message: st.Message}
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			v.Causes = append(v.Causes, Cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
		}
	}
	return v
}

// Report is what an upgrade from one revision of a CRD to the next does.
type Report struct {
	// CRD is the CRD's name.
	CRD string `json:"crd"`
	// Update is the server's answer to the update of the live CRD to the
	// next revision, with the warnings it sends.
	Update   Verdict  `json:"update"`
	Warnings []string `json:"warnings,omitempty"`
	// Changes are the differences between the revisions (see Changes).
	Changes []Change `json:"changes"`
	// Objects are the stored objects, each under the next revision.
	Objects []Object `json:"objects,omitempty"`
	// RoundTrips are the conversion round trips of generated objects
	// through the next revision's webhook (CheckWith with a webhook);
	// RoundTripNote says why none were made when the next revision
	// converts through a webhook that could not be called.
	RoundTrips    []RoundTrip `json:"roundTrips,omitempty"`
	RoundTripNote string      `json:"roundTripNote,omitempty"`
	Summary       Summary     `json:"summary"`
}

// Object is what the next revision does to one stored object.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	// Version is the version the object is read and written at: its own,
	// or the next revision's preferred one when its own is not served.
	Version string `json:"version"`
	// Error is why the object could not be checked ("" when it was).
	Error string `json:"error,omitempty"`
	// Read is what a GET returns under the next revision: the fields it
	// prunes (their data is lost at the next write) and the fields its
	// defaults add.
	Read      map[string]any `json:"read,omitempty"`
	Pruned    []string       `json:"pruned,omitempty"`
	Defaulted []string       `json:"defaulted,omitempty"`
	// NoOpUpdate is the answer to a PUT of the object as read.
	NoOpUpdate Verdict `json:"noOpUpdate"`
	// Ratcheted are the fields whose values the next revision refuses but
	// an update that leaves them unchanged keeps: the next change of each
	// is refused.
	Ratcheted []Ratcheted `json:"ratcheted,omitempty"`
	// Create is the answer to a create of the same content (the object
	// deleted and applied again, or copied to another cluster).
	Create Verdict `json:"create"`
	// Breaks says whether anything above breaks: fields pruned, an update
	// or a create refused, ratcheted fields.
	Breaks bool `json:"breaks"`
}

// Ratcheted is a field that only ratcheting keeps.
type Ratcheted struct {
	Field string `json:"field"`
	// Message is the create's refusal of the field.
	Message string `json:"message"`
	// Change, when set, is a change of the field the report tried (JSON),
	// and ChangeVerdict the answer to an update with it.
	Change        string   `json:"change,omitempty"`
	ChangeVerdict *Verdict `json:"changeVerdict,omitempty"`
	// Changed is the object sent with Change.
	Changed map[string]any `json:"-"`
}

// Summary counts what breaks.
type Summary struct {
	UpdateRefused    bool `json:"updateRefused"`
	BreakingChanges  int  `json:"breakingChanges"`
	Changes          int  `json:"changes"`
	Objects          int  `json:"objects"`
	ObjectsBreaking  int  `json:"objectsBreaking"`
	Pruned           int  `json:"objectsPruned"`
	UpdateRefusedFor int  `json:"objectsUpdateRefused"`
	CreateRefusedFor int  `json:"objectsCreateRefused"`
	RatchetedFor     int  `json:"objectsRatcheted"`
	Unchecked        int  `json:"objectsUnchecked"`
	RoundTrips       int  `json:"roundTrips"`
	RoundTripsLossy  int  `json:"roundTripsLossy"`
}

// Breaks reports whether anything in the report breaks.
func (r *Report) Breaks() bool {
	s := r.Summary
	return s.UpdateRefused || s.BreakingChanges > 0 || s.ObjectsBreaking > 0 || s.Unchecked > 0 || s.RoundTripsLossy > 0
}

// Check reports what updating the live CRD to next does: the server's
// answer to the update (crdkit.UpdateCRD), the changes between the
// revisions (Changes), and for each stored object (as etcd holds it, or as
// kubectl get -o json prints it) what a GET, a no-op update, a change of
// each ratcheted field and a create of the same content give under next.
// live is the CRD as the server holds it (see crdkit.Installed). Objects
// are checked under next even when the server refuses the update.
func Check(live, next *apiextensionsv1.CustomResourceDefinition, objects []map[string]any) (*Report, error) {
	return CheckWith(context.Background(), live, next, objects, Options{})
}

// CheckWith is Check, and, with opts.Webhook set and a next revision that
// converts through a webhook, round trips of generated objects between
// each pair of its served versions (RoundTrip). ctx bounds the webhook
// calls.
func CheckWith(ctx context.Context, live, next *apiextensionsv1.CustomResourceDefinition, objects []map[string]any, opts Options) (*Report, error) {
	res := crdkit.UpdateCRD(next, live)
	r := &Report{CRD: live.Name, Update: verdictOf(res.Err, 200), Warnings: res.Warnings, Changes: Changes(live, next)}
	stored := res.CRD
	if stored == nil {
		// The update is refused: the objects are checked under next as
		// it would be stored.
		stored = next.DeepCopy()
		stored.Status = live.Status
	}
	c, err := crdkit.New(stored, crdkit.LoadOptions{AllowInvalid: true})
	if err != nil {
		return nil, fmt.Errorf("next revision: %w", err)
	}
	for _, o := range objects {
		r.Objects = append(r.Objects, checkObject(c, o))
	}
	if opts.Webhook != nil {
		r.RoundTrips, r.RoundTripNote = roundTrips(ctx, c, opts)
	}
	r.summarize()
	return r, nil
}

func (r *Report) summarize() {
	s := &r.Summary
	s.UpdateRefused = !r.Update.Allowed
	s.Changes = len(r.Changes)
	for _, c := range r.Changes {
		if c.Breaking {
			s.BreakingChanges++
		}
	}
	s.RoundTrips = len(r.RoundTrips)
	for _, t := range r.RoundTrips {
		if t.Breaks() {
			s.RoundTripsLossy++
		}
	}
	s.Objects = len(r.Objects)
	for _, o := range r.Objects {
		switch {
		case o.Error != "":
			s.Unchecked++
			continue
		case o.Breaks:
			s.ObjectsBreaking++
		}
		if len(o.Pruned) > 0 {
			s.Pruned++
		}
		if !o.NoOpUpdate.Allowed {
			s.UpdateRefusedFor++
		}
		if !o.Create.Allowed {
			s.CreateRefusedFor++
		}
		if len(o.Ratcheted) > 0 {
			s.RatchetedFor++
		}
	}
}

func checkObject(c *crdkit.CRD, obj map[string]any) Object {
	o := Object{}
	o.APIVersion, _ = obj["apiVersion"].(string)
	o.Kind, _ = obj["kind"].(string)
	md, _ := obj["metadata"].(map[string]any)
	o.Name, _ = md["name"].(string)
	o.Namespace, _ = md["namespace"].(string)
	if c.Namespaced() && o.Namespace == "" {
		o.Namespace = "default"
	}
	_, ver, _ := strings.Cut(o.APIVersion, "/")
	v := c.Version(ver)
	if v == nil || !v.Served() {
		v = c.Version(c.PreferredVersion())
	}
	if v == nil {
		o.Error = "the next revision serves no version"
		return o
	}
	o.Version = v.Name()
	read, err := v.Read(obj)
	if err != nil {
		o.Error = "read: " + err.Error()
		o.NoOpUpdate = verdictOf(err, 200)
		return o
	}
	o.Read = read
	if rmd, ok := read["metadata"].(map[string]any); ok {
		if _, ok := rmd["resourceVersion"]; !ok {
			rmd["resourceVersion"] = "1" // an update needs one; the live object's
		}
		if c.Namespaced() {
			if _, ok := rmd["namespace"]; !ok {
				rmd["namespace"] = o.Namespace
			}
		}
	}
	at := asAtVersion(obj, o.APIVersion, read)
	o.Pruned, o.Defaulted = diffPaths(at, read)

	noop := v.Update(deepCopy(read), read, crdkit.UpdateOptions{})
	o.NoOpUpdate = verdictOf(noop.Err, 200)

	fresh := deepCopy(read)
	if fmd, ok := fresh["metadata"].(map[string]any); ok {
		for _, k := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink"} {
			delete(fmd, k)
		}
	}
	create := v.Create(fresh, crdkit.CreateOptions{Namespace: o.Namespace})
	o.Create = verdictOf(create.Err, 201)

	if o.NoOpUpdate.Allowed && !o.Create.Allowed {
		seen := map[string]bool{}
		for _, cs := range o.Create.Causes {
			if cs.Field == "" || seen[cs.Field] || strings.HasPrefix(cs.Field, "metadata") {
				continue
			}
			seen[cs.Field] = true
			rt := Ratcheted{Field: cs.Field, Message: cs.Message}
			if changed, val, ok := changeField(read, cs.Field, cs.Message); ok {
				b, _ := json.Marshal(val)
				rt.Change, rt.Changed = string(b), changed
				u := v.Update(deepCopy(changed), read, crdkit.UpdateOptions{})
				vd := verdictOf(u.Err, 200)
				rt.ChangeVerdict = &vd
			}
			o.Ratcheted = append(o.Ratcheted, rt)
		}
	}
	o.Breaks = len(o.Pruned) > 0 || !o.NoOpUpdate.Allowed || !o.Create.Allowed || len(o.Ratcheted) > 0
	return o
}

// asAtVersion is obj as it would be at the version read was read at, for
// the comparison: the apiVersion alone differs under the None strategy.
func asAtVersion(obj map[string]any, apiVersion string, read map[string]any) map[string]any {
	cp := deepCopy(obj)
	cp["apiVersion"] = read["apiVersion"]
	return cp
}

// diffPaths lists the paths (outside metadata) that b lacks and that b
// adds, compared with a.
func diffPaths(a, b map[string]any) (removed, added []string) {
	var walk func(x, y any, path string)
	walk = func(x, y any, path string) {
		xm, xok := x.(map[string]any)
		ym, yok := y.(map[string]any)
		if xok && yok {
			keys := map[string]bool{}
			for k := range xm {
				keys[k] = true
			}
			for k := range ym {
				keys[k] = true
			}
			var ks []string
			for k := range keys {
				ks = append(ks, k)
			}
			sort.Strings(ks)
			for _, k := range ks {
				if path == "" && (k == "metadata" || k == "apiVersion" || k == "kind") {
					continue
				}
				p := k
				if path != "" {
					p = path + "." + k
				}
				xv, inX := xm[k]
				yv, inY := ym[k]
				switch {
				case inX && !inY:
					removed = append(removed, p)
				case !inX && inY:
					added = append(added, p)
				default:
					walk(xv, yv, p)
				}
			}
			return
		}
		xl, xok := x.([]any)
		yl, yok := y.([]any)
		if xok && yok && len(xl) == len(yl) {
			for i := range xl {
				walk(xl[i], yl[i], fmt.Sprintf("%s[%d]", path, i))
			}
			return
		}
		if !reflect.DeepEqual(x, y) && !numEqual(x, y) {
			added = append(added, path) // replaced by the read
		}
	}
	walk(a, b, "")
	return removed, added
}

func numEqual(x, y any) bool {
	f := func(v any) (float64, bool) {
		switch n := v.(type) {
		case int64:
			return float64(n), true
		case float64:
			return n, true
		case json.Number:
			g, err := n.Float64()
			return g, err == nil
		}
		return 0, false
	}
	a, ok1 := f(x)
	b, ok2 := f(y)
	return ok1 && ok2 && a == b
}

// changeField returns obj with the value at path (a field path of a cause,
// spec.a.b[2].c) changed in the direction its refusal names, so that it is
// still refused: a longer string, a larger or smaller number, one more
// item. It reports false when it has no such change.
func changeField(obj map[string]any, path, message string) (map[string]any, any, bool) {
	cp := deepCopy(obj)
	steps := splitPath(path)
	if len(steps) == 0 {
		return nil, nil, false
	}
	var parent any = cp
	for _, s := range steps[:len(steps)-1] {
		parent = stepInto(parent, s)
		if parent == nil {
			return nil, nil, false
		}
	}
	last := steps[len(steps)-1]
	cur := stepInto(parent, last)
	var nv any
	switch x := cur.(type) {
	case string:
		nv = x + "x"
	case int64:
		if strings.Contains(message, "greater than or equal") || strings.Contains(message, "greater than") {
			nv = x - 1
		} else {
			nv = x + 1
		}
	case float64:
		if strings.Contains(message, "greater than") {
			nv = x - 1
		} else {
			nv = x + 1
		}
	case []any:
		if len(x) == 0 || strings.Contains(message, "greater than or equal") || strings.Contains(message, "should have at least") {
			return nil, nil, false
		}
		nv = append(append([]any{}, x...), deepCopy(x[len(x)-1]))
	default:
		return nil, nil, false
	}
	switch p := parent.(type) {
	case map[string]any:
		p[last] = nv
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(p) {
			return nil, nil, false
		}
		p[i] = nv
	default:
		return nil, nil, false
	}
	return cp, nv, true
}

// splitPath splits spec.a[2].b into spec, a, 2, b; quoted keys
// (metadata.labels[x]) are taken as they are.
func splitPath(p string) []string {
	var out []string
	for _, part := range strings.Split(p, ".") {
		for {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				if part != "" {
					out = append(out, part)
				}
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				return nil
			}
			out = append(out, part[i+1:i+j])
			part = part[i+j+1:]
		}
	}
	return out
}

func stepInto(v any, s string) any {
	switch x := v.(type) {
	case map[string]any:
		return x[s]
	case []any:
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 || i >= len(x) {
			return nil
		}
		return x[i]
	}
	return nil
}

func deepCopy[T any](v T) T {
	var walk func(any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			m := make(map[string]any, len(t))
			for k, e := range t {
				m[k] = walk(e)
			}
			return m
		case []any:
			l := make([]any, len(t))
			for i, e := range t {
				l[i] = walk(e)
			}
			return l
		}
		return v
	}
	return walk(v).(T)
}
