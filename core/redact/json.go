package redact

import (
	"bytes"
	"encoding/json"
)

// JSON redacts a JSON document as Value does, keeping its numbers as
// written. Text that is not JSON is redacted as text: the caller's store
// refuses it as before, without the secret in its error.
func JSON(raw []byte) []byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return []byte(Text(string(raw)))
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // keep <, > and & as written: the text is stored, not put in a page
	if err := enc.Encode(Value(v)); err != nil {
		return []byte(Text(string(raw)))
	}
	return bytes.TrimRight(out.Bytes(), "\n")
}
