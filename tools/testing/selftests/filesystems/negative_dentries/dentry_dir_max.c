// SPDX-License-Identifier: GPL-2.0
/*
 * fs.dentry-dir-max: the limit on the negative dentries of a directory.
 *
 * Run as root from a directory of a filesystem that keeps negative dentries
 * (ext4, not tmpfs), on an otherwise idle system: the tests measure the
 * system-wide negative dentry count. NEGATIVE_DENTRY_SCRATCH names a block
 * device with a filesystem the umount tests may mount and unmount.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../../kselftest_harness.h"
#include "negative_dentry_util.h"

#define LIMIT		1000
#define FLOOD		100000
/*
 * How far past the kill threshold a parallel flood may go: the threshold
 * is checked against the directory's count, which each flooding thread
 * may pass with a dentry of its own, and negative dentries elsewhere on the
 * system move the count we read.
 */
#define FLOOD_THREADS	4
#define FLOOD_SLACK	(2 * FLOOD_THREADS + 64)
/* Wait no longer than this for reclaim; only a broken kernel waits. */
#define SETTLE_MS	120000

/*
 * A test may wait SETTLE_MS for reclaim more than once, and a flood of
 * FLOOD names takes its time on a debug kernel under emulation: the
 * harness's default of 30 seconds would kill it, and a test killed so gets
 * no teardown. Each test gets this many seconds.
 */
#define TIMEOUT		(5 * SETTLE_MS / 1000)

#ifndef FIFREEZE
#define FIFREEZE	_IOWR('X', 119, int)
#define FITHAW		_IOWR('X', 120, int)
#endif

#define MAX_DIRS	4

/*
 * What a test changes, for the teardown to put back even when an ASSERT
 * ends the test half way: the two sysctls, the directories it made in the
 * working directory, the filesystems it mounted on them, the one it may
 * have left frozen and the trace events it turned on.
 */
struct dir_max_state {
	long dir_max;		/* fs.dentry-dir-max before the test */
	long negative;		/* fs.dentry-negative before, or -1 */
	char dirs[MAX_DIRS][64];
	int ndirs;
	const char *mounts[2];
	int nmounts;
	const char *events[3];
	int nevents;
	int frozen_fd;		/* a frozen filesystem's root, or -1 */
};

FIXTURE(dir_max) {
	struct dir_max_state state;
};

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

/* For nftw(), which tells more than remove() needs. */
static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path) && errno != ENOENT ? -1 : 0;
}

/*
 * Remove @dir and all in it; its negative children go with it. A
 * filesystem still mounted there is left alone: it is not ours to empty.
 */
static int remove_tree(const char *dir)
{
	struct stat st, here;

	if (lstat(dir, &st))
		return errno == ENOENT ? 0 : -1;
	if (stat(".", &here) || st.st_dev != here.st_dev)
		return rmdir(dir);
	return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

FIXTURE_SETUP(dir_max)
{
	self->state.frozen_fd = -1;
	self->state.dir_max = nd_read_long(DENTRY_DIR_MAX);
	if (self->state.dir_max < 0)
		SKIP(return, "no %s: kernel without fs.dentry-dir-max",
		     DENTRY_DIR_MAX);
	self->state.negative = nd_read_long(DENTRY_NEGATIVE);
	/*
	 * Each test starts with no limit, as it did when the tests ran one
	 * after the other: whatever the system had, or a test killed by the
	 * harness's timeout (and so without its teardown) left.
	 */
	ASSERT_EQ(0, set_dir_max(0));
}

FIXTURE_TEARDOWN(dir_max)
{
	int i, err;

	/* Thawed first: unmounting a frozen filesystem would wait. */
	if (self->state.frozen_fd >= 0) {
		ioctl(self->state.frozen_fd, FITHAW, 0);
		close(self->state.frozen_fd);
	}
	for (i = self->state.nevents - 1; i >= 0; i--)
		nd_trace_event(self->state.events[i], 0);
	/* Unmounted if the test failed before it did. */
	for (i = self->state.nmounts - 1; i >= 0; i--)
		umount(self->state.mounts[i]);
	/*
	 * What cannot be put back fails the test. The EXPECTs have no
	 * handler: after a failed ASSERT, the harness runs the next one
	 * whatever the outcome.
	 */
	err = set_dir_max(self->state.dir_max);
	if (err)
		TH_LOG("%s not restored to %ld", DENTRY_DIR_MAX, self->state.dir_max);
	EXPECT_EQ(0, err);
	if (self->state.negative >= 0) {
		err = nd_set_dentry_negative(self->state.negative);
		if (err)
			TH_LOG("%s not restored to %ld", DENTRY_NEGATIVE,
			       self->state.negative);
		EXPECT_EQ(0, err);
	}
	for (i = self->state.ndirs - 1; i >= 0; i--) {
		err = remove_tree(self->state.dirs[i]) ? errno : 0;
		if (err)
			TH_LOG("%s not removed: %s", self->state.dirs[i],
			       strerror(err));
		EXPECT_EQ(0, err);
	}
}

/*
 * Make the directory @name in the working directory, or take the one there,
 * for the teardown to remove. Returns the copy the teardown keeps, which a
 * test that renames the directory updates.
 */
static char *test_dir(struct __test_metadata *const _metadata,
		      struct dir_max_state *state, const char *name)
{
	char *dir;
	int i, err;

	err = make_dir(name) ? errno : 0;
	ASSERT_EQ(0, err) TH_LOG("mkdir %s: %s", name, strerror(err));
	for (i = 0; i < state->ndirs; i++)
		if (!strcmp(state->dirs[i], name))
			return state->dirs[i];
	ASSERT_GT(MAX_DIRS, state->ndirs);
	dir = state->dirs[state->ndirs++];
	snprintf(dir, sizeof(state->dirs[0]), "%s", name);
	return dir;
}

/* Turn the trace event @event on, for the teardown to turn off. */
static void trace_on(struct __test_metadata *const _metadata,
		     struct dir_max_state *state, const char *event)
{
	int i;

	for (i = 0; i < state->nevents; i++)
		if (!strcmp(state->events[i], event))
			break;
	if (i == state->nevents) {
		ASSERT_GT(ARRAY_SIZE(state->events), (size_t)state->nevents);
		state->events[state->nevents++] = event;
	}
	ASSERT_EQ(0, nd_trace_event(event, 1))
		TH_LOG("cannot turn %s on in %s", event, TRACEFS);
}

/* A filesystem the test mounts on @dir, for the teardown to unmount. */
static void add_mount(struct __test_metadata *const _metadata,
		      struct dir_max_state *state, const char *dir)
{
	ASSERT_GT(ARRAY_SIZE(state->mounts), (size_t)state->nmounts);
	state->mounts[state->nmounts++] = dir;
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
		if (fd < 0)
			return -1;
		if (write(fd, "x", 1) != 1) {
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* Check that @dir/file0 .. file<n-1> all exist and hold their byte. */
static void files_intact(struct __test_metadata *const _metadata,
			 const char *dir, long n)
{
	char path[4096];
	struct stat st;
	long i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/file%ld", dir, i);
		ASSERT_FALSE(stat(path, &st) || st.st_size != 1)
			TH_LOG("%s is gone", path);
	}
}

TEST_F_TIMEOUT(dir_max, rejects_bad_values, TIMEOUT)
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
	size_t i;

	ASSERT_EQ(0, set_dir_max(LIMIT));
	snprintf(want, sizeof(want), "%d\n", LIMIT);
	ASSERT_TRUE(nd_refuses_all(DENTRY_DIR_MAX, bad, ARRAY_SIZE(bad), want));
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ASSERT_EQ(0, nd_write_file(DENTRY_DIR_MAX, good[i].write))
			TH_LOG("\"%s\" not taken", good[i].write);
		ASSERT_EQ(good[i].read, nd_read_long(DENTRY_DIR_MAX))
			TH_LOG("\"%s\" not taken", good[i].write);
	}
}

/* Children of the directory in any_name_length: over the kill threshold. */
#define MANY_FILES	10200

/*
 * A directory's count of negative children has nothing to do with its
 * name: under any name, around the lengths that once left no room for an
 * estimate kept in the name (31 to 35 bytes), a directory of many files
 * must keep a new negative child like any other, not kill it.
 */
TEST_F_TIMEOUT(dir_max, any_name_length, TIMEOUT)
{
	static const int lengths[] = { 30, 31, 33, 35, 36, 30 };
	char name[64], first[16], then[16], *dir;
	long killed, counts;
	char *log, *p;
	size_t i;

	ASSERT_EQ(0, set_dir_max(256));
	dir = test_dir(_metadata, &self->state, "long");
	ASSERT_EQ(0, make_files(dir, MANY_FILES));
	trace_on(_metadata, &self->state, "negative_dentry_dir_count");
	for (i = 0; i < ARRAY_SIZE(lengths); i++) {
		memset(name, 'd', lengths[i]);
		snprintf(name + lengths[i] - 2, 3, "%02zu", i);
		ASSERT_EQ(0, rename(dir, name));
		/* the teardown's copy of the name, which now is this */
		snprintf(dir, sizeof(self->state.dirs[0]), "%s", name);
		/* New names each round, over the limit: queued and counted. */
		snprintf(first, sizeof(first), "first%zu-", i);
		snprintf(then, sizeof(then), "then%zu-", i);
		ASSERT_EQ(0, nd_stat_missing(dir, first, 0, 300));
		ASSERT_EQ(0, nd_wait_idle(SETTLE_MS));
		nd_trace_event("negative_dentry_dir_count", 1);
		killed = nd_debugfs_counter("killed");
		ASSERT_EQ(0, nd_stat_missing(dir, then, 0, 100));
		ASSERT_EQ(0, nd_wait_idle(SETTLE_MS));
		killed = nd_debugfs_counter("killed") - killed;
		log = nd_trace_log();
		counts = 0;
		for (p = log;
		     p && (p = strstr(p, "negative_dentry_dir_count:")); p++)
			counts++;
		free(log);
		TH_LOG("name of %d bytes: %ld of 100 new negatives killed, %ld counts",
		       lengths[i], killed, counts);
		ASSERT_LE(killed, 0);
	}
	files_intact(_metadata, dir, MANY_FILES);
}

/*
 * Flood @dir with FLOOD missing names under @limit, and return how many of
 * them are left as negative dentries once reclaim has settled. Also checks
 * that every negative dentry that went away was counted as reclaimed or
 * killed.
 */
static long flood_and_settle(struct __test_metadata *const _metadata,
			     struct dir_max_state *state, const char *dir,
			     long limit, int threads)
{
	long before = nd_nr_negative();
	long reclaimed = nd_debugfs_counter("reclaimed");
	long killed = nd_debugfs_counter("killed");
	long left, gone;

	ASSERT_EQ(0, set_dir_max(limit));
	test_dir(_metadata, state, dir);
	ASSERT_EQ(0, nd_flood(dir, "missing-", FLOOD, threads));
	nd_settle(nd_read_nr_negative, NULL, before + limit, SETTLE_MS);
	ASSERT_EQ(0, nd_wait_idle(SETTLE_MS));
	left = nd_nr_negative() - before;
	reclaimed = nd_debugfs_counter("reclaimed") - reclaimed;
	killed = nd_debugfs_counter("killed") - killed;
	gone = FLOOD - left;
	TH_LOG("limit %ld: %ld of %d left, %ld reclaimed, %ld killed",
	       limit, left, FLOOD, reclaimed, killed);
	ASSERT_LE(labs(gone - reclaimed - killed), 64)
		TH_LOG("%ld went away but %ld were counted", gone,
		       reclaimed + killed);
	return left;
}

TEST_F_TIMEOUT(dir_max, bounds_a_flood, TIMEOUT)
{
	long limited, unlimited;

	limited = flood_and_settle(_metadata, &self->state, "bounded", LIMIT, 1);
	/* gone before the next flood: the counts are system-wide */
	remove_tree("bounded");
	unlimited = flood_and_settle(_metadata, &self->state, "unbounded", 0, 1);
	remove_tree("unbounded");
	EXPECT_GE(limited, 0);
	EXPECT_GE(unlimited, 0);
	EXPECT_LE(limited, nd_settled_bound(LIMIT))
		TH_LOG("%ld negative dentries left, limit %d", limited, LIMIT);
	EXPECT_GE(unlimited, FLOOD - FLOOD / 100)
		TH_LOG("no limit, yet only %ld of %d left", unlimited, FLOOD);
}

/*
 * The flood's high-water mark, kept by the kernel: the flood runs in a
 * cgroup of its own, whose memory.negative_dentry.peak is the most
 * negative dentries it had at once (plus what the cpus charged ahead, at
 * most nd_count_slack()), those of the flooded directory.
 */
#define PEAK_CGROUP	"/sys/fs/cgroup/nd_dir_max_peak"

/* Move this process to the cgroup @dir, a cgroup v2 directory. */
static int enter_cgroup(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	return nd_write_file(path, "0");
}

/* The cgroup v2 directory of this process, from /proc/self/cgroup. */
static int own_cgroup(char *dir, size_t size)
{
	char buf[PATH_MAX];

	if (nd_read_file("/proc/self/cgroup", buf, sizeof(buf)) ||
	    strncmp(buf, "0::", 3))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(dir, size, "/sys/fs/cgroup%s", buf + 3);
	return 0;
}

TEST_F_TIMEOUT(dir_max, bounds_a_parallel_flood, TIMEOUT)
{
	long left, peak, bound = nd_kill_threshold(LIMIT) + FLOOD_SLACK +
				 nd_count_slack();
	char home[PATH_MAX];

	/* Done by the harness's guests; needed on a bare cgroup2 mount. */
	nd_write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	rmdir(PEAK_CGROUP);
	ASSERT_EQ(0, own_cgroup(home, sizeof(home)));
	ASSERT_EQ(0, mkdir(PEAK_CGROUP, 0755));
	ASSERT_EQ(0, enter_cgroup(PEAK_CGROUP));
	left = flood_and_settle(_metadata, &self->state, "parallel", LIMIT,
				FLOOD_THREADS);
	ASSERT_EQ(0, enter_cgroup(home));
	peak = nd_read_long(PEAK_CGROUP "/memory.negative_dentry.peak");
	rmdir(PEAK_CGROUP);
	remove_tree("parallel");
	TH_LOG("peak %ld, bound %ld (kill threshold %ld + %d + %ld)",
	       peak, bound, nd_kill_threshold(LIMIT), FLOOD_SLACK,
	       nd_count_slack());
	EXPECT_GE(left, 0);
	EXPECT_LE(left, nd_settled_bound(LIMIT));
	EXPECT_GE(peak, LIMIT);
	EXPECT_LE(peak, bound);
}

/*
 * Files created, closed and unlinked under new names: each dentry joins
 * the LRU positive and turns negative there, without going through the
 * path a lookup's negative takes. The limit must hold all the same.
 */
TEST_F_TIMEOUT(dir_max, bounds_unlinked_files, TIMEOUT)
{
	long before = nd_nr_negative();
	char path[64];
	long i, left;
	int fd, err;

	ASSERT_EQ(0, set_dir_max(LIMIT));
	test_dir(_metadata, &self->state, "unlinked");
	for (i = 0; i < 4 * LIMIT; i++) {
		snprintf(path, sizeof(path), "unlinked/tmp-%ld", i);
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		err = fd < 0 || close(fd) || unlink(path) ? errno : 0;
		ASSERT_EQ(0, err) TH_LOG("%s: %s", path, strerror(err));
	}
	nd_settle(nd_read_nr_negative, NULL, before + LIMIT, SETTLE_MS);
	ASSERT_EQ(0, nd_wait_idle(SETTLE_MS));
	left = nd_nr_negative() - before;
	TH_LOG("limit %d: %ld of %d unlinked files left negative",
	       LIMIT, left, 4 * LIMIT);
	EXPECT_LE(left, nd_settled_bound(LIMIT));
}

/*
 * fs.dentry-negative is 0 or 1: anything else fails with EINVAL and leaves
 * it as it was, 0 or 1. A write of no bytes takes nothing and succeeds,
 * as for any integer sysctl.
 */
TEST_F_TIMEOUT(dir_max, dentry_negative_bad_values, TIMEOUT)
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
	char now[8];
	size_t i;
	int want;

	if (self->state.negative < 0)
		SKIP(return, "no %s: kernel without fs.dentry-negative",
		     DENTRY_NEGATIVE);
	for (want = 0; want <= 1; want++) {
		snprintf(now, sizeof(now), "%d\n", want);
		ASSERT_EQ(0, nd_set_dentry_negative(want));
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			ASSERT_TRUE(nd_refuses(DENTRY_NEGATIVE, &bad[i], now))
				TH_LOG("fs.dentry-negative was %d", want);
		}
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ASSERT_EQ(0, nd_write_file(DENTRY_NEGATIVE, good[i].write))
			TH_LOG("\"%s\" not taken", good[i].write);
		ASSERT_EQ(good[i].read, nd_read_long(DENTRY_NEGATIVE))
			TH_LOG("\"%s\" not taken", good[i].write);
	}
}

/*
 * Find "dir <ino> negative N" in the trace: the first, the count before any
 * reclaim. A reclaim that stays over the limit reads the count again.
 */
static int traced_count(unsigned long ino, long *neg)
{
	char *log = nd_trace_log(), *line, needle[64];
	int found = 0;

	if (!log)
		return 0;
	snprintf(needle, sizeof(needle), " dir %lu negative ", ino);
	line = strstr(log, needle);
	if (line)
		found = sscanf(line, " dir %*u negative %ld", neg) == 1;
	free(log);
	return found;
}

/*
 * Read the count of @dir's negative children as reclaim reads it: everything
 * is in place with fs.dentry-dir-max off, then one more negative dentry in
 * the limited directory, which must be over the limit, starts reclaim.
 */
static void count_by_reclaim(struct __test_metadata *const _metadata,
			     struct dir_max_state *state, const char *dir,
			     long *neg)
{
	long start = nd_now_ms();
	struct stat st;

	ASSERT_EQ(0, stat(dir, &st));
	trace_on(_metadata, state, "negative_dentry_dir_count");
	ASSERT_EQ(0, set_dir_max(LIMIT));
	ASSERT_EQ(0, nd_stat_missing(dir, "trigger", 0, 1));
	while (!traced_count(st.st_ino, neg)) {
		ASSERT_LE(nd_now_ms() - start, SETTLE_MS)
			TH_LOG("no count of %s traced", dir);
		usleep(10000);
	}
	nd_trace_event("negative_dentry_dir_count", 0);
	ASSERT_EQ(0, set_dir_max(0));
}

#define CHURN	2000
#define NEVER	1500

/*
 * Create, close and unlink CHURN files in @dir with fs.dentry-negative at
 * @policy, then look up NEVER names that never existed there. @churned is
 * the change of nr_negative the churn made; @neg is the directory's count
 * of negative children, as reclaim reads it.
 */
static void churn_and_count(struct __test_metadata *const _metadata,
			    struct dir_max_state *state, const char *dir,
			    int policy, long *churned, long *neg)
{
	long before;

	ASSERT_EQ(0, set_dir_max(0));
	ASSERT_EQ(0, nd_set_dentry_negative(policy));
	test_dir(_metadata, state, dir);
	before = nd_nr_negative();
	ASSERT_EQ(0, nd_churn(dir, "tmp-", CHURN));
	*churned = nd_nr_negative() - before;
	ASSERT_EQ(0, nd_stat_missing(dir, "never-", 0, NEVER));
	count_by_reclaim(_metadata, state, dir, neg);
	TH_LOG("fs.dentry-negative=%d: %d files churned, nr_negative %+ld",
	       policy, CHURN, *churned);
	TH_LOG("%s: %ld negative children", dir, *neg);
}

/*
 * Make @missing negative children in @dir, which has none, and read its
 * count: those and the one that starts reclaim, not one more or less.
 */
static void expect_counts(struct __test_metadata *const _metadata,
			  struct dir_max_state *state, const char *dir,
			  long missing)
{
	long neg;

	ASSERT_EQ(0, nd_stat_missing(dir, "missing", 0, missing));
	count_by_reclaim(_metadata, state, dir, &neg);
	TH_LOG("%s: %ld negative children", dir, neg);
	EXPECT_EQ(missing + 1, neg);
}

/*
 * fs.dentry-negative=1 frees the dentry of each unlinked file: the churn
 * of temporary files leaves no negative dentry, neither in nr_negative
 * nor in its directory's count, and under fs.dentry-dir-max nothing is
 * reclaimed or killed for it; names that never existed still count. At
 * 0, each file leaves one.
 */
TEST_F_TIMEOUT(dir_max, dentry_negative_unlinks, TIMEOUT)
{
	long churned, neg, reclaimed, killed, left;

	if (self->state.negative < 0)
		SKIP(return, "no %s: kernel without fs.dentry-negative",
		     DENTRY_NEGATIVE);
	/* under the limit: the unlinks must not feed it */
	ASSERT_EQ(0, nd_wait_idle(SETTLE_MS));
	reclaimed = nd_debugfs_counter("reclaimed");
	killed = nd_debugfs_counter("killed");
	left = nd_nr_negative();
	ASSERT_EQ(0, set_dir_max(LIMIT));
	ASSERT_EQ(0, nd_set_dentry_negative(1));
	test_dir(_metadata, &self->state, "dropped");
	ASSERT_EQ(0, nd_churn("dropped", "tmp-", 2 * CHURN));
	ASSERT_EQ(0, nd_wait_idle(SETTLE_MS));
	left = nd_nr_negative() - left;
	reclaimed = nd_debugfs_counter("reclaimed") - reclaimed;
	killed = nd_debugfs_counter("killed") - killed;
	TH_LOG("limit %d, fs.dentry-negative=1: %d files churned, nr_negative %+ld",
	       LIMIT, 2 * CHURN, left);
	TH_LOG("%ld reclaimed, %ld killed", reclaimed, killed);
	EXPECT_LE(labs(left), 64);
	EXPECT_EQ(0, reclaimed);
	EXPECT_EQ(0, killed);

	churn_and_count(_metadata, &self->state, "dropped", 1, &churned, &neg);
	EXPECT_LE(labs(churned), 64);
	EXPECT_EQ(NEVER + 1, neg);

	churn_and_count(_metadata, &self->state, "kept", 0, &churned, &neg);
	EXPECT_GE(churned, CHURN - 64);
	EXPECT_LE(churned, CHURN + 64);
	EXPECT_EQ(CHURN + NEVER + 1, neg);
}

/*
 * Reclaim takes only negative dentries. A directory's reclaim walks its
 * children newest first, and a flood's names are newer than any file, so
 * the files are made after 1200 missing names, and one more name then
 * takes the directory over a limit of 1000: to take its excess, over 300,
 * reclaim must walk past all 2000 files.
 */
TEST_F_TIMEOUT(dir_max, positives_survive, TIMEOUT)
{
	const long nfiles = 2000, older = 1200;
	long positives, after, reclaimed, i, evicted = 0;
	char path[64];
	int cached;

	ASSERT_EQ(0, set_dir_max(0));
	test_dir(_metadata, &self->state, "mixed");
	ASSERT_EQ(0, nd_stat_missing("mixed", "older", 0, older));
	ASSERT_EQ(0, make_files("mixed", nfiles));
	positives = nd_nr_positive();
	reclaimed = nd_debugfs_counter("reclaimed");
	ASSERT_EQ(0, set_dir_max(LIMIT));
	ASSERT_EQ(0, nd_stat_missing("mixed", "over", 0, 1));
	nd_settle(nd_read_nr_negative, NULL, 0, SETTLE_MS);
	after = nd_nr_positive();
	/* Probed from the cache alone, before a lookup could bring any back. */
	for (i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "mixed/file%ld", i);
		cached = nd_cached(path);
		ASSERT_GE(cached, 0);
		evicted += !cached;
	}
	files_intact(_metadata, "mixed", nfiles);
	reclaimed = nd_debugfs_counter("reclaimed") - reclaimed;
	TH_LOG("positive dentries %ld before, %ld after; %ld of %ld files evicted; %ld reclaimed",
	       positives, after, evicted, nfiles, reclaimed);
	/* Reclaim got past the files, and took none of them. */
	EXPECT_GE(reclaimed, older + 1 - LIMIT);
	EXPECT_LE(reclaimed, older + 1);
	EXPECT_EQ(evicted, 0);
	EXPECT_GE(after, positives - 16);
}

TEST_F_TIMEOUT(dir_max, rename_keeps_counts, TIMEOUT)
{
	char from[64], to[64];
	int i;

	ASSERT_EQ(0, set_dir_max(0));
	test_dir(_metadata, &self->state, "ren_a");
	test_dir(_metadata, &self->state, "ren_b");
	ASSERT_EQ(0, make_files("ren_a", 300));
	ASSERT_EQ(0, make_files("ren_b", 300));
	/* 100 files leave ren_a, 50 come in over negative dentries */
	for (i = 0; i < 100; i++) {
		snprintf(from, sizeof(from), "ren_a/file%d", i);
		snprintf(to, sizeof(to), "ren_b/moved%d", i);
		ASSERT_EQ(0, rename(from, to));
	}
	ASSERT_EQ(0, nd_stat_missing("ren_a", "incoming", 0, 50));
	for (i = 0; i < 50; i++) {
		snprintf(from, sizeof(from), "ren_b/file%d", i);
		snprintf(to, sizeof(to), "ren_a/incoming%d", i);
		ASSERT_EQ(0, rename(from, to));
	}
	/*
	 * No negative child is left: each rename's target was dropped with
	 * it. 20 exchanges between the two directories change no count.
	 */
	for (i = 0; i < 20; i++) {
		snprintf(from, sizeof(from), "ren_a/file%d", 200 + i);
		snprintf(to, sizeof(to), "ren_b/file%d", 200 + i);
		ASSERT_EQ(0, renameat2(AT_FDCWD, from, AT_FDCWD, to,
				       RENAME_EXCHANGE));
	}
	expect_counts(_metadata, &self->state, "ren_a", 1500);
	expect_counts(_metadata, &self->state, "ren_b", 1100);
}

/*
 * A directory's count of negative children goes with it through rename(2):
 * a, with 1200, moves to another parent; then it and b, with 1400, trade
 * places with RENAME_EXCHANGE. Each still counts its own, as reclaim reads
 * them, under its new name.
 */
TEST_F_TIMEOUT(dir_max, moved_dirs_keep_their_counts, TIMEOUT)
{
	long neg;

	ASSERT_EQ(0, set_dir_max(0));
	test_dir(_metadata, &self->state, "mv_src");
	test_dir(_metadata, &self->state, "mv_dst");
	ASSERT_EQ(0, make_dir("mv_src/a"));
	ASSERT_EQ(0, make_dir("mv_src/b"));
	ASSERT_EQ(0, nd_stat_missing("mv_src/a", "missing", 0, 1200));
	ASSERT_EQ(0, nd_stat_missing("mv_src/b", "missing", 0, 1400));
	ASSERT_EQ(0, rename("mv_src/a", "mv_dst/a"));
	ASSERT_EQ(0, renameat2(AT_FDCWD, "mv_dst/a", AT_FDCWD, "mv_src/b",
			       RENAME_EXCHANGE));
	/* mv_dst/a is the b of 1400 now, and mv_src/b the a of 1200 */
	count_by_reclaim(_metadata, &self->state, "mv_dst/a", &neg);
	EXPECT_EQ(1400 + 1, neg);
	count_by_reclaim(_metadata, &self->state, "mv_src/b", &neg);
	EXPECT_EQ(1200 + 1, neg);
}

#define RENAMED_FILES	20000
#define RENAMED_BATCH	100

/* The negative dentries killed while @n missing names of @dir are looked up. */
static long killed_by_lookups(const char *dir, const char *prefix, long n)
{
	long killed = nd_debugfs_counter("killed");

	if (nd_stat_missing(dir, prefix, 0, n))
		return -1;
	return nd_debugfs_counter("killed") - killed;
}

/*
 * A directory's count of negative children belongs to the directory, not to
 * its name: renaming a directory of many files, under the limit with a few
 * negative ones, must not make its next lookups of missing names seem to
 * be over the kill threshold.
 */
TEST_F_TIMEOUT(dir_max, rename_keeps_the_directory_limit, TIMEOUT)
{
	const long limit = 256;
	long before, after;
	char *dir;

	ASSERT_EQ(0, set_dir_max(0));
	dir = test_dir(_metadata, &self->state, "big");
	ASSERT_EQ(0, make_files(dir, RENAMED_FILES));
	ASSERT_EQ(0, set_dir_max(limit));
	ASSERT_LE(0, killed_by_lookups(dir, "warm", RENAMED_BATCH));
	ASSERT_EQ(0, nd_wait_idle(SETTLE_MS));
	before = killed_by_lookups(dir, "before", RENAMED_BATCH);
	ASSERT_EQ(0, rename("big", "big2"));
	snprintf(dir, sizeof(self->state.dirs[0]), "big2");
	after = killed_by_lookups(dir, "after", RENAMED_BATCH);
	TH_LOG("limit %ld, %d files: %ld of %d killed before the rename, %ld after",
	       limit, RENAMED_FILES, before, RENAMED_BATCH, after);
	EXPECT_EQ(0, before);
	EXPECT_EQ(0, after);
}

/*
 * Positive children do not count: 100 negative children of a directory of
 * 3 * LIMIT files are within the limit, and nothing queues the directory.
 */
TEST_F_TIMEOUT(dir_max, mostly_positive_dir_kept, TIMEOUT)
{
	long before, reclaimed, killed, neg = -1;
	struct stat st;

	ASSERT_EQ(0, set_dir_max(0));
	test_dir(_metadata, &self->state, "positive");
	ASSERT_EQ(0, make_files("positive", 3 * LIMIT));
	ASSERT_EQ(0, stat("positive", &st));
	before = nd_nr_negative();
	reclaimed = nd_debugfs_counter("reclaimed");
	killed = nd_debugfs_counter("killed");
	trace_on(_metadata, &self->state, "negative_dentry_dir_count");
	ASSERT_EQ(0, set_dir_max(LIMIT));
	ASSERT_EQ(0, nd_stat_missing("positive", "missing", 0, 100));
	ASSERT_EQ(0, nd_wait_idle(SETTLE_MS));
	nd_trace_event("negative_dentry_dir_count", 0);
	TH_LOG("%ld reclaimed, %ld killed",
	       nd_debugfs_counter("reclaimed") - reclaimed,
	       nd_debugfs_counter("killed") - killed);
	EXPECT_FALSE(traced_count(st.st_ino, &neg))
		TH_LOG("queued with %ld negative children", neg);
	EXPECT_EQ(reclaimed, nd_debugfs_counter("reclaimed"));
	EXPECT_EQ(killed, nd_debugfs_counter("killed"));
	EXPECT_GE(nd_nr_negative() - before, 100);
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

TEST_F_TIMEOUT(dir_max, kills_and_traces, TIMEOUT)
{
	long killed = nd_debugfs_counter("killed"), reclaimed;
	bool limit_kill;
	char *log;

	/* past the kill threshold before the limit is set */
	ASSERT_EQ(0, set_dir_max(0));
	test_dir(_metadata, &self->state, "runaway");
	ASSERT_EQ(0, nd_stat_missing("runaway", "early", 0,
				     nd_kill_threshold(LIMIT)));
	trace_on(_metadata, &self->state, "negative_dentry_kill");
	trace_on(_metadata, &self->state, "negative_dentry_reclaim_dir");
	ASSERT_EQ(0, set_dir_max(LIMIT));
	ASSERT_EQ(0, nd_stat_missing("runaway", "late", 0, 100));
	nd_settle(nd_read_nr_negative, NULL, 0, 5000);
	log = nd_trace_log();
	killed = nd_debugfs_counter("killed") - killed;
	TH_LOG("%ld killed", killed);
	ASSERT_NE(NULL, log) TH_LOG("cannot read %strace", TRACEFS);
	limit_kill = strstr(log, "limit directory");
	reclaimed = traced_reclaimed(log);
	if (killed <= 0 || !limit_kill || reclaimed <= 0)
		TH_LOG("trace:\n%.2000s", log);
	free(log);
	EXPECT_GT(killed, 0);
	EXPECT_TRUE(limit_kill);
	EXPECT_GT(reclaimed, 0);
}

/*
 * Unmount, or remount read-only, a filesystem right after a flood queued
 * reclaim of one of its directories, and after removing a directory that
 * reclaim holds. Both must succeed; a reference left behind shows on the
 * console as "Dentry still in use".
 */
TEST_F_TIMEOUT(dir_max, umount_while_queued, TIMEOUT)
{
	const char *dev = getenv("NEGATIVE_DENTRY_SCRATCH");
	int i, err;

	if (!dev)
		SKIP(return, "NEGATIVE_DENTRY_SCRATCH names no device");
	test_dir(_metadata, &self->state, "scratch");
	add_mount(_metadata, &self->state, "scratch");
	ASSERT_EQ(0, set_dir_max(LIMIT));
	for (i = 0; i < 3; i++) {
		err = mount(dev, "scratch", "ext4", 0, NULL) ||
		      make_dir("scratch/d") || make_dir("scratch/gone") ||
		      nd_flood("scratch/gone", "x", 20000, 1) ||
		      rmdir("scratch/gone") ||
		      nd_flood("scratch/d", "x", 20000, 2) ? errno : 0;
		ASSERT_EQ(0, err) TH_LOG("setting up: %s", strerror(err));
		if (i == 1) {
			err = mount(NULL, "scratch", NULL,
				    MS_REMOUNT | MS_RDONLY, NULL) ? errno : 0;
			ASSERT_EQ(0, err)
				TH_LOG("remount read-only: %s", strerror(err));
		}
		err = umount("scratch") ? errno : 0;
		ASSERT_EQ(0, err) TH_LOG("umount: %s", strerror(err));
	}
}

/*
 * Mount and unmount a tmpfs, in a child: 0 if it was done within 10 s.
 * If not, thaw @frozen_fd, which may be what it waits for.
 */
static int other_umount_done(struct __test_metadata *const _metadata,
			     int frozen_fd)
{
	pid_t pid = fork();
	int status, i;

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(mount("none", "other", "tmpfs", 0, NULL) ||
		      umount("other"));
	for (i = 0; i < 200; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status) ?
			       0 : -1;
		usleep(50 * 1000);
	}
	TH_LOG("umount of another filesystem stalled");
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
TEST_F_TIMEOUT(dir_max, frozen_fs, TIMEOUT)
{
	const char *dev = getenv("NEGATIVE_DENTRY_SCRATCH");
	int i, err;

	if (!dev)
		SKIP(return, "NEGATIVE_DENTRY_SCRATCH names no device");
	test_dir(_metadata, &self->state, "frozen");
	test_dir(_metadata, &self->state, "other");
	add_mount(_metadata, &self->state, "frozen");
	/* the child's tmpfs too, should its umount fail */
	add_mount(_metadata, &self->state, "other");
	ASSERT_EQ(0, set_dir_max(256));
	ASSERT_EQ(0, mount(dev, "frozen", "ext4", 0, NULL));
	self->state.frozen_fd = open("frozen", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, self->state.frozen_fd);
	for (i = 0; i < 20; i++) {
		err = make_dir("frozen/d") ||
		      nd_stat_missing("frozen/d", "x", 0, 400) ||
		      rmdir("frozen/d") ||
		      ioctl(self->state.frozen_fd, FIFREEZE, 0) ? errno : 0;
		ASSERT_EQ(0, err) TH_LOG("round %d: %s", i, strerror(err));
		usleep(20 * 1000);
		ASSERT_EQ(0, other_umount_done(_metadata, self->state.frozen_fd));
		err = ioctl(self->state.frozen_fd, FITHAW, 0) ? errno : 0;
		ASSERT_EQ(0, err) TH_LOG("thaw: %s", strerror(err));
	}
}

TEST_HARNESS_MAIN
