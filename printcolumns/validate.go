package printcolumns

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Allowed values, sorted, as the server lists them in its messages.
const (
	typesDetail   = "must be one of boolean,date,integer,number,string"
	formatsDetail = "must be one of byte,date,date-time,double,float,int32,int64,password"
)

func knownType(t string) bool {
	switch t {
	case "boolean", "date", "integer", "number", "string":
		return true
	}
	return false
}

func knownFormat(f string) bool {
	switch f {
	case "byte", "date", "date-time", "double", "float", "int32", "int64", "password":
		return true
	}
	return false
}

// ValidateColumn returns the errors the server reports for one printer column
// when a CRD is created or updated, with fldPath the column's own path (for
// example spec.versions[0].additionalPrinterColumns[1]). The field names
// under it are those of the server's internal type, so a bad jsonPath is
// reported at <fldPath>.JSONPath, exactly as the server reports it. It
// returns nil when the column is valid.
func ValidateColumn(col apiextensionsv1.CustomResourceColumnDefinition, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if col.Name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), ""))
	}
	switch {
	case col.Type == "":
		errs = append(errs, field.Required(fldPath.Child("type"), typesDetail))
	case !knownType(col.Type):
		errs = append(errs, field.Invalid(fldPath.Child("type"), col.Type, typesDetail))
	}
	if col.Format != "" && !knownFormat(col.Format) {
		errs = append(errs, field.Invalid(fldPath.Child("format"), col.Format, formatsDetail))
	}
	switch {
	case col.JSONPath == "":
		errs = append(errs, field.Required(fldPath.Child("JSONPath"), ""))
	case col.JSONPath[0] != '.':
		errs = append(errs, field.Invalid(fldPath.Child("JSONPath"), col.JSONPath, "must be a simple json path starting with ."))
	}
	return errs
}

// ValidateColumns validates a column list whose path is fldPath (for example
// spec.versions[0].additionalPrinterColumns); column i is reported under
// fldPath.Index(i).
func ValidateColumns(cols []apiextensionsv1.CustomResourceColumnDefinition, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range cols {
		errs = append(errs, ValidateColumn(cols[i], fldPath.Index(i))...)
	}
	return errs
}

// ValidateVersions validates the printer columns of every version of an
// apiextensions.k8s.io/v1 CRD, under specPath (normally field.NewPath("spec")),
// at the paths the server reports.
//
// The server validates its internal form of the CRD. Converting a v1 CRD to
// that form moves columns that are identical in every version (always the
// case for a CRD with one version) to a single top-level list, so their
// errors are reported once, at spec.additionalPrinterColumns[j]. Otherwise
// each version's errors are reported at spec.versions[i].additionalPrinterColumns[j].
func ValidateVersions(versions []apiextensionsv1.CustomResourceDefinitionVersion, specPath *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return nil
	}
	if identicalColumns(versions) {
		return ValidateColumns(versions[0].AdditionalPrinterColumns, specPath.Child("additionalPrinterColumns"))
	}
	var errs field.ErrorList
	for i := range versions {
		errs = append(errs, ValidateColumns(versions[i].AdditionalPrinterColumns,
			specPath.Child("versions").Index(i).Child("additionalPrinterColumns"))...)
	}
	return errs
}

// identicalColumns reports whether every version has the same column list as
// the first, with nil and empty lists equal, as the server's conversion
// compares them.
func identicalColumns(versions []apiextensionsv1.CustomResourceDefinitionVersion) bool {
	first := versions[0].AdditionalPrinterColumns
	for _, v := range versions[1:] {
		cols := v.AdditionalPrinterColumns
		if len(cols) != len(first) {
			return false
		}
		for j := range cols {
			if cols[j] != first[j] {
				return false
			}
		}
	}
	return true
}
