package definition

import (
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
)

// PrepareForCreate modifies crd as the server's CRD strategy does before it
// validates a new CRD: the status reset, generation 1, the storage version
// recorded in status.storedVersions.
func PrepareForCreate(crd *apiextensions.CustomResourceDefinition) {
	crd.Status = apiextensions.CustomResourceDefinitionStatus{}
	crd.Generation = 1
	storeStorageVersion(crd)
}

// storeStorageVersion appends the first storage version to
// status.storedVersions unless it is there.
func storeStorageVersion(crd *apiextensions.CustomResourceDefinition) {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			for _, s := range crd.Status.StoredVersions {
				if s == v.Name {
					return
				}
			}
			crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
			return
		}
	}
}
