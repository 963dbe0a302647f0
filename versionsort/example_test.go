package versionsort_test

import (
	"fmt"

	"github.com/crdkit/crdkit/versionsort"
)

func ExampleSort() {
	versions := []string{"foo10", "v1", "v11alpha2", "v10beta3", "v2", "foo1", "v3beta1", "v12alpha1", "v11beta2", "v10"}
	versionsort.Sort(versions)
	fmt.Println(versions)
	// Output: [v10 v2 v1 v11beta2 v10beta3 v3beta1 v12alpha1 v11alpha2 foo1 foo10]
}

func ExampleCompare() {
	fmt.Println(versionsort.Compare("v2beta1", "v1"))
	fmt.Println(versionsort.Compare("v01", "v1"))
	fmt.Println(versionsort.Compare("alpha", "beta"))
	// Output:
	// -1
	// 0
	// 1
}

func ExampleNew() {
	vs := versionsort.New("stable.example.com", "CronTab", []versionsort.Version{
		{Name: "v1beta1", Served: true, Deprecated: true},
		{Name: "v1", Served: true, Storage: true},
		{Name: "v2alpha1", Served: true},
	})
	fmt.Println(vs.Names())
	preferred, _ := vs.Preferred()
	storage, _ := vs.Storage()
	fmt.Println("preferred:", preferred, "storage:", storage)
	warning, _ := vs.Warning("v1beta1")
	fmt.Println(warning)
	// Output:
	// [v1 v1beta1 v2alpha1]
	// preferred: v1 storage: v1
	// stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab
}
