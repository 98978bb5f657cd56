/* Runs a command under a time limit and reports its peak memory and time:
 *   runlimit MAX_MIB MAX_SECONDS COMMAND [ARG...]
 * Exits with the command's status; 124 when it ran out of time, 125 when
 * its peak RSS went over MAX_MIB (0: no limit), 126 when killed by a
 * signal (a crash).  The limits tests use it to show "bounded". */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for pid, killing it once `secs` have passed; 1 when it had to. */
static int
wait_for(pid_t pid, double secs, int *status, struct rusage *ru)
{
	double t0 = now();
	int killed = 0;

	for (;;) {
		pid_t r = wait4(pid, status, WNOHANG, ru);

		if (r == pid)
			return killed;
		if (r < 0) {
			perror("runlimit: wait4");
			exit(2);
		}
		if (!killed && now() - t0 > secs) {
			kill(pid, SIGKILL);
			killed = 1;
		}
		usleep(10000);
	}
}

int
main(int argc, char **argv)
{
	long max_mib, max_secs;
	struct rusage ru;
	double t0, t;
	int status, killed;
	pid_t pid;

	if (argc < 4) {
		fputs("usage: runlimit MAX_MIB MAX_SECONDS COMMAND [ARG...]\n",
		      stderr);
		return 2;
	}
	max_mib = atol(argv[1]);
	max_secs = atol(argv[2]);
	t0 = now();
	if ((pid = fork()) < 0) {
		perror("runlimit: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		_exit(127);
	}
	killed = wait_for(pid, (double)max_secs, &status, &ru);
	t = now() - t0;
	fprintf(stderr, "runlimit: %s: %.2f s, peak RSS %ld MiB\n", argv[3], t,
		ru.ru_maxrss / 1024);
	if (killed) {
		fprintf(stderr, "runlimit: killed after %ld s\n", max_secs);
		return 124;
	}
	if (max_mib && ru.ru_maxrss / 1024 > max_mib) {
		fprintf(stderr, "runlimit: over %ld MiB\n", max_mib);
		return 125;
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "runlimit: killed by signal %d\n",
			WTERMSIG(status));
		return 126;
	}
	return WEXITSTATUS(status);
}
