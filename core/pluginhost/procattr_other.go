//go:build !linux

package pluginhost

import "os/exec"

// setProcAttr does nothing here: only Linux has a parent-death signal.
func setProcAttr(*exec.Cmd) {}
