package main

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// On macOS a Runner also gets a LaunchAgent: tested by its content, with
// the system and the programs on PATH stood in for. Its PATH names where
// pact-runner, claude, git and gh were found (then the system's), it runs
// pact-runner with the env file sourced, and it holds no token.
func TestRunnerOnMacOSGetsALaunchAgent(t *testing.T) {
	b, m := newRealBoard(t), newMachine(t)
	found := map[string]string{"pact-runner": "/opt/pact/bin/pact-runner", "claude": "/Users/ana/.local/bin/claude",
		"git": "/usr/bin/git"} // gh is not installed
	m.goos = "darwin"
	m.lookPath = func(file string) (string, error) {
		if p, ok := found[file]; ok {
			return p, nil
		}
		return "", exec.ErrNotFound
	}
	rc, out, errOut := m.connect(b.URL, runnerCode(t, b, "runner-web"), "--repo", m.dir)
	require.Equal(t, 0, rc, errOut)

	plist := filepath.Join(m.home, "Library", "LaunchAgents", "com.pactboard.runner.runner-web.plist")
	raw, err := os.ReadFile(plist)
	require.NoError(t, err)
	requireMode(t, plist, 0o600)
	envFile := filepath.Join(m.home, ".config", "pact", "runner-web.env")
	token := readEnv(t, envFile)["PACT_TOKEN"]
	require.NotContains(t, string(raw), token, "the plist holds no token: launchd reads the env file")

	strs := plistStrings(t, raw)
	require.Equal(t, "com.pactboard.runner.runner-web", strs["Label"])
	require.Equal(t, "/opt/pact/bin:/Users/ana/.local/bin:/usr/bin:/bin:/usr/sbin:/sbin", strs["PATH"])
	require.Equal(t, []string{"/bin/sh", "-c", "set -a; . " + shellQuote(envFile) + "; set +a; exec /opt/pact/bin/pact-runner"},
		strs["ProgramArguments[]"], "it runs pact-runner with the env file sourced")
	require.Equal(t, m.dir, strs["WorkingDirectory"])
	require.Contains(t, string(raw), "<key>RunAtLoad</key>\n\t<true/>")
	require.Contains(t, string(raw), "<key>KeepAlive</key>\n\t<true/>")
	require.Contains(t, out, "launchctl bootstrap gui/$(id -u) "+shellQuote(plist))

	// On Linux no LaunchAgent is written.
	m2 := newMachine(t)
	rc, out, errOut = m2.connect(b.URL, b.Admin("ana", "POST", "/agents/runner-web/setup-code", "").Body["code"].(string))
	require.Equal(t, 0, rc, errOut)
	require.NoDirExists(t, filepath.Join(m2.home, "Library"))
	require.Contains(t, out, "next: start the runner: set -a;")
}

// plistStrings decodes a plist's top dictionary: each key's string, the
// PATH of EnvironmentVariables, and ProgramArguments as "ProgramArguments[]".
func plistStrings(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(string(raw)))
	out := map[string]any{}
	var key, text string
	var array []string
	inArray := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "the plist is well-formed XML")
		switch v := tok.(type) {
		case xml.StartElement:
			text = ""
			if v.Name.Local == "array" {
				inArray, array = true, nil
			}
		case xml.CharData:
			text += string(v)
		case xml.EndElement:
			switch v.Name.Local {
			case "key":
				key = text
			case "string":
				if inArray {
					array = append(array, text)
				} else {
					out[key] = text
				}
			case "array":
				inArray = false
				out[key+"[]"] = array
			}
		}
	}
	return out
}
