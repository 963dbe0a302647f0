package printcolumns_test

import (
	"fmt"
	"os"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/printcolumns"
)

func cronTabColumns() []apiextensionsv1.CustomResourceColumnDefinition {
	return []apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Spec", Type: "string", JSONPath: ".spec.cronSpec"},
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	}
}

func Example() {
	cols, err := printcolumns.Compile(cronTabColumns())
	if err != nil {
		panic(err)
	}
	objs := []map[string]any{
		{
			"apiVersion": "stable.example.com/v1",
			"kind":       "CronTab",
			"metadata":   map[string]any{"name": "my-new-cron-object", "creationTimestamp": "2024-05-01T10:00:00Z"},
			"spec":       map[string]any{"cronSpec": "* * * * */5", "image": "my-awesome-cron-image", "replicas": int64(1)},
		},
		{
			"apiVersion": "stable.example.com/v1",
			"kind":       "CronTab",
			"metadata":   map[string]any{"name": "nightly", "creationTimestamp": "2024-04-28T09:30:00Z"},
			"spec":       map[string]any{"cronSpec": "0 3 * * *"},
		},
	}
	now := func() time.Time { return time.Date(2024, 5, 1, 10, 5, 3, 0, time.UTC) }
	table, err := cols.Table(objs, printcolumns.TableOptions{Now: now})
	if err != nil {
		panic(err)
	}
	if err := printcolumns.Print(os.Stdout, table, printcolumns.PrintOptions{}); err != nil {
		panic(err)
	}
	// Output:
	// NAME                 SPEC          REPLICAS   AGE
	// my-new-cron-object   * * * * */5   1          5m3s
	// nightly              0 3 * * *                3d
}

func ExampleColumns_Table() {
	cols, err := printcolumns.Compile(cronTabColumns())
	if err != nil {
		panic(err)
	}
	obj := map[string]any{
		"metadata": map[string]any{"name": "demo", "creationTimestamp": "2024-05-01T10:00:00Z"},
		"spec":     map[string]any{"cronSpec": "*/1 * * * *", "replicas": 2.9},
	}
	now := func() time.Time { return time.Date(2024, 5, 1, 22, 0, 0, 0, time.UTC) }
	table, err := cols.Table([]map[string]any{obj}, printcolumns.TableOptions{Now: now})
	if err != nil {
		panic(err)
	}
	for _, c := range table.ColumnDefinitions {
		fmt.Printf("%s %s %q\n", c.Name, c.Type, c.Description)
	}
	fmt.Printf("%#v\n", table.Rows[0].Cells)
	// Output:
	// Name string "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	// Spec string "Custom resource definition column (in JSONPath format): .spec.cronSpec"
	// Replicas integer "Custom resource definition column (in JSONPath format): .spec.replicas"
	// Age date "Custom resource definition column (in JSONPath format): .metadata.creationTimestamp"
	// []interface {}{"demo", "*/1 * * * *", 2, "12h"}
}

func ExampleValidateVersions() {
	versions := []apiextensionsv1.CustomResourceDefinitionVersion{
		{Name: "v1", AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
			{Name: "Spec", Type: "text", JSONPath: "spec.cronSpec"},
		}},
		{Name: "v2"},
	}
	for _, err := range printcolumns.ValidateVersions(versions, field.NewPath("spec")) {
		fmt.Println(err)
	}
	// Output:
	// spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string
	// spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "spec.cronSpec": must be a simple json path starting with .
}
