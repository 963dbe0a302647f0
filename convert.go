package crdkit

import (
	"context"
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdkit/crdkit/conversion"
	"github.com/crdkit/crdkit/defaulting"
	"github.com/crdkit/crdkit/objectmeta"
	"github.com/crdkit/crdkit/prune"
)

// ConvertOptions change how Convert, ConvertList and Read convert objects.
type ConvertOptions struct {
	// Context bounds webhook calls (default context.Background(); the
	// client's own timeout applies too).
	Context context.Context
	// Webhook is the client for a CRD whose strategy is Webhook. When nil,
	// the CRD's clientConfig.url is called (conversion.NewWebhook with no
	// options); a service reference needs a Webhook built with a resolver.
	Webhook *conversion.Webhook
}

// Convert returns obj converted to version as the server's converter does
// before it returns an object: the source and target versions checked
// against the CRD's, the CRD's strategy (None: the apiVersion rewritten;
// Webhook: a call to the webhook, its answer checked), then the coercion
// with the target version's schema (root metadata round trip, pruning,
// non-nullable nulls, embedded resources). obj is not modified. Errors have
// the server's texts.
func (c *CRD) Convert(obj map[string]any, version string, opts ...ConvertOptions) (map[string]any, error) {
	if out, err, ok := c.convertNone(obj, version); ok {
		return out, err
	}
	return c.convert(obj, false, version, convertOptions(opts))
}

// ConvertList is Convert for a list (an object whose items are objects of
// this CRD): with a webhook, only the items not at version are sent. list
// is not modified.
func (c *CRD) ConvertList(list map[string]any, version string, opts ...ConvertOptions) (map[string]any, error) {
	return c.convert(list, true, version, convertOptions(opts))
}

func convertOptions(opts []ConvertOptions) ConvertOptions {
	var o ConvertOptions
	for _, x := range opts {
		if x.Context != nil {
			o.Context = x.Context
		}
		if x.Webhook != nil {
			o.Webhook = x.Webhook
		}
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	return o
}

// convert is the server's safe converter followed by its schema coercion.
func (c *CRD) convert(in map[string]any, isList bool, version string, opts ConvertOptions) (map[string]any, error) {
	cp, err := normalizeValue(in, 0)
	if err != nil {
		return nil, err
	}
	obj, _ := cp.(map[string]any)
	if obj == nil {
		return nil, errors.New("not a JSON object")
	}
	out, err := c.convertInPlace(obj, isList, version, opts) // crConverter.ConvertToVersion, on a copy
	if err != nil {
		return nil, err
	}
	if isList {
		for _, it := range listItems(out) {
			if _, _, err := c.coerce(it, coercion{rootMeta: true}); err != nil { // each item, target schema
				return nil, err
			}
		}
		return out, nil
	}
	if _, _, err := c.coerce(out, coercion{rootMeta: true}); err != nil { // schemaCoercingConverter: target schema
		return nil, err
	}
	return out, nil
}

// convertNone is convert for one object with strategy None, in one copy:
// the root metadata read from in, the object copied and pruned with the
// target schema in one walk (prune.Copy), null pruning left out when in
// holds no nil, then the rest of coerce on the copy. The result is
// convert's (TestConvertFastCorpus, FuzzConvertFast). ok is false, and
// convert must be used, unless in is in the value model (the values
// normalizeValue keeps as they are; typed nil maps and slices are not) and
// names this CRD's kind, and the CRD is valid (its root metadata schema
// then holds nothing coerce would act on before the metadata is written
// back).
func (c *CRD) convertNone(in map[string]any, version string) (out map[string]any, err error, ok bool) {
	t := c.Version(version)
	if c.strategy() != apiextensionsv1.NoneConverter || len(c.lint) > 0 || c.preserveUnknownFields() || t == nil || t.schema == nil {
		return nil, nil, false
	}
	kind, _ := in["kind"].(string)
	if kind != c.Kind() {
		return nil, nil, false
	}
	nulls, plain := plainValue(in, 0)
	if !plain {
		return nil, nil, false
	}
	if err := c.checkVersions(in, false, version); err != nil {
		return nil, err, true
	}
	meta, foundMeta, _, err := objectmeta.Get(in, objectmeta.GetOptions{Prefix: "metadata"})
	if err != nil {
		return nil, err, true
	}
	cp, _ := prune.Copy(in, t.schema, prune.Options{Root: true, NoPaths: true}, nil)
	out = cp.(map[string]any)
	out["apiVersion"] = t.apiVersion // conversion.None
	if nulls {
		defaulting.PruneNulls(out, t.schema)
	}
	if ferr, _ := objectmeta.Coerce(nil, out, t.schema, objectmeta.CoerceOptions{}); ferr != nil {
		return nil, ferr, true
	}
	// kind and apiVersion are strings: coerce's rewrite of them is the
	// identity.
	if foundMeta {
		if err := objectmeta.Set(out, meta); err != nil {
			return nil, err, true
		}
	}
	return out, nil, true
}

// plainValue reports whether normalizeValue would return a copy of x equal
// to x (every value nil, bool, string, int64, float64, or a non-nil map or
// slice of such values, within maxWalkDepth), and whether x holds a nil.
func plainValue(x any, depth int) (nulls, ok bool) {
	if depth > maxWalkDepth {
		return false, false
	}
	switch t := x.(type) {
	case map[string]any:
		if t == nil {
			return false, false
		}
		for _, e := range t {
			n, ok := plainElem(e, depth)
			if !ok {
				return false, false
			}
			nulls = nulls || n
		}
	case []any:
		if t == nil {
			return false, false
		}
		for _, e := range t {
			n, ok := plainElem(e, depth)
			if !ok {
				return false, false
			}
			nulls = nulls || n
		}
	case nil:
		return true, true
	case bool, string, int64, float64:
	default:
		return false, false
	}
	return nulls, true
}

// plainElem is plainValue for an element of a map or slice at depth.
func plainElem(e any, depth int) (nulls, ok bool) {
	switch e.(type) {
	case bool, string, int64, float64:
		return false, true
	case nil:
		return true, true
	}
	return plainValue(e, depth+1)
}

// checkVersions is crConverter.ConvertToVersion's checks of the source
// and target versions, with the server's texts.
func (c *CRD) checkVersions(obj map[string]any, isList bool, version string) error {
	from := objectGVK(obj)
	to := runtimeschema.GroupVersion{Group: c.Group(), Version: version}
	if from.Group != to.Group {
		return fmt.Errorf("%v is unstructured and is not suitable for converting to %q", from.String(), to.String())
	}
	if c.Version(version) == nil {
		return fmt.Errorf("request to convert CR to an invalid group/version: %s", to.String())
	}
	if c.Version(from.Version) == nil {
		return fmt.Errorf("request to convert CR from an invalid group/version: %s", from.GroupVersion().String())
	}
	if isList {
		for i, it := range listItems(obj) {
			gv := objectGVK(it).GroupVersion()
			if gv.Group != c.Group() || c.Version(gv.Version) == nil {
				return fmt.Errorf("request to convert CR list failed, list index %d has invalid group/version: %s", i, gv.String())
			}
		}
	}
	return nil
}

// convertInPlace is crConverter.ConvertToVersion: the versions checked,
// then the strategy. With None it modifies obj and returns it.
func (c *CRD) convertInPlace(obj map[string]any, isList bool, version string, opts ConvertOptions) (map[string]any, error) {
	if err := c.checkVersions(obj, isList, version); err != nil {
		return nil, err
	}
	to := runtimeschema.GroupVersion{Group: c.Group(), Version: version}
	switch c.strategy() {
	case apiextensionsv1.NoneConverter:
		if isList {
			conversion.NoneList(obj, to.String())
		} else {
			obj["apiVersion"] = c.Version(version).apiVersion // conversion.None, without boxing a new string
		}
		return obj, nil
	case apiextensionsv1.WebhookConverter:
		wh := opts.Webhook
		if wh == nil {
			if c.webhookErr != nil {
				return nil, c.webhookErr
			}
			wh = c.webhook
		}
		if isList {
			return wh.ConvertList(opts.Context, obj, to.String())
		}
		return wh.Convert(opts.Context, obj, to.String())
	}
	return nil, fmt.Errorf("unknown conversion strategy %q for CRD %s", c.strategy(), c.Name())
}

// strategy is the CRD's conversion strategy (None by default).
func (c *CRD) strategy() apiextensionsv1.ConversionStrategyType {
	if conv := c.v1.Spec.Conversion; conv != nil {
		return conv.Strategy
	}
	return apiextensionsv1.NoneConverter
}

// objectGVK is the group, version and kind obj names, empty when its
// apiVersion does not parse (unstructured's GroupVersionKind).
func objectGVK(obj map[string]any) runtimeschema.GroupVersionKind {
	gv, err := runtimeschema.ParseGroupVersion(stringAt(obj, "apiVersion"))
	if err != nil {
		return runtimeschema.GroupVersionKind{}
	}
	return gv.WithKind(stringAt(obj, "kind"))
}

// listItems are the items of a list that are objects.
func listItems(list map[string]any) []map[string]any {
	raw, _ := list["items"].([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, it := range raw {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
