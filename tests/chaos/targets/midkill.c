/*
 * midkill - SIGKILL a tracer, preferably while it holds a thread stopped.
 *
 *   midkill TRACER_PID TARGET_PID DELAY_US AIM_MS
 *
 * Sleeps DELAY_US, then reads the state of every thread of TARGET_PID
 * (/proc/TARGET_PID/task/TID/stat) over and over for up to AIM_MS
 * milliseconds (at least once) and sends SIGKILL to TRACER_PID the moment
 * one is ptrace-stopped ('t'), or when AIM_MS is up.  Prints "hit TID" if
 * a thread was seen in 't' by the scan right before the kill, else "miss".
 * Exit 0 once the signal was sent, 2 if kill() failed.  The test passes
 * only PIDs it started itself.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "../../targets/target.h"

/* A TID of PID in state 't', or 0. */
static long traced_stopped(DIR *dir, pid_t pid)
{
	struct dirent *de;
	long hit = 0;

	rewinddir(dir);
	while (!hit && (de = readdir(dir))) {
		char path[64], buf[512], *p;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid,
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
		    p[1] == ' ' && p[2] == 't')
			hit = atol(de->d_name);
		fclose(f);
	}
	return hit;
}

int main(int argc, char **argv)
{
	pid_t tracer, target;
	struct timespec delay;
	double end;
	long us, hit;
	char path[64];
	DIR *dir;

	if (argc != 5)
		return 2;
	tracer = (pid_t)atol(argv[1]);
	target = (pid_t)atol(argv[2]);
	us = atol(argv[3]);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)target);
	dir = opendir(path);
	if (tracer <= 0 || target <= 0 || !dir)
		return 2;
	delay.tv_sec = us / 1000000;
	delay.tv_nsec = us % 1000000 * 1000;
	nanosleep(&delay, NULL);
	end = now() + atol(argv[4]) / 1000.0;
	do
		hit = traced_stopped(dir, target);
	while (!hit && now() < end);
	if (kill(tracer, SIGKILL))
		return 2;
	if (hit)
		printf("hit %ld\n", hit);
	else
		printf("miss\n");
	return 0;
}
