// Command credential-biscuit is PACT Board's Biscuit credential plugin: it
// exports a verified mandate chain as a Biscuit token (biscuit-go v2.2.0,
// datalog v3.0), one block per ledger link, and publishes the board-signed
// JSON revocation document of the seed README. Importing Biscuit tokens is
// not supported. The board's plugin host runs it as a subprocess and pins
// its binary by SHA-256, since it receives the board's signing seed.
//
// A Biscuit is a bearer token: the holder(…) fact in its last block is
// informational only, so verifiers must authenticate callers another way.
package main

import "github.com/pactboard/pact/sdk/credential"

func main() {
	credential.Serve(New())
}
