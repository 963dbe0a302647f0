package crdkit

import (
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// errorBody is e.ErrorBody(), byte for byte, without fmt for the values
// validation reports (strings, integers, booleans, nothing): ErrorBody
// formats each with fmt.Sprintf twice, which is most of what a refused
// create costs beyond the checks themselves. Every other value (floats,
// maps, lists, other types) takes ErrorBody itself.
func errorBody(e *field.Error) string {
	var small [128]byte
	return string(appendErrorBody(small[:0], e))
}

// appendErrorBody appends errorBody(e) to b.
func appendErrorBody(b []byte, e *field.Error) []byte {
	switch e.Type {
	case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeTooLong,
		field.ErrorTypeTooShort, field.ErrorTypeInternal:
		b = append(b, e.Type.String()...)
	case field.ErrorTypeInvalid, field.ErrorTypeTypeInvalid, field.ErrorTypeNotSupported,
		field.ErrorTypeNotFound, field.ErrorTypeDuplicate, field.ErrorTypeTooMany, field.ErrorTypeTooFew:
		// As ErrorBody: %q of a string is strconv.Quote, %v of an integer
		// or a bool strconv's, and json.Marshal of an int or of nil the
		// same digits or "null".
		switch t := e.BadValue.(type) {
		case field.OmitValueType:
			b = append(b, e.Type.String()...)
		case string:
			b = strconv.AppendQuote(typed(b, e), t)
		case int64:
			b = strconv.AppendInt(typed(b, e), t, 10)
		case int:
			b = strconv.AppendInt(typed(b, e), int64(t), 10)
		case int32:
			b = strconv.AppendInt(typed(b, e), int64(t), 10)
		case bool:
			b = strconv.AppendBool(typed(b, e), t)
		case nil:
			b = append(typed(b, e), "null"...)
		default:
			return append(b, e.ErrorBody()...)
		}
	default:
		return append(b, e.ErrorBody()...)
	}
	if len(e.Detail) != 0 {
		b = append(b, ": "...)
		b = append(b, e.Detail...)
	}
	return b
}

// typed appends e's type and the ": " before its value to b.
func typed(b []byte, e *field.Error) []byte {
	b = append(b, e.Type.String()...)
	return append(b, ": "...)
}
