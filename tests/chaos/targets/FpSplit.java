// FpSplit.java - a JVM target for tests/chaos/runtime-java-fp.test (the
// frame-pointer unwinding through HotSpot's JIT frames).
//
//   java -XX:+PreserveFramePointer FpSplit SECONDS
//
// Prints "ready", then a Java thread runs two hot methods, fib
// (recursive) and trig (a Math loop), giving fib three quarters of the
// time by its own clock, for SECONDS seconds or until a file "stop"
// appears in the current directory.  Every call's result is checked.
// Prints "ok FIB_MS TRIG_MS" (exit 0) or "WRONG ..." (exit 1).
import java.io.File;

public class FpSplit {
	static int fib(int n) {
		return n < 2 ? n : fib(n - 1) + fib(n - 2);
	}

	static double trig(int n) {
		double s = 0;
		for (int i = 0; i < n; i++)
			s += Math.sin(i) * Math.cos(i) + Math.sqrt(i);
		return s;
	}

	static volatile String result = "WRONG: no result";

	static void work(long end) {
		double trigWant = trig(200000);
		long fibNs = 0, trigNs = 0, wrong = 0;
		File stop = new File("stop");
		for (;;) {
			long t = System.nanoTime();
			// whichever is behind its share (3:1) runs next
			if (fibNs <= 3 * trigNs) {
				if (fib(24) != 46368)
					wrong++;
				fibNs += System.nanoTime() - t;
			} else {
				if (trig(200000) != trigWant)
					wrong++;
				trigNs += System.nanoTime() - t;
			}
			if (System.nanoTime() >= end || stop.exists())
				break;
		}
		result = wrong != 0 ? "WRONG " + wrong + " results" :
				      "ok " + fibNs / 1000000 + " " + trigNs / 1000000;
	}

	public static void main(String[] args) throws InterruptedException {
		long end = System.nanoTime() +
			   (long)(Double.parseDouble(args[0]) * 1e9);
		Thread t = new Thread(() -> work(end), "fpsplit");
		System.out.println("ready");
		t.start();
		t.join();
		System.out.println(result);
		System.exit(result.startsWith("ok") ? 0 : 1);
	}
}
