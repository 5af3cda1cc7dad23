module github.com/pactboard/pact/docs/examples/tenuo-verifier

go 1.26.0

require github.com/pactboard/pact/sdk v0.0.0

require (
	github.com/fxamacker/cbor/v2 v2.10.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
)

replace github.com/pactboard/pact/sdk => ../../../sdk
