package printcolumns

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PrintOptions controls Print.
type PrintOptions struct {
	// Wide also prints columns with a priority other than 0 (kubectl -o wide).
	Wide bool
	// NoHeaders leaves out the header line (kubectl --no-headers).
	NoHeaders bool
	// WithNamespace prepends a NAMESPACE column read from each row's object
	// (kubectl --all-namespaces).
	WithNamespace bool
	// Missing is printed for a nil cell. kubectl prints nothing (""), which
	// is the default; "<none>" mimics kubectl's -o custom-columns.
	Missing string
}

// kubectl's tabwriter settings (cli-runtime printers.GetNewTabWriter).
const (
	tabMinWidth = 6
	tabWidth    = 4
	tabPadding  = 3
)

// Print writes t as `kubectl get` prints a table it received from the
// server: upper-cased column names, columns with a priority other than 0
// only when opts.Wide, cells aligned with a tabwriter using kubectl's
// spacing, and nothing at all (not even the header) when t has no rows.
//
// Cells print with fmt.Sprint; a nil cell prints opts.Missing. A string cell
// is cut at its first line break ("\n", "\r" or "\f") and marked with "...",
// and an escape character is shown as "^[", as kubectl does to keep cells on
// one line and terminals safe.
func Print(w io.Writer, t *metav1.Table, opts PrintOptions) error {
	defs := t.ColumnDefinitions
	visible := func(i int) bool { return opts.Wide || defs[i].Priority == 0 }
	if !opts.NoHeaders && len(t.Rows) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, tabMinWidth, tabWidth, tabPadding, ' ', 0)
	var line []byte
	if !opts.NoHeaders {
		first := true
		sep := func() {
			if !first {
				line = append(line, '\t')
			}
			first = false
		}
		if opts.WithNamespace {
			sep()
			line = append(line, "NAMESPACE"...)
		}
		for i := range defs {
			if !visible(i) {
				continue
			}
			sep()
			line = append(line, strings.ToUpper(defs[i].Name)...)
		}
		line = append(line, '\n')
	}
	for _, row := range t.Rows {
		first := true
		sep := func() {
			if !first {
				line = append(line, '\t')
			}
			first = false
		}
		if opts.WithNamespace {
			sep()
			ns, ok := rowNamespace(row)
			if ok {
				line = appendCell(line, ns)
			} else {
				line = appendCell(line, opts.Missing)
			}
		}
		for i, cell := range row.Cells {
			if i >= len(defs) {
				break // more cells than columns: ignored, as kubectl does
			}
			if !visible(i) {
				continue
			}
			sep()
			switch v := cell.(type) {
			case nil:
				line = appendCell(line, opts.Missing)
			case string:
				line = appendCell(line, v)
			default:
				line = appendCell(line, fmt.Sprint(v))
			}
		}
		line = append(line, '\n')
	}
	if _, err := tw.Write(line); err != nil {
		return err
	}
	return tw.Flush()
}

// rowNamespace returns the namespace of the row's object.
func rowNamespace(row metav1.TableRow) (string, bool) {
	if row.Object.Object == nil {
		return "", false
	}
	m, err := meta.Accessor(row.Object.Object)
	if err != nil {
		return "", false
	}
	return m.GetNamespace(), true
}

// appendCell appends a cell's text cut at its first line break, with "..."
// marking the cut, and escape characters made visible.
func appendCell(dst []byte, s string) []byte {
	cut := false
	if i := strings.IndexAny(s, "\f\n\r"); i >= 0 {
		s, cut = s[:i], true
	}
	for {
		i := strings.IndexByte(s, '\x1b')
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, "^["...)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	if cut {
		dst = append(dst, "..."...)
	}
	return dst
}
