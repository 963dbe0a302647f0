package printcolumns

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/util/jsonpath"
)

// cellType is a column's type, decided once at compile time.
type cellType uint8

const (
	typeOther cellType = iota // any type the server does not know: always nil
	typeString
	typeInteger
	typeNumber
	typeBoolean
	typeDate
)

func parseCellType(t string) cellType {
	switch t {
	case "string":
		return typeString
	case "integer":
		return typeInteger
	case "number":
		return typeNumber
	case "boolean":
		return typeBoolean
	case "date":
		return typeDate
	}
	return typeOther
}

// Texts the server puts in cells.
const (
	noValue     = "<no value>" // a JSON null in a string column
	unknownDate = "<unknown>"  // an empty, "null" or zero timestamp
	invalidDate = "<invalid>"  // an unparsable timestamp, or one more than a second ahead
)

// render turns the first value a column's path found into the cell the server
// returns. Where the cell is the value unchanged, render returns v itself so
// that no new interface value is allocated.
func render(t cellType, v any, now time.Time) any {
	if t == typeString {
		return stringCell(v)
	}
	if v == nil {
		return nil
	}
	switch t {
	case typeInteger:
		switch x := v.(type) {
		case int64:
			return v
		case float64:
			return int64(x) // truncation, as the server does
		case json.Number:
			if i, err := x.Int64(); err == nil {
				return i
			}
		}
	case typeNumber:
		switch x := v.(type) {
		case int64:
			return float64(x)
		case float64:
			return v
		case json.Number:
			if f, err := x.Float64(); err == nil {
				return f
			}
		}
	case typeBoolean:
		if _, ok := v.(bool); ok {
			return v
		}
	case typeDate:
		if s, ok := v.(string); ok {
			return dateCell(s, now)
		}
	}
	return nil
}

// stringCell prints v as the JSONPath printer does: objects and arrays as
// compact JSON with sorted keys, null as "<no value>", other values with
// fmt.Fprint. A value that cannot be printed gives a nil cell.
func stringCell(v any) any {
	switch x := v.(type) {
	case nil:
		return noValue
	case string:
		return v
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return fmt.Sprint(x)
	case bool:
		if x {
			return "true"
		}
		return "false"
	case map[string]any, []any:
		b, err := json.Marshal(x)
		if err != nil {
			return nil
		}
		return string(b)
	}
	// Go types outside the JSON model: let the upstream printer decide.
	var buf bytes.Buffer
	if err := jsonpath.New("").PrintResults(&buf, []reflect.Value{reflect.ValueOf(v)}); err != nil {
		return nil
	}
	return buf.String()
}

// dateCell renders a timestamp as the age the server shows: RFC 3339 text is
// parsed; "" and "null" are the zero time.
func dateCell(s string, now time.Time) any {
	if s == "" || s == "null" {
		return unknownDate
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return invalidDate
	}
	if t.IsZero() {
		return unknownDate
	}
	return duration.HumanDuration(now.Sub(t))
}
