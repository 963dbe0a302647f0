package main

import (
	"strings"
	"testing"
)

func TestGetSelectors(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		rows   int    // table rows printed
		stderr string // contained in stderr
	}{
		{[]string{"--field-selector", "metadata.name=my-new-cron-object"}, 0, 1, ""},
		{[]string{"--field-selector", "metadata.name!=my-new-cron-object"}, 0, 0, "No resources found"},
		{[]string{"-l", "app=x"}, 0, 0, "No resources found"},
		{[]string{"--selector", "!app"}, 0, 1, ""},
		{[]string{"-l", "app in (a"}, 2, 0, "unable to parse requirement"},
		{[]string{"--field-selector", "spec.image=x"}, 2, 0, "field label not supported: spec.image"},
	} {
		args := append(append([]string{"get"}, tc.args...), "../../examples/crontab/")
		code, out, errs := runCLI(t, args...)
		rows := 0
		if lines := strings.Split(strings.TrimSpace(out), "\n"); out != "" {
			rows = len(lines) - 1
		}
		if code != tc.code || rows != tc.rows || !strings.Contains(errs, tc.stderr) {
			t.Errorf("crdkit %q = %d, %d rows, stderr %q; want %d, %d rows, stderr with %q", args, code, rows, errs, tc.code, tc.rows, tc.stderr)
		}
	}
}
