package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"slices"
)

// A Runner on macOS gets a LaunchAgent (docs/pact-connect.md,
// "LaunchAgent"): launchd starts pact-runner at login and again when it
// exits. launchd gives a job a bare PATH (/usr/bin:/bin:/usr/sbin:/sbin),
// in which the claude, git and gh a Runner's sessions call are usually
// missing, so the agent's PATH names the directories where they were
// found on this machine when it connected.

// launchTools are the programs a Runner's sessions need on PATH.
func launchTools() []string { return []string{"pact-runner", "claude", "git", "gh"} }

// launchLabel is the LaunchAgent's label, and its file's name.
func launchLabel(agent string) string { return "com.pactboard.runner." + agent }

// launchAgentWrite is the LaunchAgent of the Runner c, which reads the env
// file envFile; missing lists the tools not found, for a note.
func launchAgentWrite(c *connected, o options, e env, envFile string) (w write, missing []string) {
	var dirs []string
	runner := "pact-runner"
	for _, tool := range launchTools() {
		p, err := e.lookPath(tool)
		if err != nil {
			missing = append(missing, tool)
			continue
		}
		if tool == "pact-runner" {
			runner = p
		}
		if d := filepath.Dir(p); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range []string{"/usr/bin", "/bin", "/usr/sbin", "/sbin"} {
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	path := ""
	for i, d := range dirs {
		if i > 0 {
			path += ":"
		}
		path += d
	}
	work := o.repo
	if work == "" {
		work = e.Home
	}
	label := launchLabel(c.AgentID)
	logs := filepath.Join(e.Home, "Library", "Logs", "pact-runner-"+c.AgentID+".log")
	// The env file holds the token: launchd reads it at each start, and the
	// plist holds no secret.
	script := "set -a; . " + shellQuote(envFile) + "; set +a; exec " + shellQuote(runner)
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
`)
	str := func(key, value string) {
		fmt.Fprintf(&b, "\t<key>%s</key>\n\t<string>%s</string>\n", key, escapeXML(value))
	}
	str("Label", label)
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n")
	for _, a := range []string{"/bin/sh", "-c", script} {
		fmt.Fprintf(&b, "\t\t<string>%s</string>\n", escapeXML(a))
	}
	b.WriteString("\t</array>\n\t<key>EnvironmentVariables</key>\n\t<dict>\n")
	fmt.Fprintf(&b, "\t\t<key>PATH</key>\n\t\t<string>%s</string>\n\t</dict>\n", escapeXML(path))
	str("WorkingDirectory", work)
	b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n\t<key>KeepAlive</key>\n\t<true/>\n")
	str("StandardOutPath", logs)
	str("StandardErrorPath", logs)
	b.WriteString("</dict>\n</plist>\n")
	return write{path: filepath.Join(e.Home, "Library", "LaunchAgents", label+".plist"), data: b.Bytes(),
		what: "LaunchAgent " + label, kept: -1, show: []string{"PATH=" + path, "runs: " + script}}, missing
}

// escapeXML is s as XML character data.
func escapeXML(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // writing to a buffer cannot fail
	return b.String()
}
