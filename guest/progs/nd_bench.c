// SPDX-License-Identifier: GPL-2.0
/*
 * nd_bench: the measurements of make bench, one subcommand each.
 *
 *   nd_bench files DIR N
 *	create DIR/file0 .. file<N-1>
 *   nd_bench rate MODE DIR N SECONDS THREADS
 *	run MODE's operation for SECONDS from THREADS threads and print
 *	operations a second. stat() of: positive: the N files; negative: N
 *	missing names, cached by a first pass; create: new missing names,
 *	each making a negative dentry. file: create new files (open, close).
 *	churn: create new files and unlink each while it is open, so that
 *	its dentry is freed at close: children of DIR come and go. tmp:
 *	create new files, close each and unlink it, the churn of temporary
 *	files: each leaves a negative dentry, or none under
 *	fs.dentry-negative=1; prints create+unlink pairs a second.
 *	create-uuid, create-git, file-uuid, file-git: create and file with
 *	new names of 36 bytes (shaped as UUIDs) or 38 (as git's loose
 *	objects), which needed an external name when an earlier version of
 *	ours made DNAME_INLINE_LEN 36.
 *	fill: create files over the cached negative dentries DIR/a/new-0-<k>
 *	and DIR/b/new-0-<k> (nd_bench negatives), taking the two
 *	directories in turn, until N are made or SECONDS pass.
 *	rename: rename the N files (file<k> to moved<k> and back). unlink:
 *	unlink the N files, until SECONDS or none is left. The N files are
 *	DIR/file0 .. file<N-1> (nd_bench files) and the threads share them:
 *	rename and unlink take one thread.
 *   nd_bench negatives MODE DIR N
 *	stat() N new names of MODE's shape (create, create-uuid, create-git)
 *	in DIR: N new negative dentries
 *   nd_bench tree DIR N
 *	create N files in DIR/d0 .. d<N/1000>, a thousand per directory
 *   nd_bench walk DIR
 *	stat() every entry under DIR, depth first, as find does, and print
 *	entries a second
 *   nd_bench storm DIRS HEADERS ROUNDS
 *	an include-path search: HEADERS headers spread over DIRS directories
 *	inc0 .. inc<DIRS-1> (created), each looked up ROUNDS times through
 *	the directories in order; prints seconds and negative lookups
 *   nd_bench runaway COUNTFILE DIR N THREADS [SECONDS]
 *	stat N missing names in DIR from THREADS threads while sampling
 *	COUNTFILE (a memory.negative_dentry.current, or dentry-state) every
 *	millisecond; prints "series <ms> <count>" lines, the peak, and how
 *	many names were looked up; stops after SECONDS if given
 *   nd_bench read FILE N
 *	read FILE N times and print the microseconds one read takes
 *   nd_bench traced start | OP PATH...
 *	for harness/insn_trace.py: start: a getsid(), after which its
 *	debugger counts, and after the last OP, stops; OP (stat, unlink, or
 *	rename to PATH.r) on each PATH, each after a getppid(), the mark it
 *	stops at
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../kselftest.h"
#include "negative_dentry_util.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void make_dir(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		die(dir);
}

static void make_file(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	if (fd < 0)
		die(path);
	close(fd);
}

static int cmd_files(const char *dir, long n)
{
	char path[4096];
	long i;

	make_dir(dir);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/file%ld", dir, i);
		make_file(path);
	}
	return 0;
}

struct rate {
	const char *mode, *dir;
	long n;
	int id;
	double until;
	long done;
};

/*
 * DIR/<name> for the @i-th new name of thread @id, in the shape a mode's
 * suffix asks for: -uuid, 36 bytes; -git, 38; else new-<id>-<i>.
 */
static void new_name(char *path, size_t size, const char *mode,
		     const char *dir, int id, long i)
{
	const char *shape = strchr(mode, '-');

	if (shape && !strcmp(shape, "-uuid"))
		snprintf(path, size, "%s/%08x-0000-4000-8000-%012lx", dir, id, i);
	else if (shape && !strcmp(shape, "-git"))
		snprintf(path, size, "%s/%06x%032lx", dir, id, i);
	else
		snprintf(path, size, "%s/new-%d-%ld", dir, id, i);
}

static void *rate_thread(void *arg)
{
	struct rate *r = arg;
	char path[4096];
	struct stat st;
	long i;

	for (i = 0; now() < r->until; i++) {
		long k = i % r->n;

		if (!strcmp(r->mode, "rename")) {
			char to[4096];
			bool back = (i / r->n) % 2;

			snprintf(path, sizeof(path), "%s/%s%ld", r->dir,
				 back ? "moved" : "file", k);
			snprintf(to, sizeof(to), "%s/%s%ld", r->dir,
				 back ? "file" : "moved", k);
			if (rename(path, to))
				die(path);
			continue;
		}
		if (!strcmp(r->mode, "fill")) {
			if (i == r->n)
				break;
			snprintf(path, sizeof(path), "%s/%c/new-0-%ld", r->dir,
				 i % 2 ? 'b' : 'a', i / 2);
			make_file(path);
			continue;
		}
		if (!strcmp(r->mode, "unlink")) {
			if (i == r->n)
				break;
			snprintf(path, sizeof(path), "%s/file%ld", r->dir, i);
			if (unlink(path))
				die(path);
			continue;
		}
		if (!strcmp(r->mode, "churn")) {
			int fd;

			snprintf(path, sizeof(path), "%s/churn-%d-%ld", r->dir,
				 r->id, i);
			fd = open(path, O_CREAT | O_WRONLY, 0644);
			if (fd < 0 || unlink(path))
				die(path);
			close(fd);
			continue;
		}
		if (!strcmp(r->mode, "tmp")) {
			snprintf(path, sizeof(path), "%s/tmp-%d-%ld", r->dir,
				 r->id, i);
			make_file(path);
			if (unlink(path))
				die(path);
			continue;
		}
		if (!strncmp(r->mode, "file", 4)) {
			new_name(path, sizeof(path), r->mode, r->dir, r->id, i);
			make_file(path);
			continue;
		}
		if (!strcmp(r->mode, "positive"))
			snprintf(path, sizeof(path), "%s/file%ld", r->dir, k);
		else if (!strcmp(r->mode, "negative"))
			snprintf(path, sizeof(path), "%s/absent%ld", r->dir, k);
		else
			new_name(path, sizeof(path), r->mode, r->dir, r->id, i);
		stat(path, &st);
	}
	r->done = i;
	return NULL;
}

static int cmd_rate(const char *mode, const char *dir, long n, double secs,
		    int threads)
{
	struct rate r[64];
	pthread_t tid[64];
	char path[4096];
	struct stat st;
	double start;
	long i, total = 0;

	if (threads < 1 || threads > 64 ||
	    (threads > 1 && (!strcmp(mode, "rename") ||
			     !strcmp(mode, "unlink") || !strcmp(mode, "fill"))))
		return 2;
	if (!strcmp(mode, "negative"))	/* cache the missing names first */
		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "%s/absent%ld", dir, i);
			stat(path, &st);
		}
	start = now();
	for (i = 0; i < threads; i++) {
		r[i] = (struct rate){ mode, dir, n, (int)i, start + secs, 0 };
		if (pthread_create(&tid[i], NULL, rate_thread, &r[i]))
			die("pthread_create");
	}
	for (i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		total += r[i].done;
	}
	printf("%.0f\n", total / (now() - start));
	return 0;
}

static int cmd_negatives(const char *mode, const char *dir, long n)
{
	char path[4096];
	struct stat st;
	long i;

	for (i = 0; i < n; i++) {
		new_name(path, sizeof(path), mode, dir, 0, i);
		if (!stat(path, &st) || errno != ENOENT)
			die(path);
	}
	return 0;
}

static int cmd_storm(int dirs, int headers, int rounds)
{
	char path[256];
	struct stat st;
	long negative = 0;
	double start;
	int d, h, round;

	for (d = 0; d < dirs; d++) {
		snprintf(path, sizeof(path), "inc%d", d);
		if (mkdir(path, 0755) && errno != EEXIST)
			die(path);
	}
	/* header h lives in one directory, spread evenly over the path */
	for (h = 0; h < headers; h++) {
		snprintf(path, sizeof(path), "inc%d/h%d.h", h % dirs, h);
		close(open(path, O_CREAT | O_WRONLY, 0644));
	}
	start = now();
	for (round = 0; round < rounds; round++)
		for (h = 0; h < headers; h++)
			for (d = 0; d < dirs; d++) {
				snprintf(path, sizeof(path), "inc%d/h%d.h", d, h);
				if (!stat(path, &st))
					break;
				negative++;
			}
	printf("%.3f %ld\n", now() - start, negative);
	return 0;
}

static long read_count(const char *file)
{
	char buf[256], *p = buf;
	ssize_t len;
	int fd, i;

	fd = open(file, O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0)
		return -1;
	buf[len] = 0;
	/* dentry-state: the fifth field, nr_negative */
	if (strstr(file, "dentry-state"))
		for (i = 0; i < 4; i++)
			strtol(p, &p, 10);
	return strtol(p, NULL, 10);
}

/* The selftests' flood, watched from here. */
static int cmd_runaway(const char *file, const char *dir, long n, int threads,
		       double secs)
{
	long base = strstr(file, "dentry-state") ? read_count(file) : 0;
	long peak = 0, last_ms = -1000, count, ms, made = 0;
	double start = now();
	struct nd_floods fl;
	int i, ret;

	make_dir(dir);
	if (nd_flood_start(&fl, dir, "missing", n, threads))
		return 2;
	do {
		count = read_count(file) - base;
		ms = (now() - start) * 1000;
		if (count > peak)
			peak = count;
		if (ms - last_ms >= 100) {
			printf("series %ld %ld\n", ms, count);
			last_ms = ms;
		}
		if (secs > 0 && ms >= secs * 1000)
			atomic_store(&fl.stop, true);
		usleep(1000);
	} while (atomic_load(&fl.done) < fl.threads);
	ret = nd_flood_join(&fl);
	for (i = 0; i < fl.threads; i++)
		made += fl.f[i].made;
	printf("series %ld %ld\n", (long)((now() - start) * 1000),
	       read_count(file) - base);
	printf("peak %ld\n", peak);
	printf("flooded %ld\n", made);
	return ret ? 1 : 0;
}

static int cmd_tree(const char *dir, long n)
{
	char path[4096];
	long i;

	make_dir(dir);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/d%ld", dir, i / 1000);
		if (i % 1000 == 0)
			make_dir(path);
		snprintf(path, sizeof(path), "%s/d%ld/f%ld", dir, i / 1000, i);
		make_file(path);
	}
	return 0;
}

static long walked;

static int walk_one(const char *path __attribute__((unused)),
		    const struct stat *st __attribute__((unused)),
		    int type __attribute__((unused)),
		    struct FTW *ftw __attribute__((unused)))
{
	walked++;
	return 0;
}

static int cmd_walk(const char *dir)
{
	double start = now();

	if (nftw(dir, walk_one, 64, FTW_PHYS))
		die(dir);
	printf("%.0f\n", walked / (now() - start));
	return 0;
}

static int cmd_read(const char *file, long n)
{
	char buf[65536];
	double start = now();
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = open(file, O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
			die(file);
		close(fd);
	}
	printf("%.2f\n", (now() - start) * 1e6 / n);
	return 0;
}

static int cmd_traced(const char *op, char **paths, int n)
{
	char to[4096];
	struct stat st;
	int i;

	if (!strcmp(op, "start"))
		return syscall(SYS_getsid, 0) < 0;
	for (i = 0; i < n; i++) {
		syscall(SYS_getppid);
		if (!strcmp(op, "stat")) {
			stat(paths[i], &st);
		} else if (!strcmp(op, "unlink")) {
			if (unlink(paths[i]))
				die(paths[i]);
		} else if (!strcmp(op, "rename")) {
			snprintf(to, sizeof(to), "%s.r", paths[i]);
			if (rename(paths[i], to))
				die(paths[i]);
		} else {
			return 2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "files"))
		return cmd_files(argv[2], atol(argv[3]));
	if (argc == 7 && !strcmp(argv[1], "rate"))
		return cmd_rate(argv[2], argv[3], atol(argv[4]), atof(argv[5]),
				atoi(argv[6]));
	if (argc == 5 && !strcmp(argv[1], "storm"))
		return cmd_storm(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "runaway"))
		return cmd_runaway(argv[2], argv[3], atol(argv[4]),
				   atoi(argv[5]), argc == 7 ? atof(argv[6]) : 0);
	if (argc == 5 && !strcmp(argv[1], "negatives"))
		return cmd_negatives(argv[2], argv[3], atol(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "tree"))
		return cmd_tree(argv[2], atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "walk"))
		return cmd_walk(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "read"))
		return cmd_read(argv[2], atol(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "traced"))
		return cmd_traced(argv[2], argv + 3, argc - 3);
	fprintf(stderr, "usage: see the comment at the top of nd_bench.c\n");
	return 2;
}
