//go:build !linux

package neardup

const mapNoReserve = 0
