// hashsort.go - a Go target for tests/chaos/runtime-go-dwarf.test
// (standard library only; built at test time with GOPROXY=off).
//
//	hashsort SECONDS
//
// Prints "ready", then two goroutines work for SECONDS seconds or until
// a file "stop" appears in the current directory: main.hashWork hashes
// a 1 MiB buffer with crypto/sha256 (whose block function, assembly, uses
// the frame pointer register for data: no frame-pointer chain through
// it), main.sortWork sorts a copy of a slice of random ints with
// sort.Ints.  Each goroutine is locked to its own thread and measures
// that thread's CPU time (getrusage RUSAGE_THREAD), so the program says
// how its CPU was split.  Every hash must equal the first, every sort must
// come out sorted.  Prints "ok hash MS sort MS ROUNDS_H ROUNDS_S" (the
// CPU milliseconds of each worker thread; exit 0) or "WRONG ..." (exit 1).
package main

import (
	"crypto/sha256"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"
)

const rusageThread = 1 // RUSAGE_THREAD (Linux)

func threadCPUms() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return -1
	}
	return (ru.Utime.Nano() + ru.Stime.Nano()) / 1e6
}

func done(end time.Time) bool {
	if time.Now().After(end) {
		return true
	}
	_, err := os.Stat("stop")
	return err == nil
}

//go:noinline
func hashWork(end time.Time, cpu *int64, rounds *int64, bad *bool) {
	runtime.LockOSThread()
	t0 := threadCPUms()
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	first := sha256.Sum256(buf)
	for !done(end) {
		for k := 0; k < 8; k++ {
			if sha256.Sum256(buf) != first {
				*bad = true
			}
		}
		*rounds++
	}
	*cpu = threadCPUms() - t0
}

//go:noinline
func sortWork(end time.Time, cpu *int64, rounds *int64, bad *bool) {
	runtime.LockOSThread()
	t0 := threadCPUms()
	r := rand.New(rand.NewSource(1))
	orig := make([]int, 100000)
	for i := range orig {
		orig[i] = r.Int()
	}
	work := make([]int, len(orig))
	for !done(end) {
		copy(work, orig)
		sort.Ints(work)
		if !sort.IntsAreSorted(work) {
			*bad = true
		}
		*rounds++
	}
	*cpu = threadCPUms() - t0
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hashsort SECONDS")
		os.Exit(2)
	}
	secs, err := strconv.ParseFloat(os.Args[1], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: hashsort SECONDS")
		os.Exit(2)
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var cpu, rounds [2]int64
	var bad [2]bool
	var wg sync.WaitGroup

	fmt.Println("ready")
	wg.Add(2)
	go func() {
		defer wg.Done()
		hashWork(end, &cpu[0], &rounds[0], &bad[0])
	}()
	go func() {
		defer wg.Done()
		sortWork(end, &cpu[1], &rounds[1], &bad[1])
	}()
	wg.Wait()
	if bad[0] || bad[1] {
		fmt.Println("WRONG hash", bad[0], "sort", bad[1])
		os.Exit(1)
	}
	fmt.Println("ok hash", cpu[0], "sort", cpu[1], rounds[0], rounds[1])
}
