// selfprof.go - a Go target for tests/chaos/runtime-go-lines.test
// (standard library only; built at test time with GOPROXY=off).
//
//	selfprof FILE SECONDS
//
// Profiles itself with runtime/pprof (Go's own CPU profiler, 100 Hz)
// into FILE while main.spin runs until the process has used SECONDS
// seconds of CPU time (or 30 s have passed, on a loaded machine): a
// pprof file
// written by another tool than ptprof, whose Locations carry inlined
// chains (main.mix, small enough to be inlined, into main.spin, its only
// caller), as go tool pprof shows them.  Prints "ok SUM" (exit 0), or
// "WRONG ..." when the profile could not be written (exit 1).
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"
)

// cpu is the CPU time the process has used.
func cpu() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func mix(a, b uint64) uint64 { return (a*31 + b) ^ (a >> 3) }

//go:noinline
func spin(budget time.Duration, end time.Time) uint64 {
	var s uint64
	for cpu() < budget && time.Now().Before(end) {
		for i := uint64(0); i < 100000; i++ {
			s = mix(s, i)
		}
	}
	return s
}

func main() {
	if len(os.Args) != 3 {
		fmt.Println("WRONG usage: selfprof FILE SECONDS")
		os.Exit(1)
	}
	secs, err := strconv.ParseFloat(os.Args[2], 64)
	if err != nil {
		fmt.Println("WRONG seconds:", err)
		os.Exit(1)
	}
	f, err := os.Create(os.Args[1])
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Println("WRONG profile:", err)
		os.Exit(1)
	}
	s := spin(time.Duration(secs*float64(time.Second)),
		time.Now().Add(30*time.Second))
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		fmt.Println("WRONG profile:", err)
		os.Exit(1)
	}
	fmt.Println("ok", s)
}
