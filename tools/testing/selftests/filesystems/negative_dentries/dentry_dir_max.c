// SPDX-License-Identifier: GPL-2.0
/*
 * fs.dentry-dir-max: the limit on the negative dentries of a directory.
 *
 * Run as root from a directory of a filesystem that keeps negative dentries
 * (ext4, not tmpfs), on an otherwise idle system: the tests measure the
 * system-wide negative dentry count. NEGATIVE_DENTRY_SCRATCH names a block
 * device with a filesystem the umount test may mount and unmount.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../../kselftest.h"
#include "negative_dentry_util.h"

#define LIMIT		1000
#define FLOOD		100000
/*
 * How far past the kill threshold a parallel flood may go: the threshold
 * is checked against the directory's estimate, which each flooding thread
 * may pass with a dentry of its own, and negative dentries elsewhere on the
 * system move the count we read.
 */
#define FLOOD_THREADS	4
#define FLOOD_SLACK	(2 * FLOOD_THREADS + 64)
/* Wait no longer than this for reclaim; only a broken kernel waits. */
#define SETTLE_MS	120000

static int set_dir_max(long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", val);
	return nd_write_file(DENTRY_DIR_MAX, buf);
}

static int make_dir(const char *name)
{
	return mkdir(name, 0755) && errno != EEXIST ? -1 : 0;
}

/* Create @n files @dir/file<i> of one byte. */
static int make_files(const char *dir, long n)
{
	char path[4096];
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/file%ld", dir, i);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0 || write(fd, "x", 1) != 1)
			return -1;
		close(fd);
	}
	return 0;
}

/* Check that @dir/file0 .. file<n-1> all exist and hold their byte. */
static int files_intact(const char *dir, long n)
{
	char path[4096];
	struct stat st;
	long i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/file%ld", dir, i);
		if (stat(path, &st) || st.st_size != 1) {
			ksft_print_msg("%s is gone\n", path);
			return -1;
		}
	}
	return 0;
}

/* Remove the files and the directory; its negative children go with it. */
static void remove_dir(const char *dir, long nfiles)
{
	char path[4096];
	long i;

	for (i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "%s/file%ld", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

static int test_rejects_bad_values(void)
{
	/* Numbers out of range; nd_bad_numbers has the malformed ones. */
	static const struct nd_bytes bad[] = {
		ND_BYTES("1"), ND_BYTES("2"), ND_BYTES("100"), ND_BYTES("255"),
		ND_BYTES("-256"), ND_BYTES("2147483648"),
		ND_BYTES("-2147483649"), ND_BYTES("9223372036854775807"),
	};
	static const struct {
		const char *write;
		long read;
	} good[] = { { "0", 0 }, { "256", 256 }, { "1000\n", 1000 },
		     { " 300\t\n", 300 }, { "2147483647", 2147483647 } };
	char want[32];
	int i;

	if (set_dir_max(LIMIT))
		return KSFT_FAIL;
	snprintf(want, sizeof(want), "%d\n", LIMIT);
	if (!nd_refuses_all(DENTRY_DIR_MAX, bad, ARRAY_SIZE(bad), want))
		return KSFT_FAIL;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		if (nd_write_file(DENTRY_DIR_MAX, good[i].write) ||
		    nd_read_long(DENTRY_DIR_MAX) != good[i].read) {
			ksft_print_msg("\"%s\" not taken\n", good[i].write);
			return KSFT_FAIL;
		}
	}
	return KSFT_PASS;
}

/*
 * Flood @dir with FLOOD missing names under @limit, and return how many of
 * them are left as negative dentries once reclaim has settled. Also checks
 * that every negative dentry that went away was counted as reclaimed or
 * killed.
 */
static long flood_and_settle(const char *dir, long limit, int threads)
{
	long before = nd_nr_negative();
	long reclaimed = nd_debugfs_counter("reclaimed");
	long killed = nd_debugfs_counter("killed");
	long left, gone;

	if (set_dir_max(limit) || make_dir(dir) ||
	    nd_flood(dir, "missing-", FLOOD, threads))
		return -1;
	nd_settle(nd_read_nr_negative, NULL, before + limit, SETTLE_MS);
	nd_quiesce(nd_reclaim_activity, NULL, SETTLE_MS);
	left = nd_nr_negative() - before;
	reclaimed = nd_debugfs_counter("reclaimed") - reclaimed;
	killed = nd_debugfs_counter("killed") - killed;
	gone = FLOOD - left;
	ksft_print_msg("limit %ld: %ld of %d left, %ld reclaimed, %ld killed\n",
		       limit, left, FLOOD, reclaimed, killed);
	if (labs(gone - reclaimed - killed) > 64) {
		ksft_print_msg("%ld went away but %ld were counted\n", gone,
			       reclaimed + killed);
		return -1;
	}
	return left;
}

static int test_bounds_a_flood(void)
{
	long limited = flood_and_settle("bounded", LIMIT, 1);
	long unlimited;

	remove_dir("bounded", 0);
	unlimited = flood_and_settle("unbounded", 0, 1);
	remove_dir("unbounded", 0);
	if (limited < 0 || unlimited < 0)
		return KSFT_FAIL;
	if (limited > LIMIT + LIMIT / 8) {
		ksft_print_msg("%ld negative dentries left, limit %d\n",
			       limited, LIMIT);
		return KSFT_FAIL;
	}
	if (unlimited < FLOOD - FLOOD / 100) {
		ksft_print_msg("no limit, yet only %ld of %d left\n",
			       unlimited, FLOOD);
		return KSFT_FAIL;
	}
	return KSFT_PASS;
}

struct peak {
	atomic_bool stop;
	long base;
	long max;
};

static void *watch_peak(void *arg)
{
	struct peak *p = arg;

	while (!atomic_load(&p->stop)) {
		long n = nd_nr_negative() - p->base;

		if (n > p->max)
			p->max = n;
		usleep(200);
	}
	return NULL;
}

static int test_bounds_a_parallel_flood(void)
{
	struct peak peak = { .base = nd_nr_negative() };
	long left, bound = nd_kill_threshold(LIMIT) + FLOOD_SLACK;
	pthread_t watcher;
	int ret = KSFT_PASS;

	if (pthread_create(&watcher, NULL, watch_peak, &peak))
		return KSFT_FAIL;
	left = flood_and_settle("parallel", LIMIT, FLOOD_THREADS);
	atomic_store(&peak.stop, true);
	pthread_join(watcher, NULL);
	remove_dir("parallel", 0);
	ksft_print_msg("peak %ld, bound %ld (kill threshold %ld + %d)\n",
		       peak.max, bound, nd_kill_threshold(LIMIT), FLOOD_SLACK);
	if (left < 0 || left > LIMIT + LIMIT / 8 || peak.max > bound)
		ret = KSFT_FAIL;
	return ret;
}

/*
 * Files created, closed and unlinked under new names: each dentry joins
 * the LRU positive and turns negative there, without going through the
 * path a lookup's negative takes. The limit must hold all the same.
 */
static int test_bounds_unlinked_files(void)
{
	long before = nd_nr_negative();
	char path[64];
	long i, left;
	int fd;

	if (set_dir_max(LIMIT) || make_dir("unlinked"))
		return KSFT_FAIL;
	for (i = 0; i < 4 * LIMIT; i++) {
		snprintf(path, sizeof(path), "unlinked/tmp-%ld", i);
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		if (fd < 0 || close(fd) || unlink(path)) {
			ksft_print_msg("%s: %s\n", path, strerror(errno));
			return KSFT_FAIL;
		}
	}
	nd_settle(nd_read_nr_negative, NULL, before + LIMIT, SETTLE_MS);
	nd_quiesce(nd_reclaim_activity, NULL, SETTLE_MS);
	left = nd_nr_negative() - before;
	set_dir_max(0);
	remove_dir("unlinked", 0);
	ksft_print_msg("limit %d: %ld of %d unlinked files left negative\n",
		       LIMIT, left, 4 * LIMIT);
	return left > LIMIT + LIMIT / 8 ? KSFT_FAIL : KSFT_PASS;
}

static int test_positives_survive(void)
{
	const long nfiles = 2000;
	long positives, reclaimed;
	int ret = KSFT_FAIL;

	if (set_dir_max(0) || make_dir("mixed") || make_files("mixed", nfiles))
		goto out;
	positives = nd_nr_positive();
	reclaimed = nd_debugfs_counter("reclaimed");
	if (flood_and_settle("mixed", LIMIT, 2) < 0 ||
	    files_intact("mixed", nfiles))
		goto out;
	reclaimed = nd_debugfs_counter("reclaimed") - reclaimed;
	ksft_print_msg("positive dentries %ld before, %ld after\n", positives,
		       nd_nr_positive());
	/* Only negative ones were reclaimed: the files are still cached. */
	if (nd_nr_positive() < positives - 16 || reclaimed > FLOOD)
		goto out;
	ret = KSFT_PASS;
out:
	remove_dir("mixed", nfiles);
	return ret;
}

/*
 * Find "dir <ino> children C positive P negative N" in the trace: the
 * first, the count before any reclaim. A reclaim that spares hot negative
 * children and so stays over the limit counts them again after it.
 */
static int traced_count(unsigned long ino, long *children, long *pos,
			long *neg)
{
	char *log = nd_trace_log(), *line, needle[64];
	int found = 0;

	if (!log)
		return 0;
	snprintf(needle, sizeof(needle), " dir %lu children ", ino);
	line = strstr(log, needle);
	if (line)
		found = sscanf(line, " dir %*u children %ld positive %ld negative %ld",
			       children, pos, neg) == 3;
	free(log);
	return found;
}

/*
 * Count the children of @dir with a reclaim pass: everything is in place
 * with fs.dentry-dir-max off, then one more negative dentry in the limited
 * directory starts reclaim, which counts.
 */
static int count_by_reclaim(const char *dir, long *children, long *pos,
			    long *neg)
{
	struct stat st;
	long start = nd_now_ms();

	if (stat(dir, &st) || nd_trace_event("negative_dentry_dir_count", 1) ||
	    set_dir_max(LIMIT) || nd_stat_missing(dir, "trigger", 0, 1))
		return -1;
	while (!traced_count(st.st_ino, children, pos, neg)) {
		if (nd_now_ms() - start > SETTLE_MS)
			return -1;
		usleep(10000);
	}
	nd_trace_event("negative_dentry_dir_count", 0);
	return set_dir_max(0);
}

/*
 * fs.dentry-negative is 0 or 1: anything else fails with EINVAL and leaves
 * it as it was, 0 or 1. A write of no bytes takes nothing and succeeds,
 * as for any integer sysctl.
 */
static int test_dentry_negative_bad_values(void)
{
	static const struct nd_bytes bad[] = {
		ND_BYTES("2"), ND_BYTES("-1"), ND_BYTES("junk"), ND_BYTES(""),
		ND_BYTES("1x"), ND_BYTES(" "), ND_BYTES("\n"), ND_BYTES("+1"),
		ND_BYTES("1.0"), ND_BYTES("0x2"), ND_BYTES("1\0"),
		ND_BYTES("2147483648"), ND_BYTES("-2147483649"),
		ND_BYTES("99999999999999999999999"),
	};
	static const struct {
		const char *write;
		long read;
	} good[] = { { "1", 1 }, { "0\n", 0 }, { " 1\t\n", 1 }, { "0", 0 } };
	long saved = nd_read_long(DENTRY_NEGATIVE);
	int i, want, ret = KSFT_FAIL;

	if (saved < 0)
		return KSFT_SKIP;
	for (want = 0; want <= 1; want++) {
		char now[8];

		snprintf(now, sizeof(now), "%d\n", want);
		if (nd_set_dentry_negative(want))
			goto out;
		for (i = 0; i < ARRAY_SIZE(bad); i++)
			if (!nd_refuses(DENTRY_NEGATIVE, &bad[i], now))
				goto out;
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		if (nd_write_file(DENTRY_NEGATIVE, good[i].write) ||
		    nd_read_long(DENTRY_NEGATIVE) != good[i].read) {
			ksft_print_msg("\"%s\" not taken\n", good[i].write);
			goto out;
		}
	}
	ret = KSFT_PASS;
out:
	nd_set_dentry_negative(saved);
	return ret;
}

#define CHURN	2000
#define NEVER	1500

/*
 * Create, close and unlink CHURN files in @dir with fs.dentry-negative at
 * @policy, then look up NEVER names that never existed there. @churned is
 * the change of nr_negative the churn made; @children, @pos and @neg are
 * the directory's counts, as a reclaim pass makes them. @children is
 * d_nchildren, the count the limit keeps: it must have lost every child
 * freed, or it would not be the sum of the children found.
 */
static int churn_and_count(const char *dir, int policy, long *churned,
			   long *children, long *pos, long *neg)
{
	long before;

	if (set_dir_max(0) || nd_set_dentry_negative(policy) || make_dir(dir))
		return -1;
	before = nd_nr_negative();
	if (nd_churn(dir, "tmp-", CHURN))
		return -1;
	*churned = nd_nr_negative() - before;
	if (nd_stat_missing(dir, "never-", 0, NEVER) ||
	    count_by_reclaim(dir, children, pos, neg))
		return -1;
	ksft_print_msg("fs.dentry-negative=%d: %d files churned, nr_negative %+ld; %s: %ld children, %ld positive, %ld negative\n",
		       policy, CHURN, *churned, dir, *children, *pos, *neg);
	return 0;
}

/*
 * fs.dentry-negative=1 frees the dentry of each unlinked file: the churn
 * of temporary files leaves no negative dentry, neither in nr_negative
 * nor in its directory's count, and under fs.dentry-dir-max nothing is
 * reclaimed or killed for it; names that never existed still count. At
 * 0, each file leaves one.
 */
static int test_dentry_negative_unlinks(void)
{
	long saved = nd_read_long(DENTRY_NEGATIVE);
	long churned, children, pos, neg, reclaimed, killed, left;
	int ret = KSFT_FAIL;

	if (saved < 0)
		return KSFT_SKIP;
	/* under the limit: the unlinks must not feed it */
	nd_quiesce(nd_reclaim_activity, NULL, SETTLE_MS);
	reclaimed = nd_debugfs_counter("reclaimed");
	killed = nd_debugfs_counter("killed");
	left = nd_nr_negative();
	if (set_dir_max(LIMIT) || nd_set_dentry_negative(1) ||
	    make_dir("dropped") || nd_churn("dropped", "tmp-", 2 * CHURN))
		goto out;
	nd_quiesce(nd_reclaim_activity, NULL, SETTLE_MS);
	left = nd_nr_negative() - left;
	reclaimed = nd_debugfs_counter("reclaimed") - reclaimed;
	killed = nd_debugfs_counter("killed") - killed;
	ksft_print_msg("limit %d, fs.dentry-negative=1: %d files churned, nr_negative %+ld, %ld reclaimed, %ld killed\n",
		       LIMIT, 2 * CHURN, left, reclaimed, killed);
	if (labs(left) > 64 || reclaimed || killed)
		goto out;

	if (churn_and_count("dropped", 1, &churned, &children, &pos, &neg) ||
	    labs(churned) > 64 || pos || neg != NEVER + 1 ||
	    children != pos + neg)
		goto out;
	if (churn_and_count("kept", 0, &churned, &children, &pos, &neg) ||
	    churned < CHURN - 64 || churned > CHURN + 64 || pos ||
	    neg != CHURN + NEVER + 1 || children != pos + neg)
		goto out;
	ret = KSFT_PASS;
out:
	nd_set_dentry_negative(saved);
	set_dir_max(0);
	remove_dir("dropped", 0);
	remove_dir("kept", 0);
	return ret;
}

static int test_rename_keeps_counts(void)
{
	char from[64], to[64];
	long children, pos, neg;
	int i, ret = KSFT_FAIL;

	if (set_dir_max(0) || make_dir("ren_a") || make_dir("ren_b") ||
	    make_files("ren_a", 300) || make_files("ren_b", 300))
		goto out;
	/* 100 files leave ren_a, 50 come in over negative dentries */
	for (i = 0; i < 100; i++) {
		snprintf(from, sizeof(from), "ren_a/file%d", i);
		snprintf(to, sizeof(to), "ren_b/moved%d", i);
		if (rename(from, to))
			goto out;
	}
	if (nd_stat_missing("ren_a", "incoming", 0, 50))
		goto out;
	for (i = 0; i < 50; i++) {
		snprintf(from, sizeof(from), "ren_b/file%d", i);
		snprintf(to, sizeof(to), "ren_a/incoming%d", i);
		if (rename(from, to))
			goto out;
	}
	/* 20 exchanges between the two directories change no count */
	for (i = 0; i < 20; i++) {
		snprintf(from, sizeof(from), "ren_a/file%d", 200 + i);
		snprintf(to, sizeof(to), "ren_b/file%d", 200 + i);
		if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE))
			goto out;
	}
	if (nd_stat_missing("ren_a", "missing", 0, 1500) ||
	    count_by_reclaim("ren_a", &children, &pos, &neg))
		goto out;
	ksft_print_msg("ren_a: %ld children, %ld positive, %ld negative\n",
		       children, pos, neg);
	if (pos != 250 || children != pos + neg || neg < 1500)
		goto out;
	if (nd_stat_missing("ren_b", "missing", 0, 1100) ||
	    count_by_reclaim("ren_b", &children, &pos, &neg))
		goto out;
	ksft_print_msg("ren_b: %ld children, %ld positive, %ld negative\n",
		       children, pos, neg);
	if (pos != 350 || children != pos + neg || neg < 1100)
		goto out;
	ret = KSFT_PASS;
out:
	set_dir_max(0);
	system("rm -rf ren_a ren_b");
	return ret;
}

static int test_mostly_positive_dir_kept(void)
{
	long before, reclaimed, children, pos, neg;
	int ret = KSFT_FAIL;

	if (set_dir_max(0) || make_dir("positive") ||
	    make_files("positive", 3 * LIMIT))
		goto out;
	before = nd_nr_negative();
	reclaimed = nd_debugfs_counter("reclaimed");
	if (nd_stat_missing("positive", "missing", 0, 100) ||
	    count_by_reclaim("positive", &children, &pos, &neg))
		goto out;
	usleep(500 * 1000);
	ksft_print_msg("%ld positive, %ld negative; %ld reclaimed\n", pos, neg,
		       nd_debugfs_counter("reclaimed") - reclaimed);
	/* 101 negative children of a directory within the limit stay */
	if (pos != 3 * LIMIT || neg != 101 ||
	    nd_debugfs_counter("reclaimed") != reclaimed ||
	    nd_nr_negative() - before < 101)
		goto out;
	ret = KSFT_PASS;
out:
	remove_dir("positive", 3 * LIMIT);
	return ret;
}

/* The negative dentries the traced reclaim_dir runs reclaimed. */
static long traced_reclaimed(const char *log)
{
	const char *line = log;
	long n, total = 0;

	while ((line = strstr(line, "negative_dentry_reclaim_dir:"))) {
		line = strstr(line, " reclaimed ");
		if (!line)
			break;
		if (sscanf(line, " reclaimed %ld", &n) == 1)
			total += n;
	}
	return total;
}

static int test_kills_and_traces(void)
{
	long killed = nd_debugfs_counter("killed");
	char *log;
	int ret = KSFT_FAIL;

	/* past the kill threshold before the limit is set */
	if (set_dir_max(0) || make_dir("runaway") ||
	    nd_stat_missing("runaway", "early", 0, nd_kill_threshold(LIMIT)) ||
	    nd_trace_event("negative_dentry_kill", 1) ||
	    nd_trace_event("negative_dentry_reclaim_dir", 1) ||
	    set_dir_max(LIMIT) || nd_stat_missing("runaway", "late", 0, 100))
		goto out;
	nd_settle(nd_read_nr_negative, NULL, 0, 5000);
	log = nd_trace_log();
	killed = nd_debugfs_counter("killed") - killed;
	ksft_print_msg("%ld killed\n", killed);
	if (log && killed > 0 && strstr(log, "limit directory") &&
	    traced_reclaimed(log) > 0)
		ret = KSFT_PASS;
	else if (log)
		ksft_print_msg("trace:\n%.2000s\n", log);
	free(log);
out:
	nd_trace_event("negative_dentry_kill", 0);
	nd_trace_event("negative_dentry_reclaim_dir", 0);
	set_dir_max(0);
	remove_dir("runaway", 0);
	return ret;
}

/*
 * Unmount, or remount read-only, a filesystem right after a flood queued
 * reclaim of one of its directories, and after removing a directory that
 * reclaim holds. Both must succeed; a reference left behind shows on the
 * console as "Dentry still in use".
 */
static int test_umount_while_queued(void)
{
	const char *dev = getenv("NEGATIVE_DENTRY_SCRATCH");
	int i, ret = KSFT_FAIL;

	if (!dev)
		return KSFT_SKIP;
	if (make_dir("scratch") || set_dir_max(LIMIT))
		return KSFT_FAIL;
	for (i = 0; i < 3; i++) {
		if (mount(dev, "scratch", "ext4", 0, NULL) ||
		    make_dir("scratch/d") || make_dir("scratch/gone") ||
		    nd_flood("scratch/gone", "x", 20000, 1) ||
		    rmdir("scratch/gone") ||
		    nd_flood("scratch/d", "x", 20000, 2)) {
			ksft_print_msg("setting up: %s\n", strerror(errno));
			goto out;
		}
		if (i == 1 && mount(NULL, "scratch", NULL,
				    MS_REMOUNT | MS_RDONLY, NULL)) {
			ksft_print_msg("remount read-only: %s\n",
				       strerror(errno));
			goto out;
		}
		if (umount("scratch")) {
			ksft_print_msg("umount: %s\n", strerror(errno));
			goto out;
		}
	}
	ret = KSFT_PASS;
out:
	umount("scratch");
	rmdir("scratch");
	set_dir_max(0);
	return ret;
}

/* Children of the directory in test_any_name_length: over the kill threshold. */
#define MANY_FILES	10200

/*
 * A directory keeps the estimate of its positive children at the end of
 * its inline name, where names of 31 to 35 bytes leave no room. Such a
 * directory, its 10200 positive children counted, must keep a new
 * negative child like any other directory, not take all its children for
 * negative ones and kill every new one (and count them all again).
 */
static int test_any_name_length(void)
{
	static const int lengths[] = { 30, 31, 33, 35, 36, 30 };
	char dir[64] = "long", name[64], first[16], then[16];
	long killed, counts;
	char *log, *p;
	int i, ret = KSFT_FAIL;

	if (set_dir_max(256) || make_dir(dir) || make_files(dir, MANY_FILES) ||
	    nd_trace_event("negative_dentry_dir_count", 1))
		goto out;
	for (i = 0; i < ARRAY_SIZE(lengths); i++) {
		memset(name, 'd', lengths[i]);
		snprintf(name + lengths[i] - 2, 3, "%02d", i);
		if (rename(dir, name))
			goto out;
		snprintf(dir, sizeof(dir), "%s", name);
		/* New names each round, over the limit: queued and counted. */
		snprintf(first, sizeof(first), "first%d-", i);
		snprintf(then, sizeof(then), "then%d-", i);
		if (nd_stat_missing(dir, first, 0, 300))
			goto out;
		nd_quiesce(nd_reclaim_activity, NULL, SETTLE_MS);
		nd_trace_event("negative_dentry_dir_count", 1);
		killed = nd_debugfs_counter("killed");
		if (nd_stat_missing(dir, then, 0, 100))
			goto out;
		nd_quiesce(nd_reclaim_activity, NULL, SETTLE_MS);
		killed = nd_debugfs_counter("killed") - killed;
		log = nd_trace_log();
		counts = 0;
		for (p = log; p && (p = strstr(p, "negative_dentry_dir_count:")); p++)
			counts++;
		free(log);
		ksft_print_msg("name of %d bytes: %ld of 100 new negatives killed, %ld counts\n",
			       lengths[i], killed, counts);
		if (killed > 0)
			goto out;
	}
	ret = files_intact(dir, MANY_FILES) ? KSFT_FAIL : KSFT_PASS;
out:
	nd_trace_event("negative_dentry_dir_count", 0);
	set_dir_max(0);
	remove_dir(dir, MANY_FILES);
	return ret;
}

#ifndef FIFREEZE
#define FIFREEZE	_IOWR('X', 119, int)
#define FITHAW		_IOWR('X', 120, int)
#endif

/*
 * Mount and unmount a tmpfs, in a child: 0 if it was done within 10 s.
 * If not, thaw @frozen_fd, which may be what it waits for.
 */
static int other_umount_done(int frozen_fd)
{
	pid_t pid = fork();
	int status, i;

	if (pid == 0)
		exit(mount("none", "other", "tmpfs", 0, NULL) || umount("other"));
	for (i = 0; i < 200; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
		usleep(50 * 1000);
	}
	ksft_print_msg("umount of another filesystem stalled\n");
	ioctl(frozen_fd, FITHAW, 0);
	waitpid(pid, &status, 0);
	return -1;
}

/*
 * Freeze a filesystem just after removing a directory that is queued for
 * reclaim: dropping the directory is the final iput() of an unlinked
 * inode, which waits for the thaw. Meanwhile another filesystem must still
 * unmount, and the thaw must go through.
 */
static int test_frozen_fs(void)
{
	const char *dev = getenv("NEGATIVE_DENTRY_SCRATCH");
	int i, fd = -1, ret = KSFT_FAIL;

	if (!dev)
		return KSFT_SKIP;
	if (make_dir("frozen") || make_dir("other") || set_dir_max(256) ||
	    mount(dev, "frozen", "ext4", 0, NULL))
		goto out;
	fd = open("frozen", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		goto out;
	for (i = 0; i < 20; i++) {
		if (make_dir("frozen/d") ||
		    nd_stat_missing("frozen/d", "x", 0, 400) ||
		    rmdir("frozen/d") || ioctl(fd, FIFREEZE, 0)) {
			ksft_print_msg("round %d: %s\n", i, strerror(errno));
			goto out;
		}
		usleep(20 * 1000);
		if (other_umount_done(fd))
			goto out;
		if (ioctl(fd, FITHAW, 0)) {
			ksft_print_msg("thaw: %s\n", strerror(errno));
			goto out;
		}
	}
	ret = KSFT_PASS;
out:
	if (fd >= 0)
		close(fd);
	umount("frozen");
	rmdir("frozen");
	rmdir("other");
	set_dir_max(0);
	return ret;
}

#define T(x) { x, #x }
static const struct {
	int (*fn)(void);
	const char *name;
} tests[] = {
	T(test_rejects_bad_values),
	T(test_any_name_length),
	T(test_bounds_a_flood),
	T(test_bounds_a_parallel_flood),
	T(test_bounds_unlinked_files),
	T(test_dentry_negative_bad_values),
	T(test_dentry_negative_unlinks),
	T(test_positives_survive),
	T(test_rename_keeps_counts),
	T(test_mostly_positive_dir_kept),
	T(test_kills_and_traces),
	T(test_umount_while_queued),
	T(test_frozen_fs),
};

#undef T

int main(void)
{
	long saved = nd_read_long(DENTRY_DIR_MAX);
	int i;

	ksft_print_header();
	if (saved < 0)
		ksft_exit_skip("no %s: kernel without fs.dentry-dir-max\n",
			       DENTRY_DIR_MAX);
	ksft_set_plan(ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		switch (tests[i].fn()) {
		case KSFT_PASS:
			ksft_test_result_pass("%s\n", tests[i].name);
			break;
		case KSFT_SKIP:
			ksft_test_result_skip("%s\n", tests[i].name);
			break;
		default:
			ksft_test_result_fail("%s\n", tests[i].name);
			break;
		}
	}
	set_dir_max(saved);
	ksft_finished();
}
