package yamljson

import (
	"bytes"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// kind is what go-yaml v2 decodes a plain scalar to, in an interface{}.
type kind uint8

const (
	kindStr     kind = iota
	kindNull         // ~, null, ...
	kindTrue         // y, yes, true, on, ...
	kindFalse        // n, no, false, off, ...
	kindDecimal      // an integer written as encoding/json writes it
	kindInt          // another int64
	kindUint         // a uint64 beyond int64
	kindFloat        // a float64 (finite)
	kindUnsure       // NaN, infinities, binary forms: left to the library
)

// resolve tells what the plain scalar s decodes to, with its value for
// numbers. Its rules are go-yaml v2's (resolve.go): a first character
// that can start neither a number nor a word of the table makes a string;
// then the table; then, for a sign or a digit, a timestamp (which stays a
// string in an interface{}), an integer of any base Go reads (underscores
// dropped), an unsigned one, a float of YAML's form.
func resolve(s []byte) (k kind, i int64, u uint64, f float64) {
	switch s[0] {
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~':
		switch string(s) {
		case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
			return kindTrue, 0, 0, 0
		case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
			return kindFalse, 0, 0, 0
		case "~", "null", "Null", "NULL":
			return kindNull, 0, 0, 0
		}
		return kindStr, 0, 0, 0
	case '.':
		switch string(s) {
		case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF":
			return kindUnsure, 0, 0, 0
		}
		if !only(s, "0123456789eE+-._") {
			return kindStr, 0, 0, 0 // strconv.ParseFloat fails on it
		}
		if v, err := strconv.ParseFloat(string(s), 64); err == nil {
			return kindFloat, 0, 0, v
		}
		return kindStr, 0, 0, 0
	case '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return number(s)
	}
	return kindStr, 0, 0, 0
}

func number(s []byte) (k kind, i int64, u uint64, f float64) {
	switch string(s) {
	case "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return kindUnsure, 0, 0, 0
	}
	if decimal(s) {
		return kindDecimal, 0, 0, 0
	}
	if timestamp(s) {
		return kindStr, 0, 0, 0
	}
	if !only(s, "0123456789abcdefABCDEFxXoO+-._") {
		return kindStr, 0, 0, 0 // no parse below succeeds
	}
	plain := string(bytes.ReplaceAll(s, []byte("_"), nil))
	if v, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return kindInt, v, 0, 0
	}
	if v, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return kindUint, 0, v, 0
	}
	if yamlFloat(plain) {
		if v, err := strconv.ParseFloat(plain, 64); err == nil {
			return kindFloat, 0, 0, v
		}
	}
	if len(plain) > 1 && plain[0] == '0' && plain[1] == 'b' || len(plain) > 2 && plain[:3] == "-0b" {
		return kindUnsure, 0, 0, 0
	}
	return kindStr, 0, 0, 0
}

// decimal reports whether s is an integer that strconv.ParseInt reads and
// strconv.AppendInt writes back the same: no sign but "-", no leading
// zero, at most 18 digits.
func decimal(s []byte) bool {
	d := s
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || d[0] == '0' && (len(d) > 1 || len(s) > 1) {
		return false
	}
	for _, b := range d {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}

// timestampLayouts are the forms go-yaml v2 reads as timestamps.
var timestampLayouts = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// timestamp reports whether go-yaml v2 reads s as a timestamp: four
// digits, "-", and one of its layouts.
func timestamp(s []byte) bool {
	if len(s) < 5 || s[4] != '-' || !only(s[:4], "0123456789") {
		return false
	}
	for _, l := range timestampLayouts {
		if _, err := time.Parse(l, string(s)); err == nil {
			return true
		}
	}
	return false
}

// yamlFloat reports whether s has YAML 1.1's float form:
// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
func yamlFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func only(s []byte, set string) bool {
	for _, b := range s {
		if !bytes.ContainsRune([]byte(set), rune(b)) {
			return false
		}
	}
	return true
}

// appendPlain appends the JSON of the plain scalar s; false when Convert
// leaves it to the library.
func appendPlain(dst, s []byte) ([]byte, bool) {
	k, i, u, f := resolve(s)
	switch k {
	case kindStr:
		return appendString(dst, s), true
	case kindNull:
		return append(dst, "null"...), true
	case kindTrue:
		return append(dst, "true"...), true
	case kindFalse:
		return append(dst, "false"...), true
	case kindDecimal:
		return append(dst, s...), true
	case kindInt:
		return strconv.AppendInt(dst, i, 10), true
	case kindUint:
		return strconv.AppendUint(dst, u, 10), true
	case kindFloat:
		return appendFloat(dst, f), true
	}
	return dst, false
}

// appendFloat writes a finite float64 as encoding/json does: the shortest
// form that reads back, in exponent form below 1e-6 and from 1e21, with
// a one-digit negative exponent kept short.
func appendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// "1e-07" to "1e-7"
		if m := len(dst); m-n >= 4 && dst[m-4] == 'e' && dst[m-3] == '-' && dst[m-2] == '0' {
			dst[m-2] = dst[m-1]
			dst = dst[:m-1]
		}
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// jsonSafe holds the ASCII bytes encoding/json writes as they are, with
// HTML escaping on.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = true
	}
	for _, b := range `"\<>&` {
		t[b] = false
	}
	return t
}()

// appendString appends s as encoding/json.Marshal writes a string.
func appendString(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == 0x2028 || r == 0x2029:
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
