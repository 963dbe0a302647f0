package validatediff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// formatSeeds are valid and nearly valid spellings per format; the test
// mutates them at random.
var formatSeeds = map[string][]string{
	"bsonobjectid":   {"507f1f77bcf86cd799439011", "507F1F77BCF86CD79943901", "507f1f77bcf86cd79943901g"},
	"uri":            {"http://example.com/a?b#c", "/rel/path", "*", "mailto:x@y", "http://[::1]:80/", "http://a b", "%zz"},
	"email":          {"a@b.c", "John <john@example.com>", "a@", "\"q\"@x.org", "a@[1.2.3.4]"},
	"hostname":       {"example.com", "a", "a-", "-a", "xn--p1ai.xn--p1ai", "ÿ.de", "a..b", "a.b1", "€.ab", strings.Repeat("a", 63) + ".com", strings.Repeat("a", 64)},
	"ipv4":           {"1.2.3.4", "01.002.3.4", "256.1.1.1", "::ffff:1.2.3.4", "1.2.3", "1.2.3.4.5"},
	"ipv6":           {"::1", "fe80::1%eth0", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8", "1::2::3", "::", "1.2.3.4"},
	"cidr":           {"10.0.0.0/8", "010.0.0.0/08", "::/0", "1.2.3.4/33", "fe80::/129", "1.2.3.4", "1.2.3.4/"},
	"mac":            {"00:1a:2B:3c:4D:5e", "00-1a-2b-3c-4d-5e", "001a.2b3c.4d5e", "001a2b3c4d5e", "00:1a:2b:3c:4d:5e:6f:70", "00:1a:2b:3c:4d"},
	"uuid":           {"123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000", "123E4567-E89B-12D3-A456-42661417400"},
	"uuid3":          {"a3bb189e-8bf9-3888-9912-ace4e6543002", "a3bb189e-8bf9-4888-9912-ace4e6543002"},
	"uuid4":          {"713ae7e3-cb32-45f9-adcb-7c4fa86b90c1", "713ae7e3-cb32-45f9-Adcb-7c4fa86b90c1", "713ae7e3-cb32-45f9-cdcb-7c4fa86b90c1"},
	"uuid5":          {"987fbc97-4bed-5078-af07-9141ba07c9f3", "987fbc97-4bed-5078-9f07-9141ba07c9f3"},
	"isbn":           {"0321751043", "978-0321751041", "0-321-75104-3", "123456789X", "9780321751042"},
	"isbn10":         {"0321751043", "0 321 75104 3", "123456789X", "123456789x"},
	"isbn13":         {"978-0321751041", "9780321751041", "978 0321751041"},
	"creditcard":     {"4111111111111111", "4111-1111-1111-1111", "5500 0000 0000 0004", "340000000000009", "30000000000004", "6011000000000004", "3530111333300000", "213100000000003"},
	"ssn":            {"111-11-1111", "111 11 1111", "111111111", "111-11-111a"},
	"hexcolor":       {"#FFF", "fff", "#ffffff", "#fffff", "#GGG"},
	"rgbcolor":       {"rgb(255,255,255)", "rgb( 0 , 10 ,99 )", "rgb(256,0,0)", "rgb(01,0,0)", "rgb(1,2)", "RGB(1,2,3)"},
	"byte":           {"aGVsbG8=", "aGVsbA==", "aGVs", "aGVsbG8", "", "a===", "////"},
	"password":       {"", "anything"},
	"date":           {"2006-01-02", "2006-02-30", "2006-1-2", "20060102", "0000-01-01", "2006-01-02T"},
	"duration":       {"1h30m", "3 days", "1 hour 2 minutes", "10 weeks", "5µs", "2 fortnights", "1.5h", "99999999999999999999s", "3 MINUTES"},
	"date-time":      {"2006-01-02T15:04:05Z", "2006-01-02t15:04:05.123+01:00", "2006-01-02T24:00:00Z", "2006-01-02 15:04:05Z", "2006-01-02T15:04:05", "2006-01-02T15:04:05Zt9", "2006-01-02T15:04:05x9Z"},
	"k8s-short-name": {"abc", "a-b", "-ab", "Abc", strings.Repeat("a", 63), strings.Repeat("a", 64)},
	"k8s-long-name":  {"a.b-c.d", "a..b", "a.", "A.b", strings.Repeat("a.", 126) + "a"},
	"datetime":       {"2006-01-02T15:04:05Z"},
	"unknown-format": {"x"},
}

// formatChars are the characters mutations insert.
var formatChars = []string{"0", "1", "9", "a", "f", "F", "x", "X", "T", "t", "Z", "z", ":", ".", "-", "/", "+", "%",
	" ", "\t", "\n", "@", "#", "(", ")", ",", "[", "]", "=", "é", "€", "µ", "中", "\xff", "s", "h", "m", "d", "w"}

func mutate(r *rand.Rand, s string) string {
	for n := r.IntN(3) + 1; n > 0; n-- {
		i := 0
		if len(s) > 0 {
			i = r.IntN(len(s) + 1)
		}
		switch r.IntN(3) {
		case 0: // insert
			s = s[:i] + formatChars[r.IntN(len(formatChars))] + s[i:]
		case 1: // delete
			if i < len(s) {
				s = s[:i] + s[i+1:]
			}
		default: // replace
			if i < len(s) {
				s = s[:i] + formatChars[r.IntN(len(formatChars))] + s[i+1:]
			}
		}
	}
	return s
}

// TestFormatsAgree checks every format the server keeps, through the whole
// validator, on seeds and random mutations of them; and the integer and
// number formats on boundary values.
func TestFormatsAgree(t *testing.T) {
	tl := &tally{}
	r := rand.New(rand.NewPCG(1, 2))
	names := make([]string, 0, len(formatSeeds))
	for name := range formatSeeds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		seeds := formatSeeds[name]
		for _, typ := range []string{"string", ""} {
			tg, err := newTarget("format "+name, &apiextensionsv1.JSONSchemaProps{Type: typ, Format: name})
			if err != nil {
				t.Fatal(err)
			}
			values := []any{int64(1), 2.5, true, nil, map[string]any{}, []any{"x"}}
			for _, s := range seeds {
				values = append(values, s)
				for i := 0; i < 400; i++ {
					values = append(values, mutate(r, s))
				}
			}
			for _, v := range values {
				tl.check(tg, fmt.Sprintf("%q", v), v)
			}
		}
	}
	numbers := []any{int64(0), int64(math.MaxInt32), int64(math.MaxInt32) + 1, int64(math.MinInt32), int64(math.MinInt32) - 1,
		int64(math.MaxInt64), int64(math.MinInt64), 2.0, 2.5, 1.0000000001, -0.0, 1e16, 9007199254740991.0, 9007199254740993.0,
		-9223372036854775808.0, 9223372036854775807.0, 9.223372036854775e18, 2147483647.0, 2147483648.0, -2147483649.0,
		math.MaxFloat32, 3.4028235677973366e38, 3.4028235677973362e38, 3.402823567797337e38, -3.4028235677973366e38,
		1e300, 5e-324, "7", true, nil}
	bounds := []*float64{nil, ptr(0.5), ptr(2.0), ptr(2147483648.0), ptr(1e300), ptr(-1e19), ptr(9.2233720368547758e18)}
	for _, typ := range []string{"integer", "number"} {
		for _, format := range []string{"", "int32", "int64", "float", "double", "byte"} {
			for _, b := range bounds {
				for _, excl := range []bool{false, true} {
					props := &apiextensionsv1.JSONSchemaProps{Type: typ, Format: format, Maximum: b, Minimum: negate(b),
						ExclusiveMaximum: excl, ExclusiveMinimum: excl, MultipleOf: b}
					tg, err := newTarget(fmt.Sprintf("%s/%s bound %v", typ, format, b), props)
					if err != nil {
						t.Fatal(err)
					}
					for _, v := range numbers {
						tl.check(tg, fmt.Sprintf("%v", v), v)
					}
				}
			}
		}
	}
	tl.report(t, "formats")
	fmt.Printf("conformance: validate-formats %d/%d cases agree (%d formats as strings and untyped, integer and number formats with bounds; %d invalid upstream)\n",
		tl.agree, tl.n, len(formatSeeds), tl.invalid)
}

func ptr[T any](v T) *T { return &v }

func negate(p *float64) *float64 {
	if p == nil {
		return nil
	}
	return ptr(-*p)
}
