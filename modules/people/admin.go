package people

import (
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

// maxBody bounds request bodies; every body here is a few fields.
const maxBody = 16 << 10

// op is an operation of this module: ids are people-<verb>[-<noun>], the
// tag is "people", bodies are small, and AdminOp declares the role gate
// with the 401 and 403 answers.
func op(method, path, id, summary string, min identity.Role, errors ...int) huma.Operation {
	o := huma.Operation{OperationID: "people-" + id, Method: method, Path: path, Summary: summary,
		Tags: []string{"people"}, Errors: errors, MaxBodyBytes: maxBody}
	if method == http.MethodPost && (id == "create-human" || id == "create-project" || id == "create-agent" || id == "hire-agent") {
		o.DefaultStatus = http.StatusCreated
	}
	return kernel.AdminOp(o, min)
}

// clearable is a JSON string that tells apart absent (unchanged) and null
// (remove).
type clearable struct {
	set   bool
	value string
}

func (c *clearable) UnmarshalJSON(b []byte) error {
	c.set = true
	if string(b) == "null" {
		return nil
	}
	return json.Unmarshal(b, &c.value)
}

// Schema documents clearable as a nullable string.
func (clearable) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Nullable: true, MaxLength: ptr(300)}
}

func (c clearable) update() *string {
	if !c.set {
		return nil
	}
	return &c.value
}
