// Command cliverdicts compares, object file by object file, the verdicts of
// `crdkit validate -o json` and `kubectl-validate --output json` on the
// workload of benchmarks/cli.sh (one object per file): it counts the files
// where both accept or both refuse, and sorts the others by why they
// differ (see reasons), listing a few of each and every one it cannot
// explain.
//
//	go run ./benchmarks/cmd/cliverdicts CRDKIT.json KUBECTL-VALIDATE.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

type crdkitOut struct {
	Results []struct {
		File       string `json:"file"`
		Allowed    bool   `json:"allowed"`
		NotChecked bool   `json:"notChecked"`
		Code       int    `json:"code"`
		Message    string `json:"message"`
	} `json:"results"`
}

type status struct {
	Status  string `json:"status"`
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details *struct {
		Causes []struct {
			Field   string `json:"field"`
			Message string `json:"message"`
		} `json:"causes"`
	} `json:"details"`
}

// The reasons kubectl-validate's verdict differs from the server's, as far
// as they are known.
const (
	whyStatus = "kubectl-validate refuses, the server accepts: every error is under status, which the server " +
		"resets on create when the CRD has a status subresource (kubectl-validate validates it)"
	whyGenerateName = "kubectl-validate refuses, the server accepts: the object has generateName and no name; the " +
		"server generates the name, kubectl-validate answers 500 \"metadata.name was not generated\""
	whyIntegralFloat = "kubectl-validate accepts, the server refuses: a number written with a fraction (261.0) in an " +
		"integer field is let through by the schema, but the server's CEL rules see a float64 (\"invalid data, " +
		"expected int, got float64 evaluating rule\"), which kubectl-validate does not"
	whyUnknown = "unexplained"
)

var statusPath = regexp.MustCompile(`"status[.\[]`)

// reason says why kubectl-validate's status s differs from the server's
// verdict (allowed, with message).
func reason(s status, allowed bool, message string) string {
	if allowed {
		if s.Details != nil && len(s.Details.Causes) > 0 && onlyStatus(s) {
			return whyStatus
		}
		if strings.Contains(s.Message, "metadata.name was not generated") {
			return whyGenerateName
		}
		return whyUnknown
	}
	if strings.Contains(message, "invalid data, expected int, got float64 evaluating rule") {
		return whyIntegralFloat
	}
	return whyUnknown
}

// onlyStatus reports whether every cause of s concerns status: its field is
// under status, or it is an aggregate (field <nil>) naming a status path or
// the note that follows any error.
func onlyStatus(s status) bool {
	for _, c := range s.Details.Causes {
		switch {
		case c.Field == "status" || strings.HasPrefix(c.Field, "status.") || strings.HasPrefix(c.Field, "status["):
		case c.Field == "<nil>" && (statusPath.MatchString(c.Message) ||
			strings.Contains(c.Message, "some validation rules were not checked because the object was invalid")):
		default:
			return false
		}
	}
	return true
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cliverdicts CRDKIT.json KUBECTL-VALIDATE.json")
		os.Exit(2)
	}
	var ck crdkitOut
	var kv map[string][]status
	for i, v := range []any{&ck, &kv} {
		data, err := os.ReadFile(os.Args[1+i])
		if err == nil {
			err = json.Unmarshal(data, v)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "cliverdicts: %s: %v\n", os.Args[1+i], err)
			os.Exit(2)
		}
	}
	kvBy := map[string]status{}
	for f, sts := range kv {
		if len(sts) == 1 {
			kvBy[filepath.Base(f)] = sts[0]
		}
	}
	agree, notChecked, differ := 0, 0, map[string][]string{}
	for _, r := range ck.Results {
		s, ok := kvBy[filepath.Base(r.File)]
		if r.NotChecked {
			notChecked++
			continue
		}
		if !ok {
			continue
		}
		kvOK := s.Status == "Success"
		if kvOK == r.Allowed {
			agree++
			continue
		}
		// crdkit's verdict is the server's (the conformance suite checks it).
		msg := r.Message
		if !kvOK {
			msg = s.Message
		}
		why := reason(s, r.Allowed, r.Message)
		differ[why] = append(differ[why], fmt.Sprintf("%s: %d %s", filepath.Base(r.File), max(r.Code, s.Code), firstLine(msg)))
	}
	total := agree
	for _, l := range differ {
		total += len(l)
	}
	fmt.Printf("same verdict (accepted or refused): %d/%d object files; unexplained differences: %d\n", agree, total, len(differ[whyUnknown]))
	if notChecked > 0 {
		fmt.Printf("not compared: %d documents crdkit did not check (no CRD serves the apiVersion and kind they name)\n", notChecked)
	}
	keys := make([]string, 0, len(differ))
	for k := range differ {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n := min(len(differ[k]), 3)
		if k == whyUnknown {
			n = len(differ[k])
		}
		fmt.Printf("%s: %d, for example:\n", k, len(differ[k]))
		for _, l := range differ[k][:n] {
			fmt.Println("  " + l)
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
