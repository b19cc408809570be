// JitSplit.java - two hot methods in a 3:1 split of CPU time, measured
// by the program itself (its thread's CPU time): ptprof's share of each,
// named from the JVM's perf map, must match.
// Usage: java [-XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions
//        -XX:+DumpPerfMapAtExit] JitSplit SECONDS
// Prints "jitsplit hotA=PCT hotB=PCT rounds=N".
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class JitSplit {
	static long hotA(long n) {
		long s = 0;
		for (long i = 0; i < n; i++)
			s = (s * 31 + i) % 1000003;
		return s;
	}

	static long hotB(long n) {
		long s = 1;
		for (long i = 0; i < n; i++)
			s = (s * 17 + i) % 999983;
		return s;
	}

	public static void main(String[] args) {
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
		long n = 1000000, ta = 0, tb = 0, sink = 0;
		int rounds = 0;
		long end = System.nanoTime() + (long)(seconds * 1e9);

		// The driver stays cold (a few calls a second): the two methods
		// are compiled on their own, not inlined into it.
		while (System.nanoTime() < end || rounds < 3) {
			long t = mx.getCurrentThreadCpuTime();
			sink += hotA(3 * n);
			long t2 = mx.getCurrentThreadCpuTime();
			sink += hotB(n);
			ta += t2 - t;
			tb += mx.getCurrentThreadCpuTime() - t2;
			rounds++;
		}
		System.out.printf("jitsplit hotA=%.1f hotB=%.1f rounds=%d sink=%d%n",
				  100.0 * ta / (ta + tb), 100.0 * tb / (ta + tb),
				  rounds, sink % 7);
	}
}
