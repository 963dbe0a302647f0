// Command cliverdicts compares, object file by object file, the verdicts of
// `crdkit validate -o json` and `kubectl-validate --output json` on the
// workload of benchmarks/cli.sh (one object per file): it counts the files
// where both accept or both refuse, and lists the others with both
// messages.
//
//	go run ./benchmarks/cmd/cliverdicts CRDKIT.json KUBECTL-VALIDATE.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	agree, differ := 0, map[string][]string{}
	for _, r := range ck.Results {
		s, ok := kvBy[filepath.Base(r.File)]
		if !ok || r.NotChecked {
			continue
		}
		kvOK := s.Status == "Success"
		if kvOK == r.Allowed {
			agree++
			continue
		}
		// crdkit's verdict is the server's (the conformance suite checks it).
		why, msg := "kubectl-validate accepts, the server refuses", r.Message
		if !kvOK {
			why, msg = "kubectl-validate refuses, the server accepts", s.Message
		}
		differ[why] = append(differ[why], fmt.Sprintf("%s: %d %s", filepath.Base(r.File), max(r.Code, s.Code), firstLine(msg)))
	}
	total := agree
	for _, l := range differ {
		total += len(l)
	}
	fmt.Printf("same verdict (accepted or refused): %d/%d object files\n", agree, total)
	keys := make([]string, 0, len(differ))
	for k := range differ {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%s: %d, for example:\n", k, len(differ[k]))
		for _, l := range differ[k][:min(len(differ[k]), 10)] {
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
