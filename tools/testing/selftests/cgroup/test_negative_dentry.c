// SPDX-License-Identifier: GPL-2.0
/*
 * memory.negative_dentry.{max,current,events}: the limit on the negative
 * dentries of a memory cgroup.
 *
 * Run as root from a directory of a filesystem that keeps negative dentries
 * (ext4, not tmpfs), on an otherwise idle system. NEGATIVE_DENTRY_SCRATCH
 * names a block device with a filesystem the umount test may mount.
 */
#define _GNU_SOURCE

#include <linux/fs.h>
#include <linux/limits.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "../filesystems/negative_dentries/negative_dentry_util.h"

#define FLOOD		100000
#define SETTLE_MS	120000
/* A limit no test reaches: on a cgroup's path, it arms the drain at removal. */
#define UNREACHED	1000000
#define DROP_CACHES	"/proc/sys/vm/drop_caches"

struct flood {
	const char *dir;
	long count;
	int threads;
};

static int flood_fn(const char *cgroup, void *arg)
{
	struct flood *f = arg;

	if (mkdir(f->dir, 0755) && errno != EEXIST)
		return EXIT_FAILURE;
	return nd_flood(f->dir, "missing-", f->count, f->threads) ?
	       EXIT_FAILURE : EXIT_SUCCESS;
}

/* Make @count negative dentries in @dir from inside @cgroup. */
static int flood_in(const char *cgroup, const char *dir, long count,
		    int threads)
{
	struct flood f = { dir, count, threads };

	return cg_run(cgroup, flood_fn, &f);
}

static long read_current(void *cgroup)
{
	return cg_read_long(cgroup, "memory.negative_dentry.current");
}

/* .current once reclaim has brought it to @bound or stopped bringing it. */
static long settled_current(const char *cgroup, long bound)
{
	return nd_settle(read_current, (void *)cgroup, bound, SETTLE_MS);
}

static long max_events(const char *cgroup)
{
	return cg_read_key_long(cgroup, "memory.negative_dentry.events",
				"max ");
}

/* The ms until @cgroup's .events counts an event, SETTLE_MS at most. */
static long wait_for_event(const char *cgroup)
{
	long waited;

	for (waited = 0; max_events(cgroup) < 1 && waited < SETTLE_MS;
	     waited += 10)
		usleep(10 * 1000);
	return waited;
}

/* Drains of removed cgroups queued and not finished. */
static long drains_running(void *arg)
{
	return nd_debugfs_counter("drains");
}

static long local_max_events(const char *cgroup)
{
	return cg_read_key_long(cgroup, "memory.negative_dentry.events.local",
				"max ");
}

static long stat_of(const char *cgroup, const char *key)
{
	return cg_read_key_long(cgroup, "memory.stat", key);
}

/* rmdir the directories: their negative children go with them. */
static void remove_dirs(const char *const *dirs)
{
	for (; *dirs; dirs++)
		rmdir(*dirs);
}

static int test_negdentry_files(const char *root)
{
	static const char * const files[] = {
		"memory.negative_dentry.max", "memory.negative_dentry.current",
		"memory.negative_dentry.events",
		"memory.negative_dentry.events.local",
		"memory.negative_dentry.peak",
	};
	static const char * const defaults[][2] = {
		{ "memory.negative_dentry.max", "max\n" },
		{ "memory.negative_dentry.current", "0\n" },
		{ "memory.negative_dentry.events", "max 0\n" },
		{ "memory.negative_dentry.events.local", "max 0\n" },
		{ "memory.negative_dentry.peak", "0\n" },
	};
	static const char * const stats[] = {
		"negative_dentries ", "negative_dentry_reclaimed ",
		"negative_dentry_killed ",
	};
	char *cg = cg_name(root, "nd_files");
	char buf[64];
	int i, ret = KSFT_FAIL;

	if (!cg || cg_create(cg))
		goto out;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (!cg_read(root, files[i], buf, sizeof(buf))) {
			ksft_print_msg("%s exists on the root\n", files[i]);
			goto out;
		}
	}
	for (i = 0; i < ARRAY_SIZE(defaults); i++) {
		if (cg_read_strcmp(cg, defaults[i][0], defaults[i][1])) {
			cg_read(cg, defaults[i][0], buf, sizeof(buf));
			ksft_print_msg("%s: \"%s\"\n", defaults[i][0], buf);
			goto out;
		}
	}
	for (i = 0; i < ARRAY_SIZE(stats); i++) {
		if (stat_of(cg, stats[i])) {
			ksft_print_msg("memory.stat %s%ld\n", stats[i],
				       stat_of(cg, stats[i]));
			goto out;
		}
	}
	/* The counts are read-only: writes fail and change nothing. */
	for (i = 1; i < ARRAY_SIZE(files) - 1; i++) {
		if (!cg_write(cg, files[i], "7") ||
		    cg_read_strcmp(cg, defaults[i][0], defaults[i][1])) {
			ksft_print_msg("%s took a write\n", files[i]);
			goto out;
		}
	}
	ret = KSFT_PASS;
out:
	cg_destroy(cg);
	free(cg);
	return ret;
}

static int test_negdentry_bad_writes(const char *root)
{
	/* Limit-specific; nd_bad_numbers has the malformed numbers. */
	static const struct nd_bytes bad[] = {
		ND_BYTES("MAX"), ND_BYTES("Max"), ND_BYTES("max1"),
		ND_BYTES("maxx"), ND_BYTES("max max"), ND_BYTES("max 5"),
		ND_BYTES("max\0"), ND_BYTES("infinity"),
		ND_BYTES("9223372036854775808"), ND_BYTES("-9223372036854775808"),
	};
	/* A count too large for the counter reads "max", as memory.max's. */
	static const char * const good[][2] = {
		{ "max", "max\n" }, { "0\n", "0\n" }, { " 17\t\n", "17\n" },
		{ " max\n", "max\n" }, { "1000000000000", "1000000000000\n" },
		{ "9223372036854775806", "max\n" }, { "9223372036854775807", "max\n" },
	};
	char *cg = cg_name(root, "nd_writes");
	char path[PATH_MAX];
	int i, ret = KSFT_FAIL;

	if (!cg || cg_create(cg) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", 1234))
		goto out;
	snprintf(path, sizeof(path), "%s/memory.negative_dentry.max", cg);
	if (!nd_refuses_all(path, bad, ARRAY_SIZE(bad), "1234\n"))
		goto out;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		if (cg_write(cg, "memory.negative_dentry.max", (char *)good[i][0]) ||
		    cg_read_strcmp(cg, "memory.negative_dentry.max", good[i][1])) {
			ksft_print_msg("\"%s\" not taken\n", good[i][0]);
			goto out;
		}
	}
	ret = KSFT_PASS;
out:
	cg_destroy(cg);
	free(cg);
	return ret;
}

/* Create, or unlink, the files @dir/@prefix0 .. @prefix<n-1>. */
static int create_files(const char *dir, const char *prefix, long n,
			bool unlink_them)
{
	char path[PATH_MAX];
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s%ld", dir, prefix, i);
		if (unlink_them) {
			if (unlink(path))
				return -1;
			continue;
		}
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

struct pinned_stats {
	const char *dir;
	long first;
	long count;
	int cpu;
	/* create missing-0 .. missing-(count - 1) instead */
	bool create;
};

/*
 * Missing names stat()ed, or files created over them, from one cpu alone:
 * only that cpu's stock charges ahead for the cgroup.
 */
static int pinned_stats_fn(const char *cgroup, void *arg)
{
	struct pinned_stats *p = arg;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(p->cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) ||
	    (mkdir(p->dir, 0755) && errno != EEXIST))
		return EXIT_FAILURE;
	if (p->create)
		return create_files(p->dir, "missing-", p->count, false) ?
		       EXIT_FAILURE : EXIT_SUCCESS;
	return nd_stat_missing(p->dir, "missing-", p->first, p->count) ?
	       EXIT_FAILURE : EXIT_SUCCESS;
}

/* Whether cpus 0 and 1 are this task's to use; if not, say so. */
static bool have_cpus_0_and_1(void)
{
	cpu_set_t cpus;

	if (!sched_getaffinity(0, sizeof(cpus), &cpus) &&
	    CPU_ISSET(0, &cpus) && CPU_ISSET(1, &cpus))
		return true;
	ksft_print_msg("needs cpus 0 and 1\n");
	return false;
}

#define SPLIT_MAX	1000

/*
 * A cgroup taken over its limit from two cpus in turn is seen over it:
 * 500 missing names on cpu 0, 495 on cpu 1, then 10 more on cpu 0 make
 * 1005 under a limit of 1000. Its reclaim then brings it to the target,
 * no further than the credit the stocks keep below it. When each cpu's
 * stock charged its changes after the fact, in batches sized by the last
 * charge there, cpu 0's last 10 waited uncharged: .current read 1005 and
 * .events max 0, for good.
 */
static int test_negdentry_limit_seen_from_every_cpu(const char *root)
{
	static const char * const dirs[] = { "nd_split", NULL };
	struct pinned_stats first = { dirs[0], 0, 500, 0 };
	struct pinned_stats second = { dirs[0], 500, 495, 1 };
	struct pinned_stats third = { dirs[0], 995, 10, 0 };
	char *cg = cg_name(root, "nd_split");
	int ret = KSFT_FAIL;
	long left;

	if (!have_cpus_0_and_1()) {
		ret = KSFT_SKIP;
		goto out;
	}
	if (!cg || cg_create(cg) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", SPLIT_MAX) ||
	    cg_run(cg, pinned_stats_fn, &first) ||
	    cg_run(cg, pinned_stats_fn, &second) ||
	    cg_run(cg, pinned_stats_fn, &third))
		goto out;
	wait_for_event(cg);
	left = settled_current(cg, nd_target(SPLIT_MAX));
	ksft_print_msg("500 + 495 + 10 from two cpus: .current %ld, events %ld\n",
		       left, max_events(cg));
	if (max_events(cg) < 1 || left > nd_settled_bound(SPLIT_MAX) ||
	    left < nd_settled_floor(SPLIT_MAX))
		goto out;
	ret = KSFT_PASS;
out:
	cg_destroy(cg);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

/*
 * A cgroup that reaches its limit from two cpus without passing it counts
 * no event: 500 missing names on cpu 0, files created over 18 of them
 * there, then 518 names on cpu 1 make exactly 1000 under a limit of 1000.
 * Under the old stock, which let uncharges wait on cpu 0, the count the
 * work was queued on left them out, and it counted events for a cgroup
 * under its limit: .current read 1000 and .events max 2.
 */
static int test_negdentry_no_event_under_limit(const char *root)
{
	static const char * const dirs[] = { "nd_under", NULL };
	struct pinned_stats stats = { dirs[0], 0, 500, 0 };
	struct pinned_stats files = { dirs[0], 0, 18, 0, true };
	struct pinned_stats more = { dirs[0], 500, 518, 1 };
	char *cg = cg_name(root, "nd_under");
	int ret = KSFT_FAIL;

	if (!have_cpus_0_and_1()) {
		ret = KSFT_SKIP;
		goto out;
	}
	if (!cg || cg_create(cg) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", SPLIT_MAX) ||
	    cg_run(cg, pinned_stats_fn, &stats) ||
	    cg_run(cg, pinned_stats_fn, &files) ||
	    cg_run(cg, pinned_stats_fn, &more))
		goto out;
	/* What a work queued on the way would count, it has counted. */
	if (nd_wait_idle(SETTLE_MS))
		goto out;
	ksft_print_msg("500 - 18 + 518 from two cpus: .current %ld, events %ld\n",
		       read_current(cg), max_events(cg));
	if (read_current(cg) == SPLIT_MAX && max_events(cg) == 0)
		ret = KSFT_PASS;
out:
	cg_destroy(cg);
	create_files(dirs[0], "missing-", 18, true);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

static long read_peak_fd(int fd)
{
	char buf[32];
	ssize_t len = pread(fd, buf, sizeof(buf) - 1, 0);

	if (len <= 0)
		return -1;
	buf[len] = '\0';
	return atol(buf);
}

/*
 * The counter of @cgroup now, the credit the cpus hold for it included:
 * what .peak reads right after a reset through the same open file.
 */
static long charged_now(const char *cgroup)
{
	char path[PATH_MAX];
	long charged = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/memory.negative_dentry.peak", cgroup);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -1;
	if (write(fd, "reset", 5) == 5)
		charged = read_peak_fd(fd);
	close(fd);
	return charged;
}

/*
 * Twice the slots of a cpu's stock: cgroups that take a slot each in turn
 * take every slot, whichever were empty and whichever was next.
 */
#define SLOT_TAKERS	(2 * ND_STOCK_SLOTS)
#define EXACT_MAX	1000
#define EXACT_ALONE	900

/* Each of @takers changes its count once on cpu 0, taking a slot there. */
static int take_slots(char **takers, struct pinned_stats *taker)
{
	int i;

	for (i = 0; i < SLOT_TAKERS; i++, taker->first++)
		if (cg_run(takers[i], pinned_stats_fn, taker))
			return -1;
	return 0;
}

/*
 * A limit acts at its value, not a batch later, and credit charged ahead
 * never passes it: 1000 negative dentries under a limit of 1000 count no
 * event; the 1001st does. Under the old stock, with a fixed batch of 32,
 * the count the limit saw stayed at 992, and nothing happened.
 *
 * The cgroup makes its first 900 alone on cpu 0, and the last 100 in
 * steps of half a charge batch; after each step, twice as many other
 * cgroups as a stock has slots change their counts on the same cpu, as a
 * host's services do, and take the cgroup's slot from it, which gives its
 * credit back. Near the limit, where a batch no longer fits, each charge
 * takes one. Before the last takers, a sibling that changed its count on
 * the same cpu is removed, which drains that cpu's stock while the cgroup
 * holds a slot there.
 */
static int test_negdentry_limit_is_exact(const char *root)
{
	static const char * const dirs[] = { "nd_exact", NULL };
	struct pinned_stats step = { dirs[0], 0, EXACT_ALONE };
	struct pinned_stats sibling = { dirs[0], 2000, 10 };
	struct pinned_stats taker = { dirs[0], 3000, 1 };
	struct pinned_stats one_more = { dirs[0], EXACT_MAX, 1 };
	long size = ND_CHARGE_BATCH / 2;
	char *cg = cg_name(root, "nd_exact");
	char *gone = cg_name(root, "nd_exact_gone");
	char *takers[SLOT_TAKERS] = { NULL };
	int i, ret = KSFT_FAIL;
	long waited, held, taken;

	if (!cg || !gone || cg_create(cg) || cg_create(gone) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", EXACT_MAX))
		goto out;
	for (i = 0; i < SLOT_TAKERS; i++) {
		takers[i] = cg_name_indexed(root, "nd_exact_taker", i);
		if (!takers[i] || cg_create(takers[i]))
			goto out;
	}
	if (cg_run(cg, pinned_stats_fn, &step))
		goto out;
	/*
	 * The scenario, checked rather than assumed from the stock's shape:
	 * cpu 0 holds credit for the cgroup, and the takers take it back.
	 */
	held = charged_now(cg);
	if (take_slots(takers, &taker))
		goto out;
	taken = charged_now(cg);
	ksft_print_msg("%d names on cpu 0: charged %ld; after %d takers %ld\n",
		       EXACT_ALONE, held, SLOT_TAKERS, taken);
	if (held <= EXACT_ALONE || taken != EXACT_ALONE)
		goto out;
	for (step.first = EXACT_ALONE; step.first < EXACT_MAX;
	     step.first += step.count) {
		step.count = size < EXACT_MAX - step.first ?
			     size : EXACT_MAX - step.first;
		if (cg_run(cg, pinned_stats_fn, &step))
			goto out;
		if (step.first + step.count == EXACT_MAX &&
		    (cg_run(gone, pinned_stats_fn, &sibling) ||
		     cg_destroy(gone) ||
		     nd_wait_for(drains_running, NULL, 0, SETTLE_MS)))
			goto out;
		if (take_slots(takers, &taker))
			goto out;
	}
	if (nd_wait_idle(SETTLE_MS))
		goto out;
	ksft_print_msg("at the limit: .current %ld, events %ld\n",
		       read_current(cg), max_events(cg));
	if (read_current(cg) != EXACT_MAX || max_events(cg) != 0 ||
	    cg_run(cg, pinned_stats_fn, &one_more))
		goto out;
	waited = wait_for_event(cg);
	ksft_print_msg("one over: events %ld after %ld ms\n", max_events(cg),
		       waited);
	if (max_events(cg) < 1)
		goto out;
	ret = KSFT_PASS;
out:
	for (i = 0; i < SLOT_TAKERS && takers[i]; i++) {
		cg_destroy(takers[i]);
		free(takers[i]);
	}
	cg_destroy(gone);
	cg_destroy(cg);
	remove_dirs(dirs);
	free(gone);
	free(cg);
	return ret;
}

#define WAITING_BEFORE	64
#define LOWERED_MAX	70
#define STATS_AFTER	60

/*
 * A limit set on a cgroup that already has negative dentries acts on all
 * of them: 64 missing names stat()ed on cpu 0 with no limit, then a limit
 * of 70, then 60 more names on cpu 1 take the cgroup to 124, over it by
 * more than an eighth. Under the old stock, which let changes wait
 * uncharged, the count the limit acted on went from 1 to 61 only, and
 * nothing started reclaim. The pass must be counted, whoever reclaims:
 * .events once read max 0 when the tasks reclaimed before the work
 * counted, and the work counted only what it found over.
 */
static int test_negdentry_lowered_limit(const char *root)
{
	static const char * const dirs[] = { "nd_lowered", NULL };
	struct pinned_stats before = { dirs[0], 0, WAITING_BEFORE, 0 };
	struct pinned_stats after = { dirs[0], WAITING_BEFORE, STATS_AFTER, 1 };
	char *cg = cg_name(root, "nd_lowered");
	int ret = KSFT_FAIL;
	cpu_set_t cpus;
	long left;

	if (sched_getaffinity(0, sizeof(cpus), &cpus) ||
	    !CPU_ISSET(0, &cpus) || !CPU_ISSET(1, &cpus)) {
		ksft_print_msg("needs cpus 0 and 1\n");
		ret = KSFT_SKIP;
		goto out;
	}
	/* Made out here, so that the stats alone change the cgroup's count. */
	if (!cg || (mkdir(dirs[0], 0755) && errno != EEXIST) ||
	    cg_create(cg) || cg_run(cg, pinned_stats_fn, &before) ||
	    read_current(cg) != WAITING_BEFORE ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", LOWERED_MAX) ||
	    cg_run(cg, pinned_stats_fn, &after))
		goto out;
	left = settled_current(cg, LOWERED_MAX);
	/* Counted by the work, which may not have run yet. */
	wait_for_event(cg);
	ksft_print_msg("limit lowered to %d over %d waiting, %d more: .current %ld, events %ld\n",
		       LOWERED_MAX, WAITING_BEFORE, STATS_AFTER, left,
		       max_events(cg));
	if (left > nd_settled_bound(LOWERED_MAX) || max_events(cg) < 1)
		goto out;
	ret = KSFT_PASS;
out:
	cg_destroy(cg);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

#define MANY_CHILDREN	300
#define CHILD_NAMES	20

/*
 * A parent's limit binds however many children share it: 300 children of
 * a parent limited to 1000 stat 20 missing names each, 6000 in all, taking
 * turns on the cpus. Each charge reaches the parent's counter at once,
 * credit charged ahead included, and a cpu holds credit for a few cgroups
 * at most, so reclaim brings the parent down. When each cgroup kept a
 * backlog of its own per cpu, the parent's limit saw one change for each
 * child, 300, and never acted: its .events read max 0 over 6000 negative
 * dentries.
 */
static int test_negdentry_many_children(const char *root)
{
	static const char * const dirs[] = { "nd_many", NULL };
	char *parent = cg_name(root, "nd_many");
	struct pinned_stats p = { dirs[0], 0, CHILD_NAMES };
	char *child = NULL;
	long left, stat;
	int i, ret = KSFT_FAIL;

	if (!parent || cg_create(parent) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_write_numeric(parent, "memory.negative_dentry.max", 1000))
		goto out;
	for (i = 0; i < MANY_CHILDREN; i++) {
		child = cg_name_indexed(parent, "child", i);
		p.first = i * CHILD_NAMES;
		p.cpu = i % get_nprocs();
		if (!child || cg_create(child) ||
		    cg_run(child, pinned_stats_fn, &p))
			goto out;
		free(child);
		child = NULL;
	}
	left = settled_current(parent, 1000);
	stat = stat_of(parent, "negative_dentries ");
	ksft_print_msg("%d children of %d: parent .current %ld, memory.stat %ld, events %ld\n",
		       MANY_CHILDREN, CHILD_NAMES, left, stat, max_events(parent));
	if (left > nd_settled_bound(1000) || stat > nd_settled_bound(1000) ||
	    max_events(parent) < 1 || local_max_events(parent) < 1)
		goto out;
	ret = KSFT_PASS;
out:
	free(child);
	for (i = 0; i < MANY_CHILDREN; i++) {
		child = cg_name_indexed(parent, "child", i);
		cg_destroy(child);
		free(child);
	}
	cg_destroy(parent);
	remove_dirs(dirs);
	free(parent);
	return ret;
}

/*
 * A cgroup limited to 5000 floods 100000 missing names: reclaim brings it
 * back within its limit, and no further than seven eighths of it, and every
 * negative dentry that went is counted as reclaimed or killed. Its
 * unlimited sibling keeps all of its own.
 */
static int test_negdentry_limit(const char *root)
{
	static const char * const dirs[] = { "nd_limited", "nd_unlimited", NULL };
	char *limited = cg_name(root, "nd_limited");
	char *unlimited = cg_name(root, "nd_unlimited");
	long left, kept, gone, counted;
	int ret = KSFT_FAIL;

	if (!limited || !unlimited || cg_create(limited) ||
	    cg_create(unlimited) ||
	    cg_write_numeric(limited, "memory.negative_dentry.max", 5000) ||
	    flood_in(limited, dirs[0], FLOOD, 1) ||
	    flood_in(unlimited, dirs[1], FLOOD, 1))
		goto out;
	settled_current(limited, 5000);
	if (nd_wait_idle(SETTLE_MS))
		goto out;
	left = read_current(limited);
	kept = read_current(unlimited);
	gone = FLOOD - left;
	counted = stat_of(limited, "negative_dentry_reclaimed ") +
		  stat_of(limited, "negative_dentry_killed ");
	ksft_print_msg("limited: %ld left, %ld reclaimed or killed, %ld events; unlimited: %ld\n",
		       left, counted, max_events(limited), kept);
	if (left > nd_settled_bound(5000) || left < nd_settled_floor(5000) ||
	    kept < FLOOD - FLOOD / 100 ||
	    labs(gone - counted) > nd_count_slack() ||
	    max_events(limited) < 1 ||
	    max_events(unlimited) != 0 ||
	    stat_of(unlimited, "negative_dentry_reclaimed ") != 0 ||
	    stat_of(limited, "negative_dentries ") != read_current(limited) ||
	    stat_of(unlimited, "negative_dentries ") != kept)
		goto out;
	ret = KSFT_PASS;
out:
	cg_destroy(limited);
	cg_destroy(unlimited);
	remove_dirs(dirs);
	free(limited);
	free(unlimited);
	return ret;
}

/* A child with no limit of its own is held to its parent's. */
static int test_negdentry_hierarchy(const char *root)
{
	static const char * const dirs[] = { "nd_child", NULL };
	char *parent = cg_name(root, "nd_parent");
	char *child = cg_name(root, "nd_parent/child");
	long p, c;
	int ret = KSFT_FAIL;

	if (!parent || !child || cg_create(parent) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create(child) ||
	    cg_write_numeric(parent, "memory.negative_dentry.max", 3000) ||
	    flood_in(child, dirs[0], FLOOD / 2, 1))
		goto out;
	p = settled_current(parent, 3000);
	c = read_current(child);
	ksft_print_msg("parent %ld, child %ld\n", p, c);
	if (p > nd_settled_bound(3000) || c > p ||
	    cg_read_strcmp(child, "memory.negative_dentry.max", "max\n") ||
	    max_events(parent) < 1 || max_events(child) != 0)
		goto out;
	ret = KSFT_PASS;
out:
	cg_destroy(child);
	cg_destroy(parent);
	remove_dirs(dirs);
	free(child);
	free(parent);
	return ret;
}

static bool current_is(const char *cg, long want)
{
	long got = read_current((void *)cg);

	if (got != want || stat_of(cg, "negative_dentries ") != want) {
		ksft_print_msg(".current %ld, memory.stat %ld, want %ld\n",
			       got, stat_of(cg, "negative_dentries "), want);
		return false;
	}
	return true;
}

/*
 * .current follows negative dentries exactly: down as files take their
 * names, up as the files go, and back to 0 when the dentries are freed.
 */
static int test_negdentry_current_exact(const char *root)
{
	static const char * const dirs[] = { "nd_exact", NULL };
	char *cg = cg_name(root, "nd_exact");
	int ret = KSFT_FAIL;

	if (!cg || cg_create(cg) || flood_in(cg, dirs[0], 20000, 1) ||
	    !current_is(cg, 20000) ||
	    create_files(dirs[0], "missing-", 10000, false) ||
	    !current_is(cg, 10000) ||
	    create_files(dirs[0], "missing-", 10000, true) ||
	    !current_is(cg, 20000) ||
	    write_text(DROP_CACHES, "2", 1) < 0 ||
	    !current_is(cg, 0))
		goto out;
	ret = KSFT_PASS;
out:
	cg_destroy(cg);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

/* memory.negative_dentry.peak read through @fd from its start. */
#define PEAK_NAMES	3000

/*
 * .peak is the most the count reached, the cpus' credit included (at most
 * nd_count_slack() above it): 3000 missing names take it to 3000, and it
 * stays there once the dentries are freed. A write resets it to the
 * count for reads through the file written to, and only for those, as
 * memory.peak does.
 */
static int test_negdentry_peak(const char *root)
{
	static const char * const dirs[] = { "nd_peak", NULL };
	char *cg = cg_name(root, "nd_peak");
	char path[PATH_MAX];
	long peak, reset, other;
	int fd = -1, ret = KSFT_FAIL;

	if (!cg || cg_create(cg) || flood_in(cg, dirs[0], PEAK_NAMES, 1) ||
	    write_text(DROP_CACHES, "2", 1) < 0 || !current_is(cg, 0))
		goto out;
	snprintf(path, sizeof(path), "%s/memory.negative_dentry.peak", cg);
	fd = open(path, O_RDWR);
	if (fd < 0)
		goto out;
	peak = read_peak_fd(fd);
	if (write(fd, "reset", 5) != 5)
		goto out;
	reset = read_peak_fd(fd);
	other = cg_read_long(cg, "memory.negative_dentry.peak");
	ksft_print_msg("peak %ld after %d names; after a reset %ld, through another open %ld\n",
		       peak, PEAK_NAMES, reset, other);
	if (peak >= PEAK_NAMES && peak <= PEAK_NAMES + nd_count_slack() &&
	    reset >= 0 && reset <= nd_count_slack() && other == peak)
		ret = KSFT_PASS;
out:
	if (fd >= 0)
		close(fd);
	cg_destroy(cg);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

#define ISOLATED_NAMES	100

/*
 * An isolated cpu holds no credit for anyone, so that no limit written
 * later has anything to take back from it: 100 missing names looked up on
 * cpu 1, isolated by a cpuset partition, take .peak to exactly 100, where
 * the same names on cpu 0 take it a charge ahead of 100.
 */
static int test_negdentry_isolated_cpu_holds_nothing(const char *root)
{
	static const char * const dirs[] = { "nd_isolated", "nd_housekeeping",
					      NULL };
	struct pinned_stats isolated = { dirs[0], 0, ISOLATED_NAMES, 1 };
	struct pinned_stats housekeeping = { dirs[1], 0, ISOLATED_NAMES, 0 };
	char *iso = cg_name(root, "nd_isolated");
	char *hk = cg_name(root, "nd_housekeeping");
	long iso_peak = -1, hk_peak = -1;
	int ret = KSFT_FAIL;

	if (!have_cpus_0_and_1() || !iso || !hk ||
	    cg_write(root, "cgroup.subtree_control", "+cpuset") ||
	    cg_create(iso) || cg_create(hk) ||
	    cg_write(iso, "cpuset.cpus", "1") ||
	    cg_write(iso, "cpuset.cpus.partition", "isolated") ||
	    cg_read_strcmp(iso, "cpuset.cpus.partition", "isolated\n")) {
		ksft_print_msg("no isolated partition of cpu 1\n");
		goto out;
	}
	if (cg_run(iso, pinned_stats_fn, &isolated) ||
	    cg_run(hk, pinned_stats_fn, &housekeeping))
		goto out;
	iso_peak = cg_read_long(iso, "memory.negative_dentry.peak");
	hk_peak = cg_read_long(hk, "memory.negative_dentry.peak");
	ksft_print_msg("%d names: .peak %ld on the isolated cpu, %ld on cpu 0\n",
		       ISOLATED_NAMES, iso_peak, hk_peak);
	if (iso_peak == ISOLATED_NAMES && current_is(iso, ISOLATED_NAMES) &&
	    hk_peak > ISOLATED_NAMES)
		ret = KSFT_PASS;
out:
	cg_destroy(iso);
	cg_destroy(hk);
	cg_write(root, "cgroup.subtree_control", "-cpuset");
	remove_dirs(dirs);
	free(iso);
	free(hk);
	return ret;
}

struct churn {
	const char *dir;
	long count;
};

static int churn_fn(const char *cgroup, void *arg)
{
	const struct churn *c = arg;

	if (mkdir(c->dir, 0755) && errno != EEXIST)
		return EXIT_FAILURE;
	return nd_churn(c->dir, "tmp-", c->count) ? EXIT_FAILURE :
						      EXIT_SUCCESS;
}

/*
 * fs.dentry-negative=1 frees the dentry of a file unlinked unused: the
 * cgroup's create/unlink churn leaves .current and memory.stat where they
 * were, under a limit it would reach twice over without: nothing
 * reclaimed, killed or counted as an event. Its failed lookups still
 * count. At 0 the same churn leaves a negative dentry per file. Once the
 * cgroup's dentries are freed its counts are 0: the dropped dentries,
 * counted negative from the unlink until they were freed, left nothing
 * behind.
 */
static int test_negdentry_dentry_negative(const char *root)
{
	static const char * const dirs[] = { "nd_dropped", "nd_kept", NULL };
	struct churn dropped = { dirs[0], 2000 }, kept = { dirs[1], 2000 };
	long saved = nd_read_long(DENTRY_NEGATIVE), negatives;
	char *cg;
	int ret = KSFT_FAIL;

	if (saved < 0)
		return KSFT_SKIP;
	cg = cg_name(root, "nd_dropneg");
	if (!cg || cg_create(cg) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", 1000) ||
	    nd_set_dentry_negative(1) || flood_in(cg, dirs[0], 500, 1) ||
	    !current_is(cg, 500))
		goto out;
	negatives = nd_nr_negative();
	if (cg_run(cg, churn_fn, &dropped))
		goto out;
	negatives = nd_nr_negative() - negatives;
	ksft_print_msg("fs.dentry-negative=1, %ld files churned: .current %ld, nr_negative %+ld\n",
		       dropped.count, read_current(cg), negatives);
	ksft_print_msg("under a limit of 1000: %ld reclaimed, %ld killed, %ld events\n",
		       stat_of(cg, "negative_dentry_reclaimed "),
		       stat_of(cg, "negative_dentry_killed "), max_events(cg));
	if (!current_is(cg, 500) || labs(negatives) > 64 ||
	    stat_of(cg, "negative_dentry_reclaimed ") ||
	    stat_of(cg, "negative_dentry_killed ") || max_events(cg))
		goto out;
	if (cg_write(cg, "memory.negative_dentry.max", "max") ||
	    nd_set_dentry_negative(0) || cg_run(cg, churn_fn, &kept) ||
	    !current_is(cg, 500 + kept.count) ||
	    write_text(DROP_CACHES, "2", 1) < 0 ||
	    !current_is(cg, 0))
		goto out;
	ret = KSFT_PASS;
out:
	nd_set_dentry_negative(saved);
	cg_destroy(cg);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

/*
 * Readers take the credit of the cpus online alone out of the counter,
 * however many cpus are possible: a cpu that goes offline gives its
 * stock's credit back. 1010 negative dentries made on cpu 1 by a child
 * without a limit charge 32 at a time, 1024 in all (.peak shows it), and
 * leave 14 as credit in cpu 1's stock; .current of the child and of its
 * parent, and the parent's memory.stat, stay exact across the offlining.
 * Without the give-back they would read 1024.
 */
static int test_negdentry_cpu_offline(const char *root)
{
	static const char * const dirs[] = { "nd_offline", NULL };
	struct pinned_stats stats = { dirs[0], 0, 1010, 1 };
	char *parent = cg_name(root, "nd_offline");
	char *child = cg_name(root, "nd_offline/child");
	int ret = KSFT_FAIL;

	if (get_nprocs() < 2 || access(CPU1_ONLINE, W_OK)) {
		ksft_print_msg("needs a cpu 1 that can go offline\n");
		ret = KSFT_SKIP;
		goto out;
	}
	if (!parent || !child || cg_create(parent) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create(child) || cg_run(child, pinned_stats_fn, &stats))
		goto out;
	ksft_print_msg("online: .current %ld and %ld, parent's memory.stat %ld, .peak %ld\n",
		       read_current(child), read_current(parent),
		       stat_of(parent, "negative_dentries "),
		       cg_read_long(child, "memory.negative_dentry.peak"));
	/* Credit held on cpu 1, or the offlining has nothing to give back. */
	if (cg_read_long(child, "memory.negative_dentry.peak") <= stats.count ||
	    read_current(child) != stats.count ||
	    read_current(parent) != stats.count ||
	    write_text(CPU1_ONLINE, "0", 1) < 0)
		goto online;
	ksft_print_msg("offline: .current %ld and %ld, parent's memory.stat %ld\n",
		       read_current(child), read_current(parent),
		       stat_of(parent, "negative_dentries "));
	if (read_current(child) == stats.count &&
	    read_current(parent) == stats.count &&
	    stat_of(parent, "negative_dentries ") == stats.count)
		ret = KSFT_PASS;
online:
	if (write_text(CPU1_ONLINE, "1", 1) < 0)
		ret = KSFT_FAIL;
out:
	cg_destroy(child);
	cg_destroy(parent);
	remove_dirs(dirs);
	free(child);
	free(parent);
	return ret;
}

struct named_files {
	const char *dir;
	const char *prefix;
	long count;
};

/* Page cache for reclaim to take first: see the LRU-order test. */
#define FILE_BYTES	8192

static int named_files_fn(const char *cgroup, void *arg)
{
	static const char data[FILE_BYTES];
	struct named_files *f = arg;
	char path[PATH_MAX];
	long i;
	int fd;

	for (i = 0; i < f->count; i++) {
		snprintf(path, sizeof(path), "%s/%s%ld", f->dir, f->prefix, i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0 || write(fd, data, sizeof(data)) != sizeof(data))
			return EXIT_FAILURE;
		close(fd);
	}
	return EXIT_SUCCESS;
}

/* Whether reclaim left file @i of @f in the dentry cache (nd_cached()). */
static int file_cached(const struct named_files *f, long i)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s%ld", f->dir, f->prefix, i);
	return nd_cached(path);
}

/* How many of the files @from to @to - 1 of @f reclaim evicted, or -1. */
static long evicted_files(const struct named_files *f, long from, long to)
{
	long i, evicted = 0;
	int cached;

	for (i = from; i < to; i++) {
		cached = file_cached(f, i);
		if (cached < 0)
			return -1;
		evicted += !cached;
	}
	return evicted;
}

/*
 * Run this task and the children it forks on the first cpu it may use;
 * @old receives the cpus it could use before, for sched_setaffinity().
 */
static int pin_to_one_cpu(cpu_set_t *old)
{
	cpu_set_t one;
	int cpu;

	CPU_ZERO(old);
	if (sched_getaffinity(0, sizeof(*old), old))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, old); cpu++)
		;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

#define ORDER_FILES	2000
#define LRU_GEN		"/sys/kernel/mm/lru_gen/enabled"
#define DENTRY_DEFRAG	"/sys/kernel/slab/dentry/remote_node_defrag_ratio"

/* A system-wide setting that a test changes, and the value it had. */
struct saved_setting {
	const char *path;
	char value[32];
};

/*
 * Set @s to @value for a test, keeping the value it had for
 * restore_setting(). A kernel without the file (no multi-gen LRU, say) has
 * nothing to set. A test killed meanwhile leaves the new value.
 *
 * Return: 0 on success (also without the file), -1 on error.
 */
static int change_setting(struct saved_setting *s, const char *value)
{
	ssize_t len = read_text(s->path, s->value, sizeof(s->value));

	if (len < 0) {
		s->value[0] = '\0';
		return len == -ENOENT ? 0 : -1;
	}
	return write_text(s->path, (char *)value, strlen(value)) < 0 ? -1 : 0;
}

static int restore_setting(const struct saved_setting *s)
{
	if (!s->value[0])
		return 0;
	if (write_text(s->path, (char *)s->value, strlen(s->value)) < 0)
		return -1;
	return 0;
}

/*
 * A removed cgroup's dentries go to the head of its parent's LRU lists,
 * the oldest end, and must stay there when the drain walks past its
 * positive ones to reclaim its negative ones: memory pressure on the
 * parent then evicts the removed cgroup's cold files before the parent's
 * own. Rotating them to the tail put them behind the parent's, which
 * went first. The files have page cache, which the writes to
 * memory.reclaim take first: without it, reclaim ends up scanning every
 * dentry at once, as their memory is freed after an RCU grace period
 * only.
 *
 * The order is a node's: each NUMA node has lists of its own, and a
 * dentry goes on those of the node its memory came from. The parent's
 * files could sit alone on a node, where reclaim would take them first.
 * So the test runs on one cpu, and has SLUB take new slabs of that cpu's
 * node for dentries rather than fill the partly used slabs of the other
 * nodes, which the tests before leave many of (remote_node_defrag_ratio):
 * then nearly all its dentries share a node. Those of the cpu's own
 * partial slabs can still come from another.
 *
 * The test needs a reclaim that takes part of the parent's dentries, from
 * the head of its lists. While the files have page cache, a write to
 * memory.reclaim takes pages, and asks the shrinkers for too few objects
 * to act on. Once the pages are gone, the next write scans the lists from
 * their head: under the classic LRU it stops part of the way (after 1500
 * to 1600 of the 4000 files, measured), under the multi-gen LRU, which
 * Debian's kernels turn on, it evicted every file. The test switches to
 * the classic LRU.
 *
 * The removed cgroup leaves @negatives behind its files, for the drain
 * to walk past them.
 */
static int drain_keeps_lru_order(const char *root, long negatives)
{
	static const char * const dirs[] = { "nd_order", NULL };
	struct named_files own = { dirs[0], "own-", ORDER_FILES };
	struct named_files gone = { dirs[0], "gone-", ORDER_FILES };
	char *parent = cg_name(root, "nd_order");
	char *child = cg_name(root, "nd_order/child");
	long own_evicted, gone_evicted, gone_later, looked = 0;
	struct saved_setting lru_gen = { .path = LRU_GEN };
	struct saved_setting defrag = { .path = DENTRY_DEFRAG };
	int ret = KSFT_FAIL, cached = -1, err;
	cpu_set_t cpus;

	if (pin_to_one_cpu(&cpus) || change_setting(&lru_gen, "n") ||
	    change_setting(&defrag, "0"))
		goto out;
	/* The parent's own files first, before it can have children. */
	if (!parent || !child || mkdir(dirs[0], 0755) || cg_create(parent) ||
	    cg_write_numeric(parent, "memory.negative_dentry.max", UNREACHED) ||
	    cg_run(parent, named_files_fn, &own) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create(child) || cg_run(child, named_files_fn, &gone) ||
	    flood_in(child, dirs[0], negatives, 1) || cg_destroy(child))
		goto out;
	/* Its negatives gone, and then the drain that took them. */
	if (nd_wait_for(read_current, parent, 0, SETTLE_MS) ||
	    nd_wait_for(drains_running, NULL, 0, SETTLE_MS))
		goto out;
	/*
	 * Pressure on the parent until reclaim has passed the middle of the
	 * removed cgroup's files. Each write is followed by a look at one of
	 * them, a new one each time, as a look moves it to the tail: those
	 * looked at stay out of the count.
	 */
	sync();
	while (looked < ORDER_FILES / 2) {
		/* -EAGAIN: less than asked was reclaimed, which is no error. */
		err = cg_write(parent, "memory.reclaim", "128K");
		if (err && err != -EAGAIN)
			goto out;
		cached = file_cached(&gone, ORDER_FILES / 2 + looked++);
		if (cached <= 0)
			break;
	}
	gone_evicted = evicted_files(&gone, 0, ORDER_FILES / 2);
	gone_later = evicted_files(&gone, ORDER_FILES / 2 + looked, ORDER_FILES);
	own_evicted = evicted_files(&own, 0, ORDER_FILES);
	if (cached < 0 || gone_evicted < 0 || gone_later < 0 || own_evicted < 0)
		goto out;
	gone_evicted += gone_later;
	ksft_print_msg("%ld memory.reclaim writes%s; evicted: %ld of %ld removed, %ld of %d own\n",
		       looked, cached ? " (none passed the middle)" : "",
		       gone_evicted, ORDER_FILES - looked, own_evicted,
		       ORDER_FILES);
	if (gone_evicted >= ORDER_FILES / 4 && gone_evicted > own_evicted)
		ret = KSFT_PASS;
out:
	if (restore_setting(&lru_gen))
		ret = KSFT_FAIL;
	if (restore_setting(&defrag))
		ret = KSFT_FAIL;
	sched_setaffinity(0, sizeof(cpus), &cpus);
	cg_destroy(child);
	cg_destroy(parent);
	create_files(dirs[0], "own-", ORDER_FILES, true);
	create_files(dirs[0], "gone-", ORDER_FILES, true);
	remove_dirs(dirs);
	free(child);
	free(parent);
	return ret;
}

static int test_negdentry_drain_keeps_lru_order(const char *root)
{
	return drain_keeps_lru_order(root, 20000);
}

/**
 * wait_notified() - cg_wait_for() that gives up
 * @fd: an inotify instance
 * @timeout_ms: how long to wait
 *
 * cg_wait_for() polls @fd for as long as it takes: it waits in a child here,
 * killed after @timeout_ms, so that a notification that never comes fails
 * the test instead of hanging it.
 *
 * Return: 0 once @fd has an event to read, -1 if none came in time.
 */
static int wait_notified(int fd, long timeout_ms)
{
	long start = nd_now_ms();
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(cg_wait_for(fd) ? EXIT_FAILURE : EXIT_SUCCESS);
	while (nd_now_ms() - start < timeout_ms) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status) ?
			       0 : -1;
		usleep(10 * 1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/* Going over the limit is an event, which pollers of the file hear of. */
static int test_negdentry_events_notify(const char *root)
{
	static const char * const dirs[] = { "nd_events", NULL };
	char *cg = cg_name(root, "nd_events");
	char path[PATH_MAX], buf[4096];
	int fd, ret = KSFT_FAIL;

	fd = inotify_init1(IN_NONBLOCK);
	if (!cg || fd < 0 || cg_create(cg) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", 1000))
		goto out;
	snprintf(path, sizeof(path), "%s/memory.negative_dentry.events", cg);
	if (inotify_add_watch(fd, path, IN_MODIFY) < 0 ||
	    flood_in(cg, dirs[0], 5000, 1))
		goto out;
	if (wait_notified(fd, SETTLE_MS) || read(fd, buf, sizeof(buf)) <= 0) {
		ksft_print_msg("no notification\n");
		goto out;
	}
	if (max_events(cg) >= 1)
		ret = KSFT_PASS;
out:
	if (fd >= 0)
		close(fd);
	cg_destroy(cg);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

/*
 * An event counts in .events of the cgroup whose limit it was and of every
 * ancestor, and in .events.local of that cgroup only; the ancestors'
 * pollers hear of it too.
 */
static int test_negdentry_events_hierarchical(const char *root)
{
	static const char * const dirs[] = { "nd_events_tree", NULL };
	char *parent = cg_name(root, "nd_events_parent");
	char *child = cg_name(root, "nd_events_parent/child");
	char path[PATH_MAX], buf[4096];
	int fd, ret = KSFT_FAIL;
	long events;

	fd = inotify_init1(IN_NONBLOCK);
	if (!parent || !child || fd < 0 || cg_create(parent) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create(child) ||
	    cg_write_numeric(child, "memory.negative_dentry.max", 300))
		goto out;
	snprintf(path, sizeof(path), "%s/memory.negative_dentry.events",
		 parent);
	if (inotify_add_watch(fd, path, IN_MODIFY) < 0 ||
	    flood_in(child, dirs[0], 3000, 1))
		goto out;
	if (wait_notified(fd, SETTLE_MS) || read(fd, buf, sizeof(buf)) <= 0) {
		ksft_print_msg("no notification at the parent\n");
		goto out;
	}
	settled_current(child, 300);
	events = max_events(child);
	ksft_print_msg("child: events %ld, local %ld; parent: events %ld, local %ld\n",
		       events, local_max_events(child), max_events(parent),
		       local_max_events(parent));
	if (events < 1 || local_max_events(child) != events ||
	    max_events(parent) != events || local_max_events(parent) != 0)
		goto out;
	ret = KSFT_PASS;
out:
	if (fd >= 0)
		close(fd);
	cg_destroy(child);
	cg_destroy(parent);
	remove_dirs(dirs);
	free(child);
	free(parent);
	return ret;
}

static long dying_children(void *parent)
{
	return cg_read_key_long(parent, "cgroup.stat", "nr_dying_descendants ");
}

/*
 * Without a limit on its path, a removed cgroup's negative dentries stay
 * its parent's, as without the feature: only a limit arms the drain. A
 * cgroup under a limit never reached is removed beside it, and its drain
 * shows that removals were seen; the unlimited one must still hold its
 * 1000. The drain used to run for every removal.
 */
static int test_negdentry_unlimited_removal_keeps_them(const char *root)
{
	static const char * const dirs[] = { "nd_keep_free", "nd_keep_limited",
					     NULL };
	char *free_parent = cg_name(root, "nd_keep_free");
	char *free_child = cg_name(root, "nd_keep_free/child");
	char *limited = cg_name(root, "nd_keep_limited");
	char *limited_child = cg_name(root, "nd_keep_limited/child");
	long kept = -1, drained = -1;
	int ret = KSFT_FAIL;

	if (!free_parent || !free_child || !limited || !limited_child ||
	    cg_create(free_parent) || cg_create(limited) ||
	    cg_write_numeric(limited, "memory.negative_dentry.max", UNREACHED) ||
	    cg_write(free_parent, "cgroup.subtree_control", "+memory") ||
	    cg_write(limited, "cgroup.subtree_control", "+memory") ||
	    cg_create(free_child) || cg_create(limited_child) ||
	    mkdir(dirs[0], 0755) || mkdir(dirs[1], 0755) ||
	    flood_in(free_child, dirs[0], 1000, 1) ||
	    flood_in(limited_child, dirs[1], 1000, 1) ||
	    cg_destroy(free_child) || cg_destroy(limited_child))
		goto out;
	drained = nd_wait_for(read_current, limited, 0, SETTLE_MS);
	if (nd_wait_for(drains_running, NULL, 0, SETTLE_MS))
		goto out;
	kept = read_current(free_parent);
	ksft_print_msg("after removal: unlimited parent %ld, limited parent %ld, of 1000 each\n",
		       kept, drained);
	if (drained == 0 && kept >= 1000)
		ret = KSFT_PASS;
out:
	cg_destroy(free_child);
	cg_destroy(limited_child);
	cg_destroy(free_parent);
	cg_destroy(limited);
	remove_dirs(dirs);
	free(free_child);
	free(limited_child);
	free(free_parent);
	free(limited);
	return ret;
}

/*
 * rmdir of a cgroup does not wait for its negative dentries; a drain frees
 * them, and the dying cgroup, within seconds. The times are reported, not
 * judged: the deadlines only catch a drain that never happens.
 */
static int test_negdentry_rmdir_drains(const char *root)
{
	static const char * const dirs[] = { "nd_gone", NULL };
	char *parent = cg_name(root, "nd_rmdir");
	char *child = cg_name(root, "nd_rmdir/child");
	long before, left, t0, t1, t2;
	bool reclaimed;
	int ret = KSFT_FAIL;

	/*
	 * The directory is made outside the cgroup: its blocks would be
	 * page cache charged to the cgroup, which keeps a removed cgroup
	 * dying until memory pressure reclaims them.
	 */
	if (!parent || !child || cg_create(parent) ||
	    cg_write_numeric(parent, "memory.negative_dentry.max", UNREACHED) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create(child) || mkdir(dirs[0], 0755))
		goto out;
	before = nd_nr_negative();
	if (flood_in(child, dirs[0], FLOOD, 1))
		goto out;
	t0 = nd_now_ms();
	if (cg_destroy(child))
		goto out;
	t1 = nd_now_ms();
	left = nd_settle(nd_read_nr_negative, NULL, before + FLOOD / 100,
			 SETTLE_MS) - before;
	t2 = nd_now_ms();
	/*
	 * Page cache the flood read (about 24 pages on the fast kernel) stays
	 * charged to the removed memcg, as on the base kernel: 6.12 does not
	 * reparent it, and the memcg stays dying until it is reclaimed.
	 * memory.stat shows no file pages because updates below the rstat
	 * flush threshold are not flushed; dropping the page cache frees the
	 * memcg. Reclaim, as memory pressure would, and wait again: a
	 * reference the drain failed to drop stays.
	 */
	reclaimed = nd_wait_for(dying_children, parent, 0, 10000) != 0;
	if (reclaimed) {
		cg_write(parent, "memory.reclaim", "1G");
		nd_wait_for(dying_children, parent, 0, SETTLE_MS);
	}
	/* A system-wide count: other negatives may come and go meanwhile. */
	ksft_print_msg("rmdir: %ld ms; after %ld ms, negatives %+ld of %d; %ld dying%s\n",
		       t1 - t0, t2 - t1, left, FLOOD, dying_children(parent),
		       reclaimed ? " after memory.reclaim" : "");
	if (left > FLOOD / 100 || dying_children(parent) != 0)
		goto out;
	ret = KSFT_PASS;
out:
	cg_destroy(child);
	cg_destroy(parent);
	remove_dirs(dirs);
	free(child);
	free(parent);
	return ret;
}

/* More dentries than a reclaim run looks at. */
#define BEHIND_FILES	70000
#define BEHIND_NEGATIVES	10000
static_assert(BEHIND_FILES > ND_RUN_BUDGET, "more files than a run's budget");

/*
 * The same, with more of the removed cgroup's dentries than a reclaim
 * run looks at: a drain that ran out of budget rotated the files it had
 * walked over to the tail, behind the parent's, and memory pressure then
 * evicted the parent's first.
 */
static int test_negdentry_drain_past_budget_keeps_lru_order(const char *root)
{
	return drain_keeps_lru_order(root, BEHIND_FILES);
}

static int many_files_fn(const char *cgroup, void *arg)
{
	return create_files(arg, "f", BEHIND_FILES, false) ? EXIT_FAILURE :
							      EXIT_SUCCESS;
}

/*
 * The first run of the reclaim work (@kind "limit") or of the drain
 * ("drain") of the cgroup whose id (its directory's inode number) is @id,
 * as the negative_dentry_reclaim_memcg trace event shows it: what it
 * scanned and reclaimed. Return 0, or -1 if the log has no such run.
 */
static int first_run(ino_t id, const char *kind, long *scanned,
		     long *reclaimed)
{
	char *log = nd_trace_log(), *p, want[64];
	int found = 0;

	if (!log)
		return -1;
	snprintf(want, sizeof(want), "cgroup %llu %s ",
		 (unsigned long long)id, kind);
	p = strstr(log, want);
	if (p)
		found = sscanf(p + strlen(want),
			       "usage %*d scanned %ld reclaimed %ld",
			       scanned, reclaimed) == 2;
	free(log);
	return found ? 0 : -1;
}

/*
 * A cgroup's 70,000 files, then its 10,000 negative dentries, from one cpu
 * and one slab node: on one node's list, the negative ones behind every
 * file, as the behind-positives tests need them (see
 * drain_keeps_lru_order() for the node).
 */
static int files_then_negatives(const char *cg, const char *dir)
{
	return cg_run(cg, many_files_fn, (void *)dir) ||
	       flood_in(cg, dir, BEHIND_NEGATIVES, 1);
}

/* Stat the missing names @f->dir/@f->prefix<i>, twice: they are hot. */
static int hot_names_fn(const char *cgroup, void *arg)
{
	const struct named_files *f = arg;

	return nd_stat_missing(f->dir, f->prefix, 0, f->count) ||
	       nd_stat_missing(f->dir, f->prefix, 0, f->count) ?
	       EXIT_FAILURE : EXIT_SUCCESS;
}

#define PARENTS_OWN	500
#define CHILDS_OWN	1000

/*
 * The drain of a removed cgroup takes its negative dentries, and stops
 * where its parent's own begin: the parent looked up 500 missing names
 * twice before it had a child, the child 1000 in the same directory; once
 * the child is removed and its drain done, none of the child's is cached
 * and all of the parent's are, and the parent counts its own 500. A drain
 * that went on past the removed cgroup's, hot or cold, would take them.
 */
static int test_negdentry_drain_stops_at_parents_own(const char *root)
{
	static const char * const dirs[] = { "nd_parents_own", NULL };
	struct named_files own = { dirs[0], "own-", PARENTS_OWN };
	struct named_files gone = { dirs[0], "gone-", CHILDS_OWN };
	char *parent = cg_name(root, "nd_parents_own");
	char *child = cg_name(root, "nd_parents_own/child");
	long own_cached = -1, gone_cached = -1, left = -1;
	int ret = KSFT_FAIL;

	if (!parent || !child || mkdir(dirs[0], 0755) || cg_create(parent) ||
	    cg_write_numeric(parent, "memory.negative_dentry.max", UNREACHED) ||
	    cg_run(parent, hot_names_fn, &own) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create(child) || cg_run(child, hot_names_fn, &gone) ||
	    cg_destroy(child))
		goto out;
	/* rmdir returns before the cgroup goes offline and its drain starts. */
	nd_wait_for(read_current, parent, PARENTS_OWN, SETTLE_MS);
	if (nd_wait_for(drains_running, NULL, 0, SETTLE_MS))
		goto out;
	left = read_current(parent);
	gone_cached = nd_cached_names(gone.dir, gone.prefix, gone.count);
	own_cached = nd_cached_names(own.dir, own.prefix, own.count);
	ksft_print_msg("cached: child's %ld of %d, parent's %ld of %d; .current %ld\n",
		       gone_cached, CHILDS_OWN, own_cached, PARENTS_OWN, left);
	if (gone_cached == 0 && own_cached == PARENTS_OWN &&
	    left == PARENTS_OWN)
		ret = KSFT_PASS;
out:
	cg_destroy(child);
	cg_destroy(parent);
	remove_dirs(dirs);
	free(child);
	free(parent);
	return ret;
}

/*
 * A removed cgroup whose lists start with more positive dentries than
 * one reclaim run looks at still has its negative dentries drained: its
 * drain's first run walks past all 70,000 files and takes the negatives.
 * The drain used to requeue only after a run that reclaimed something, so
 * it gave up in front of the files, and the negatives stayed counted in
 * the parent for as long as it lived.
 */
static int test_negdentry_drain_behind_positives(const char *root)
{
	static const char * const dirs[] = { "nd_behind", NULL };
	struct saved_setting defrag = { .path = DENTRY_DEFRAG };
	char *parent = cg_name(root, "nd_behind");
	char *child = cg_name(root, "nd_behind/child");
	long left = -1, scanned = -1, reclaimed = -1;
	int ret = KSFT_FAIL;
	cpu_set_t cpus;
	struct stat st;

	if (pin_to_one_cpu(&cpus) || change_setting(&defrag, "0"))
		goto out;
	if (!parent || !child || cg_create(parent) ||
	    cg_write_numeric(parent, "memory.negative_dentry.max", UNREACHED) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create(child) || mkdir(dirs[0], 0755) ||
	    files_then_negatives(child, dirs[0]) || stat(child, &st) ||
	    nd_trace_event("negative_dentry_reclaim_memcg", 1) ||
	    cg_destroy(child))
		goto out;
	if (nd_wait_for(drains_running, NULL, 0, SETTLE_MS))
		goto out;
	left = settled_current(parent, BEHIND_NEGATIVES / 100);
	first_run(st.st_ino, "drain", &scanned, &reclaimed);
	ksft_print_msg("behind %d files: run 1 scanned %ld, took %ld; %ld of %d left\n",
		       BEHIND_FILES, scanned, reclaimed, left, BEHIND_NEGATIVES);
	if (scanned >= BEHIND_FILES && reclaimed >= BEHIND_NEGATIVES - 100 &&
	    left <= BEHIND_NEGATIVES / 100)
		ret = KSFT_PASS;
out:
	nd_trace_event("negative_dentry_reclaim_memcg", 0);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	restore_setting(&defrag);
	cg_destroy(child);
	cg_destroy(parent);
	create_files(dirs[0], "f", BEHIND_FILES, true);
	remove_dirs(dirs);
	free(child);
	free(parent);
	return ret;
}

/*
 * The same for a live cgroup that stops charging: one that made 70,000
 * files and stats 10,000 missing names has a limit of 1000 set, which
 * queues its reclaim once. Its first run spends its budget on the files
 * and reclaims nothing; each run goes on from where the last one ran out
 * of budget. Reclaim used to requeue only after a run that reclaimed
 * something, so its first run was its last: the cgroup stayed at 10,000
 * over a limit of 1000.
 */
static int test_negdentry_limit_behind_positives(const char *root)
{
	static const char * const dirs[] = { "nd_limit_behind", NULL };
	struct saved_setting defrag = { .path = DENTRY_DEFRAG };
	char *cg = cg_name(root, "nd_limit_behind");
	long left = -1, scanned = -1, reclaimed = -1;
	int ret = KSFT_FAIL;
	cpu_set_t cpus;
	struct stat st;

	if (pin_to_one_cpu(&cpus) || change_setting(&defrag, "0"))
		goto out;
	if (!cg || cg_create(cg) || mkdir(dirs[0], 0755) ||
	    files_then_negatives(cg, dirs[0]) ||
	    nd_trace_event("negative_dentry_reclaim_memcg", 1) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", 1000))
		goto out;
	left = settled_current(cg, 1000);
	if (!stat(cg, &st))
		first_run(st.st_ino, "limit", &scanned, &reclaimed);
	ksft_print_msg("behind %d files: run 1 scanned %ld, took %ld; %ld of %d left\n",
		       BEHIND_FILES, scanned, reclaimed, left, BEHIND_NEGATIVES);
	if (scanned >= ND_RUN_BUDGET && reclaimed == 0 &&
	    left <= nd_settled_bound(1000))
		ret = KSFT_PASS;
out:
	nd_trace_event("negative_dentry_reclaim_memcg", 0);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	restore_setting(&defrag);
	cg_destroy(cg);
	create_files(dirs[0], "f", BEHIND_FILES, true);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

#define QUIET_SIBLING	300
#define FLOODER		20000

/*
 * Under a parent limited to 1000, a sibling that stats 300 missing names,
 * under an equal share of the parent's target (437 each for two), keeps
 * them while the other floods 20,000: reclaim takes from each cgroup what
 * it holds above its share, and the reclaim that the flooder runs
 * itself starts at the flooder's own lists. Every pass used to walk the
 * parent's subtree from its first child, and emptied the quiet one first.
 */
static int test_negdentry_sibling_keeps_its_share(const char *root)
{
	static const char * const dirs[] = { "nd_share_quiet", "nd_share_flood",
					     NULL };
	char *parent = cg_name(root, "nd_share");
	char *quiet = cg_name(root, "nd_share/quiet");
	char *flooder = cg_name(root, "nd_share/flooder");
	struct pinned_stats q = { dirs[0], 0, QUIET_SIBLING, 0 };
	long kept, left;
	int ret = KSFT_FAIL;

	if (!parent || !quiet || !flooder || cg_create(parent) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create(quiet) || cg_create(flooder) ||
	    cg_write_numeric(parent, "memory.negative_dentry.max", 1000) ||
	    cg_run(quiet, pinned_stats_fn, &q) ||
	    flood_in(flooder, dirs[1], FLOODER, 1))
		goto out;
	left = settled_current(parent, 1000);
	kept = read_current(quiet);
	ksft_print_msg("quiet sibling kept %ld of %d; parent %ld, flooder %ld\n",
		       kept, QUIET_SIBLING, left, read_current(flooder));
	if (kept == QUIET_SIBLING && left <= nd_settled_bound(1000))
		ret = KSFT_PASS;
out:
	cg_destroy(quiet);
	cg_destroy(flooder);
	cg_destroy(parent);
	remove_dirs(dirs);
	free(quiet);
	free(flooder);
	free(parent);
	return ret;
}

static int files_fn(const char *cgroup, void *arg)
{
	if (mkdir(arg, 0755) && errno != EEXIST)
		return EXIT_FAILURE;
	return create_files(arg, "file", 3000, false) ? EXIT_FAILURE :
							 EXIT_SUCCESS;
}

/*
 * Reclaim takes negative dentries only: the cgroup's files stay cached.
 * Each is probed with an open that may only use the cache, before
 * anything looks it up again (a stat() would bring an evicted one back).
 */
static int test_negdentry_positives_survive(const char *root)
{
	static const char * const dirs[] = { "nd_pos", NULL };
	const struct named_files files = { dirs[0], "file", 3000 };
	char *cg = cg_name(root, "nd_pos");
	long positives, after, left, gone;
	int ret = KSFT_FAIL;

	if (!cg || cg_create(cg) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", 1000) ||
	    cg_run(cg, files_fn, (void *)dirs[0]))
		goto out;
	positives = nd_nr_positive();
	if (flood_in(cg, dirs[0], 20000, 1))
		goto out;
	left = settled_current(cg, 1000);
	after = nd_nr_positive();
	gone = evicted_files(&files, 0, 3000);
	ksft_print_msg("%ld negative left; %ld of 3000 files evicted; positive %ld, then %ld\n",
		       left, gone, positives, after);
	if (left > nd_settled_bound(1000) || gone != 0 ||
	    after < positives - 16)
		goto out;
	ret = KSFT_PASS;
out:
	cg_destroy(cg);
	create_files(dirs[0], "file", 3000, true);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

struct hot {
	const char *dir;
	long count;
	long flood;
	atomic_bool stop;
	long lost;
};

/*
 * Look up the hot names again and again, each from the cache alone: one
 * that reclaim took is counted lost, not made again.
 */
static void *relook_hot(void *arg)
{
	struct hot *hot = arg;
	long cached;

	while (!atomic_load(&hot->stop)) {
		cached = nd_cached_names(hot->dir, "hot-", hot->count);
		if (cached < 0)
			cached = 0;
		hot->lost += hot->count - cached;
	}
	return NULL;
}

/*
 * In one directory, under one limit: names looked up twice (hot, and
 * looked up again all along), names looked up once, then a flood of cold
 * ones.
 */
static int hot_fn(const char *cgroup, void *arg)
{
	struct hot *hot = arg;
	pthread_t relook;

	if ((mkdir(hot->dir, 0755) && errno != EEXIST) ||
	    nd_stat_missing(hot->dir, "hot-", 0, hot->count) ||
	    nd_stat_missing(hot->dir, "hot-", 0, hot->count) ||
	    nd_stat_missing(hot->dir, "once-", 0, hot->count) ||
	    pthread_create(&relook, NULL, relook_hot, hot))
		return EXIT_FAILURE;
	if (nd_stat_missing(hot->dir, "cold-", 0, hot->flood))
		hot->lost = -1;
	atomic_store(&hot->stop, true);
	pthread_join(relook, NULL);
	if (hot->lost)
		ksft_print_msg("%ld lookups of hot names found them evicted\n",
			       hot->lost);
	return hot->lost ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * Reclaim takes cold negative dentries before hot ones: names looked up
 * again and again all stay cached while a flood goes on beside them in
 * the same directory, under a cgroup limit of 5000, while names looked up
 * only once lose some: the cgroup's reclaim walks its LRU lists oldest
 * first, and meets them, older than the flood, first.
 */
static int test_negdentry_hot_survive(const char *root)
{
	static const char * const dirs[] = { "nd_hot_memcg", NULL };
	char *cg = cg_name(root, "nd_hot_memcg");
	struct hot want = { .dir = dirs[0], .count = 2000, .flood = FLOOD / 4 };
	long left, hot = -1, once = -1, cold = -1;
	int ret = KSFT_FAIL;

	if (!cg || cg_create(cg) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", 5000) ||
	    cg_run(cg, hot_fn, &want))
		goto out;
	left = settled_current(cg, 5000);
	hot = nd_cached_names(want.dir, "hot-", want.count);
	once = nd_cached_names(want.dir, "once-", want.count);
	cold = nd_cached_names(want.dir, "cold-", want.flood);
	ksft_print_msg("cached: hot %ld of %ld, once %ld of %ld, cold %ld of %ld; %ld left\n",
		       hot, want.count, once, want.count, cold, want.flood, left);
	if (hot == want.count && once >= 0 && once < want.count && cold >= 0 &&
	    left <= nd_settled_bound(5000))
		ret = KSFT_PASS;
out:
	cg_destroy(cg);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

#define DIR_ONCE	900
#define DIR_HOT		300

/*
 * The same for a directory's limit, whose reclaim walks the children
 * newest first: a flood's names, the newest of all, would be all it ever
 * met. So, under a limit too high to reach, 900 names are looked up once,
 * then 300 hot ones twice; a limit of 1000 and one more name then have
 * reclaim take the excess, over 300, from the first children it may take.
 * The hot names, met first, all stay; the names looked up once lose some.
 * With no limit at all, the key that marks lookups under RCU as hits
 * would be off, and the hot names would look cold.
 */
static int test_negdentry_hot_survive_dir(const char *root)
{
	static const char * const dirs[] = { "nd_hot_dir", NULL };
	long hot = -1, once = -1;
	int ret = KSFT_FAIL;

	(void)root;
	if (nd_read_long(DENTRY_DIR_MAX) < 0)
		return KSFT_SKIP;
	if (write_text(DENTRY_DIR_MAX, "1000000", 7) < 0 ||
	    mkdir(dirs[0], 0755) ||
	    nd_stat_missing(dirs[0], "once-", 0, DIR_ONCE) ||
	    nd_stat_missing(dirs[0], "hot-", 0, DIR_HOT) ||
	    nd_stat_missing(dirs[0], "hot-", 0, DIR_HOT) ||
	    write_text(DENTRY_DIR_MAX, "1000", 4) < 0 ||
	    nd_stat_missing(dirs[0], "over-", 0, 1))
		goto out;
	nd_settle(nd_read_nr_negative, NULL, 0, 5000);
	hot = nd_cached_names(dirs[0], "hot-", DIR_HOT);
	once = nd_cached_names(dirs[0], "once-", DIR_ONCE);
	ksft_print_msg("cached: hot %ld of %d, once %ld of %d\n",
		       hot, DIR_HOT, once, DIR_ONCE);
	if (hot == DIR_HOT && once >= 0 && once < DIR_ONCE)
		ret = KSFT_PASS;
out:
	write_text(DENTRY_DIR_MAX, "0", 1);
	remove_dirs(dirs);
	return ret;
}

/*
 * Threads flooding faster than the reclaim work can go pay for it: each
 * one that finds the cgroup over by more than the margin reclaims before
 * it returns to user space, so the count never passes the limit by more
 * than a quarter (the margin is an eighth), the counts' lag and one
 * dentry a thread, as .peak, the kernel's high-water mark, shows; the
 * flooders' own reclaim must have run if the count passed the margin (on
 * the debug kernel the work may keep up); and the work and the threads,
 * reclaiming at once, do not take it below seven eighths between them.
 * Before, the work alone
 * fell behind by half the limit, and only the kill threshold, four times
 * the limit, bound the flood.
 */
static int test_negdentry_flood_threads(const char *root)
{
	static const char * const dirs[] = { "nd_flood", NULL };
	char *cg = cg_name(root, "nd_flood");
	long left, peak, bound = 5000 + 5000 / 4 + nd_count_slack() + 4;
	long by_tasks = 0;
	int ret = KSFT_FAIL;
	char *log, *p;

	if (!cg || cg_create(cg) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", 5000) ||
	    nd_trace_event("negative_dentry_reclaim_task", 1) ||
	    flood_in(cg, dirs[0], 2 * FLOOD, 4))
		goto out;
	/* The kernel's own high-water mark, not a sample. */
	peak = cg_read_long(cg, "memory.negative_dentry.peak");
	left = settled_current(cg, 5000);
	log = nd_trace_log();
	for (p = log; p && (p = strstr(p, "negative_dentry_reclaim_task:")); p++)
		by_tasks++;
	free(log);
	ksft_print_msg("peak %ld, bound %ld; %ld left; %ld killed; %ld reclaims by the flooders\n",
		       peak, bound, left, stat_of(cg, "negative_dentry_killed "),
		       by_tasks);
	/* Past the margin, as on the fast kernel, the flooders must reclaim. */
	if (peak > bound ||
	    (peak > 5000 + 5000 / 8 + nd_count_slack() && by_tasks < 1) ||
	    left > nd_settled_bound(5000) || left < nd_settled_floor(5000))
		goto out;
	ret = KSFT_PASS;
out:
	nd_trace_event("negative_dentry_reclaim_task", 0);
	cg_destroy(cg);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

static int several_dirs_fn(const char *cgroup, void *arg)
{
	char dir[32];
	int i;

	for (i = 0; i < 8; i++) {
		snprintf(dir, sizeof(dir), "nd_both%d", i);
		if ((mkdir(dir, 0755) && errno != EEXIST) ||
		    nd_stat_missing(dir, "missing-", 0, 10000))
			return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/*
 * fs.dentry-dir-max trims each of eight directories to about 1000, and the
 * cgroup's limit of 5000 binds the total of nearly 9000 that leaves.
 */
static int test_negdentry_with_dir_max(const char *root)
{
	char *cg = cg_name(root, "nd_both");
	long dir_reclaims = 0, left;
	int i, ret = KSFT_FAIL;
	char *log, *p;

	if (nd_read_long(DENTRY_DIR_MAX) < 0)
		return KSFT_SKIP;
	if (!cg || cg_create(cg) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", 5000) ||
	    write_text(DENTRY_DIR_MAX, "1000", 4) < 0 ||
	    nd_trace_event("negative_dentry_reclaim_dir", 1) ||
	    cg_run(cg, several_dirs_fn, NULL))
		goto out;
	left = settled_current(cg, 5000);
	log = nd_trace_log();
	for (p = log; p && (p = strstr(p, "negative_dentry_reclaim_dir:")); p++)
		dir_reclaims++;
	free(log);
	ksft_print_msg("%ld left, %ld directory reclaim runs, %ld events\n",
		       left, dir_reclaims, max_events(cg));
	if (left > nd_settled_bound(5000) || dir_reclaims < 1 ||
	    max_events(cg) < 1)
		goto out;
	ret = KSFT_PASS;
out:
	nd_trace_event("negative_dentry_reclaim_dir", 0);
	write_text(DENTRY_DIR_MAX, "0", 1);
	cg_destroy(cg);
	for (i = 0; i < 8; i++) {
		char dir[32];

		snprintf(dir, sizeof(dir), "nd_both%d", i);
		rmdir(dir);
	}
	free(cg);
	return ret;
}

/*
 * Unmount, and remount read-only, a filesystem while a cgroup's reclaim is
 * queued and while a removed cgroup's drain is pending. Both must succeed
 * and leave no dentry in use ("Dentry still in use" on the console).
 */
static int test_negdentry_umount_pending(const char *root)
{
	const char *dev = getenv("NEGATIVE_DENTRY_SCRATCH");
	char *limited = cg_name(root, "nd_umount_limited");
	char *gone = cg_name(root, "nd_umount_gone");
	int round, ret = KSFT_FAIL;

	if (!dev)
		return KSFT_SKIP;
	if (!limited || !gone || (mkdir("nd_scratch", 0755) && errno != EEXIST))
		goto out;
	for (round = 0; round < 3; round++) {
		if (mount(dev, "nd_scratch", "ext4", 0, NULL) ||
		    cg_create(limited) ||
		    cg_write_numeric(limited, "memory.negative_dentry.max",
				     1000) ||
		    cg_create(gone) ||
		    flood_in(gone, "nd_scratch/gone", 20000, 1) ||
		    flood_in(limited, "nd_scratch/limited", 20000, 2) ||
		    cg_destroy(gone)) {
			ksft_print_msg("setting up: %s\n", strerror(errno));
			goto out;
		}
		if (round == 1 && mount(NULL, "nd_scratch", NULL,
					MS_REMOUNT | MS_RDONLY, NULL)) {
			ksft_print_msg("remount read-only: %s\n", strerror(errno));
			goto out;
		}
		if (umount("nd_scratch")) {
			ksft_print_msg("umount: %s\n", strerror(errno));
			goto out;
		}
		cg_destroy(limited);
	}
	ret = KSFT_PASS;
out:
	umount("nd_scratch");
	rmdir("nd_scratch");
	cg_destroy(limited);
	cg_destroy(gone);
	free(limited);
	free(gone);
	return ret;
}

/* Runs of the reclaim work the trace log shows. */
static long reclaim_runs(void)
{
	char *log = nd_trace_log(), *p;
	long runs = 0;

	if (!log)
		return -1;
	for (p = log; (p = strstr(p, "negative_dentry_reclaim_memcg:")); p++)
		runs++;
	free(log);
	return runs;
}

#define FROZEN_MAX	1000

/* Missing names on a frozen filesystem: a lookup needs no write access. */
static int frozen_names_fn(const char *cgroup, void *arg)
{
	return nd_stat_missing(arg, "kill-", 0,
			       nd_kill_threshold(FROZEN_MAX)) ?
	       EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * Reclaim that can free nothing stops: a cgroup's 5000 negative dentries
 * are on a frozen filesystem, behind 70,000 files on another, when a
 * limit of 1000 is set. The work goes on from run to run while it has
 * lists to get through, but once a whole cycle over them, sparing hot
 * negatives and then aging them, freed nothing, it goes idle (debugfs
 * "works" reads 0, so nothing is queued) until a charge over the limit
 * queues it; and it took none. More missing names
 * looked up there then meet the last resort: past the kill threshold
 * (10000), a new negative dentry is freed on its final dput(), and the
 * count stays at the threshold. Once the filesystem is thawed, setting
 * the limit again reclaims.
 */
static int test_negdentry_reclaim_stops_when_frozen(const char *root)
{
	static const char * const dirs[] = { "nd_frozen_files", NULL };
	const char *dev = getenv("NEGATIVE_DENTRY_SCRATCH");
	char *cg = cg_name(root, "nd_frozen");
	long runs = -1, kept = -1, killed = -1, held = -1;
	long left = -1;
	int fd = -1, ret = KSFT_FAIL;

	if (!dev)
		return KSFT_SKIP;
	if (!cg || mkdir("nd_scratch", 0755) ||
	    mount(dev, "nd_scratch", "ext4", 0, NULL) || cg_create(cg) ||
	    mkdir(dirs[0], 0755) || cg_run(cg, many_files_fn, (void *)dirs[0]) ||
	    flood_in(cg, "nd_scratch/d", 5000, 1))
		goto out;
	fd = open("nd_scratch", O_RDONLY);
	if (fd < 0 || ioctl(fd, FIFREEZE, 0) ||
	    nd_trace_event("negative_dentry_reclaim_memcg", 1) ||
	    cg_write_numeric(cg, "memory.negative_dentry.max", FROZEN_MAX))
		goto thaw;
	/* Idle: no run queued or running, so none comes without a charge. */
	if (nd_wait_idle(SETTLE_MS))
		goto thaw;
	runs = reclaim_runs();
	kept = read_current(cg);
	if (cg_run(cg, frozen_names_fn, "nd_scratch/d"))
		goto thaw;
	killed = stat_of(cg, "negative_dentry_killed ");
	held = read_current(cg);
thaw:
	if (fd >= 0)
		ioctl(fd, FITHAW, 0);
	if (held >= 0 && !cg_write_numeric(cg, "memory.negative_dentry.max",
					   FROZEN_MAX))
		left = settled_current(cg, FROZEN_MAX);
	ksft_print_msg("frozen: %ld runs, then idle, %ld kept\n", runs, kept);
	ksft_print_msg("%ld more names: %ld killed, %ld held; thawed: %ld left\n",
		       nd_kill_threshold(FROZEN_MAX), killed, held, left);
	if (runs > 0 && kept >= 5000 &&
	    killed > 0 &&
	    held <= nd_kill_threshold(FROZEN_MAX) + nd_count_slack() &&
	    left >= 0 && left <= nd_settled_bound(FROZEN_MAX))
		ret = KSFT_PASS;
out:
	nd_trace_event("negative_dentry_reclaim_memcg", 0);
	if (fd >= 0)
		close(fd);
	cg_destroy(cg);
	umount("nd_scratch");
	rmdir("nd_scratch");
	create_files(dirs[0], "f", BEHIND_FILES, true);
	remove_dirs(dirs);
	free(cg);
	return ret;
}

struct dying {
	const char *dir;
	long names;
};

/*
 * Page cache charged to this cgroup (which keeps it dying once removed,
 * until the pages are reclaimed), and fewer negative dentries than the
 * batch, so that most of them wait in a cpu's stock when it is removed.
 */
static int dying_fn(const char *cgroup, void *arg)
{
	struct dying *d = arg;
	char path[PATH_MAX], page[4096];
	int fd;

	memset(page, 'p', sizeof(page));
	snprintf(path, sizeof(path), "%s/page", d->dir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page) || close(fd))
		return EXIT_FAILURE;
	return nd_stat_missing(d->dir, "missing-", 0, d->names) ?
	       EXIT_FAILURE : EXIT_SUCCESS;
}

#define DYING_CHILDREN	100

/*
 * A parent with removed children that stay dying still counts what they
 * left: a child's charges reached its ancestors' counters as they were
 * made, and the credit a cpu's stock held for it is given back when it
 * goes offline. When each cgroup kept a backlog of uncharged changes of
 * its own per cpu, flushed only once it was freed, the count the parent's
 * limit acts on was short by the children's 31 each, 3100, and its
 * .current stayed at the new child's 5000.
 */
static int test_negdentry_dying_children(const char *root)
{
	char *parent = cg_name(root, "nd_dying");
	char *child = NULL, dir[64], path[PATH_MAX];
	struct dying d = { dir, 31 };
	long dying, left;
	int i, ret = KSFT_FAIL;

	if (!parent || cg_create(parent) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory"))
		goto out;
	for (i = 0; i < DYING_CHILDREN; i++) {
		child = cg_name_indexed(parent, "gone", i);
		snprintf(dir, sizeof(dir), "nd_dying%d", i);
		if (!child || (mkdir(dir, 0755) && errno != EEXIST) ||
		    cg_create(child) || cg_run(child, dying_fn, &d) ||
		    cg_destroy(child))
			goto out;
		free(child);
		child = NULL;
	}
	dying = dying_children(parent);
	child = cg_name(parent, "flood");
	if (!child || cg_create(child) ||
	    cg_write_numeric(parent, "memory.negative_dentry.max", 1000) ||
	    flood_in(child, "nd_dying_flood", 5000, 1))
		goto out;
	left = settled_current(parent, 1000);
	ksft_print_msg("%ld of %d removed children dying; parent %ld, new child %ld\n",
		       dying, DYING_CHILDREN, left, read_current(child));
	if (dying < 1) {
		ksft_print_msg("no removed child stayed dying: nothing tested\n");
		goto out;
	}
	if (left > nd_settled_bound(1000))
		goto out;
	ret = KSFT_PASS;
out:
	free(child);
	child = cg_name(parent, "flood");
	cg_destroy(child);
	free(child);
	for (i = 0; i < DYING_CHILDREN; i++) {
		snprintf(path, sizeof(path), "nd_dying%d/page", i);
		unlink(path);
		snprintf(path, sizeof(path), "nd_dying%d", i);
		rmdir(path);
	}
	rmdir("nd_dying_flood");
	cg_destroy(parent);
	free(parent);
	return ret;
}

#define WRITERS		4
#define TOGGLES		3000

/* How many limits hold the limits' static key, per debugfs. */
static long key_holders(void)
{
	return nd_debugfs_counter("limits");
}

/*
 * Wait for the key holders to be @want: a limit lifted lets go of the key
 * a second later (a deferred static key). Return the last count read, @want
 * unless five seconds went by first.
 */
static long key_holders_become(long want)
{
	long start = nd_now_ms(), now;

	while ((now = key_holders()) != want && nd_now_ms() - start < 5000)
		usleep(50 * 1000);
	return now;
}

/* Set and lift the limit of @path over and over, through one open file. */
static int toggle(const char *path, int first)
{
	int fd = open(path, O_WRONLY), i, err = 0;

	if (fd < 0)
		return -1;
	for (i = first; i < first + TOGGLES; i++) {
		const char *val = i % 2 ? "5" : "max";

		if (write(fd, val, strlen(val)) != strlen(val))
			err = -1;
	}
	if (write(fd, "max", 3) != 3)
		err = -1;
	close(fd);
	return err;
}

/* A file with page cache, which keeps its cgroup's memcg after rmdir. */
static int cached_file_fn(const char *cgroup, void *arg)
{
	static const char data[FILE_BYTES];
	int fd = open(arg, O_CREAT | O_WRONLY, 0644);

	if (fd < 0 || write(fd, data, sizeof(data)) != sizeof(data))
		return EXIT_FAILURE;
	close(fd);
	return EXIT_SUCCESS;
}

/*
 * Writers racing on one cgroup's memory.negative_dentry.max, as separate
 * opens (which kernfs does not serialise) of a delegated user could: no
 * warning, the limit ends lifted, and the cgroup holds the key once,
 * however many writes set and lifted its limit, until it is removed.
 * It is set again and the cgroup removed while its page cache keeps its
 * memcg: once the deferred key has had its second, the key is held by no
 * more limits than before. It used to be held until the memcg was freed,
 * which page cache can put off for as long as the file is cached.
 */
static int test_negdentry_racing_writers(const char *root)
{
	static const char *const file = "nd_racing_cached";
	char *cg = cg_name(root, "nd_racing");
	char path[PATH_MAX];
	long before, held, after;
	int i, status, ret = KSFT_FAIL;
	pid_t pid[WRITERS];

	/* A key let go of by the test before goes after its second. */
	before = key_holders_become(0);
	if (!cg || before < 0 || cg_create(cg))
		goto out;
	snprintf(path, sizeof(path), "%s/memory.negative_dentry.max", cg);
	for (i = 0; i < WRITERS; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			exit(toggle(path, i) ? EXIT_FAILURE : EXIT_SUCCESS);
	}
	for (i = 0; i < WRITERS; i++)
		if (pid[i] < 0 || waitpid(pid[i], &status, 0) != pid[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			goto out;
	held = key_holders_become(before + 1);
	if (cg_read_strcmp(cg, "memory.negative_dentry.max", "max\n") ||
	    cg_write(cg, "memory.negative_dentry.max", "5") ||
	    cg_run(cg, cached_file_fn, (void *)file) || cg_destroy(cg))
		goto out;
	after = key_holders_become(before);
	ksft_print_msg("key holders: %ld before, %ld after %d x %d writes, %ld after rmdir\n",
		       before, held, WRITERS, TOGGLES, after);
	if (held == before + 1 && after == before)
		ret = KSFT_PASS;
out:
	cg_destroy(cg);
	unlink(file);
	free(cg);
	return ret;
}

#define NOBODY		65534

/* Give @cg to NOBODY, as systemd delegates a subtree to a user. */
static int delegate(const char *cg)
{
	static const char * const files[] = {
		"", "/cgroup.procs", "/cgroup.threads", "/cgroup.subtree_control",
	};
	char path[PATH_MAX];
	int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s%s", cg, files[i]);
		if (chown(path, NOBODY, NOBODY))
			return -1;
	}
	return 0;
}

/*
 * As NOBODY, moved into @arg's "start" child by root: make a child of the
 * delegated cgroup, move in, lift its limit and flip it, try the
 * delegated cgroup's own limit, which is not NOBODY's, then flood.
 */
static int delegated_fn(const char *cgroup, void *arg)
{
	const char *deleg = arg;
	char *child = cg_name(deleg, "mine");
	int i;

	if (!child || setgid(NOBODY) || setuid(NOBODY))
		return 10;
	if (cg_create(child) || cg_enter_current(child))
		return 11;
	for (i = 0; i < 1000; i++)
		if (cg_write(child, "memory.negative_dentry.max",
			     i % 2 ? "5" : "max"))
			return 12;
	if (cg_write(child, "memory.negative_dentry.max", "max") ||
	    cg_write(deleg, "memory.negative_dentry.max", "max") != -EACCES)
		return 13;
	return nd_flood("nd_deleg", "missing-", 20000, 1) ? 14 : 0;
}

/*
 * A user given a subtree under a limited parent cannot escape the limit:
 * not by making children, not by moving into them, not by lifting their
 * limits, and it may not write the limit it was put under. Flipping its
 * own limits warns of nothing, and its child holds the static key once,
 * as the parent does, however many times it set its limit.
 */
static int test_negdentry_delegated(const char *root)
{
	char *parent = cg_name(root, "nd_deleg");
	char *deleg = cg_name(root, "nd_deleg/user");
	char *start = cg_name(root, "nd_deleg/user/start");
	char *mine = cg_name(root, "nd_deleg/user/mine");
	int ret = KSFT_FAIL, status;
	long left, before, holders;

	/* A key let go of by the test before goes after its second. */
	before = key_holders_become(0);
	if (!parent || !deleg || !start || !mine || cg_create(parent) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_write_numeric(parent, "memory.negative_dentry.max", 1000) ||
	    cg_create(deleg) ||
	    cg_write(deleg, "cgroup.subtree_control", "+memory") ||
	    cg_create(start) || delegate(deleg) || delegate(start) ||
	    (mkdir("nd_deleg", 0755) && errno != EEXIST))
		goto out;
	status = cg_run(start, delegated_fn, deleg);
	if (status) {
		ksft_print_msg("delegated user: step %d failed\n", status);
		goto out;
	}
	left = settled_current(parent, 1000);
	holders = key_holders_become(before + 2);
	ksft_print_msg("parent %ld, the user's child %ld (limit %s); key holders %ld, %ld before\n",
		       left, read_current(mine),
		       cg_read_strcmp(mine, "memory.negative_dentry.max", "max\n") ?
		       "set" : "max", holders, before);
	if (left > nd_settled_bound(1000) || max_events(parent) < 1 ||
	    holders != before + 2)
		goto out;
	ret = KSFT_PASS;
out:
	cg_destroy(mine);
	cg_destroy(start);
	cg_destroy(deleg);
	cg_destroy(parent);
	rmdir("nd_deleg");
	free(mine);
	free(start);
	free(deleg);
	free(parent);
	return ret;
}

#define T(x) { x, #x }
struct negdentry_test {
	int (*fn)(const char *root);
	const char *name;
} tests[] = {
	T(test_negdentry_files),
	T(test_negdentry_bad_writes),
	T(test_negdentry_limit),
	T(test_negdentry_limit_is_exact),
	T(test_negdentry_limit_seen_from_every_cpu),
	T(test_negdentry_no_event_under_limit),
	T(test_negdentry_lowered_limit),
	T(test_negdentry_hierarchy),
	T(test_negdentry_many_children),
	T(test_negdentry_current_exact),
	T(test_negdentry_peak),
	T(test_negdentry_isolated_cpu_holds_nothing),
	T(test_negdentry_dentry_negative),
	T(test_negdentry_cpu_offline),
	T(test_negdentry_events_notify),
	T(test_negdentry_events_hierarchical),
	T(test_negdentry_unlimited_removal_keeps_them),
	T(test_negdentry_rmdir_drains),
	T(test_negdentry_drain_keeps_lru_order),
	T(test_negdentry_drain_stops_at_parents_own),
	T(test_negdentry_drain_behind_positives),
	T(test_negdentry_drain_past_budget_keeps_lru_order),
	T(test_negdentry_limit_behind_positives),
	T(test_negdentry_sibling_keeps_its_share),
	T(test_negdentry_positives_survive),
	T(test_negdentry_hot_survive),
	T(test_negdentry_hot_survive_dir),
	T(test_negdentry_flood_threads),
	T(test_negdentry_with_dir_max),
	T(test_negdentry_umount_pending),
	T(test_negdentry_reclaim_stops_when_frozen),
	T(test_negdentry_dying_children),
	T(test_negdentry_racing_writers),
	T(test_negdentry_delegated),
};

#undef T

/* Whether the kernel has the files at all: a scratch child's, not root's. */
static bool have_negative_dentry_limits(const char *root)
{
	char *cg = cg_name(root, "nd_probe");
	bool have = false;

	if (cg && !cg_create(cg)) {
		have = !access(cg_control(cg, "memory.negative_dentry.max"),
			       F_OK);
		cg_destroy(cg);
	}
	free(cg);
	return have;
}

/* Whether test @i is to run: each, or those named on the command line. */
static bool known(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tests); i++)
		if (!strcmp(name, tests[i].name))
			return true;
	return false;
}

/*
 * Whether test @i runs: with no names every test does, with names only
 * those named; "-T NAME" leaves NAME out, as the kselftest harness's
 * option does.
 */
static bool selected(int i, int argc, char **argv)
{
	bool named = false, any = false;
	int arg;

	for (arg = 1; arg < argc; arg++) {
		if (!strcmp(argv[arg], "-T")) {
			if (++arg < argc && !strcmp(argv[arg], tests[i].name))
				return false;
			continue;
		}
		any = true;
		named |= !strcmp(argv[arg], tests[i].name);
	}
	return named || !any;
}

/* test_negative_dentry [-T TEST]... [TEST]...: every test, or those named. */
int main(int argc, char **argv)
{
	char root[PATH_MAX];
	int i, planned = 0;

	ksft_print_header();
	if (cg_find_unified_root(root, sizeof(root), NULL))
		ksft_exit_skip("cgroup v2 isn't mounted\n");
	if (cg_read_strstr(root, "cgroup.controllers", "memory"))
		ksft_exit_skip("memory controller isn't available\n");
	if (cg_read_strstr(root, "cgroup.subtree_control", "memory"))
		if (cg_write(root, "cgroup.subtree_control", "+memory"))
			ksft_exit_skip("Failed to set memory controller\n");
	if (!have_negative_dentry_limits(root))
		ksft_exit_skip("no memory.negative_dentry.max in this kernel\n");
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "-T") && !known(argv[i]))
			ksft_exit_fail_msg("no test %s\n", argv[i]);
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		planned += selected(i, argc, argv);
	if (!planned)
		ksft_exit_fail_msg("no test left to run\n");
	ksft_set_plan(planned);
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (!selected(i, argc, argv))
			continue;
		switch (tests[i].fn(root)) {
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
	ksft_finished();
}
