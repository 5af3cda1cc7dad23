package pluginhost

import (
	"os/exec"
	"syscall"
)

// setProcAttr asks Linux to stop the plugin when the board dies without
// killing it (SIGKILL, a crash), so no orphan keeps running.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
