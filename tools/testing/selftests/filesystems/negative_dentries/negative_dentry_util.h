/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the negative dentry limit selftests: making negative dentries,
 * reading the system's dentry counts, fs.dentry-dir-max, the debugfs
 * counters and the negative_dentry trace events.
 *
 * The tests run from a directory of a filesystem that keeps negative
 * dentries (ext4, not tmpfs), and each measures the system-wide negative
 * dentry count, so nothing else should create negative dentries meanwhile.
 */
#ifndef NEGATIVE_DENTRY_UTIL_H
#define NEGATIVE_DENTRY_UTIL_H

#include <linux/openat2.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#define DENTRY_STATE		"/proc/sys/fs/dentry-state"
#define DENTRY_DIR_MAX		"/proc/sys/fs/dentry-dir-max"
/* Linux 6.13's policy: 1 frees the dentry of a file unlinked unused. */
#define DENTRY_NEGATIVE		"/proc/sys/fs/dentry-negative"
#define NEGATIVE_DEBUGFS	"/sys/kernel/debug/negative_dentry/"
#define TRACEFS			"/sys/kernel/tracing/"

/* The arithmetic of include/linux/negative_dentry.h, from the outside. */
static inline long nd_target(long limit)
{
	return limit - limit / 8;
}

/**
 * nd_settled_bound() - the most negative dentries @limit leaves in place
 * @limit: a limit, of a directory or of a cgroup
 *
 * What a count settles at once reclaim is done with a flood, for the tests
 * to compare with. Reclaim brings the count it sees down to nd_target(),
 * and a dentry can be made while a pass finishes: up to two eighths more.
 *
 * Return: @limit + @limit / 8.
 */
static inline long nd_settled_bound(long limit)
{
	return nd_target(limit) + 2 * (limit / 8);
}

/*
 * A cpu's stock charges this many negative dentries ahead for a cgroup,
 * and keeps at most this many as credit (MEMCG_NEGATIVE_DENTRY_CHARGE_BATCH).
 */
#define ND_CHARGE_BATCH		32

/* The dentries reclaim looks at under one lock (NEGATIVE_DENTRY_BATCH) */
#define ND_RECLAIM_BATCH	128

/* The dentries a reclaim run may look at (NEGATIVE_DENTRY_RUN_BUDGET) */
#define ND_RUN_BUDGET		65536

/* The cgroups a cpu's stock holds at once (MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS) */
#define ND_STOCK_SLOTS		4

/**
 * nd_count_slack() - how far a cgroup's count may be from its true value
 *
 * The counter a limit acts on includes what the stocks charged ahead: a
 * batch on each cpu, and .current reads the true count only while none
 * changes; plus a batch of tolerance.
 *
 * Return: the most a cgroup's counts, read apart, may differ by.
 */
static inline long nd_count_slack(void)
{
	return ND_CHARGE_BATCH * (get_nprocs() + 1);
}

/**
 * nd_settled_floor() - the fewest negative dentries @limit leaves in place
 * @limit: a limit of a cgroup
 *
 * Reclaim stops at nd_target(), and a pass may take up to a batch past it
 * on a list; what the stocks hold ahead makes the count it saw read high.
 * A count below this floor was reclaimed past the target.
 *
 * Return: nd_target(@limit) less a reclaim batch and the count's slack.
 */
static inline long nd_settled_floor(long limit)
{
	return nd_target(limit) - ND_RECLAIM_BATCH - nd_count_slack();
}

/* Past this many times a limit, dput() kills (NEGATIVE_DENTRY_KILL_FACTOR) */
#define ND_KILL_FACTOR		4

/* and past at least this many (NEGATIVE_DENTRY_KILL_MIN) */
#define ND_KILL_MIN		10000

static inline long nd_kill_threshold(long limit)
{
	return ND_KILL_FACTOR * limit > ND_KILL_MIN ?
	       ND_KILL_FACTOR * limit : ND_KILL_MIN;
}

static inline long nd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int nd_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len < 0)
		return -errno;
	buf[len] = 0;
	return 0;
}

/* Write the @len bytes of @buf to @path at once; 0 or -errno of the write. */
static inline int nd_write_bytes(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len);
	close(fd);
	return ret < 0 ? -errno : 0;
}

/* Write @val to @path; 0 or -errno of the write. */
static inline int nd_write_file(const char *path, const char *val)
{
	return nd_write_bytes(path, val, strlen(val));
}

struct nd_bytes {
	const char *buf;
	size_t len;
};

#define ND_BYTES(s)	{ s, sizeof(s) - 1 }

/*
 * Writes that no limit file may take, whatever its range: each must fail
 * with EINVAL and leave the value as it was. The tests add their own, and
 * a string of thousands of digits.
 */
static const struct nd_bytes nd_bad_numbers[] = {
	ND_BYTES(""), ND_BYTES(" "), ND_BYTES("\n"), ND_BYTES(" \t\n"),
	ND_BYTES("-1"), ND_BYTES("-0"), ND_BYTES("+300"), ND_BYTES("- 300"),
	ND_BYTES("0x100"), ND_BYTES("0X100"), ND_BYTES("300.0"),
	ND_BYTES("1e3"), ND_BYTES("300 400"), ND_BYTES("300,400"),
	ND_BYTES("300abc"), ND_BYTES("abc"), ND_BYTES("300\0"),
	ND_BYTES("300\0 400"), ND_BYTES("\x01"), ND_BYTES("\xff\xfe"),
	ND_BYTES("99999999999999999999999"),
};

/*
 * Writing @b to @path fails with EINVAL and leaves it reading @want. A
 * write of no bytes may also do nothing at all: cgroup files return 0 for
 * it before their handler sees it.
 */
static inline bool nd_refuses(const char *path, const struct nd_bytes *b,
			      const char *want)
{
	int err = nd_write_bytes(path, b->buf, b->len);
	char now[64] = "";

	if ((err == -EINVAL || (!err && !b->len)) &&
	    !nd_read_file(path, now, sizeof(now)) && !strcmp(now, want))
		return true;
	nd_read_file(path, now, sizeof(now));
	/* one whole line: the harness _exit()s, dropping a partial one */
	now[strcspn(now, "\n")] = 0;
	ksft_print_msg("%s: %zu bytes \"%.*s\": %s, now reads %s\n", path,
		       b->len, (int)(b->len < 32 ? b->len : 32), b->buf,
		       err ? strerror(-err) : "taken", now);
	return false;
}

/*
 * @path refuses each of @bad, each of nd_bad_numbers and 4000 digits (a
 * cgroup file refuses more than a page with E2BIG before any parse), and
 * still reads @want.
 */
static inline bool nd_refuses_all(const char *path, const struct nd_bytes *bad,
				  int nbad, const char *want)
{
	static char digits[4000];
	struct nd_bytes many = { digits, sizeof(digits) };
	size_t i;

	for (i = 0; i < (size_t)nbad; i++)
		if (!nd_refuses(path, &bad[i], want))
			return false;
	for (i = 0; i < ARRAY_SIZE(nd_bad_numbers); i++)
		if (!nd_refuses(path, &nd_bad_numbers[i], want))
			return false;
	memset(digits, '7', sizeof(digits));
	return nd_refuses(path, &many, want);
}

static inline long nd_read_long(const char *path)
{
	char buf[64];

	if (nd_read_file(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

/* Field @n (0: nr_dentry, 4: nr_negative) of /proc/sys/fs/dentry-state. */
static inline long nd_dentry_state(int n)
{
	char buf[256], *p = buf;
	int i;

	if (nd_read_file(DENTRY_STATE, buf, sizeof(buf)))
		return -1;
	for (i = 0; i < n; i++)
		strtol(p, &p, 10);
	return strtol(p, NULL, 10);
}

static inline long nd_nr_negative(void)
{
	return nd_dentry_state(4);
}

static inline long nd_nr_positive(void)
{
	return nd_dentry_state(0) - nd_dentry_state(4);
}

/*
 * reclaimed, killed, limits, works or drains of negative_dentry/ in debugfs. A
 * counter that cannot be read fails the test at once: a check of "nothing
 * killed" would otherwise compare -1 with -1 and pass.
 */
static inline long nd_debugfs_counter(const char *name)
{
	char path[128];
	long val;

	snprintf(path, sizeof(path), NEGATIVE_DEBUGFS "%s", name);
	val = nd_read_long(path);
	if (val < 0)
		ksft_exit_fail_msg("%s cannot be read: is debugfs mounted?\n",
				   path);
	return val;
}

/**
 * nd_cached() - whether the dentry of @path is in the dentry cache
 * @path: the path of a file, or of a name that does not exist
 *
 * An open that may only use the cache fails with EAGAIN where a lookup
 * would have had to make a dentry, and makes none, so it can probe what
 * reclaim left without bringing anything back: a cached file opens, a
 * cached negative dentry fails with ENOENT. An RCU walk that had to retry
 * (a mount elsewhere, say) fails with EAGAIN too, so a cached name could
 * read as evicted, never the other way: a second try settles it. The
 * probe is a lookup: it marks the dentry referenced.
 *
 * Return: 1 if the dentry is cached, 0 if it was evicted, -1 on error.
 */
static inline int nd_cached(const char *path)
{
	struct open_how how = { .flags = O_PATH, .resolve = RESOLVE_CACHED };
	int fd, try;

	for (try = 0; try < 2; try++) {
		fd = syscall(__NR_openat2, AT_FDCWD, path, &how, sizeof(how));
		if (fd >= 0) {
			close(fd);
			return 1;
		}
		if (errno == ENOENT)
			return 1;
		if (errno != EAGAIN)
			return -1;
	}
	return 0;
}

/* How many of @dir/@prefix<0> .. <@count - 1> are cached, or -1. */
static inline long nd_cached_names(const char *dir, const char *prefix,
				   long count)
{
	char path[4096];
	long i, cached = 0;
	int c;

	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/%s%ld", dir, prefix, i);
		c = nd_cached(path);
		if (c < 0)
			return -1;
		cached += c;
	}
	return cached;
}

/* stat() @count missing names @dir/@prefix<i>, from @first on. */
static inline int nd_stat_missing(const char *dir, const char *prefix,
				  long first, long count)
{
	char path[4096];
	struct stat st;
	long i;

	for (i = first; i < first + count; i++) {
		snprintf(path, sizeof(path), "%s/%s%ld", dir, prefix, i);
		if (!stat(path, &st) || errno != ENOENT)
			return -1;
	}
	return 0;
}

/*
 * Create, close and unlink @count new files @dir/@prefix<i>: the churn of
 * temporary files. Each dentry joins the LRU positive at the close and
 * turns negative there at the unlink, or, under fs.dentry-negative, is
 * freed by the unlink.
 */
static inline int nd_churn(const char *dir, const char *prefix, long count)
{
	char path[4096];
	long i;
	int fd;

	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/%s%ld", dir, prefix, i);
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		if (fd < 0 || close(fd) || unlink(path))
			return -1;
	}
	return 0;
}

/* Set fs.dentry-negative to @val; 0 or -errno of the write. */
static inline int nd_set_dentry_negative(long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", val);
	return nd_write_file(DENTRY_NEGATIVE, buf);
}

/* One thread of a flood: @count names from @first on. */
struct nd_flood {
	const char *dir;
	const char *prefix;
	long first;
	long count;
	long made;
	atomic_bool *stop;
	atomic_int *done;
	int ret;
};

/*
 * A flood of missing names over threads; set @stop to end it early. Once
 * nd_flood_join() returned, each thread's @f[i].made says how many names
 * it looked up.
 */
struct nd_floods {
	struct nd_flood f[64];
	pthread_t tid[64];
	int threads;
	atomic_bool stop;
	atomic_int done;
};

static inline void *nd_flood_thread(void *arg)
{
	struct nd_flood *f = arg;
	long i;
	int ret = 0;

	/* Counted locally: the threads' structs share cache lines. */
	for (i = 0; i < f->count && !ret; i++) {
		if (atomic_load_explicit(f->stop, memory_order_relaxed))
			break;
		ret = nd_stat_missing(f->dir, f->prefix, f->first + i, 1);
	}
	f->made = i;
	f->ret = ret;
	atomic_fetch_add(f->done, 1);
	return NULL;
}

/* Wait for the flood's threads; 0 if every name looked up was missing. */
static inline int nd_flood_join(struct nd_floods *fl)
{
	int i, ret = 0;

	for (i = 0; i < fl->threads; i++) {
		pthread_join(fl->tid[i], NULL);
		ret |= fl->f[i].ret;
	}
	return ret;
}

/*
 * Start nd_stat_missing() of @count names split over @threads threads,
 * @dir/@prefix<0> to <@count - 1>; -1 if a thread could not start, after
 * stopping and joining those that did.
 */
static inline int nd_flood_start(struct nd_floods *fl, const char *dir,
				 const char *prefix, long count, int threads)
{
	int i;

	fl->threads = 0;
	if (threads < 1 || threads > 64)
		return -1;
	atomic_init(&fl->stop, false);
	atomic_init(&fl->done, 0);
	for (i = 0; i < threads; i++) {
		long share = count / threads;

		fl->f[i] = (struct nd_flood){
			.dir = dir,
			.prefix = prefix,
			.first = i * share,
			.count = i == threads - 1 ? count - i * share : share,
			.stop = &fl->stop,
			.done = &fl->done,
		};
		if (pthread_create(&fl->tid[i], NULL, nd_flood_thread,
				   &fl->f[i])) {
			atomic_store(&fl->stop, true);
			fl->threads = i;
			nd_flood_join(fl);
			return -1;
		}
	}
	fl->threads = threads;
	return 0;
}

/* nd_stat_missing() of @count names split over @threads threads. */
static inline int nd_flood(const char *dir, const char *prefix, long count,
			   int threads)
{
	struct nd_floods fl;

	return nd_flood_start(&fl, dir, prefix, count, threads) ?:
	       nd_flood_join(&fl);
}

/*
 * Reclaim runs asynchronously: wait until @read() is at most @bound, or
 * stopped falling for two seconds, or @timeout_ms passed. Returns the last
 * value read. The timeout only keeps a broken kernel from hanging the test.
 */
static inline long nd_settle(long (*read)(void *), void *arg, long bound,
			     long timeout_ms)
{
	long start = nd_now_ms(), last_drop = start;
	long val = read(arg), prev = val;

	while (val > bound && nd_now_ms() - last_drop < 2000 &&
	       nd_now_ms() - start < timeout_ms) {
		usleep(50 * 1000);
		val = read(arg);
		if (val < prev) {
			last_drop = nd_now_ms();
			prev = val;
		}
	}
	return val;
}

/* Wait until @read() is at most @bound, for at most @timeout_ms. */
static inline long nd_wait_for(long (*read)(void *), void *arg, long bound,
			       long timeout_ms)
{
	long start = nd_now_ms(), val;

	while ((val = read(arg)) > bound && nd_now_ms() - start < timeout_ms)
		usleep(50 * 1000);
	return val;
}

static inline long nd_read_works(void *arg)
{
	(void)arg;
	return nd_debugfs_counter("works");
}

/*
 * Wait, for at most @timeout_ms, until no reclaim work of either limit is
 * queued or running: what the work queued so far would do is then done,
 * and a check that it did nothing cannot pass early. Returns the works
 * left: 0 once idle.
 */
static inline long nd_wait_idle(long timeout_ms)
{
	return nd_wait_for(nd_read_works, NULL, 0, timeout_ms);
}

static inline long nd_read_nr_negative(void *arg)
{
	(void)arg;
	return nd_nr_negative();
}

/* Turn a negative_dentry trace event on (1) or off (0), emptying the log. */
static inline int nd_trace_event(const char *event, int on)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), TRACEFS "events/negative_dentry/%s/enable",
		 event);
	if (nd_write_file(path, on ? "1" : "0"))
		return -1;
	fd = open(TRACEFS "trace", O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/*
 * The trace log, for strstr() and sscanf() on its lines; NULL if it cannot
 * be read. The caller frees it.
 */
static inline char *nd_trace_log(void)
{
	size_t size = 1 << 20, len = 0;
	char *buf = malloc(size);
	int fd = open(TRACEFS "trace", O_RDONLY);
	ssize_t n;

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return buf;
}

#endif /* NEGATIVE_DENTRY_UTIL_H */
