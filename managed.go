package crdkit

import (
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/fieldmanager"
	"github.com/crdkit/crdkit/openapi"
)

// DefaultFieldManager is the manager name written into managedFields when
// a request names none. The server takes it from the client's User-Agent
// (the part before the first "/"); crdkit's requests come from "crdkit".
const DefaultFieldManager = "crdkit"

// ManagedFields are the options every write shares about
// metadata.managedFields.
type ManagedFields struct {
	// FieldManager is the request's fieldManager parameter: who the
	// server records as the manager of what the request sets. Empty:
	// DefaultFieldManager. The server refuses a name longer than 128
	// bytes or with characters that are not printable.
	FieldManager string
	// Omit leaves metadata.managedFields out of the result and skips the
	// field manager's work (it costs more than the rest of a create). The
	// server always writes managed fields; with Omit the result is the
	// server's without them.
	Omit bool
	// Now is the time the server writes into the managed fields entries
	// the request touches. Zero: the current time.
	Now time.Time
}

func (m ManagedFields) manager() string {
	if m.FieldManager == "" {
		return DefaultFieldManager
	}
	return m.FieldManager
}

// fieldManagers builds the CRD's field managers on first use: the type
// converter costs as much as compiling the schemas, and tools that leave
// managed fields out never need it.
type fieldManagers struct {
	once sync.Once
	m    *fieldmanager.Manager
	err  error
}

// fieldManager returns the CRD's field manager, built once.
func (c *CRD) fieldManager() (*fieldmanager.Manager, error) {
	c.fm.once.Do(func() {
		c.fm.m, c.fm.err = c.buildFieldManager()
	})
	return c.fm.m, c.fm.err
}

func (c *CRD) buildFieldManager() (*fieldmanager.Manager, error) {
	// The server falls back to deducing types when it cannot build the
	// models (buildOpenAPIModelsForApply's error is only logged).
	models, err := openapi.Models(c.stored())
	if err != nil {
		models = nil
	}
	o := fieldmanager.Options{
		Group:                 c.Group(),
		Kind:                  c.Kind(),
		Models:                models,
		PreserveUnknownFields: c.preserveUnknownFields(),
		Default:               c.defaultOwnVersion,
		Convert: func(obj map[string]any, version string) (map[string]any, error) {
			cp, err := normalizeValue(obj, 0)
			if err != nil {
				return nil, err
			}
			m, _ := cp.(map[string]any)
			return c.convertInPlace(m, false, version, convertOptions(nil))
		},
	}
	for _, v := range c.v1.Spec.Versions {
		o.Versions = append(o.Versions, fieldmanager.Version{Name: v.Name, Status: v.Subresources != nil && v.Subresources.Status != nil, Scale: v.Subresources != nil && v.Subresources.Scale != nil})
	}
	return fieldmanager.New(o)
}

// manageFields is the field manager's update of the request's managed
// fields (UpdateNoErrors): what the request changed from old (nil on a
// create) is recorded for the request's manager. With managed fields left
// out, only the request's own managed fields are checked as the field
// manager decodes them (resetManagedFields), which is all validation sees
// of them.
func (r *request) manageFields(old map[string]any, sub fieldmanager.Subresource) {
	if r.failed() {
		return
	}
	if r.managed.Omit {
		r.resetManagedFields()
		return
	}
	fm, err := r.v.crd.fieldManager()
	if err != nil {
		r.fail(apierrors.NewInternalError(fmt.Errorf("failed to create field manager: %v", err)))
		return
	}
	obj, err := fm.Update(r.v.name, sub, old, r.obj, r.managed.manager(), r.managed.Now)
	if err != nil {
		r.fail(apierrors.NewInternalError(err))
		return
	}
	r.obj = obj
	r.mdKeys = metaKeys{} // the metadata changed
}

// omitManagedFields removes managedFields from the result when the
// options leave them out.
func (r *request) omitManagedFields() {
	if r.failed() || !r.managed.Omit {
		return
	}
	if md, ok := r.res.Object["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
}

// validateOptions checks the request's options as the handler does first
// (ValidateCreateOptions, ValidateUpdateOptions): the field manager's name
// and the field-validation mode, refused with the server's 422.
func (r *request) validateOptions(kind string, fv FieldValidation) {
	if r.failed() {
		return
	}
	var errs field.ErrorList
	if r.managed.FieldManager != "" || fv != "" {
		errs = append(errs, metav1validation.ValidateFieldManager(r.managed.FieldManager, field.NewPath("fieldManager"))...)
		errs = append(errs, metav1validation.ValidateFieldValidation(field.NewPath("fieldValidation"), string(fv))...)
	}
	if len(errs) > 0 {
		r.fail(apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs))
	}
}

// manageFields is request.manageFields over live, on the request's
// endpoint.
func (u *updateRequest) manageFields() {
	if u.scaled && !u.managed.Omit {
		return // the Scale's field manager ran (scaleRequest.manageScaleFields)
	}
	sub := fieldmanager.Main
	if u.status {
		sub = fieldmanager.Status
	}
	u.request.manageFields(u.old, sub)
}

// keepManagedFieldsTimes is the registry's
// IgnoreManagedFieldsTimestampsTransformer: when the update changes
// nothing but the times of managed fields entries, live's times are kept.
func (u *updateRequest) keepManagedFieldsTimes() {
	if u.failed() || u.managed.Omit || u.scaled {
		return
	}
	md, _ := u.obj["metadata"].(map[string]any)
	om, _ := u.old["metadata"].(map[string]any)
	nl, _ := md["managedFields"].([]any)
	ol, _ := om["managedFields"].([]any)
	if len(nl) != len(ol) || len(nl) == 0 {
		return
	}
	same := true
	for i := range nl {
		ne, _ := nl[i].(map[string]any)
		oe, _ := ol[i].(map[string]any)
		if ne == nil || oe == nil {
			return
		}
		if !semanticEqual(ne["time"], oe["time"]) {
			same = false
		}
		if !equalExcept(ne, oe, "time") {
			return
		}
	}
	if same || !equalExcept(u.obj, u.old, "metadata") || !equalExcept(md, om, "managedFields") {
		return
	}
	for i := range nl {
		ne, oe := nl[i].(map[string]any), ol[i].(map[string]any)
		if t, ok := oe["time"]; ok {
			ne["time"] = t
		} else {
			delete(ne, "time")
		}
	}
}

// equalExcept is semanticEqual of two maps without their key k, and
// without k compared.
func equalExcept(a, b map[string]any, k string) bool {
	n := 0
	for ak, av := range a {
		if ak == k {
			continue
		}
		n++
		bv, ok := b[ak]
		if !ok || !semanticEqual(av, bv) {
			return false
		}
	}
	for bk := range b {
		if bk != k {
			n--
		}
	}
	return n == 0
}
