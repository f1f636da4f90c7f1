package main

import "golang.org/x/sys/unix"

// clockMonotonicNs reads CLOCK_MONOTONIC, the clock the harness compares "last event" against
// (Python's time.monotonic_ns, Node's process.hrtime, Java's System.nanoTime).
func clockMonotonicNs() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}
