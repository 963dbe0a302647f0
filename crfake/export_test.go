package crfake

// SetMaxHistory sets the bound of the watch history for a test and returns
// the function that restores it.
func SetMaxHistory(n int) func() {
	old := maxHistory
	maxHistory = n
	return func() { maxHistory = old }
}
