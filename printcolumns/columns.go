package printcolumns

import (
	"fmt"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/jsonpath"
)

// Columns is the compiled printer-column list of one CRD version: the column
// definitions of the server's Table (the implicit Name column first) and a
// program per column that reads the column's cell from an object. It is
// immutable and safe for concurrent use.
type Columns struct {
	defs []metav1.TableColumnDefinition
	cols []column
}

type column struct {
	typ cellType
	// prog evaluates the path directly; nil when the upstream engine must.
	prog *program
	// tmpl is the parsed upstream template. It is never executed in place:
	// each evaluation runs on a copy, because the engine keeps per-run state
	// in the JSONPath value.
	tmpl *jsonpath.JSONPath
	// stateful is set for templates using range/end, which the upstream
	// engine evaluates by rewriting the parsed tree; those are parsed afresh
	// for every evaluation.
	stateful   bool
	name, text string
}

// ColumnError reports a printer column whose jsonPath the server's JSONPath
// parser rejects. Its text is the one the server logs.
type ColumnError struct {
	Index    int    // position in the column list given to Compile
	JSONPath string // the column's jsonPath
	Err      error  // the parser's error
}

func (e *ColumnError) Error() string {
	return fmt.Sprintf("unrecognized column definition %q", e.JSONPath)
}

func (e *ColumnError) Unwrap() error { return e.Err }

// Compile compiles the additionalPrinterColumns of one CRD version. Each
// jsonPath is parsed once, with the server's JSONPath parser.
//
// An empty list gets the server's default: a single Age column
// (.metadata.creationTimestamp, type date). The implicit Name column
// (metadata.name) always comes first; Compile does not add an Age column when
// any column is defined.
//
// When a jsonPath does not parse, Compile returns a *ColumnError together
// with the columns before the bad one, in a usable *Columns. This is what the
// server does: it logs the error and serves tables with those columns, so a
// CRD with a bad column in third place shows Name and the first two columns.
// Callers that only want a fully valid list should treat the error as fatal.
// The CRD validation in ValidateColumn accepts most such paths (it only
// checks the leading '.').
func Compile(cols []apiextensionsv1.CustomResourceColumnDefinition) (*Columns, error) {
	doc := metav1.ObjectMeta{}.SwaggerDoc()
	if len(cols) == 0 {
		cols = []apiextensionsv1.CustomResourceColumnDefinition{{
			Name:        "Age",
			Type:        "date",
			Description: doc["creationTimestamp"],
			JSONPath:    ".metadata.creationTimestamp",
		}}
	}
	c := &Columns{
		defs: make([]metav1.TableColumnDefinition, 1, 1+len(cols)),
		cols: make([]column, 0, len(cols)),
	}
	c.defs[0] = metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: doc["name"]}
	for i, col := range cols {
		text := "{" + col.JSONPath + "}"
		tmpl, err := parseTemplate(col.Name, text)
		if err != nil {
			return c, &ColumnError{Index: i, JSONPath: col.JSONPath, Err: err}
		}
		desc := col.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + col.JSONPath
		}
		c.defs = append(c.defs, metav1.TableColumnDefinition{
			Name:        col.Name,
			Type:        col.Type,
			Format:      col.Format,
			Description: desc,
			Priority:    col.Priority,
		})
		c.cols = append(c.cols, column{
			typ:      parseCellType(col.Type),
			prog:     compileProgram(text),
			tmpl:     tmpl,
			stateful: hasIdentifier(text),
			name:     col.Name,
			text:     text,
		})
	}
	return c, nil
}

// parseTemplate parses text with the upstream JSONPath parser, turning a
// parser panic into an error.
func parseTemplate(name, text string) (tmpl *jsonpath.JSONPath, err error) {
	defer func() {
		if r := recover(); r != nil {
			tmpl, err = nil, fmt.Errorf("jsonpath parser panic: %v", r)
		}
	}()
	tmpl = jsonpath.New(name)
	if err := tmpl.Parse(text); err != nil {
		return nil, err
	}
	tmpl.AllowMissingKeys(true)
	return tmpl, nil
}

// hasIdentifier reports whether a template uses range or end (or any other
// identifier), anywhere in its tree.
func hasIdentifier(text string) bool {
	p, err := jsonpath.Parse("", text)
	if err != nil || p == nil {
		return true
	}
	var visit func(n jsonpath.Node) bool
	visit = func(n jsonpath.Node) bool {
		switch n := n.(type) {
		case *jsonpath.IdentifierNode:
			return true
		case *jsonpath.ListNode:
			return n != nil && slices.ContainsFunc(n.Nodes, visit)
		case *jsonpath.FilterNode:
			return visit(n.Left) || visit(n.Right)
		case *jsonpath.UnionNode:
			for _, l := range n.Nodes {
				if visit(l) {
					return true
				}
			}
		}
		return false
	}
	return visit(p.Root)
}

// ScaleColumns returns the columns the server uses for tables of the scale
// subresource: Desired (.spec.replicas) when the CRD sets specReplicasPath,
// Available (.status.replicas) when it sets statusReplicasPath, and Age. Like
// the server, it reads .spec.replicas and .status.replicas of the Scale
// object, not the CRD's own paths. scale may be nil.
func ScaleColumns(scale *apiextensionsv1.CustomResourceSubresourceScale) []apiextensionsv1.CustomResourceColumnDefinition {
	var cols []apiextensionsv1.CustomResourceColumnDefinition
	if scale != nil && scale.SpecReplicasPath != "" {
		cols = append(cols, apiextensionsv1.CustomResourceColumnDefinition{
			Name: "Desired", Type: "integer", Description: "Number of desired replicas", JSONPath: ".spec.replicas",
		})
	}
	if scale != nil && scale.StatusReplicasPath != "" {
		cols = append(cols, apiextensionsv1.CustomResourceColumnDefinition{
			Name: "Available", Type: "integer", Description: "Number of actual replicas", JSONPath: ".status.replicas",
		})
	}
	return append(cols, apiextensionsv1.CustomResourceColumnDefinition{
		Name: "Age", Type: "date", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"],
		JSONPath: ".metadata.creationTimestamp",
	})
}

// Len returns the number of columns, including Name.
func (c *Columns) Len() int { return len(c.defs) }

// Definitions returns a copy of the column definitions, Name first, as the
// server puts them in Table.ColumnDefinitions.
func (c *Columns) Definitions() []metav1.TableColumnDefinition { return slices.Clone(c.defs) }

// Row appends to dst the cells of obj's table row, Name first, and returns
// the extended slice. Ages are computed against now. Row does not modify obj;
// cells may share string values with it. Unlike Table, Row renders obj itself
// even when its top-level "items" is an array. With a dst of sufficient
// capacity, Row allocates only for cells it has to format (numbers printed
// in string columns, ages, JSON).
func (c *Columns) Row(dst []any, obj map[string]any, now time.Time) []any {
	dst = append(dst, objectName(obj))
	for i := range c.cols {
		dst = append(dst, c.cols[i].cell(obj, now))
	}
	return dst
}

// objectName returns metadata.name when it is a string, else "", reusing the
// interface value held in obj.
func objectName(obj map[string]any) any {
	if md, ok := obj["metadata"].(map[string]any); ok {
		if n := md["name"]; n != nil {
			if _, ok := n.(string); ok {
				return n
			}
		}
	}
	return ""
}

func (col *column) cell(obj map[string]any, now time.Time) any {
	var (
		v            any
		found, valid bool
	)
	if col.prog != nil {
		v, found, valid = col.prog.run(obj)
	}
	if !valid {
		v, found = col.find(obj)
	}
	if !found {
		return nil
	}
	return render(col.typ, v, now)
}

// find evaluates the column with the upstream engine and returns the first
// result. A failure, an empty result and a panic in the engine all give no
// result.
func (col *column) find(obj map[string]any) (v any, found bool) {
	defer func() {
		if r := recover(); r != nil {
			v, found = nil, false
		}
	}()
	var jp *jsonpath.JSONPath
	if col.stateful {
		var err error
		if jp, err = parseTemplate(col.name, col.text); err != nil {
			return nil, false
		}
	} else {
		run := *col.tmpl // the parsed tree is shared read-only; run state is not
		jp = &run
	}
	results, err := jp.FindResults(obj)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return nil, false
	}
	return results[0][0].Interface(), true
}
