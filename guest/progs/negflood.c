// SPDX-License-Identifier: GPL-2.0
/*
 * negflood: create negative dentries the way NSS init, health checks and
 * temp-file probes do, by stat()ing names that do not exist.
 *
 *   negflood [-t THREADS] [-p PREFIX] DIR COUNT
 *
 * Looks up COUNT distinct missing names DIR/PREFIX<n>, split over THREADS
 * threads, and prints the count and the rate. Exits 1 if a name exists.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct job {
	const char *dir, *prefix;
	unsigned long first, count;
	int failed;
};

static void *flood(void *arg)
{
	struct job *job = arg;
	char path[4096];
	struct stat st;
	unsigned long i;

	for (i = job->first; i < job->first + job->count; i++) {
		snprintf(path, sizeof(path), "%s/%s%lu", job->dir, job->prefix, i);
		if (stat(path, &st) == 0 || errno != ENOENT) {
			fprintf(stderr, "negflood: %s: %s\n", path,
				errno == ENOENT ? "exists" : strerror(errno));
			job->failed = 1;
			break;
		}
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *prefix = "missing-";
	unsigned long count, per;
	int threads = 1, opt, i, failed = 0;
	pthread_t tid[64];
	struct job job[64];
	double start, secs;

	while ((opt = getopt(argc, argv, "t:p:")) != -1) {
		switch (opt) {
		case 't':
			threads = atoi(optarg);
			break;
		case 'p':
			prefix = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 2 || threads < 1 || threads > 64)
		goto usage;
	count = strtoul(argv[optind + 1], NULL, 0);
	per = count / threads;

	start = now();
	for (i = 0; i < threads; i++) {
		job[i] = (struct job){ argv[optind], prefix, i * per,
			i == threads - 1 ? count - i * per : per, 0 };
		pthread_create(&tid[i], NULL, flood, &job[i]);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		failed |= job[i].failed;
	}
	secs = now() - start;
	printf("negflood: %lu lookups of missing names in %.2f s (%.0f/s)\n",
	       count, secs, count / secs);
	return failed;

usage:
	fprintf(stderr, "usage: negflood [-t THREADS] [-p PREFIX] DIR COUNT\n");
	return 2;
}
