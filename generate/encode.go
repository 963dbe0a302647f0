package generate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Number is a JSON number written verbatim ("2.0", "1e3",
// "99999999999999999999"), for cases that depend on how a number is spelled.
type Number string

// Member is one key of an [OrderedObject].
type Member struct {
	Key   string
	Value any
}

// OrderedObject is a JSON object written with its members in order, duplicates
// included, for cases that depend on duplicate keys.
type OrderedObject []Member

// Marshal encodes a generated value as compact JSON: map keys sorted, Number
// verbatim, OrderedObject members in order. Values are nil, bool, string, int64,
// int, float64, Number, []any, map[string]any and OrderedObject.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encode(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func encode(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		enc, _ := json.Marshal(x)
		b.Write(enc)
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("generate: cannot encode %v", x)
		}
		enc, _ := json.Marshal(x)
		b.Write(enc)
	case Number:
		b.WriteString(string(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encode(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			enc, _ := json.Marshal(k)
			b.Write(enc)
			b.WriteByte(':')
			if err := encode(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case OrderedObject:
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			enc, _ := json.Marshal(m.Key)
			b.Write(enc)
			b.WriteByte(':')
			if err := encode(b, m.Value); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("generate: cannot encode %T", v)
	}
	return nil
}

// decodeJSON decodes an enum, default or example value: integral numbers
// become int64, others float64, as the server's decoder does.
func decodeJSON(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return fromNumbers(v), nil
}

func fromNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case []any:
		for i := range x {
			x[i] = fromNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = fromNumbers(x[k])
		}
	}
	return v
}

// deepCopy copies a generated value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = deepCopy(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case OrderedObject:
		out := make(OrderedObject, len(x))
		for i, m := range x {
			out[i] = Member{m.Key, deepCopy(m.Value)}
		}
		return out
	}
	return v
}
