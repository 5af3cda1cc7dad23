// Command credential-tenuo is PACT Board's Tenuo credential plugin. It
// exports a verified ledger chain as a Tenuo warrant stack (one warrant per
// ledger link, held and signed by the board, then a leaf held by the agent's
// registered key, which signs every call), signs Tenuo revocation lists,
// and imports outside organizations' warrant stacks as root mandates.
//
// The board's plugin host runs it as a subprocess; it receives the board's
// signing seed, so operators pin its binary by SHA-256. It takes no
// configuration.
package main

import "github.com/pactboard/pact/sdk/credential"

func main() { credential.Serve(New()) }
