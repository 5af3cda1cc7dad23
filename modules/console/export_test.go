package console

// SessionKinds is every kind of console session, for the tests.
func SessionKinds() []string { return sessionKinds() }
