package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMECommands runs every "go run ./cmd/crdkit" line of the README's
// sh blocks (in-process, from the repository's root) and checks that none
// is a usage or load error, and that the first command prints what the
// README shows. A line piped from "kubectl get crontabs" reads
// examples/lists/crontabs.yaml, a List as kubectl prints it; the lines that
// need the conversion webhook running are left to its own test
// (examples/conversion-webhook).
func TestREADMECommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..")
	var cmds []string
	for _, block := range strings.Split(string(readme), "```sh\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		block = strings.ReplaceAll(block, "\\\n", " ")
		for _, l := range strings.Split(block, "\n") {
			if strings.Contains(l, "go run ./cmd/crdkit ") && !strings.Contains(l, "--webhook-ca") {
				cmds = append(cmds, l)
			}
		}
	}
	if len(cmds) < 8 {
		t.Fatalf("found %d crdkit commands in the README, want at least 8", len(cmds))
	}
	for _, line := range cmds {
		t.Run(line, func(t *testing.T) {
			pipe, cmd, piped := strings.Cut(line, "|")
			if !piped {
				cmd = pipe
			}
			cmd, _, _ = strings.Cut(cmd, "#") // a comment
			args := strings.Fields(strings.TrimPrefix(strings.TrimSpace(cmd), "go run ./cmd/crdkit"))
			for i, a := range args { // a word the shell would unquote ('!app')
				if len(a) > 1 && a[0] == '\'' && a[len(a)-1] == '\'' {
					args[i] = a[1 : len(a)-1]
				}
			}
			var code int
			var out, errs string
			switch {
			case !piped:
				code, out, errs = runCLI(t, args...)
			case strings.HasPrefix(strings.TrimSpace(pipe), "kubectl get crontabs"):
				list, err := os.ReadFile("examples/lists/crontabs.yaml")
				if err != nil {
					t.Fatal(err)
				}
				code, out, errs = runStdin(t, string(list), args...)
			default:
				t.Fatalf("no input for %q", pipe)
			}
			if code == 2 || out == "" {
				t.Errorf("crdkit %q = %d (usage or load error, or nothing printed)\n%s%s", args, code, out, errs)
			}
			if args[0] == "lint" && args[1] == "examples/" {
				_, shown, _ := strings.Cut(string(readme), "notes on standard\nerror the object documents it skipped:\n\n```\n")
				shown, _, _ = strings.Cut(shown, "```")
				if shown == "" || out != shown || code != 1 {
					t.Errorf("crdkit lint examples/ = %d\n%s\nwant 1 and what the README shows:\n%s", code, out, shown)
				}
			}
		})
	}
}
