package board

import "github.com/google/jsonschema-go/jsonschema"

// Helpers for the tools' input schemas. Every property carries a
// description an agent can act on; unknown properties are refused.

func object(required []string, props map[string]*jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required,
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
}

func str(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Description: desc}
}

func nullableStr(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Types: []string{"string", "null"}, Description: desc}
}

func boolean(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "boolean", Description: desc}
}

func integer(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "integer", Description: desc}
}

func strList(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Types: []string{"array", "null"}, Items: &jsonschema.Schema{Type: "string"}, Description: desc}
}

// amounts is an object of numbers, e.g. {"runs": 1}. Its values are checked
// by mandate.CheckAmounts so a refusal names the key.
func amounts(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Types: []string{"object", "null"}, Description: desc}
}

func enum(desc string, values ...string) *jsonschema.Schema {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return &jsonschema.Schema{Type: "string", Enum: vs, Description: desc}
}

const mandateDesc = "The id of the mandate you act under: one held by you (see pact_whoami), " +
	"or the delegated mandate of the task you work on."

const taskDesc = "The task's id (a UUID, from pact_list)."
