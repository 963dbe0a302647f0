package printcolumns

import (
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TableOptions controls Table and ObjectTable.
type TableOptions struct {
	// NoHeaders leaves ColumnDefinitions out, as the server does for
	// TableOptions.noHeaders (used by watches after the first event).
	NoHeaders bool
	// Now is the clock ages are computed against; nil means time.Now. It is
	// read once per table.
	Now func() time.Time
	// ListMeta is the metadata of the list the objects came from; Table
	// copies its resourceVersion, continue and remainingItemCount, as the
	// server does for a LIST. ObjectTable ignores it.
	ListMeta metav1.ListMeta
}

func (o *TableOptions) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// ErrItemNotObject is returned by Table and ObjectTable for an object whose
// top-level "items" is an array with an element that is not an object. The
// server fails the request with this text (HTTP 500).
var ErrItemNotObject = errors.New("items member is not an object: map[string]interface {}")

// Table returns the table the server sends for a LIST of objs with
// `Accept: application/json;as=Table;g=meta.k8s.io;v=v1`, as built by its
// table convertor: column definitions (unless opts.NoHeaders), list metadata
// from opts.ListMeta, and one row per object, in order, whose cells are
// Name then one cell per column and whose Object embeds the object as an
// *unstructured.Unstructured.
//
// Like the server, Table takes an object whose top-level "items" field is an
// array for a list: it gives one row per element of that array (recursively)
// instead of a row for the object, and fails with ErrItemNotObject when an
// element is not an object.
//
// The rows share the maps in objs; Table does not modify them. TypeMeta is
// left empty, as the convertor leaves it; the server's encoder fills it in
// (meta.k8s.io/v1, Table). The server's response also replaces each row's
// object according to the includeObject option (by default with its
// metadata only); Table embeds the whole object.
func (c *Columns) Table(objs []map[string]any, opts TableOptions) (*metav1.Table, error) {
	t := c.newTable(opts.NoHeaders)
	t.ResourceVersion = opts.ListMeta.ResourceVersion
	t.Continue = opts.ListMeta.Continue
	if n := opts.ListMeta.RemainingItemCount; n != nil {
		rc := *n
		t.RemainingItemCount = &rc
	}
	var err error
	if t.Rows, err = c.rows(objs, opts.now()); err != nil {
		return nil, err
	}
	return t, nil
}

// ObjectTable returns the table the server sends for a GET of the single
// object obj: as Table, with the resourceVersion, continue and
// remainingItemCount read from obj's own metadata, as the server's convertor
// reads them from a single object.
func (c *Columns) ObjectTable(obj map[string]any, opts TableOptions) (*metav1.Table, error) {
	t := c.newTable(opts.NoHeaders)
	u := unstructured.Unstructured{Object: obj}
	t.ResourceVersion = u.GetResourceVersion()
	t.Continue = u.GetContinue()
	t.RemainingItemCount = u.GetRemainingItemCount()
	var err error
	if t.Rows, err = c.rows([]map[string]any{obj}, opts.now()); err != nil {
		return nil, err
	}
	return t, nil
}

func (c *Columns) newTable(noHeaders bool) *metav1.Table {
	t := &metav1.Table{}
	if !noHeaders {
		t.ColumnDefinitions = c.Definitions()
	}
	return t
}

func (c *Columns) rows(objs []map[string]any, now time.Time) ([]metav1.TableRow, error) {
	for _, obj := range objs {
		if isList(obj) {
			return c.expandRows(make([]metav1.TableRow, 0, len(objs)), objs, now)
		}
	}
	// The common case: one row per object. Cells and wrappers are carved
	// out of two allocations.
	rows := make([]metav1.TableRow, len(objs))
	if len(objs) == 0 {
		return rows, nil
	}
	width := len(c.defs)
	cells := make([]any, 0, len(objs)*width)
	wrapped := make([]unstructured.Unstructured, len(objs))
	for i, obj := range objs {
		start := len(cells)
		cells = c.Row(cells, obj, now)
		wrapped[i].Object = obj
		rows[i] = metav1.TableRow{
			Cells:  cells[start:len(cells):len(cells)],
			Object: runtime.RawExtension{Object: &wrapped[i]},
		}
	}
	return rows, nil
}

// isList reports whether the server takes obj for a list: its "items" field
// is an array.
func isList(obj map[string]any) bool {
	_, ok := obj["items"].([]any)
	return ok
}

// expandRows appends the rows of objs, replacing each list-like object by the
// rows of its items, depth first.
func (c *Columns) expandRows(rows []metav1.TableRow, objs []map[string]any, now time.Time) ([]metav1.TableRow, error) {
	for _, obj := range objs {
		items, ok := obj["items"].([]any)
		if !ok {
			rows = append(rows, metav1.TableRow{
				Cells:  c.Row(make([]any, 0, len(c.defs)), obj, now),
				Object: runtime.RawExtension{Object: &unstructured.Unstructured{Object: obj}},
			})
			continue
		}
		children := make([]map[string]any, len(items))
		for i, item := range items {
			child, ok := item.(map[string]any)
			if !ok {
				return nil, ErrItemNotObject
			}
			children[i] = child
		}
		var err error
		if rows, err = c.expandRows(rows, children, now); err != nil {
			return nil, err
		}
	}
	return rows, nil
}
