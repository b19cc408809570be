// inl_sort - C++ test target for inlined frames (issue 29): std::sort of
// a million ints with a lambda comparator, built -O2 -g by
// tests/inline-cxx.test.  At -O2 the comparator and most of std::sort's
// helpers are inlined into the few functions left (std::__introsort_loop,
// std::__insertion_sort): the hottest function a user looks for is an
// inlined one, which google-pprof, perf and eu-stack -i show.
//
//   inl_sort [SECONDS]   sort about SECONDS of CPU time (default 3;
//                        rounds, not a clock: 30 s more of wall time at
//                        most), print a checksum, exit 0.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

static double now()
{
	using namespace std::chrono;
	return duration<double>(steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3, end = now() + secs + 30;
	// one round: ~1e6 ints sorted, ~60 ms
	unsigned long rounds = (unsigned long)(secs * 16), r;
	std::vector<uint32_t> v(1000000);
	uint64_t x = 88172645463325252ULL, sum = 0;

	for (r = 0; r < rounds && now() < end; r++) {
		for (auto &e : v) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			e = (uint32_t)x;
		}
		std::sort(v.begin(), v.end(),
			  [](uint32_t a, uint32_t b) { return a > b; });
		sum += v[r % v.size()];
	}
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
