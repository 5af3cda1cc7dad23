module github.com/pactboard/pact/sdk

go 1.26
