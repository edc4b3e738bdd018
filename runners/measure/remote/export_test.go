package remote

// SetPickPort makes Forward pick its ports with f until the returned func restores it.
func SetPickPort(f func() (string, error)) (restore func()) {
	old := pickPort
	pickPort = f
	return func() { pickPort = old }
}

// ForwardTries is forwardTries, for the tests outside the package.
const ForwardTries = forwardTries
