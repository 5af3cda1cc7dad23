package board

import "github.com/google/jsonschema-go/jsonschema"

// enum is the schema of a string that must be one of values; tools give it
// to their enum types (kernel.ToolSpec.Types).
func enum(values ...string) *jsonschema.Schema {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return &jsonschema.Schema{Type: "string", Enum: vs}
}
