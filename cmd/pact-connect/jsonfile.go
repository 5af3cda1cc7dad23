package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// member is one key of a JSON object, its value kept as written.
type member struct {
	key string
	val json.RawMessage
}

// object is a JSON object whose members keep their order, so a merge
// changes only the member it sets.
type object []member

// parseObject reads a JSON object; blank text is an empty one.
func parseObject(raw []byte) (object, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return object{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("it does not hold a JSON object")
	}
	var out object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = out.set(t.(string), v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("it holds more than one JSON value")
	}
	return out, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// set replaces key's value in place, or appends it.
func (o object) set(key string, val json.RawMessage) object {
	for i, m := range o {
		if m.key == key {
			o[i].val = val
			return o
		}
	}
	return append(o, member{key, val})
}

// encode writes the object indented by two spaces, each value as written
// (re-indented only).
func (o object) encode(indent string) []byte {
	if len(o) == 0 {
		return []byte("{}")
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, m := range o {
		k, _ := json.Marshal(m.key)
		b.WriteString(indent + "  " + string(k) + ": ")
		if err := json.Indent(&b, m.val, indent+"  ", "  "); err != nil {
			b.Write(m.val)
		}
		if i < len(o)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
	return b.Bytes()
}

// mergeServer sets mcpServers.<name> to entry in the JSON file text raw,
// keeping every other key and server. An entry of that name for another
// URL (another agent, or another server) is refused unless force; the
// returned count is how many other members the file keeps.
func mergeServer(raw []byte, name, url string, entry any, force bool) ([]byte, int, error) {
	top, err := parseObject(raw)
	if err != nil {
		return nil, 0, err
	}
	servers := object{}
	if v, ok := top.get("mcpServers"); ok && string(v) != "null" {
		if servers, err = parseObject(v); err != nil {
			return nil, 0, errors.New("its mcpServers is not a JSON object")
		}
	}
	if v, ok := servers.get(name); ok && !force {
		if other := serverURL(v); other != url {
			return nil, 0, &conflict{name: name, other: other}
		}
	}
	val := mustJSON(entry)
	kept := len(top) + len(servers)
	if _, ok := top.get("mcpServers"); ok {
		kept--
	}
	if _, ok := servers.get(name); ok {
		kept--
	}
	servers = servers.set(name, val)
	top = top.set("mcpServers", servers.encode(""))
	return append(top.encode(""), '\n'), kept, nil
}

// serverURL is the URL of an MCP server entry (url, Gemini CLI's httpUrl
// or Antigravity's serverUrl), without a trailing slash; "" when it has
// none.
func serverURL(raw json.RawMessage) string {
	var e struct {
		URL       string `json:"url"`
		HTTPURL   string `json:"httpUrl"`
		ServerURL string `json:"serverUrl"`
	}
	_ = json.Unmarshal(raw, &e)
	if e.HTTPURL != "" {
		e.URL = e.HTTPURL
	}
	if e.ServerURL != "" {
		e.URL = e.ServerURL
	}
	return strings.TrimRight(e.URL, "/")
}

// conflict is an MCP server entry of the same name for another agent.
type conflict struct{ name, other string }

func (c *conflict) Error() string {
	who := "another server"
	if c.other != "" {
		who = c.other
	}
	return fmt.Sprintf("it already has MCP server %q for %s", c.name, who)
}
