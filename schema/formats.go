package schema

import (
	"net/mail"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// format is a format keyword as the server keeps it after its
// StripUnsupportedFormatsPostProcessor: the string formats of kube-openapi's
// strfmt registry that the server supports (names compared with dashes
// removed, so "date-time" is datetime), int32/int64 on integers and
// float/double on numbers. Every other format is dropped and validates
// nothing.
type format uint8

const (
	fmtNone format = iota
	fmtInt32
	fmtInt64
	fmtFloat
	fmtDouble
	// The string formats below are checked against string values.
	fmtBSONObjectID
	fmtURI
	fmtEmail
	fmtHostname
	fmtIPv4
	fmtIPv6
	fmtCIDR
	fmtMAC
	fmtUUID
	fmtUUID3
	fmtUUID4
	fmtUUID5
	fmtISBN
	fmtISBN10
	fmtISBN13
	fmtCreditCard
	fmtSSN
	fmtHexColor
	fmtRGBColor
	fmtByte
	fmtPassword
	fmtDate
	fmtDuration
	fmtDateTime
	fmtK8sShortName
	fmtK8sLongName
)

// isString reports whether f is one of the string formats, which kube-openapi
// validates against every string value.
func (f format) isString() bool { return f >= fmtBSONObjectID }

// effectiveFormat returns the format of s as the server's validator sees it:
// the keyword as written when the server keeps it, and what it checks.
func (s *Schema) effectiveFormat() (string, format) {
	if s.format == "" {
		return "", fmtNone
	}
	typ := s.typ
	if s.intOrString {
		typ = "" // the type list is [integer, string]: not a single type
	}
	var f format
	switch typ {
	case "", "string":
		f = stringFormat(s.format)
	case "integer":
		switch s.format {
		case "int32":
			f = fmtInt32
		case "int64":
			f = fmtInt64
		}
	case "number":
		switch s.format {
		case "float":
			f = fmtFloat
		case "double":
			f = fmtDouble
		}
	}
	if f == fmtNone {
		return "", fmtNone
	}
	return s.format, f
}

// FormatRecognized reports whether the server recognizes format on a schema
// node of type typ (its CRD strategy warns "unrecognized format" about
// the others, and its validator ignores them): the string formats of
// kube-openapi's registry that the server supports, names compared with
// dashes removed, on type string or no type; int32 and int64 on integer;
// float and double on number; none on other types. The empty format is
// recognized.
func FormatRecognized(typ, format string) bool {
	if format == "" {
		return true
	}
	switch typ {
	case "", "string":
		return stringFormat(format) != fmtNone
	case "integer":
		return format == "int32" || format == "int64"
	case "number":
		return format == "float" || format == "double"
	}
	return false
}

// stringFormat looks a format name up with its dashes removed, as both the
// server's post-processor and the strfmt registry compare names.
func stringFormat(name string) format {
	if strings.IndexByte(name, '-') < 0 {
		return stringFormatName(name)
	}
	var buf [16]byte
	n := 0
	for i := 0; i < len(name); i++ {
		if name[i] == '-' {
			continue
		}
		if n == len(buf) {
			return fmtNone // longer than any known name
		}
		buf[n] = name[i]
		n++
	}
	return stringFormatName(string(buf[:n]))
}

func stringFormatName(name string) format {
	switch name {
	case "bsonobjectid":
		return fmtBSONObjectID
	case "uri":
		return fmtURI
	case "email":
		return fmtEmail
	case "hostname":
		return fmtHostname
	case "ipv4":
		return fmtIPv4
	case "ipv6":
		return fmtIPv6
	case "cidr":
		return fmtCIDR
	case "mac":
		return fmtMAC
	case "uuid":
		return fmtUUID
	case "uuid3":
		return fmtUUID3
	case "uuid4":
		return fmtUUID4
	case "uuid5":
		return fmtUUID5
	case "isbn":
		return fmtISBN
	case "isbn10":
		return fmtISBN10
	case "isbn13":
		return fmtISBN13
	case "creditcard":
		return fmtCreditCard
	case "ssn":
		return fmtSSN
	case "hexcolor":
		return fmtHexColor
	case "rgbcolor":
		return fmtRGBColor
	case "byte":
		return fmtByte
	case "password":
		return fmtPassword
	case "date":
		return fmtDate
	case "duration":
		return fmtDuration
	case "datetime":
		return fmtDateTime
	case "k8sshortname":
		return fmtK8sShortName
	case "k8slongname":
		return fmtK8sLongName
	}
	return fmtNone
}

// validFormat reports whether str is valid for the string format f, with
// the checks of kube-openapi's strfmt registry. Only uri and email go
// through standard-library parsers that allocate; the other checks allocate
// nothing for valid values.
func validFormat(f format, str string) bool {
	switch f {
	case fmtBSONObjectID:
		return len(str) == 24 && allHex(str)
	case fmtURI:
		_, err := url.ParseRequestURI(str)
		return err == nil
	case fmtEmail:
		a, err := mail.ParseAddress(str)
		return err == nil && a.Address != ""
	case fmtHostname:
		return isHostname(str)
	case fmtIPv4:
		return sloppyIP(str) && strings.IndexByte(str, '.') >= 0
	case fmtIPv6:
		a, err := netip.ParseAddr(str)
		return err == nil && a.Zone() == "" && strings.IndexByte(str, ':') >= 0
	case fmtCIDR:
		return sloppyCIDR(str)
	case fmtMAC:
		return isMAC(str)
	case fmtUUID:
		return isUUID(str, 0)
	case fmtUUID3:
		return isUUID(str, '3')
	case fmtUUID4:
		return isUUID(str, '4')
	case fmtUUID5:
		return isUUID(str, '5')
	case fmtISBN:
		return isISBN10(str) || isISBN13(str)
	case fmtISBN10:
		return isISBN10(str)
	case fmtISBN13:
		return isISBN13(str)
	case fmtCreditCard:
		return isCreditCard(str)
	case fmtSSN:
		return isSSN(str)
	case fmtHexColor:
		return isHexColor(str)
	case fmtRGBColor:
		return isRGBColor(str)
	case fmtByte:
		return isBase64(str)
	case fmtPassword:
		return true
	case fmtDate:
		return isDate(str)
	case fmtDuration:
		return isDuration(str)
	case fmtDateTime:
		return isDateTime(str)
	case fmtK8sShortName:
		return len(str) <= 63 && isDNSLabel(str)
	case fmtK8sLongName:
		return len(str) <= 253 && isLongName(str)
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// isREspace is \s in Go's regexp syntax.
func isREspace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// isDate is time.Parse with the layout "2006-01-02".
func isDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// isDateTime is strfmt's date-time check: the text is lowercased and split
// at every "t"; the first part must be a date and the second must match
// ^(\d{2}):(\d{2}):(\d{2})(.\d+)?(z|[+-]\d{2}:\d{2})$ with the hour at most
// 23 and minutes and seconds at most 59. Later parts are ignored.
func isDateTime(s string) bool {
	if len(s) < 4 {
		return false
	}
	i := indexT(s)
	if i < 0 || !isDate(s[:i]) {
		return false
	}
	t := s[i+1:]
	if j := indexT(t); j >= 0 {
		t = t[:j]
	}
	if len(t) < 9 || !isDigit(t[0]) || !isDigit(t[1]) || t[2] != ':' || !isDigit(t[3]) ||
		!isDigit(t[4]) || t[5] != ':' || !isDigit(t[6]) || !isDigit(t[7]) {
		return false
	}
	if t[:2] > "23" || t[3:5] > "59" || t[6:8] > "59" {
		return false
	}
	rest := t[8:]
	if isZone(rest) {
		return true
	}
	// (.[0-9]+): any character but a newline, then digits.
	r, n := utf8.DecodeRuneInString(rest)
	if n == 0 || r == '\n' {
		return false
	}
	rest = rest[n:]
	d := 0
	for d < len(rest) && isDigit(rest[d]) {
		d++
	}
	return d > 0 && isZone(rest[d:])
}

// indexT is the index of the first 't' or 'T'; no other character
// lowercases to 't'.
func indexT(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 't' || s[i] == 'T' {
			return i
		}
	}
	return -1
}

func isZone(s string) bool {
	if s == "z" || s == "Z" {
		return true
	}
	return len(s) == 6 && (s[0] == '+' || s[0] == '-') && isDigit(s[1]) && isDigit(s[2]) &&
		s[3] == ':' && isDigit(s[4]) && isDigit(s[5])
}

// isDuration is strfmt's duration check: time.ParseDuration, or else a text
// holding at least one "<digits> <unit>" whose unit strfmt knows, every
// such number fitting an int.
func isDuration(s string) bool {
	if goDurationChars(s) {
		if _, err := time.ParseDuration(s); err == nil {
			return true
		}
	}
	ok := false
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		k := j
		for k < len(s) && isREspace(s[k]) {
			k++
		}
		l := k
		for l < len(s) {
			if c := s[l]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				l++
			} else if strings.HasPrefix(s[l:], "µ") {
				l += len("µ")
			} else {
				break
			}
		}
		if l == k {
			i = j
			continue
		}
		if !fitsInt(s[i:j]) {
			return false
		}
		if durationUnit(s[k:l]) {
			ok = true
		}
		i = l
	}
	return ok
}

// goDurationChars reports whether s holds only characters a Go duration can
// have, so that time.ParseDuration, whose errors allocate, is not asked
// about text it must refuse ("3 days").
func goDurationChars(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isDigit(c), c == '.', c == '+', c == '-',
			c == 'n', c == 's', c == 'u', c == 'm', c == 'h',
			c == 0xC2, c == 0xB5, c == 0xCE, c == 0xBC: // µ and μ
		default:
			return false
		}
	}
	return true
}

// fitsInt reports whether a string of ASCII digits parses as an int64.
func fitsInt(d string) bool {
	for len(d) > 1 && d[0] == '0' {
		d = d[1:]
	}
	const max = "9223372036854775807"
	return len(d) < len(max) || len(d) == len(max) && d <= max
}

// durationUnit reports whether strfmt accepts u (letters, compared in lower
// case): a unit name, or any word starting with the last, longest spelling
// of a unit ("minutes", "hours").
func durationUnit(u string) bool {
	var buf [8]byte
	lower := u
	if len(u) <= len(buf) {
		for i := 0; i < len(u); i++ {
			c := u[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		lower = string(buf[:len(u)])
	} else {
		lower = strings.ToLower(u)
	}
	switch lower {
	case "ns", "us", "µs", "ms", "s", "m", "h", "hr", "d", "w", "wk":
		return true
	}
	for _, p := range [...]string{"nano", "micro", "milli", "sec", "min", "hour", "day", "week"} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	return false
}

// isHostname is strfmt's hostname check: one label of a letter, digit or
// symbol followed by an optional dash and up to 62 more such characters, or
// dot-terminated labels of 1 to 63 characters (no dash at either end)
// followed by 2 to 63 letters; at most 255 bytes, and no dot-separated part
// longer than 63 bytes.
func isHostname(s string) bool {
	if len(s) > 255 || s == "" {
		return false
	}
	for rest := s; ; {
		i := strings.IndexByte(rest, '.')
		if i < 0 {
			if len(rest) > 63 {
				return false
			}
			break
		}
		if i > 63 {
			return false
		}
		rest = rest[i+1:]
	}
	last := strings.LastIndexByte(s, '.')
	if last < 0 {
		return hostSingleLabel(s)
	}
	tld := s[last+1:]
	n := 0
	for _, r := range tld {
		if !unicode.IsLetter(r) {
			return false
		}
		n++
	}
	if n < 2 || n > 63 {
		return false
	}
	for labels := s[:last]; ; {
		i := strings.IndexByte(labels, '.')
		if i < 0 {
			return hostLabel(labels)
		}
		if !hostLabel(labels[:i]) {
			return false
		}
		labels = labels[i+1:]
	}
}

// hostChar is [a-zA-Z0-9\p{S}\p{L}]; an invalid UTF-8 byte decodes to
// U+FFFD, a symbol, as in the regexp.
func hostChar(r rune) bool {
	return '0' <= r && r <= '9' || unicode.IsLetter(r) || unicode.IsSymbol(r)
}

func hostSingleLabel(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	if !hostChar(r) {
		return false
	}
	s = s[n:]
	if strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	count := 0
	for _, r := range s {
		if !hostChar(r) {
			return false
		}
		count++
	}
	return count <= 62
}

func hostLabel(s string) bool {
	if s == "" {
		return false
	}
	count := 0
	var last rune
	for i, r := range s {
		if i == 0 && !hostChar(r) {
			return false
		}
		if r != '-' && !hostChar(r) {
			return false
		}
		last = r
		count++
	}
	return count <= 63 && hostChar(last)
}

// sloppyIP is k8s.io/utils/net.ParseIPSloppy != nil: Go 1.16's parser,
// which allows leading zeros in IPv4 parts.
func sloppyIP(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			return sloppyIPv4(s)
		case ':':
			return sloppyIPv6(s)
		}
	}
	return false
}

// sloppyCIDR is k8s.io/utils/net.ParseCIDRSloppy without error.
func sloppyCIDR(s string) bool {
	i := strings.IndexByte(s, '/')
	if i < 0 {
		return false
	}
	addr, mask := s[:i], s[i+1:]
	bits := 32
	if !sloppyIPv4(addr) {
		bits = 128
		if !sloppyIPv6(addr) {
			return false
		}
	}
	n, c, ok := dtoi(mask)
	return ok && c == len(mask) && n <= bits
}

// dtoi parses leading decimal digits, failing at 0xFFFFFF or more.
func dtoi(s string) (n, i int, ok bool) {
	for i = 0; i < len(s) && isDigit(s[i]); i++ {
		n = n*10 + int(s[i]-'0')
		if n >= 0xFFFFFF {
			return 0, i, false
		}
	}
	return n, i, i > 0
}

// xtoi parses leading hex digits, failing at 0xFFFFFF or more.
func xtoi(s string) (n, i int, ok bool) {
	for i = 0; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			n = n*16 + int(c-'0')
		case 'a' <= c && c <= 'f':
			n = n*16 + int(c-'a') + 10
		case 'A' <= c && c <= 'F':
			n = n*16 + int(c-'A') + 10
		default:
			return n, i, i > 0
		}
		if n >= 0xFFFFFF {
			return 0, i, false
		}
	}
	return n, i, i > 0
}

func sloppyIPv4(s string) bool {
	for i := 0; i < 4; i++ {
		if s == "" {
			return false
		}
		if i > 0 {
			if s[0] != '.' {
				return false
			}
			s = s[1:]
		}
		n, c, ok := dtoi(s)
		if !ok || n > 0xFF {
			return false
		}
		s = s[c:]
	}
	return s == ""
}

func sloppyIPv6(s string) bool {
	ellipsis := -1
	if len(s) >= 2 && s[0] == ':' && s[1] == ':' {
		ellipsis = 0
		s = s[2:]
		if s == "" {
			return true
		}
	}
	i := 0
	for i < 16 {
		n, c, ok := xtoi(s)
		if !ok || n > 0xFFFF {
			return false
		}
		if c < len(s) && s[c] == '.' {
			if ellipsis < 0 && i != 12 || i+4 > 16 || !sloppyIPv4(s) {
				return false
			}
			s = ""
			i += 4
			break
		}
		i += 2
		s = s[c:]
		if s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return false
		}
		s = s[1:]
		if s[0] == ':' {
			if ellipsis >= 0 {
				return false
			}
			ellipsis = i
			s = s[1:]
			if s == "" {
				break
			}
		}
	}
	if s != "" {
		return false
	}
	if i < 16 {
		return ellipsis >= 0
	}
	return ellipsis < 0
}

// isMAC is net.ParseMAC without error: 6, 8 or 20 octets, as pairs of hex
// digits separated by ':' or '-', as groups of four separated by '.', or
// with no separator.
func isMAC(s string) bool {
	if len(s) < 12 {
		return false
	}
	octets := func(n int) bool { return n == 6 || n == 8 || n == 20 }
	switch {
	case s[2] == ':' || s[2] == '-':
		if (len(s)+1)%3 != 0 || !octets((len(s)+1)/3) {
			return false
		}
		for x := 0; x < len(s); x += 3 {
			if !hexPair(s[x:], s[2]) {
				return false
			}
		}
	case s[4] == '.':
		if (len(s)+1)%5 != 0 || !octets(2*(len(s)+1)/5) {
			return false
		}
		for x := 0; x < len(s); x += 5 {
			if !hexPair(s[x:x+2], 0) || !hexPair(s[x+2:], s[4]) {
				return false
			}
		}
	default:
		if len(s)%2 != 0 || !octets(len(s)/2) {
			return false
		}
		for x := 0; x < len(s); x += 2 {
			if !hexPair(s[x:x+2], 0) {
				return false
			}
		}
	}
	return true
}

// hexPair is net's xtoi2: two hex digits followed by the separator e or
// by nothing.
func hexPair(s string, e byte) bool {
	if len(s) > 2 && s[2] != e {
		return false
	}
	return len(s) >= 2 && isHex(s[0]) && isHex(s[1])
}

// isUUID matches 8-4-4-4-12 hex digits with each dash optional; version,
// when set, is the required first digit of the third group, and for
// versions 4 and 5 the fourth group starts with 8, 9, a or b.
func isUUID(s string, version byte) bool {
	groups := [5]int{8, 4, 4, 4, 12}
	for g, n := range groups {
		if g > 0 && s != "" && s[0] == '-' {
			s = s[1:]
		}
		if len(s) < n || !allHex(s[:n]) {
			return false
		}
		if g == 2 && version != 0 && s[0] != version {
			return false
		}
		if g == 3 && (version == '4' || version == '5') {
			if c := s[0] | 0x20; c != '8' && c != '9' && c != 'a' && c != 'b' {
				return false
			}
		}
		s = s[n:]
	}
	return s == ""
}

// isbnDigits removes the characters of [\s-] and returns at most 14 bytes
// of what remains, or false when more remain.
func isbnDigits(s string, buf *[14]byte) (string, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if isREspace(s[i]) || s[i] == '-' {
			continue
		}
		if n == len(buf) {
			return "", false
		}
		buf[n] = s[i]
		n++
	}
	return string(buf[:n]), true
}

func isISBN10(s string) bool {
	var buf [14]byte
	d, ok := isbnDigits(s, &buf)
	if !ok || len(d) != 10 || !allDigits(d[:9]) || !isDigit(d[9]) && d[9] != 'X' {
		return false
	}
	sum := 0
	for i := 0; i < 9; i++ {
		sum += (i + 1) * int(d[i]-'0')
	}
	if d[9] == 'X' {
		sum += 100
	} else {
		sum += 10 * int(d[9]-'0')
	}
	return sum%11 == 0
}

func isISBN13(s string) bool {
	var buf [14]byte
	d, ok := isbnDigits(s, &buf)
	if !ok || len(d) != 13 || !allDigits(d) {
		return false
	}
	sum := 0
	for i := 0; i < 12; i++ {
		w := 1
		if i%2 == 1 {
			w = 3
		}
		sum += w * int(d[i]-'0')
	}
	return int(d[12]-'0') == (10-sum%10)%10
}

// isCreditCard keeps the ASCII digits of s, matches them against the card
// number prefixes and lengths strfmt knows, and checks the Luhn sum.
func isCreditCard(s string) bool {
	var buf [20]byte
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			if n == len(buf) {
				return false
			}
			buf[n] = s[i]
			n++
		}
	}
	d := buf[:n]
	ok := false
	switch n {
	case 13:
		ok = d[0] == '4'
	case 14:
		ok = d[0] == '3' && (d[1] == '0' && '0' <= d[2] && d[2] <= '5' || d[1] == '6' || d[1] == '8')
	case 15:
		ok = d[0] == '3' && (d[1] == '4' || d[1] == '7') || string(d[:4]) == "2131" || string(d[:4]) == "1800"
	case 16:
		ok = d[0] == '4' || d[0] == '5' && '1' <= d[1] && d[1] <= '5' ||
			d[0] == '6' && (string(d[1:4]) == "011" || d[1] == '5') || string(d[:2]) == "35"
	}
	if !ok {
		return false
	}
	sum, double := 0, false
	for i := n - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if double {
			v *= 2
			if v >= 10 {
				v = v%10 + 1
			}
		}
		sum += v
		double = !double
	}
	return sum%10 == 0
}

func isSSN(s string) bool {
	return len(s) == 11 && allDigits(s[:3]) && (s[3] == '-' || s[3] == ' ') && allDigits(s[4:6]) &&
		(s[6] == '-' || s[6] == ' ') && allDigits(s[7:])
}

func isHexColor(s string) bool {
	s = strings.TrimPrefix(s, "#")
	return (len(s) == 3 || len(s) == 6) && allHex(s)
}

// isRGBColor matches rgb(r, g, b) with each component 0 to 255 without
// leading zeros and \s spaces around components.
func isRGBColor(s string) bool {
	s, ok := strings.CutPrefix(s, "rgb(")
	if !ok {
		return false
	}
	for i := 0; i < 3; i++ {
		s = trimREspace(s)
		j := 0
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		num := s[:j]
		if j == 0 || j > 3 || j > 1 && num[0] == '0' || j == 3 && num > "255" {
			return false
		}
		s = trimREspace(s[j:])
		sep := byte(',')
		if i == 2 {
			sep = ')'
		}
		if s == "" || s[0] != sep {
			return false
		}
		s = s[1:]
	}
	return s == ""
}

func trimREspace(s string) string {
	for s != "" && isREspace(s[0]) {
		s = s[1:]
	}
	return s
}

// isBase64 matches padded standard base64 of at least one group.
func isBase64(s string) bool {
	if len(s) < 4 || len(s)%4 != 0 {
		return false
	}
	b64 := func(c byte) bool {
		return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/'
	}
	n := len(s)
	for i := 0; i < n-2; i++ {
		if !b64(s[i]) {
			return false
		}
	}
	c, d := s[n-2], s[n-1]
	return b64(c) && (b64(d) || d == '=') || c == '=' && d == '='
}

// isDNSLabel matches [a-z0-9]([-a-z0-9]*[a-z0-9])?.
func isDNSLabel(s string) bool {
	if s == "" {
		return false
	}
	alnum := func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
	if !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if !alnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// isLongName matches dot-separated DNS labels.
func isLongName(s string) bool {
	for {
		i := strings.IndexByte(s, '.')
		if i < 0 {
			return isDNSLabel(s)
		}
		if !isDNSLabel(s[:i]) {
			return false
		}
		s = s[i+1:]
	}
}
