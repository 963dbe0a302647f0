package crdkit

import (
	"math"
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var errorTypes = []field.ErrorType{
	field.ErrorTypeNotFound, field.ErrorTypeRequired, field.ErrorTypeDuplicate, field.ErrorTypeInvalid,
	field.ErrorTypeNotSupported, field.ErrorTypeForbidden, field.ErrorTypeTooLong, field.ErrorTypeTooMany,
	field.ErrorTypeTooFew, field.ErrorTypeInternal, field.ErrorTypeTypeInvalid, field.ErrorTypeTooShort,
	"SomethingElse", "",
}

// checkErrorBody fails when errorBody(e) is not e.ErrorBody().
func checkErrorBody(t *testing.T, e *field.Error) {
	t.Helper()
	if got, want := errorBody(e), e.ErrorBody(); got != want {
		t.Fatalf("errorBody(%#v) = %q, want %q", e, got, want)
	}
}

// TestErrorBody compares errorBody with the server's ErrorBody on every
// error type and the values validation reports, and on values it leaves to
// ErrorBody.
func TestErrorBody(t *testing.T) {
	type named string
	values := []any{
		"", "x", `a "quoted" \ value`, "tab\there\nnewline", "héllo ✓", "\xff\xfe invalid", "\u2028\x7f\x00",
		"<value omitted>", int64(0), int64(-42), int64(math.MaxInt64), int64(math.MinInt64), 7, -1, math.MaxInt,
		int32(-5), true, false, nil, 1.5, 0.0, float32(2.25), 1e21, math.Inf(1), math.NaN(),
		map[string]any{"a": 1}, []any{"x", 2}, named("n"), field.OmitValueType{}, uint8(3), struct{ A int }{1},
	}
	details := []string{"", "must be of type string", "a detail: with colons", "ünïcode"}
	n := 0
	for _, ty := range errorTypes {
		for _, v := range values {
			for _, d := range details {
				checkErrorBody(t, &field.Error{Type: ty, Field: "spec.x", BadValue: v, Detail: d})
				n++
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		var v any = string(b)
		switch r.IntN(4) {
		case 1:
			v = int64(r.Uint64())
		case 2:
			v = int(r.Uint64())
		case 3:
			v = r.IntN(2) == 0
		}
		checkErrorBody(t, &field.Error{Type: errorTypes[r.IntN(len(errorTypes))], BadValue: v, Detail: string(b[:len(b)/2])})
		n++
	}
	t.Logf("%d errors agree", n)
}

func FuzzErrorBody(f *testing.F) {
	f.Add(uint8(3), uint8(0), "value", int64(5), "detail")
	f.Add(uint8(10), uint8(1), "\xff", int64(-1), "")
	f.Fuzz(func(t *testing.T, ty, kind uint8, s string, i int64, detail string) {
		var v any
		switch kind % 6 {
		case 0:
			v = s
		case 1:
			v = i
		case 2:
			v = int(i)
		case 3:
			v = int32(i)
		case 4:
			v = i%2 == 0
		case 5:
			v = float64(i) / 7
		}
		checkErrorBody(t, &field.Error{Type: errorTypes[int(ty)%len(errorTypes)], BadValue: v, Detail: detail})
	})
}
