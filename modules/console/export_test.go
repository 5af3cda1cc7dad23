package console

// SessionKinds is every kind of console session, for the tests.
func SessionKinds() []string { return sessionKinds() }

// LoginTTL is how long a started OIDC sign-in may take; RefreshGrace is
// how long a refresh's result serves the cookie from before it.
const (
	LoginTTL     = loginTTL
	RefreshGrace = refreshGrace
)
