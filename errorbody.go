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
	var s string
	switch e.Type {
	case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeTooLong,
		field.ErrorTypeTooShort, field.ErrorTypeInternal:
		s = e.Type.String()
	case field.ErrorTypeInvalid, field.ErrorTypeTypeInvalid, field.ErrorTypeNotSupported,
		field.ErrorTypeNotFound, field.ErrorTypeDuplicate, field.ErrorTypeTooMany, field.ErrorTypeTooFew:
		// As ErrorBody: %q of a string is strconv.Quote, %v of an integer
		// or a bool strconv's, and json.Marshal of an int or of nil the
		// same digits or "null".
		var v string
		switch t := e.BadValue.(type) {
		case field.OmitValueType:
			s = e.Type.String()
		case string:
			v = strconv.Quote(t)
		case int64:
			v = strconv.FormatInt(t, 10)
		case int:
			v = strconv.Itoa(t)
		case int32:
			v = strconv.FormatInt(int64(t), 10)
		case bool:
			v = strconv.FormatBool(t)
		case nil:
			v = "null"
		default:
			return e.ErrorBody()
		}
		if s == "" {
			if len(e.Detail) != 0 {
				return e.Type.String() + ": " + v + ": " + e.Detail
			}
			return e.Type.String() + ": " + v
		}
	default:
		return e.ErrorBody()
	}
	if len(e.Detail) != 0 {
		return s + ": " + e.Detail
	}
	return s
}
