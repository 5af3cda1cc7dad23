package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pactboard/pact/sdk/errs"
)

// parse parses args into fs, allowing flags before, between and after the
// positional arguments (`human-add ana Ana owner --email a@x`), and checks the
// number of positionals.
func parse(fs *flag.FlagSet, args []string, want int, names string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, errs.E(errs.InvalidRequest, "%s (usage: %s)", err, names)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != want {
		return nil, errs.E(errs.InvalidRequest, "expected %d argument(s), got %d (usage: %s)", want, len(pos), names)
	}
	return pos, nil
}

// list splits "a,b" into its non-empty, trimmed parts.
func list(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// optionalBool is a flag that may be absent, true or false.
type optionalBool struct{ v *bool }

func (o *optionalBool) String() string {
	if o == nil || o.v == nil {
		return ""
	}
	return strconv.FormatBool(*o.v)
}

func (o *optionalBool) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, not %q", s)
	}
	o.v = &b
	return nil
}

// optionalInt is an integer flag that may be absent.
type optionalInt struct{ v *int }

func (o *optionalInt) String() string {
	if o == nil || o.v == nil {
		return ""
	}
	return strconv.Itoa(*o.v)
}

func (o *optionalInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number, not %q", s)
	}
	o.v = &n
	return nil
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// optionalString is a text flag that may be absent (nil) or empty.
type optionalString struct{ v *string }

func (o *optionalString) String() string {
	if o == nil || o.v == nil {
		return ""
	}
	return *o.v
}

func (o *optionalString) Set(s string) error {
	o.v = &s
	return nil
}

// keyValue adds "key=value" to m.
func keyValue(m map[string]string, s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, not %q", s)
	}
	m[k] = v
	return nil
}
