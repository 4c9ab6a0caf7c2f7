//go:build linux

package neardup

import "syscall"

const mapNoReserve = syscall.MAP_NORESERVE
