package main

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/npmtest"
)

const lintTimeout = 2 * time.Minute

// installNodePackage returns a directory holding the Node package in src
// (package.json and package-lock.json) with its node_modules installed
// (sdk/npmtest); marker is a file under node_modules that a complete
// install has.
func installNodePackage(t *testing.T, src, name, marker string) string {
	t.Helper()
	return npmtest.Install(t, os.DirFS(src), name, marker)
}

// nodeCommand runs a script of an installed package with node, from dir.
func nodeCommand(ctx context.Context, dir, script string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
	cmd.Dir = dir
	// Redocly asks the network for nothing with telemetry and update checks off.
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	return cmd
}
