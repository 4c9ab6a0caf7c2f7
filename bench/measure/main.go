// Command measure runs a command and reports its wall time and peak
// resident set size (from the kernel's rusage of the child), as JSON on
// standard error's last line:
//
//	go run ./bench/measure -- neardup dedup ...
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: measure [--] command [args]")
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	code := 0
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			fmt.Fprintln(os.Stderr, "measure:", err)
			os.Exit(1)
		}
	}
	var rss int64
	var user, sys float64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024 // kilobytes on Linux
		user = time.Duration(ru.Utime.Nano()).Seconds()
		sys = time.Duration(ru.Stime.Nano()).Seconds()
	}
	out, _ := json.Marshal(map[string]any{"wall_seconds": wall.Seconds(), "user_seconds": user, "sys_seconds": sys, "peak_rss_bytes": rss, "exit": code})
	fmt.Fprintf(os.Stderr, "measure: %s\n", out)
	os.Exit(code)
}
