// Command pact-verify checks a bundle of PACT Board's log offline, with no
// database and no network (docs/log-checkpoints.md): every link and hash,
// every payload against its hash (erased ones allowed), every checkpoint's
// signature and that the chains agree with it, and the checkpoints the
// reader kept from before. It prints a JSON report and exits 0 when all
// hold, 1 when something does not, 2 when it cannot read its input.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pactboard/pact/core/logformat"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// list is a repeatable flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

const usage = `usage: pact-verify [--key <verifier key>]... [--checkpoints <file>]... <bundle | ->

Checks a bundle written by pact-admin log-export, offline.

  --key          a verifier key to trust ("<name>+<hash>+<key>", from the board's
                 /.well-known/pact-log/keys); repeatable. Without one, the bundle's own
                 keys are used, which proves only that the bundle agrees with itself.
  --checkpoints  a file of checkpoints kept from before: JSON Lines with chain_key and
                 note (an earlier bundle works); repeatable. The bundle must agree
                 with every one.

Exit status: 0 all holds, 1 something does not (the report says what and where),
2 the input cannot be read.
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pact-verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	var keys, saved list
	fs.Var(&keys, "key", "a verifier key to trust (repeatable)")
	fs.Var(&saved, "checkpoints", "a file of checkpoints kept from before (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	o := logformat.Options{Keys: keys}
	for _, path := range saved {
		cps, err := readSaved(path)
		if err != nil {
			fmt.Fprintf(stderr, "pact-verify: %v\n", err)
			return 2
		}
		o.Saved = append(o.Saved, cps...)
	}
	in := stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "pact-verify: %v\n", err)
			return 2
		}
		defer f.Close()
		in = f
	}
	rep, err := logformat.Verify(in, o)
	if err != nil {
		fmt.Fprintf(stderr, "pact-verify: %v\n", err)
		return 2
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(rep)
	if !rep.OK {
		return 1
	}
	return 0
}

// readSaved reads kept checkpoints: every line of path with a chain_key
// and a note, whatever else it holds (an earlier bundle's checkpoint lines
// are such lines; its other lines are skipped).
func readSaved(path string) ([]logformat.SavedCheckpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []logformat.SavedCheckpoint
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var rec struct {
			Kind     string `json:"kind"`
			ChainKey string `json:"chain_key"`
			Note     string `json:"note"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		if rec.Note != "" && rec.ChainKey != "" && (rec.Kind == "" || rec.Kind == logformat.KindCheckpoint) {
			out = append(out, logformat.SavedCheckpoint{ChainKey: rec.ChainKey, Note: rec.Note})
		}
	}
	return out, sc.Err()
}
