/*
 * test_procfs - the /proc/PID/stat and /proc/PID/status parsers
 * (procfs.h) on the kernel's lines, on names that try to forge fields
 * (')', spaces, newlines in comm), on lines cut short and on garbage;
 * and their readers on this process (a thread's name and state through
 * its stat file kept open among them).
 *
 * Covers: procfs_stat procfs_status (the rest of the module, split out).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "unit.h"

/* A real line (a shell's), fields 1 to 52. */
static const char line[] =
	"4242 (bash) S 4200 4242 4242 34816 4300 4194560 1907 8261 0 3 11 "
	"7 13 17 20 0 1 0 123456 8773632 1329 18446744073709551615 "
	"94000000000000 94000000900000 140730000000000 0 0 0 65536 "
	"3670020 1266777851 0 0 0 17 1 0 0 0 0 0 94000001000000 "
	"94000001040000 94000002000000 140730000001000 140730000001010 "
	"140730000001010 140730000003000 0\n";

static int parse(const char *s, struct procfs_stat *st)
{
	return procfs_stat_parse(s, strlen(s), st);
}

static void check_stat(void)
{
	struct procfs_stat st;

	CHECK(parse(line, &st) == 0);
	CHECK(!strcmp(st.comm, "bash") && st.state == 'S');
	CHECK(st.fields == 28 && st.ppid == 4200 && st.flags == 4194560);
	CHECK(st.utime == 11 && st.stime == 7 && st.cutime == 13 &&
	      st.cstime == 17);
	CHECK(st.num_threads == 1 && st.starttime == 123456);
	CHECK(st.startcode == 94000000000000ULL &&
	      st.endcode == 94000000900000ULL &&
	      st.startstack == 140730000000000ULL);

	/* comm holding ") R 1 2 3", spaces, parentheses and a newline: the
	 * fields follow the LAST ')' */
	CHECK(parse("7 (a) R 1 2 (x\ny) ) Z 99 7 7 0 -1 2097152 0 0 0 0 5 6",
		    &st) == 0);
	CHECK(!strcmp(st.comm, "a) R 1 2 (x\ny) ") && st.state == 'Z');
	CHECK(st.ppid == 99 && st.flags == 2097152 && st.fields == 15);
	CHECK(st.utime == 5 && st.stime == 6 && st.cutime == 0);
	CHECK(parse("7 ()) X", &st) == 0 && !strcmp(st.comm, ")") &&
	      st.state == 'X' && st.fields == 3);

	/* negative fields (tty_nr of none: 0, tpgid -1) are kept as given */
	CHECK(parse("1 (c) S 0 1 1 0 -1 4 0", &st) == 0 && st.fields == 10);

	/* cut short: the fields read so far, the rest 0 */
	CHECK(parse("5 (c) R 1 5 5 0 -1 4194304 0 0 0 0 9 8 7", &st) == 0);
	CHECK(st.fields == 16 && st.utime == 9 && st.stime == 8 &&
	      st.cutime == 7 && st.cstime == 0 && st.num_threads == 0);
	CHECK(parse("5 (c) R 1 x 5", &st) == 0 && st.fields == 4);
	CHECK(parse("5 (c) R 1  5", &st) == 0 && st.fields == 4);
	CHECK(parse("5 (c) R 18446744073709551616", &st) == 0 &&
	      st.fields == 3);

	/* no state: refused */
	errno = 0;
	CHECK(parse("5 (c)", &st) == -1 && errno == EINVAL);
	CHECK(parse("5 (c) ", &st) == -1);
	CHECK(parse("5 (c)R", &st) == -1);
	CHECK(parse("5 c) R 1", &st) == -1);
	CHECK(parse("5 )c( R 1", &st) == -1);
	CHECK(parse("", &st) == -1);

	/* only len bytes are read */
	CHECK(procfs_stat_parse(line, 13, &st) == 0 && st.fields == 3);
	CHECK(procfs_stat_parse(line, 12, &st) == -1);

	/* a long comm is cut, NUL-terminated */
	{
		char s[400];

		memset(s, 'n', sizeof(s));
		memcpy(s, "9 (", 3);
		strcpy(s + 300, ") S 1");
		CHECK(parse(s, &st) == 0 && st.state == 'S' &&
		      strlen(st.comm) == sizeof(st.comm) - 1);
	}
}

static const char status[] = "Name:\tx\\nUid:\\t0\n"
			     "Umask:\t0022\n"
			     "State:\tS (sleeping)\n"
			     "Tgid:\t4242\n"
			     "Ngid:\t0\n"
			     "Pid:\t4243\n"
			     "PPid:\t4200\n"
			     "TracerPid:\t0\n"
			     "Uid:\t1000\t1001\t1002\t1003\n"
			     "Gid:\t100\t101\t102\t103\n"
			     "NStgid:\t4242\t17\n"
			     "NSpid:\t4243\t18\n"
			     "CapEff:\t000001ffffffffff\n"
			     "Seccomp:\t2\n"
			     "Seccomp_filters:\t3\n";

static void status_parse(const char *s, struct procfs_status *st)
{
	procfs_status_parse(s, strlen(s), st);
}

static void check_status(void)
{
	struct procfs_status st;

	status_parse(status, &st);
	CHECK(st.have ==
	      (PROCFS_HAVE_TGID | PROCFS_HAVE_PPID | PROCFS_HAVE_TRACER |
	       PROCFS_HAVE_UID | PROCFS_HAVE_NSPID | PROCFS_HAVE_CAPEFF |
	       PROCFS_HAVE_SECCOMP | PROCFS_HAVE_SECCOMP_FILTERS |
	       PROCFS_HAVE_GID));
	CHECK(st.gid == 100 && st.egid == 101); /* rootopen.h drops to egid */
	CHECK(st.tgid == 4242 && st.ppid == 4200 && st.tracer_pid == 0);
	CHECK(st.uid == 1000 && st.euid == 1001 && st.nspid == 18);
	CHECK(st.cap_eff == 0x1ffffffffffULL);
	CHECK(st.seccomp == 2 && st.seccomp_filters == 3);

	/* an older kernel: no NSpid, no Seccomp lines */
	status_parse("Tgid:\t1\nUid:\t0\t0\t0\t0\nTracerPid:\t77", &st);
	CHECK(st.have ==
	      (PROCFS_HAVE_TGID | PROCFS_HAVE_UID | PROCFS_HAVE_TRACER));
	CHECK(st.tracer_pid == 77 && st.nspid == 0 && st.seccomp == 0);

	/* a key is matched whole, at the start of a line, once */
	status_parse("XTgid:\t5\nSeccomp_filters:\t4\nTgid:\t6\nTgid:\t7\n",
		     &st);
	CHECK(st.tgid == 6 && st.seccomp == 0 && st.seccomp_filters == 4);
	CHECK(!(st.have & PROCFS_HAVE_SECCOMP));

	/* garbage values are absent lines */
	status_parse("Tgid:\tx\nUid:\t5\nNSpid:\t0\nCapEff:\tzz\n"
		     "PPid:\t99999999999\n",
		     &st);
	CHECK(st.have == 0);
	status_parse("", &st);
	CHECK(st.have == 0);
	/* only len bytes are read */
	procfs_status_parse("PPid:\t12345", 8, &st);
	CHECK((st.have & PROCFS_HAVE_PPID) && st.ppid == 12);
}

static void check_readers(void)
{
	struct procfs_status status;
	struct procfs_stat st;

	CHECK(procfs_stat_read(getpid(), 0, &st) == 0);
	CHECK(st.state == 'R' && st.ppid == (int)getppid() && st.fields == 28 &&
	      st.num_threads == 1);
	CHECK(!strcmp(st.comm, "test_procfs") ||
	      !strcmp(st.comm, "lt-test_procfs"));
	CHECK(procfs_stat_read(getpid(), getpid(), &st) == 0 &&
	      st.state == 'R');
	CHECK(procfs_status_read(getpid(), 0, &status) == 0);
	CHECK(status.tgid == (int)getpid() && status.ppid == (int)getppid());
	CHECK(status.uid == getuid() && status.euid == geteuid());
	CHECK(procfs_status_read(0, 0, &status) == 0 &&
	      status.tgid == (int)getpid());
	CHECK(procfs_status_read(getpid(), getpid(), &status) == 0 &&
	      status.tgid == (int)getpid());
	/* a thread's name and state through its stat file kept open: one
	 * descriptor, read again (not reopened) when the name changes */
	{
		char name[16], old[16];
		int fd = -1, first;

		CHECK(procfs_read_task_name_state(getpid(), getpid(), &fd, name,
						  sizeof(name)) == 'R');
		CHECK(!strcmp(name, st.comm) && fd >= 0);
		first = fd;
		prctl(PR_GET_NAME, old);
		prctl(PR_SET_NAME, "a) R (b");
		CHECK(procfs_read_task_name_state(getpid(), getpid(), &fd, name,
						  sizeof(name)) == 'R');
		CHECK(!strcmp(name, "a) R (b") && fd == first);
		CHECK(procfs_read_task_name_state(getpid(), getpid(), &fd, name,
						  3) == 'R');
		CHECK(!strcmp(name, "a)"));
		CHECK(procfs_read_task_state(getpid(), getpid(), &fd) == 'R');
		prctl(PR_SET_NAME, old);
		close(fd);
		fd = -1;
		errno = 0;
		CHECK(procfs_read_task_name_state(-5, -5, &fd, name,
						  sizeof(name)) == -1 &&
		      errno == ENOENT && fd == -1);
	}
	errno = 0;
	CHECK(procfs_stat_read(-5, 0, &st) == -1 && errno == ENOENT);
	CHECK(procfs_status_read(-5, 0, &status) == -1 && errno == ENOENT);
}

int main(void)
{
	check_stat();
	check_status();
	check_readers();
	return unit_result("test_procfs");
}
