package mandate_test

import (
	"fmt"

	"github.com/pactboard/pact/core/mandate"
)

// A child may only hold what its parent's scope covers.
func ExampleUncovered() {
	parent := []string{"task.*@project:web", "task.read@project:api"}
	child := []string{"task.work@project:web", "task.work@project:api", "deploy.web@project:web"}
	fmt.Println(mandate.Uncovered(child, parent))
	// Output: [task.work@project:api deploy.web@project:web]
}

// Limits arrive as JSON; a bad value is refused by its key.
func ExampleParseLimits() {
	limits, err := mandate.ParseLimits([]byte(`{"thb": 100000, "runs": 50}`))
	fmt.Println(limits, err)
	_, err = mandate.ParseLimits([]byte(`{"thb": -5}`))
	fmt.Println(err)
	// Output:
	// map[runs:50 thb:100000] <nil>
	// invalid_request: limit thb=-5 must be a number of at least 0
}

// Without PACT_BOARD_KEYS the board signs with one key derived from
// PACT_SIGNING_KEY; every key verifies what it signed.
func ExampleKeyring_Sign() {
	keys, err := mandate.ParseKeyring("", "an example signing key of 32+ characters")
	if err != nil {
		panic(err)
	}
	payload := []byte(`{"id":"example"}`)
	sig := keys.Sign(payload)
	fmt.Println(sig[:len("ed25519:derived-1:")], keys.VerifySignature(payload, sig))
	// Output: ed25519:derived-1: true
}
