package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// flags is a command's flag set and its help. Every command parses its
// arguments with parse, so that they all read flags the same way: anywhere
// on the line, as kubectl reads them, with -h and --help printing the help
// on standard output.
type flags struct {
	*flag.FlagSet
	// help is the command's help: its synopsis (the lines up to the first
	// blank line), then a description, examples and the exit status. The
	// flags are listed after it.
	help string
}

// newFlags returns the flag set of the command name, whose help is help.
func newFlags(name, help string) *flags {
	f := &flags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), help: help}
	f.Usage = func() {
		w := f.Output()
		fmt.Fprint(w, strings.TrimRight(f.help, "\n")+"\n")
		n := 0
		f.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprint(w, "\nFlags:\n")
			f.PrintDefaults()
		}
	}
	return f
}

// synopsis is the first paragraph of the help: the usage lines.
func (f *flags) synopsis() string {
	s, _, _ := strings.Cut(f.help, "\n\n")
	return strings.TrimRight(s, "\n")
}

// parse parses args: flags may come before, between or after the
// positional arguments, which it returns in order ("--" ends the flags; "-"
// is standard input, an argument). A one-letter flag may be joined to its
// value, as kubectl allows ("-ojson", "-nprod"). When it returns ok false
// the command returns status: 0 after -h or --help (the help printed on
// stdout), 2 after a flag error (the error and the synopsis on stderr).
func (f *flags) parse(args []string, stdout, stderr io.Writer) (rest []string, status int, ok bool) {
	usage := f.Usage
	f.Usage = func() {} // the flag package calls it on errors; parse prints its own
	defer func() { f.Usage = usage }()
	f.SetOutput(stderr)
	args = f.splitJoined(args)
	for {
		err := f.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			f.SetOutput(stdout)
			usage()
			f.SetOutput(stderr)
			return nil, 0, false
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s\nRun \"crdkit %s --help\" for the flags.\n", f.synopsis(), f.Name())
			return nil, 2, false
		}
		// The flag package stops at "--" (consumed) or at the first
		// argument; tell them apart by what was consumed.
		left := f.Args()
		if consumed := len(args) - len(left); consumed > 0 && args[consumed-1] == "--" {
			return append(rest, left...), 0, true
		}
		if len(left) == 0 {
			return rest, 0, true
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}

// splitJoined rewrites "-ojson" as "-o=json" when o is a one-letter flag
// and ojson is not a flag.
func (f *flags) splitJoined(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && !strings.Contains(a, "=") &&
			f.Lookup(a[1:]) == nil && f.Lookup(a[1:2]) != nil {
			a = a[:2] + "=" + a[2:]
		}
		out = append(out, a)
	}
	return out
}

// usageError reports a mistake in the command line (a missing argument, a
// value out of range) with the synopsis, on stderr, and returns 2.
func (f *flags) usageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "crdkit %s: %s\n%s\nRun \"crdkit %s --help\" for the flags.\n", f.Name(), fmt.Sprintf(format, a...), f.synopsis(), f.Name())
	return 2
}

// oneOf reports whether v is one of the values.
func oneOf(v string, values ...string) bool {
	for _, x := range values {
		if v == x {
			return true
		}
	}
	return false
}
