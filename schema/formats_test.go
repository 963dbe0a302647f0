package schema

import (
	"math/rand/v2"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The references below restate kube-openapi's strfmt checks with the
// regular expressions it documents; the hand-written matchers must agree
// with them on every input.

func refMatch(pattern string) func(string) bool {
	re := regexp.MustCompile(pattern)
	return re.MatchString
}

var (
	refHostnameRE = refMatch(`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`)
	refTimeRE     = regexp.MustCompile(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)
	refDurationRE = regexp.MustCompile(`((\d+)\s*([A-Za-zµ]+))`)
	refCardRE     = refMatch(`^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$`)
	refNotDigit   = regexp.MustCompile(`[^0-9]+`)
	refISBNSep    = regexp.MustCompile(`[\s-]+`)
	refISBN10RE   = refMatch(`^(?:[0-9]{9}X|[0-9]{10})$`)
	refISBN13RE   = refMatch(`^(?:[0-9]{13})$`)
)

func refHostname(s string) bool {
	if !refHostnameRE(s) || len(s) > 255 {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if len(p) > 63 {
			return false
		}
	}
	return true
}

func refDateTime(s string) bool {
	if len(s) < 4 {
		return false
	}
	parts := strings.Split(strings.ToLower(s), "t")
	if len(parts) < 2 {
		return false
	}
	if _, err := time.Parse("2006-01-02", parts[0]); err != nil {
		return false
	}
	m := refTimeRE.FindStringSubmatch(parts[1])
	return m != nil && m[1] <= "23" && m[2] <= "59" && m[3] <= "59"
}

func refDuration(s string) bool {
	if _, err := time.ParseDuration(s); err == nil {
		return true
	}
	units := [][]string{{"ns", "nano"}, {"us", "µs", "micro"}, {"ms", "milli"}, {"s", "sec"}, {"m", "min"},
		{"h", "hr", "hour"}, {"d", "day"}, {"w", "wk", "week"}}
	ok := false
	for _, m := range refDurationRE.FindAllStringSubmatch(s, -1) {
		if _, err := strconv.Atoi(m[2]); err != nil {
			return false
		}
		u := strings.ToLower(m[3])
		for _, vs := range units {
			for i, v := range vs {
				if i == len(vs)-1 && strings.HasPrefix(u, v) || strings.EqualFold(v, u) {
					ok = true
				}
			}
		}
	}
	return ok
}

func refCreditCard(s string) bool {
	d := refNotDigit.ReplaceAllString(s, "")
	if !refCardRE(d) {
		return false
	}
	sum, double := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			if n *= 2; n >= 10 {
				n = n%10 + 1
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

func refISBN(s string, version int) bool {
	d := refISBNSep.ReplaceAllString(s, "")
	switch version {
	case 10:
		if !refISBN10RE(d) {
			return false
		}
		sum := 0
		for i := range 9 {
			sum += (i + 1) * int(d[i]-'0')
		}
		if d[9] == 'X' {
			sum += 100
		} else {
			sum += 10 * int(d[9]-'0')
		}
		return sum%11 == 0
	case 13:
		if !refISBN13RE(d) {
			return false
		}
		sum := 0
		for i := range 12 {
			sum += []int{1, 3}[i%2] * int(d[i]-'0')
		}
		return int(d[12]-'0')-((10-sum%10)%10) == 0
	}
	return refISBN(s, 10) || refISBN(s, 13)
}

func refMAC(s string) bool {
	_, err := net.ParseMAC(s)
	return err == nil
}

func refIPv6(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ":") }

var formatRefs = []struct {
	name  string
	f     format
	ref   func(string) bool
	seeds []string
}{
	{"hostname", fmtHostname, refHostname, []string{"example.com", "a", "a-", "-a", "ÿ.de", "a..b", "a.b1", "€.ab", "a.b.c", ".com", "x.y.", strings.Repeat("a", 63) + ".com", strings.Repeat("b", 64), strings.Repeat("c.", 130) + "de"}},
	{"uuid", fmtUUID, refMatch(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`), []string{"123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000"}},
	{"uuid3", fmtUUID3, refMatch(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`), []string{"a3bb189e-8bf9-3888-9912-ace4e6543002", "a3bb189e-8bf9-3888-1912-ace4e6543002"}},
	{"uuid4", fmtUUID4, refMatch(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`), []string{"713ae7e3-cb32-45f9-adcb-7c4fa86b90c1", "713ae7e3-cb32-45f9-Bdcb-7c4fa86b90c1"}},
	{"uuid5", fmtUUID5, refMatch(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`), []string{"987fbc97-4bed-5078-af07-9141ba07c9f3"}},
	{"ssn", fmtSSN, func(s string) bool { return len(s) == 11 && refMatch(`^\d{3}[- ]?\d{2}[- ]?\d{4}$`)(s) }, []string{"111-11-1111", "111 11-1111"}},
	{"hexcolor", fmtHexColor, refMatch(`^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`), []string{"#fff", "ABCDEF", "#abcd"}},
	{"rgbcolor", fmtRGBColor, refMatch(`^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$`), []string{"rgb(0,10,255)", "rgb( 199 ,\t249, 250 )", "rgb(256,1,1)"}},
	{"byte", fmtByte, refMatch(`^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$`), []string{"aGVsbG8=", "aGVsbA==", "YWJj", "a/+="}},
	{"k8s-short-name", fmtK8sShortName, func(s string) bool { return len(s) <= 63 && refMatch(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)(s) }, []string{"abc", "a-b-c", strings.Repeat("a", 63)}},
	{"k8s-long-name", fmtK8sLongName, func(s string) bool {
		return len(s) <= 253 && refMatch(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)(s)
	}, []string{"a.b-c.d", strings.Repeat("a.", 126) + "a"}},
	{"bsonobjectid", fmtBSONObjectID, refMatch(`^[0-9a-fA-F]{24}$`), []string{"507f1f77bcf86cd799439011"}},
	{"date-time", fmtDateTime, refDateTime, []string{"2006-01-02T15:04:05Z", "2006-01-02t15:04:05.999+01:00", "2006-01-02T15:04:05ZT1", "2006-01-02T23:59:59Z", "2006-01-02T15:04:05Ä1Z"}},
	{"duration", fmtDuration, refDuration, []string{"1h30m", "3 days", "10 Weeks", "5µs", "1 hour 2 minutes", "99999999999999999999 s", "2x 3d", "1ns2"}},
	{"creditcard", fmtCreditCard, refCreditCard, []string{"4111 1111 1111 1111", "5500-0000-0000-0004", "340000000000009", "30000000000004", "6011000000000004", "3530111333300000", "213100000000003", "4222222222222"}},
	{"isbn", fmtISBN, func(s string) bool { return refISBN(s, 0) }, []string{"0321751043", "978-0321751041", "123456789X"}},
	{"isbn10", fmtISBN10, func(s string) bool { return refISBN(s, 10) }, []string{"0 321 75104 3"}},
	{"isbn13", fmtISBN13, func(s string) bool { return refISBN(s, 13) }, []string{"978\t0321751041"}},
	{"mac", fmtMAC, refMAC, []string{"00:1a:2b:3c:4d:5e", "00-1A-2B-3C-4D-5E", "001a.2b3c.4d5e", "001a2b3c4d5e", "00:1a:2b:3c:4d:5e:6f:70", "0000.0000.fe80.0000.0000.0000.0200.5e10.0000.0001"}},
	{"ipv6", fmtIPv6, refIPv6, []string{"::1", "fe80::1%eth0", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8", "1::2::3"}},
	{"date", fmtDate, func(s string) bool { _, err := time.Parse("2006-01-02", s); return err == nil }, []string{"2024-02-29", "2023-02-29"}},
}

var mutationChars = []string{"0", "1", "5", "9", "a", "f", "F", "X", "T", "t", "Z", "z", ":", ".", "-", "/", "+", "=",
	" ", "\t", "\n", "(", ")", ",", "#", "é", "€", "µ", "中", "\xff", "s", "h", "d", "w", "%"}

func mutateString(r *rand.Rand, s string) string {
	for n := r.IntN(3) + 1; n > 0; n-- {
		i := r.IntN(len(s) + 1)
		c := mutationChars[r.IntN(len(mutationChars))]
		switch r.IntN(3) {
		case 0:
			s = s[:i] + c + s[i:]
		case 1:
			if i < len(s) {
				s = s[:i] + s[i+1:]
			}
		default:
			if i < len(s) {
				s = s[:i] + c + s[i+1:]
			}
		}
	}
	return s
}

func TestFormatsMatchReferences(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range formatRefs {
		t.Run(c.name, func(t *testing.T) {
			if f := stringFormat(c.name); f != c.f {
				t.Fatalf("stringFormat(%q) = %v, want %v", c.name, f, c.f)
			}
			inputs := append([]string{""}, c.seeds...)
			for _, s := range c.seeds {
				for range 3000 {
					inputs = append(inputs, mutateString(r, s))
				}
			}
			valid := 0
			for _, s := range inputs {
				got, want := validFormat(c.f, s), c.ref(s)
				if got != want {
					t.Errorf("validFormat(%s, %q) = %v, want %v", c.name, s, got, want)
				}
				if got {
					valid++
				}
			}
			if valid == 0 {
				t.Errorf("no valid input among %d", len(inputs))
			}
		})
	}
}

func TestSloppyIP(t *testing.T) {
	cases := []struct {
		s          string
		ipv4, cidr bool
	}{
		{"1.2.3.4", true, false},
		{"01.002.3.004", true, false},
		{"256.1.1.1", false, false},
		{"1.2.3", false, false},
		{"::ffff:1.2.3.4", true, false},
		{"::ffff:01.2.3.4", true, false},
		{"1.2.3.4/24", false, true},
		{"010.0.0.0/08", false, true},
		{"1.2.3.4/33", false, false},
		{"::/0", false, true},
		{"fe80::/129", false, false},
		{"1::/64", false, true},
		{"1.2.3.4/", false, false},
		{"1.2.3.4/+1", false, false},
		{"::1", false, false},
		{"1:2:3:4:5:6:1.2.3.4", true, false},
		{"1:2:3:4:5:6:7:1.2.3.4", false, false},
	}
	for _, c := range cases {
		if got := validFormat(fmtIPv4, c.s); got != c.ipv4 {
			t.Errorf("ipv4 %q = %v, want %v", c.s, got, c.ipv4)
		}
		if got := validFormat(fmtCIDR, c.s); got != c.cidr {
			t.Errorf("cidr %q = %v, want %v", c.s, got, c.cidr)
		}
	}
	leadingZero := regexp.MustCompile(`(^|[.:])0[0-9a-fA-F]`)
	// Without leading zeros (which Go 1.16 accepted in both families) the
	// sloppy parser is Go's.
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		s := mutateString(r, []string{"1.2.3.4", "::1", "fe80::1:2", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4"}[r.IntN(5)])
		if strings.Contains(s, "%") || leadingZero.MatchString(s) {
			continue
		}
		if got, want := sloppyIP(s), net.ParseIP(s) != nil; got != want {
			t.Errorf("sloppyIP(%q) = %v, net.ParseIP says %v", s, got, want)
		}
	}
}

func TestEffectiveFormat(t *testing.T) {
	cases := []struct {
		schema, name string
		f            format
	}{
		{`{"type":"string","format":"date-time"}`, "date-time", fmtDateTime},
		{`{"type":"string","format":"d-a-t-e-t-i-m-e"}`, "d-a-t-e-t-i-m-e", fmtDateTime},
		{`{"format":"k8s-short-name"}`, "k8s-short-name", fmtK8sShortName},
		{`{"type":"string","format":"int32"}`, "", fmtNone},
		{`{"type":"integer","format":"int32"}`, "int32", fmtInt32},
		{`{"type":"integer","format":"date-time"}`, "", fmtNone},
		{`{"type":"number","format":"float"}`, "float", fmtFloat},
		{`{"type":"number","format":"int64"}`, "", fmtNone},
		{`{"type":"boolean","format":"byte"}`, "", fmtNone},
		{`{"x-kubernetes-int-or-string":true,"format":"int32"}`, "", fmtNone},
		{`{"x-kubernetes-int-or-string":true,"format":"date"}`, "date", fmtDate},
		{`{"type":"string","format":"` + strings.Repeat("-", 40) + `uri"}`, strings.Repeat("-", 40) + "uri", fmtURI},
		{`{"type":"string","format":"` + strings.Repeat("x", 40) + `"}`, "", fmtNone},
	}
	for _, c := range cases {
		name, f := mustCompile(t, c.schema).effectiveFormat()
		if name != c.name || f != c.f {
			t.Errorf("effectiveFormat(%s) = %q, %v, want %q, %v", c.schema, name, f, c.name, c.f)
		}
	}
}

func TestFormatsDoNotAllocate(t *testing.T) {
	skipAllocsUnlessPoolsReuse(t)
	valid := map[format]string{
		fmtBSONObjectID: "507f1f77bcf86cd799439011", fmtHostname: "example.com", fmtIPv4: "10.0.0.1",
		fmtIPv6: "fe80::1", fmtCIDR: "10.0.0.0/8", fmtMAC: "00:1a:2b:3c:4d:5e", fmtUUID: "123e4567-e89b-12d3-a456-426614174000",
		fmtISBN: "978-0321751041", fmtCreditCard: "4111 1111 1111 1111", fmtSSN: "111-11-1111", fmtHexColor: "#fff",
		fmtRGBColor: "rgb(1,2,3)", fmtByte: "aGVsbG8=", fmtDate: "2024-02-29", fmtDuration: "3 days",
		fmtDateTime: "2024-01-02T03:04:05Z", fmtK8sShortName: "a-b", fmtK8sLongName: "a.b",
	}
	for f, s := range valid {
		if !validFormat(f, s) {
			t.Errorf("validFormat(%v, %q) = false", f, s)
		}
		if n := testing.AllocsPerRun(10, func() { validFormat(f, s) }); n != 0 {
			t.Errorf("validFormat(%v, %q) allocates %v times", f, s, n)
		}
	}
	if n := testing.AllocsPerRun(10, func() { stringFormat("d-a-t-e-t-i-m-e") }); n != 0 {
		t.Errorf("stringFormat allocates %v times", n)
	}
}
