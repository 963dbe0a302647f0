package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"
)

// TestAppendResultJSON holds appendResultJSON to the encoder -o json used
// before it, over results with every field set or empty and strings that
// need escaping.
func TestAppendResultJSON(t *testing.T) {
	strs := []string{"", "x", "stable.example.com/v1", "a\"b\\c", "<tag>&amp;", "tab\there\n", "ünïcødé", "\u2028\u2029", "\x7f\x01", string([]byte{0xff, 'a'})}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return strs[rng.IntN(len(strs))] }
	var buf bytes.Buffer
	enc := newIndentEncoder(&buf, "    ")
	checked := 0
	for i := range 20000 {
		r := objectResult{File: pick(), Index: rng.IntN(3), Path: pick(), APIVersion: pick(), Kind: pick(), Namespace: pick(), Name: pick(),
			Line: rng.IntN(3) - 1, Checked: rng.IntN(2) == 0, Allowed: rng.IntN(2) == 0, Code: int32(rng.IntN(600) - 100), Reason: pick(), Message: pick(),
			Skipped: rng.IntN(4) == 0}
		for range rng.IntN(3) {
			r.Warnings = append(r.Warnings, pick())
		}
		if i%7 == 0 {
			r.Warnings = []string{}
		}
		if i%11 == 0 {
			r.Causes = []cause{{Field: pick(), Reason: pick(), Message: pick()}}
		}
		if i%13 == 0 {
			r.NotChecked = true
		}
		got, ok := appendResultJSON(nil, &r)
		buf.Reset()
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimRight(buf.Bytes(), "\n")
		if !ok {
			if len(r.Causes) == 0 && !r.NotChecked {
				t.Fatalf("appendResultJSON(%+v) declined a plain result", r)
			}
			continue
		}
		checked++
		if !bytes.Equal(got, want) {
			t.Fatalf("appendResultJSON(%+v) =\n%s\nwant\n%s", r, got, want)
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d results encoded by appendResultJSON", checked)
	}
}

// TestProgressOffOnDevNull: standard error sent to /dev/null (a character
// device, not a terminal) gets no progress line, and so the output is not
// flushed at every document.
func TestProgressOffOnDevNull(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no %s: %v", os.DevNull, err)
	}
	defer f.Close()
	if p := newProgress(f); p.on {
		t.Errorf("newProgress(%s).on = true, want false", os.DevNull)
	}
}
