// Sieve.java - a Java target for tests/chaos/runtime-java.test.
//
//   java -cp DIR Sieve SECONDS THREADS
//
// Prints "ready", then THREADS threads each sum the primes below 2000000
// with a sieve, round after round, for SECONDS seconds or until a file
// "stop" appears in the current directory; every round must give
// 142913828922.  Prints "ok ROUNDS rounds" (exit 0) or
// "WRONG ..." (exit 1).  The JVM's own threads (JIT compilers, GC) and
// its signal handling run meanwhile.
public final class Sieve {
    static final long WANT = 142913828922L;
    static final java.io.File STOP = new java.io.File("stop");

    static long sumPrimes(int n) {
        boolean[] composite = new boolean[n];
        long sum = 0;
        for (int i = 2; i < n; i++) {
            if (composite[i])
                continue;
            sum += i;
            for (long j = (long) i * i; j < n; j += i)
                composite[(int) j] = true;
        }
        return sum;
    }

    public static void main(String[] args) throws InterruptedException {
        final double secs = Double.parseDouble(args[0]);
        final int nthreads = Integer.parseInt(args[1]);
        final long end = System.nanoTime() + (long) (secs * 1e9);
        final long[] rounds = new long[nthreads];
        final boolean[] wrong = new boolean[nthreads];
        Thread[] threads = new Thread[nthreads];

        System.out.println("ready");
        System.out.flush();
        for (int t = 0; t < nthreads; t++) {
            final int id = t;
            threads[t] = new Thread(() -> {
                do {
                    if (sumPrimes(2000000) != WANT)
                        wrong[id] = true;
                    rounds[id]++;
                } while (System.nanoTime() < end && !STOP.exists());
            }, "sieve-" + t);
            threads[t].start();
        }
        long total = 0;
        for (int t = 0; t < nthreads; t++) {
            threads[t].join();
            if (wrong[t]) {
                System.out.println("WRONG: thread " + t + " got another sum");
                System.exit(1);
            }
            total += rounds[t];
        }
        System.out.println("ok " + total + " rounds");
    }
}
