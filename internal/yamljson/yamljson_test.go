package yamljson_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/internal/docs"
	"github.com/crdkit/crdkit/internal/yamljson"
)

// check holds Convert to the library: when Convert answers, its bytes are
// YAMLToJSONStrict's and the library did not fail. It reports whether
// Convert answered.
func check(t *testing.T, in []byte) bool {
	t.Helper()
	got, ok := yamljson.Convert(nil, in)
	if !ok {
		return false
	}
	want, err := yaml.YAMLToJSONStrict(in)
	if err != nil {
		t.Fatalf("Convert(%q) = %s, want the library's error %v", in, got, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Convert(%q) = %s, want %s", in, got, want)
	}
	return true
}

// cases are YAML texts Convert must read as the library does (fast) or
// leave to it.
var cases = []struct {
	name, in string
	fast     bool
}{
	{"mapping", "a: 1\nb: x\n", true},
	{"keys sorted", "kind: Pod\napiVersion: v1\nmetadata:\n  name: x\n  labels:\n    z: 1\n    a: 2\n", true},
	{"nested sequence under key at same indent", "a:\n- x\n- y\nb: 2\n", true},
	{"nested sequence indented", "a:\n  - x\n  - y\nb: 2\n", true},
	{"compact mappings in sequence", "c:\n- name: a\n  image: b\n  ports:\n  - containerPort: 80\n    protocol: TCP\n- name: c\n", true},
	{"nested compact sequences", "- - a\n  - b\n- - c\n", true},
	{"empty values", "a:\nb:\n  c:\nd: ~\ne: null\n", true},
	{"empty sequence entry", "a:\n-\n- x\n-\n", true},
	{"entry with content below", "-\n  a: 1\n  b: 2\n- # c\n  x\n", true},
	{"comments", "# head\na: 1 # one\n  # indented comment\nb: 'x' # two\nc: \"y\"  # three\nd: a#b\n", true},
	{"blank lines", "a: 1\n\n\nb:\n\n  c: 2\n", true},
	{"quoted", "a: 'it''s'\nb: \"q\\\"\\\\\\n\\t\\u00e9\\x41\\U0001F600\"\nc: ''\nd: \"\"\n", true},
	{"html escaped", "a: <b>&amp;</b>\n\"<\": '>'\n", true},
	{"unicode", "a: héllo wörld — ✓\n", true},
	{"YAML 1.1 booleans", "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\ng: True\nh: yEs\n", true},
	{"numbers", "a: 1\nb: -2\nc: 0755\nd: 0x1F\ne: 1_000\nf: 1.5\ng: 1e3\nh: .5\ni: 08\nj: +3\nk: -0\nl: 1e-7\nm: 18446744073709551615\nnn: 99999999999999999999\n", true},
	{"number-like strings", "a: 100m\nb: 1.2.3\nc: 10Gi\nd: v1\ne: 1e\nf: 0x\ng: '1'\nh: -\n", false},
	{"number-like strings fast", "a: 100m\nb: 1.2.3\nc: 10Gi\nd: v1\ne: 1e\nf: 0x\ng: '1'\n", true},
	{"timestamps stay strings", "a: 2024-01-02\nb: 2024-01-02T03:04:05Z\nc: 2024-1-2 3:4:5\nd: 2024-13-45\n", true},
	{"literal block", "a: |\n  line 1\n    more\n\n  line 3\nb: |-\n  x\n\n\nc: |+\n  y\n\n\nd: x\n", true},
	{"folded block", "a: >\n  one\n  two\n\n  three\n    indented\n  four\nb: >-\n  x\n  y\n", true},
	{"block in sequence", "- |\n  a\n  b\n- >\n  c\n", true},
	{"empty block", "a: |\nb: 1\n", true},
	{"block with comment header", "a: | # c\n  x\n", true},
	{"flow", "a: []\nb: {}\nc: [x, 'y', \"z\", 1, true]\nd: {b: 1, a: x}\ne: [[a], {k: v}]\n", true},
	{"key with spaces and colons", "a b: 1\nhttp://x: 2\n\"q k\": 3\n'single': 4\n", true},
	{"indented document", "  a: 1\n  b: 2\n", true},
	{"top sequence", "- a\n- b: 1\n", true},
	{"deep", strings.Repeat("a:\n", 1) + "  b:\n    c:\n      - d:\n          e: f\n", true},

	{"duplicate key", "a: 1\na: 2\n", false},
	{"duplicate key out of order", "b: 1\na: 2\nb: 3\n", false},
	{"duplicate quoted key", "a: 1\n'a': 2\n", false},
	{"anchor", "a: &x 1\nb: *x\n", false},
	{"tag", "a: !!str 1\n", false},
	{"merge key", "a: {x: 1}\n<<: {y: 2}\n", false},
	{"multi-line plain", "a: one\n  two\n\n   three\n\n\n  four  \nb:\n- x\n  y\n  - z\n-  p\n\n", true},
	{"multi-line plain ends at comment", "a: one\n  two\n  # c\nb: 1\n", true},
	{"multi-line plain after a comment", "a: one # c\n  two\n", false},
	{"multi-line plain with mapping", "a: one\n  two: x\n", false},
	{"multi-line quoted", "a: 'one  \n  two\n\n   three '' x'\nb: \"x \\t \n  y\\  \n\n\n  z\"\nc:\n- 'p\n  q'\n", true},
	{"multi-line quoted key", "'a\n  b': 1\n", false},
	{"multi-line quoted dedented", "a: 'one\ntwo'\n", false},
	{"escaped line break", "a: \"one\\\n  two\"\n", false},
	{"tab", "a:\t1\n", false},
	{"carriage return", "a: 1\r\n", false},
	{"BOM", "\ufeffa: 1\n", false},
	{"non-UTF-8", "a: \xff\n", false},
	{"document end", "a: 1\n...\n", false},
	{"directive", "%YAML 1.1\n---\na: 1\n", false},
	{"scalar document", "hello\n", false},
	{"bool key", "yes: 1\n", false},
	{"int key", "1: a\n", false},
	{"null key", "~: a\n", false},
	{"nan", "a: .nan\n", false},
	{"inf", "a: -.inf\n", false},
	{"complex key", "? a\n: b\n", false},
	{"mapping in value", "a: b: c\n", false},
	{"bad indentation", "a:\n  b: 1\n c: 2\n", false},
	{"sequence entry in value", "a: - b\n", false},
	{"indentation indicators", "a: |2\n    x\n   y\n\n  z\nb: >-1\n  p\n q\nc:\n- |1+\n   r\n\n", true},
	{"indentation indicator 0", "a: |0\n  x\n", false},
	{"unknown escape", "a: \"\\/\"\n", false},
	{"no final line end", "a: 1", false},
	{"empty", "", false},
	{"comment only", "# x\n", false},
	{"flow over lines", "a: [x,\n  y]\n", false},
	{"flow without space", "a: [x,y]\n", false},
	{"trailing comma", "a: [x, ]\n", false},
	{"sequence after mapping at its column", "a: 1\n- b\n", false},
	{"emoji", "a: 😀\n", false},
}

func TestConvert(t *testing.T) {
	agree := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := check(t, []byte(tc.in)); got != tc.fast {
				_, err := yaml.YAMLToJSONStrict([]byte(tc.in))
				t.Errorf("Convert(%q) answered %v, want %v (library error: %v)", tc.in, got, tc.fast, err)
			} else if !t.Failed() {
				agree++
			}
		})
	}
	fmt.Printf("conformance: yamljson.Convert against sigs.k8s.io/yaml.YAMLToJSONStrict %d/%d hand-written cases\n", agree, len(cases))
}

// TestConvertCorpus holds Convert to the library on every document of the
// corpus, and counts the documents it reads itself.
func TestConvertCorpus(t *testing.T) {
	root, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found: set CRDKIT_CORPUS or put it at ../shared/corpus")
	}
	for _, sub := range []string{"objects", "crds"} {
		var total, fast int
		var slow []string
		err := filepath.WalkDir(filepath.Join(root, sub), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml")) {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			chunks, err := docs.Chunks(p, data)
			if err != nil {
				return err
			}
			for _, c := range chunks {
				if _, err := yaml.YAMLToJSONStrict(c.Text); err != nil {
					continue // the library's errors and warnings are not Convert's
				}
				total++
				if check(t, c.Text) {
					fast++
				} else {
					rel, _ := filepath.Rel(root, p)
					slow = append(slow, rel+":"+itoa(c.Line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !t.Failed() {
			fmt.Printf("conformance: yamljson.Convert against sigs.k8s.io/yaml.YAMLToJSONStrict on corpus %s %d/%d documents (converted, same bytes)\n", sub, fast, total)
		}
		t.Logf("yamljson: %s: %d/%d documents converted without the library; left to it: %s", sub, fast, total, strings.Join(slow, " "))
		if sub == "objects" && fast != total {
			t.Errorf("Convert left %d corpus objects to the library, want none: %s", total-fast, strings.Join(slow, " "))
		}
	}
}

// TestConvertJSONToYAML reads the YAML that yaml.JSONToYAML writes for
// every corpus object (the CLI benchmark's YAML files), all of it.
func TestConvertJSONToYAML(t *testing.T) {
	root, ok := corpus.Root()
	if !ok {
		t.Skip("corpus not found: set CRDKIT_CORPUS or put it at ../shared/corpus")
	}
	objects, err := corpus.Walk(filepath.Join(root, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	fast := 0
	for _, o := range objects {
		y, err := yaml.JSONToYAML(o.JSON)
		if err != nil {
			t.Fatal(err)
		}
		if check(t, y) {
			fast++
		} else {
			t.Errorf("Convert(JSONToYAML(%s)) is not sure, want it converted", o.Name)
		}
	}
	fmt.Printf("conformance: yamljson.Convert against sigs.k8s.io/yaml.YAMLToJSONStrict on JSONToYAML of corpus objects %d/%d\n", fast, len(objects))
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

func FuzzYAMLJSON(f *testing.F) {
	for _, tc := range cases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 1<<16 {
			return // the library's time, not Convert's, would bound the run
		}
		check(t, in)
	})
}
