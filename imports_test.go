package crdkit

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The import rules of ../shared/DESIGN.md: the core packages import only
// the standard library and this module's internal packages; operation
// packages import no other operation package and never the facade;
// admission and generate sit above the facade, so neither the facade nor
// anything below it imports them. builtin imports no server package.
func TestImportRules(t *testing.T) {
	const mod = "github.com/crdkit/crdkit"
	core := map[string]bool{"schema": true, "prune": true, "defaulting": true, "versionsort": true}
	operations := map[string]bool{"prune": true, "defaulting": true, "objectmeta": true, "rules": true,
		"conversion": true, "versionsort": true, "printcolumns": true, "openapi": true, "fieldmanager": true}
	above := map[string]bool{"admission": true, "generate": true, "upgrade": true}
	for _, pkg := range []string{".", "schema", "prune", "defaulting", "versionsort", "objectmeta", "printcolumns", "rules", "conversion", "openapi", "fieldmanager", "definition", "builtin"} {
		if _, err := os.Stat(pkg); err != nil {
			continue // not there yet
		}
		for _, imp := range packageImports(t, pkg) {
			own := strings.HasPrefix(imp, mod+"/")
			rel := strings.TrimPrefix(imp, mod+"/")
			switch {
			case pkg == "builtin" && (strings.HasPrefix(imp, "k8s.io/apiserver") || strings.HasPrefix(imp, "k8s.io/apiextensions-apiserver")):
				t.Errorf("builtin imports %s: it reproduces the server's checks without the server's packages", imp)
			case own && above[rel]:
				t.Errorf("%s imports %s, which sits above the facade", pkg, imp)
			case pkg == ".":
				// The facade may import every package below it.
			case imp == mod:
				t.Errorf("%s imports the facade", pkg)
			case core[pkg] && !own && strings.Contains(strings.Split(imp, "/")[0], "."):
				t.Errorf("core package %s imports %s (only the standard library and %s/internal are allowed)", pkg, imp, mod)
			case core[pkg] && own && rel != "schema" && !strings.HasPrefix(rel, "internal/"):
				t.Errorf("core package %s imports %s", pkg, imp)
			case operations[pkg] && own && operations[rel]:
				t.Errorf("operation package %s imports operation package %s", pkg, rel)
			case pkg == "schema" && own && !strings.HasPrefix(rel, "internal/"):
				t.Errorf("schema imports %s", imp)
			}
		}
	}
}

// packageImports lists the imports of a directory's non-test Go files.
func packageImports(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out = append(out, p)
		}
	}
	if len(out) == 0 && len(files) > 0 {
		t.Logf("%s: no imports", dir)
	}
	return out
}
