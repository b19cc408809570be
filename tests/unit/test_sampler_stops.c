/*
 * test_sampler_stops - whether a tick spins for its stops
 * (sampler_stops_spin_worth()), on a made-up sampler, without a target:
 *  - with more threads to stop than CPUs less ptprof's own (2 on 2
 *    CPUs), it never spins, and /proc/loadavg is not read (its
 *    descriptor is never opened: issue 30, a pread a tick saved);
 *  - with a CPU to spare for each (1 on 2 CPUs, 2 on 8), /proc/loadavg
 *    is read, as before;
 *  - no thread to stop, or spinning off (spin_ns 0): no spin, no read.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "sampler/sampler_int.h"
#include "sampler/threadtab.h"
#include "unit.h"

int main(void)
{
	struct thread a, b;
	struct thread *active[2] = { &a, &b };
	struct sampler s;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&s, 0, sizeof(s));
	s.loadavg_fd = -1;
	s.active = active;
	s.spin_ns = 50 * 1000;
	s.ncpu = 2;

	/* Nothing to stop, or spinning off: not read. */
	CHECK(!sampler_stops_spin_worth(&s) && s.loadavg_fd == -1);
	s.nactive = 1;
	s.spin_ns = 0;
	CHECK(!sampler_stops_spin_worth(&s) && s.loadavg_fd == -1);
	s.spin_ns = 50 * 1000;

	/* 2 threads to stop on 2 CPUs, ptprof the third: never a spin,
	 * whatever the machine does, and no read. */
	s.nactive = 2;
	a.cpu.on_cpu = b.cpu.on_cpu = true;
	CHECK(!sampler_stops_spin_worth(&s));
	CHECKF(s.loadavg_fd == -1, "loadavg fd %d", s.loadavg_fd);

	/* 1 on 2 CPUs: the machine's load decides, read. */
	s.nactive = 1;
	sampler_stops_spin_worth(&s);
	CHECKF(s.loadavg_fd >= 0, "loadavg fd %d", s.loadavg_fd);

	/* 2 on 8 CPUs: read too. */
	close(s.loadavg_fd);
	s.loadavg_fd = -1;
	s.nactive = 2;
	s.ncpu = 8;
	sampler_stops_spin_worth(&s);
	CHECKF(s.loadavg_fd >= 0, "loadavg fd %d", s.loadavg_fd);
	close(s.loadavg_fd);
	return unit_result("test_sampler_stops");
}
