package main

import (
	"regexp"
	"strings"
	"testing"
)

// kindObjects has a ConfigMap, a Secret, a Deployment and a refused
// CronTab, and a List holding a Secret and an accepted CronTab.
const kindObjects = `apiVersion: v1
kind: ConfigMap
metadata: {name: c}
---
apiVersion: v1
kind: Secret
metadata: {name: s}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: x}
spec: {replicas: 50}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Secret, metadata: {name: in-list}}
- {apiVersion: stable.example.com/v1, kind: CronTab, metadata: {name: cron}}
`

func TestSkipReject(t *testing.T) {
	objs := writeFile(t, "objs.yaml", kindObjects)
	type verdict struct{ name, what string }
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []verdict // per object, in order: skipped, rejected, refused, accepted, not checked
	}{
		// ConfigMap, Secret and Deployment are built-in kinds: checked at the
		// decode level and accepted.
		{"none", nil, 1, []verdict{{"c", "accepted"}, {"s", "accepted"}, {"d", "accepted"}, {"x", "refused"}, {"in-list", "accepted"}, {"cron", "accepted"}}},
		{"skip by kind", []string{"--skip", "CronTab,ConfigMap"}, 0, []verdict{{"c", "skipped"}, {"s", "accepted"}, {"d", "accepted"}, {"x", "skipped"}, {"in-list", "accepted"}, {"cron", "skipped"}}},
		{"skip by apiVersion/kind", []string{"--skip", "stable.example.com/v1/CronTab", "--skip", "apps/v2/Deployment"}, 0, []verdict{{"c", "accepted"}, {"s", "accepted"}, {"d", "accepted"}, {"x", "skipped"}, {"in-list", "accepted"}, {"cron", "skipped"}}},
		{"reject", []string{"--reject", "v1/Secret,Deployment"}, 1, []verdict{{"c", "accepted"}, {"s", "rejected"}, {"d", "rejected"}, {"x", "refused"}, {"in-list", "rejected"}, {"cron", "accepted"}}},
		{"skip wins", []string{"--reject", "Secret", "--skip", "v1/Secret,CronTab"}, 0, []verdict{{"c", "accepted"}, {"s", "skipped"}, {"d", "accepted"}, {"x", "skipped"}, {"in-list", "skipped"}, {"cron", "skipped"}}},
		{"reject only", []string{"--reject", "Secret", "--skip", "CronTab"}, 1, []verdict{{"c", "accepted"}, {"s", "rejected"}, {"d", "accepted"}, {"x", "skipped"}, {"in-list", "rejected"}, {"cron", "skipped"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"validate", "--crds", "../../examples/crontab/crd.yaml", "-o", "json", objs}, tc.args...)
			code, out, errs := runCLI(t, args...)
			rs := decodeResults(t, out)
			var got []verdict
			for _, r := range rs {
				what := "refused"
				switch {
				case r.Skipped:
					what = "skipped"
				case r.NotChecked:
					what = "not checked"
				case r.Rejected:
					what = "rejected"
				case r.Allowed:
					what = "accepted"
				}
				got = append(got, verdict{r.Name, what})
			}
			if code != tc.code || len(got) != len(tc.want) {
				t.Fatalf("validate %v = %d, %v, want %d, %v\n%s", tc.args, code, got, tc.code, tc.want, errs)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("validate %v: result %d = %v, want %v", tc.args, i, got[i], tc.want[i])
				}
			}
			for _, r := range rs {
				if r.Rejected && (r.Checked || r.Allowed || r.Code != 0 || r.Message != "rejected: kind "+r.Kind+" is prohibited (--reject)") {
					t.Errorf("rejected result = %+v, want checked false, allowed false, no code, the --reject message", r)
				}
			}
			if len(tc.args) > 0 && !regexp.MustCompile(`, \d+ not checked, \d+ skipped, \d+ rejected, 0 errors,`).MatchString(errs) {
				t.Errorf("summary = %q, want the skipped and rejected counts", errs)
			}
		})
	}
}

func TestSkipRejectUsage(t *testing.T) {
	for _, v := range []string{"", "a//b", "/Kind", "a/b/c/d", "Kind,"} {
		code, _, errs := runCLI(t, "validate", "--skip", v, "../../examples/crontab/")
		if code != 2 || !strings.Contains(errs, "--skip: ") || !strings.Contains(errs, "is not a kind") {
			t.Errorf("validate --skip %q = %d %q, want 2 and the problem", v, code, errs)
		}
	}
}

// TestReportsRejectedAndSkipped checks that every CI format tells a
// rejected kind and a skipped one apart from the server's verdicts.
func TestReportsRejectedAndSkipped(t *testing.T) {
	objs := writeFile(t, "objs.yaml", kindObjects)
	for format, want := range map[string][]string{
		"junit":  {`type="rejected"`, `<skipped message="not checked: kind Deployment is skipped (--skip)">`},
		"tap":    {"Secret s: rejected (--reject)\n", "Deployment d # SKIP not checked: kind Deployment is skipped (--skip)\n"},
		"sarif":  {`"ruleId": "RejectedKind"`, `"text": "rejected: kind Secret is prohibited (--reject)"`},
		"github": {"::error file=" + objs + ",line=5,title=crdkit%3A Secret s rejected (--reject)::rejected: kind Secret is prohibited (--reject)\n", "Deployment d: not checked: kind Deployment is skipped (--skip)\n"},
	} {
		code, out, errs := runCLI(t, "validate", "--crds", "../../examples/crontab/crd.yaml", "--reject", "Secret", "--skip", "Deployment", "-o", format, objs)
		if code != 1 {
			t.Errorf("-o %s: exit %d, want 1\n%s", format, code, errs)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("-o %s: output lacks %q:\n%s", format, w, out)
			}
		}
	}
}

// TestReportsBuiltinKinds checks the CI formats on built-in kinds: an
// accepted ConfigMap says what its pass covers, a Deployment with an
// unknown field is the decoder's 400 placed at that field's line.
func TestReportsBuiltinKinds(t *testing.T) {
	objs := writeFile(t, "objs.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 1\n  replica: 2\n")
	_, js, _ := runCLI(t, "validate", "-o", "json", objs)
	rs := decodeResults(t, js)
	if len(rs) != 2 || !rs[0].Allowed || rs[0].Checks != "decode" || rs[1].Code != 400 || rs[0].Line != 1 || rs[1].Line != 5 {
		t.Fatalf("validate -o json = %+v, want an accepted ConfigMap (decode) at line 1, a 400 Deployment at line 5", rs)
	}
	for format, want := range map[string][]string{
		"junit":  {"<system-out>decode-level checks only: the server&#39;s decoding", `type="400 BadRequest"`},
		"tap":    {"ok 1 - " + tapEscape(rs[0].title()) + ": accepted (" + rs[0].Message + ")\n", "not ok 2 - "},
		"sarif":  {`"ruleId": "BadRequest"`, `"startLine": 10`},
		"github": {rs[0].title() + ": accepted (" + rs[0].Message + ")\n", "::error file=" + objs + ",line=10,title=crdkit%3A Deployment d refused (400 BadRequest)::" + escapeData(rs[1].Message)},
	} {
		code, out, errs := runCLI(t, "validate", "-o", format, objs)
		if code != 1 {
			t.Errorf("-o %s: exit %d, want 1\n%s", format, code, errs)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("-o %s: output lacks %q:\n%s", format, w, out)
			}
		}
	}
}
