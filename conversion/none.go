package conversion

// None converts obj to apiVersion as the server's nop converter does
// (strategy None): it sets obj's apiVersion and nothing else. It modifies
// obj.
func None(obj map[string]any, apiVersion string) {
	obj["apiVersion"] = apiVersion
}

// NoneList converts a list to apiVersion as the server's nop converter
// does: every item that is an object and the list itself get apiVersion. It
// modifies list and its items.
func NoneList(list map[string]any, apiVersion string) {
	items, _ := list["items"].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			m["apiVersion"] = apiVersion
		}
	}
	list["apiVersion"] = apiVersion
}
