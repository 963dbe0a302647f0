package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ErrorType names the kind of a field error. The values are exactly those of
// k8s.io/apimachinery's field.ErrorType, so the facade maps them one to one.
type ErrorType string

// The error types, with the same string values as field.ErrorType.
const (
	ErrorTypeNotFound     ErrorType = "FieldValueNotFound"
	ErrorTypeRequired     ErrorType = "FieldValueRequired"
	ErrorTypeDuplicate    ErrorType = "FieldValueDuplicate"
	ErrorTypeInvalid      ErrorType = "FieldValueInvalid"
	ErrorTypeNotSupported ErrorType = "FieldValueNotSupported"
	ErrorTypeForbidden    ErrorType = "FieldValueForbidden"
	ErrorTypeTooLong      ErrorType = "FieldValueTooLong"
	ErrorTypeTooMany      ErrorType = "FieldValueTooMany"
	ErrorTypeTooShort     ErrorType = "FieldValueTooShort"
	ErrorTypeTooFew       ErrorType = "FieldValueTooFew"
	ErrorTypeInternal     ErrorType = "InternalError"
	ErrorTypeTypeInvalid  ErrorType = "FieldValueTypeInvalid"
)

// label is the human text the server prints for each type.
func (t ErrorType) label() string {
	switch t {
	case ErrorTypeNotFound:
		return "Not found"
	case ErrorTypeRequired:
		return "Required value"
	case ErrorTypeDuplicate:
		return "Duplicate value"
	case ErrorTypeInvalid:
		return "Invalid value"
	case ErrorTypeNotSupported:
		return "Unsupported value"
	case ErrorTypeForbidden:
		return "Forbidden"
	case ErrorTypeTooLong:
		return "Too long"
	case ErrorTypeTooMany:
		return "Too many"
	case ErrorTypeTooShort:
		return "Too short"
	case ErrorTypeTooFew:
		return "Too few"
	case ErrorTypeInternal:
		return "Internal error"
	case ErrorTypeTypeInvalid:
		return "Invalid value"
	}
	return string(t)
}

// Error is one field error, shaped like the server's field.Error: a type, the
// rendered field path, the offending value (for the types that show one) and
// a detail text.
type Error struct {
	Type     ErrorType
	Field    string
	BadValue any
	Detail   string
}

// Error renders the error as "<field>: <body>", as the server does.
func (e *Error) Error() string { return e.Field + ": " + e.Body() }

// Body renders the error without its field, as in a Status cause message.
func (e *Error) Body() string {
	s := e.Type.label()
	switch e.Type {
	case ErrorTypeInvalid, ErrorTypeTypeInvalid, ErrorTypeNotSupported, ErrorTypeNotFound,
		ErrorTypeDuplicate, ErrorTypeTooMany, ErrorTypeTooFew:
		s += ": " + renderValue(e.BadValue)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func renderValue(v any) string {
	switch t := v.(type) {
	case int64, int32, float64, float32, bool:
		return fmt.Sprint(t)
	case string:
		return strconv.Quote(t)
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprintf("%#v", v)
}

// ErrorList is a list of field errors.
type ErrorList []*Error

// Error joins the errors as the server's aggregate does for one or more.
func (l ErrorList) Error() string {
	if len(l) == 1 {
		return l[0].Error()
	}
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// sortByText sorts errors by their rendered text, as the server's structural
// check does.
func (l ErrorList) sortByText() {
	sort.SliceStable(l, func(i, j int) bool { return l[i].Error() < l[j].Error() })
}

func required(p *Path, detail string) *Error {
	return &Error{Type: ErrorTypeRequired, Field: p.String(), Detail: detail}
}

func forbidden(p *Path, detail string) *Error {
	return &Error{Type: ErrorTypeForbidden, Field: p.String(), Detail: detail}
}

func invalid(p *Path, v any, detail string) *Error {
	return &Error{Type: ErrorTypeInvalid, Field: p.String(), BadValue: v, Detail: detail}
}

func notSupported(p *Path, v any, valid []string) *Error {
	q := make([]string, len(valid))
	for i, s := range valid {
		q[i] = strconv.Quote(s)
	}
	d := ""
	if len(q) > 0 {
		d = "supported values: " + strings.Join(q, ", ")
	}
	return &Error{Type: ErrorTypeNotSupported, Field: p.String(), BadValue: v, Detail: d}
}
