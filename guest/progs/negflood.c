// SPDX-License-Identifier: GPL-2.0
/*
 * negflood: create negative dentries the way NSS init, health checks and
 * temp-file probes do, by stat()ing names that do not exist.
 *
 *   negflood [-t THREADS] [-p PREFIX] DIR COUNT
 *
 * Looks up COUNT distinct missing names DIR/PREFIX<n>, split over THREADS
 * threads, and prints the count and the rate. Exits 1 if a name exists.
 * The flood is the selftests' nd_flood(), so that the shell tests and the
 * selftests make negative dentries the same way.
 */
#define _GNU_SOURCE
#include "../../kselftest.h"
#include "negative_dentry_util.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *prefix = "missing-";
	int threads = 1, opt;
	double start, secs;
	long count;

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
	count = strtol(argv[optind + 1], NULL, 0);

	start = now();
	if (nd_flood(argv[optind], prefix, count, threads)) {
		fprintf(stderr, "negflood: a name in %s exists or cannot be "
			"looked up\n", argv[optind]);
		return 1;
	}
	secs = now() - start;
	printf("negflood: %ld lookups of missing names in %.2f s (%.0f/s)\n",
	       count, secs, count / secs);
	return 0;

usage:
	fprintf(stderr, "usage: negflood [-t THREADS] [-p PREFIX] DIR COUNT\n");
	return 2;
}
