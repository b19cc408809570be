// sieve.go - a Go target for tests/chaos/runtime-go.test (standard
// library only; built at test time with GOPROXY=off).
//
//	sieve SECONDS GOROUTINES
//
// Prints "ready", then GOROUTINES goroutines each sum the primes below
// 2000000 with a sieve, round after round, for SECONDS seconds or until a
// file "stop" appears in the current directory; every round must give
// 142913828922.  Prints "ok ROUNDS rounds" (exit 0)
// or "WRONG ..." (exit 1).  The Go runtime's threads, its garbage
// collector and its preemption signals (SIGURG) run meanwhile.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

const want = 142913828922

//go:noinline
func sumPrimes(n int) int64 {
	composite := make([]bool, n) // garbage for the collector each round
	var sum int64
	for i := 2; i < n; i++ {
		if composite[i] {
			continue
		}
		sum += int64(i)
		for j := i * i; j < n; j += i {
			composite[j] = true
		}
	}
	return sum
}

func main() {
	secs, err1 := strconv.ParseFloat(os.Args[1], 64)
	n, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil || len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sieve SECONDS GOROUTINES")
		os.Exit(2)
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	rounds := make([]int64, n)
	wrong := make([]bool, n)
	var wg sync.WaitGroup

	fmt.Println("ready")
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for {
				if sumPrimes(2000000) != want {
					wrong[g] = true
				}
				rounds[g]++
				if !time.Now().Before(end) {
					return
				}
				if _, err := os.Stat("stop"); err == nil {
					return
				}
			}
		}(g)
	}
	wg.Wait()
	var total int64
	for g := 0; g < n; g++ {
		if wrong[g] {
			fmt.Printf("WRONG: goroutine %d got another sum\n", g)
			os.Exit(1)
		}
		total += rounds[g]
	}
	fmt.Printf("ok %d rounds\n", total)
}
