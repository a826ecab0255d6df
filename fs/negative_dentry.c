// SPDX-License-Identifier: GPL-2.0
/*
 * Negative dentry limits: fs.dentry-dir-max, and the static key, workqueue,
 * totals and debugfs directory it shares with memory.negative_dentry.max.
 *
 * The final dput() of a negative dentry, or an unlink leaving one on the LRU,
 * queues its directory, if over the limit, for negative_dir_work, which trims
 * its cold negative children to the limit less a margin, a bounded number per
 * run; past negative_dentry_kill_threshold() the final dput() kills the dentry
 * instead. The verdicts and disposal are in fs/dcache.c.
 *
 * A queued directory is pinned (see negative_dentry_quiesce()). The worker
 * drops it outside negative_dirs_mutex and s_umount: the final iput() of an
 * unlinked directory on a frozen filesystem waits for the thaw, and must
 * hold up neither the thaw nor the umount of another filesystem.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/jump_label_ratelimit.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "internal.h"
#include "negative_dentry.h"

#define CREATE_TRACE_POINTS
#include <trace/events/negative_dentry.h>

/* Smaller values of fs.dentry-dir-max would make directories churn. */
#define DENTRY_DIR_MAX_MIN	256

DEFINE_STATIC_KEY_DEFERRED_FALSE(negative_dentry_limits, HZ);
struct workqueue_struct *negative_dentry_wq __ro_after_init;

static int dentry_dir_max __read_mostly;
static DEFINE_MUTEX(dentry_dir_max_mutex);

/* Per cpu: a runaway kills on every cpu at once, on no shared cacheline. */
static DEFINE_PER_CPU(unsigned long, negative_dentry_reclaimed_total);
static DEFINE_PER_CPU(unsigned long, negative_dentry_killed_total);
/* Reclaim work items queued or running, for tests to wait until none is. */
static atomic_long_t negative_dentry_works;

/**
 * struct negative_dir - a directory queued for reclaim
 * @node: in negative_dirs
 * @dir: the directory, pinned while queued
 * @cursor: where the scan of its children resumes, or NULL before the first
 * @to_reclaim: how many negative children are still to be taken
 * @passes: passes over all children since @to_reclaim was set
 * @reclaimed: negative children reclaimed since then
 */
struct negative_dir {
	struct list_head node;
	struct dentry *dir;
	struct dentry *cursor;
	long to_reclaim;
	int passes;
	long reclaimed;
};

static LIST_HEAD(negative_dirs);
static DEFINE_SPINLOCK(negative_dirs_lock);
/* Held while a directory is worked on or dropped: see the quiesce. */
static DEFINE_MUTEX(negative_dirs_mutex);
/* The superblock of the directory the worker is dropping, or NULL. */
static struct super_block *negative_dir_putting;

static void negative_dir_workfn(struct work_struct *work);
static DECLARE_WORK(negative_dir_work, negative_dir_workfn);

static bool dentry_dir_max_valid(int val)
{
	return val == 0 || val >= DENTRY_DIR_MAX_MIN;
}

/* How many of @negatives children a directory limited to @limit sheds. */
static long negative_dir_excess(long negatives, long limit)
{
	return max(negatives - negative_dentry_target(limit), 0L);
}

/* Return the parent's negative children plus @more; queue it if over @limit. */
static long negative_dentry_dir_check(struct dentry *dentry, long limit,
				      long more)
{
	struct dentry *dir = dentry->d_parent;
	long negatives = d_negative_children(dir) + more;

	if (negatives > limit)
		negative_dentry_queue_dir(dir);
	return negatives;
}

/**
 * negative_dentry_unlinked - a dentry on the LRU turned negative
 * @dentry: locked, now counted as negative on the LRU (by d_delete())
 *
 * Queues its directory if over the limit, as its final dput() skips
 * d_lru_add(): create, close and unlink of new names often fill directories.
 */
void negative_dentry_unlinked(struct dentry *dentry)
{
	long limit = READ_ONCE(dentry_dir_max);

	if (limit && !IS_ROOT(dentry))
		negative_dentry_dir_check(dentry, limit, 0);
}

/**
 * negative_dentry_dir_kill - does the directory limit say to kill a dentry?
 * @dentry: negative, locked, unused, about to be added to the LRU
 *
 * Queues the directory if @dentry takes it over the limit, whatever its fate.
 *
 * Return: true if the directory is so far over that dput() must kill @dentry.
 */
bool negative_dentry_dir_kill(struct dentry *dentry)
{
	long limit = READ_ONCE(dentry_dir_max);

	/* Not counted yet: it joins the count as it joins the LRU. */
	return limit && !IS_ROOT(dentry) &&
	       negative_dentry_dir_check(dentry, limit, 1) >=
	       negative_dentry_kill_threshold(limit);
}

/**
 * negative_dentry_killed - count a negative dentry killed on its final dput()
 * @dentry: the dentry, locked
 * @dir_limit: killed for its directory's limit, rather than its cgroup's
 */
void negative_dentry_killed(struct dentry *dentry, bool dir_limit)
{
	this_cpu_inc(negative_dentry_killed_total);
	trace_negative_dentry_kill(dentry, dir_limit);
}

/**
 * negative_dentry_reclaimed - count a negative dentry that reclaim kills
 * @dentry: the dentry, locked
 */
void negative_dentry_reclaimed(struct dentry *dentry)
{
	this_cpu_inc(negative_dentry_reclaimed_total);
}

/**
 * negative_dentry_queue_dir - queue a directory for negative dentry reclaim
 * @dir: pinned by a child whose d_lock may be held, or under rcu_read_lock()
 *
 * Best effort, never sleeps or fails: if busy or out of memory, the next
 * negative dentry it keeps retries; the kill on dput() bounds it meanwhile.
 */
void negative_dentry_queue_dir(struct dentry *dir)
{
	struct negative_dir *ndir;

	if (READ_ONCE(dir->d_flags) & DCACHE_NEGATIVE_RECLAIM)
		return;
	ndir = kzalloc(sizeof(*ndir), GFP_NOWAIT | __GFP_NOWARN);
	if (!ndir)
		return;
	/* Parent after child inverts the lock order: only try. */
	if (!spin_trylock(&dir->d_lock)) {
		kfree(ndir);
		return;
	}
	if (dir->d_lockref.count < 0 ||
	    (dir->d_flags & DCACHE_NEGATIVE_RECLAIM)) {
		spin_unlock(&dir->d_lock);
		kfree(ndir);
		return;
	}
	dir->d_flags |= DCACHE_NEGATIVE_RECLAIM;
	ndir->dir = dget_dlock(dir);
	spin_unlock(&dir->d_lock);

	spin_lock(&negative_dirs_lock);
	list_add_tail(&ndir->node, &negative_dirs);
	spin_unlock(&negative_dirs_lock);
	negative_dentry_queue_work(&negative_dir_work);
}

/**
 * negative_dentry_queue_work - queue a reclaim work item of either limit
 * @work: a work item whose function calls negative_dentry_work_done() as
 *	it returns
 *
 * Counted in debugfs, negative_dentry/works, from here until it has run:
 * zero there means no reclaim is queued or running.
 *
 * Return: false if @work was queued already.
 */
bool negative_dentry_queue_work(struct work_struct *work)
{
	/* Often the case for a charge over a limit: no atomic then. */
	if (work_pending(work))
		return false;
	atomic_long_inc(&negative_dentry_works);
	if (queue_work(negative_dentry_wq, work))
		return true;
	atomic_long_dec(&negative_dentry_works);
	return false;
}

/**
 * negative_dentry_work_done - end the count of a queued reclaim work item
 */
void negative_dentry_work_done(void)
{
	atomic_long_dec(&negative_dentry_works);
}

/* Caller holds negative_dirs_mutex, then calls negative_dir_put(). */
static void negative_dir_unqueue(struct negative_dir *ndir)
{
	struct dentry *dir = ndir->dir;

	spin_lock(&dir->d_lock);
	if (ndir->cursor)
		hlist_del_init(&ndir->cursor->d_sib);
	dir->d_flags &= ~DCACHE_NEGATIVE_RECLAIM;
	spin_unlock(&dir->d_lock);
}

static void negative_dir_put(struct negative_dir *ndir)
{
	dput(ndir->cursor);
	dput(ndir->dir);
	kfree(ndir);
}

/**
 * negative_dentry_lock_sb - take a superblock's s_umount shared, for reclaim
 * @sb: the superblock
 *
 * Not on a frozen filesystem: killing a dentry may be the final iput() of an
 * unlinked directory, which waits for the thaw, and the thaw for our s_umount.
 * Freezing takes s_umount exclusively, so the check holds until up_read().
 *
 * Return: true with s_umount held shared if free and @sb unfrozen, else false.
 */
bool negative_dentry_lock_sb(struct super_block *sb)
{
	if (!super_trylock_shared(sb))
		return false;
	if (sb->s_writers.frozen == SB_UNFROZEN)
		return true;
	up_read(&sb->s_umount);
	return false;
}

/* Set how many negative children to take from the directory's count now. */
static void negative_dir_set_target(struct negative_dir *ndir, long limit)
{
	long negatives = d_negative_children(ndir->dir);

	trace_negative_dentry_dir_count(ndir->dir, negatives);
	ndir->to_reclaim = negative_dir_excess(negatives, limit);
	ndir->passes = 0;
	ndir->reclaimed = 0;
}

/*
 * Trim cold negative children from the cursor on while *@budget lasts; return
 * true once done. The first pass spares hot negative ones, the second ages
 * them: the next episode takes them unless they are looked up again.
 */
static bool negative_dir_trim(struct negative_dir *ndir, long limit,
			      long *budget)
{
	struct dentry *dir = ndir->dir;
	long scanned = 0, reclaimed = 0;
	bool done = false;

	while (!done && *budget > 0) {
		struct d_negative_scan scan = {
			.nr_to_scan = min(*budget, NEGATIVE_DENTRY_BATCH),
			.nr_to_reclaim = ndir->to_reclaim,
			.age = ndir->passes > 0,
		};
		long n = d_negative_scan_dir(dir, ndir->cursor, &scan);

		*budget -= scan.scanned;
		scanned += scan.scanned;
		reclaimed += n;
		ndir->to_reclaim -= n;
		ndir->reclaimed += n;
		if (ndir->to_reclaim <= 0 || (scan.end && ++ndir->passes >= 2))
			done = true;
		/*
		 * New negative children could not queue it, as it is queued:
		 * go on while it is over the limit and trimming gets somewhere.
		 */
		if (done && ndir->reclaimed &&
		    d_negative_children(dir) > limit) {
			negative_dir_set_target(ndir, limit);
			done = false;
		}
		cond_resched();
	}
	trace_negative_dentry_reclaim_dir(dir, scanned, reclaimed);
	return done;
}

/*
 * Trim a queued directory under s_umount shared. Return true, to drop it,
 * once done, or at once if the limit was cleared, the directory unlinked,
 * s_umount is contended or the filesystem is frozen.
 */
static bool negative_dir_reclaim(struct negative_dir *ndir, long *budget)
{
	struct super_block *sb = ndir->dir->d_sb;
	long limit = READ_ONCE(dentry_dir_max);
	bool done;

	if (!limit || d_unlinked(ndir->dir) || !negative_dentry_lock_sb(sb))
		return true;
	if (!ndir->cursor) {
		ndir->cursor = d_alloc_cursor(ndir->dir);
		negative_dir_set_target(ndir, limit);
	}
	done = !ndir->cursor || !ndir->to_reclaim ||
	       negative_dir_trim(ndir, limit, budget);
	up_read(&sb->s_umount);
	return done;
}

static struct negative_dir *negative_dir_pop(void)
{
	struct negative_dir *ndir;

	spin_lock(&negative_dirs_lock);
	ndir = list_first_entry_or_null(&negative_dirs, struct negative_dir,
					node);
	if (ndir)
		list_del_init(&ndir->node);
	spin_unlock(&negative_dirs_lock);
	return ndir;
}

static void negative_dir_workfn(struct work_struct *work)
{
	long budget = NEGATIVE_DENTRY_RUN_BUDGET;
	struct negative_dir *ndir;
	bool more;

	while (budget > 0) {
		mutex_lock(&negative_dirs_mutex);
		ndir = negative_dir_pop();
		if (!ndir) {
			mutex_unlock(&negative_dirs_mutex);
			goto out;
		}
		if (!negative_dir_reclaim(ndir, &budget)) {
			spin_lock(&negative_dirs_lock);
			list_add_tail(&ndir->node, &negative_dirs);
			spin_unlock(&negative_dirs_lock);
			mutex_unlock(&negative_dirs_mutex);
			cond_resched();
			continue;
		}
		negative_dir_unqueue(ndir);
		/* The quiesce of this superblock waits for the put. */
		WRITE_ONCE(negative_dir_putting, ndir->dir->d_sb);
		mutex_unlock(&negative_dirs_mutex);
		negative_dir_put(ndir);
		WRITE_ONCE(negative_dir_putting, NULL);
		/* Order the store before the waiters' check (wake_up_var()). */
		smp_mb();
		wake_up_var(&negative_dir_putting);
		cond_resched();
	}
	spin_lock(&negative_dirs_lock);
	more = !list_empty(&negative_dirs);
	spin_unlock(&negative_dirs_lock);
	if (more)
		negative_dentry_queue_work(&negative_dir_work);
out:
	negative_dentry_work_done();
}

/**
 * negative_dentry_quiesce - drop everything reclaim holds of a superblock
 * @sb: about to be shut down or made read-only, s_umount held exclusively
 *
 * Drops the queued directories of @sb and waits for the one of @sb being
 * worked on or dropped, so that umount finds no dentry in use and remount
 * read-only no unlinked directory kept alive by reclaim.
 */
void negative_dentry_quiesce(struct super_block *sb)
{
	struct negative_dir *ndir, *next;
	LIST_HEAD(release);

	mutex_lock(&negative_dirs_mutex);
	spin_lock(&negative_dirs_lock);
	list_for_each_entry_safe(ndir, next, &negative_dirs, node)
		if (ndir->dir->d_sb == sb)
			list_move(&ndir->node, &release);
	spin_unlock(&negative_dirs_lock);
	list_for_each_entry(ndir, &release, node)
		negative_dir_unqueue(ndir);
	mutex_unlock(&negative_dirs_mutex);
	list_for_each_entry_safe(ndir, next, &release, node)
		negative_dir_put(ndir);
	wait_var_event(&negative_dir_putting,
		       READ_ONCE(negative_dir_putting) != sb);
}

/**
 * negative_dentry_parse_limit - read a limit written by user space
 * @buf: the write, NUL-terminated after @len bytes (by kernfs and sysctl
 *	both); blanks around it are stripped in place
 * @len: the length of the write
 * @most: the largest count taken
 * @none: the word that sets no limit, or NULL
 * @limit: set to the count, or ULONG_MAX for @none (so @most must be less)
 *
 * A limit is decimal digits alone, or @none: no sign, base prefix, second
 * number or NUL, which would hide what follows it.
 *
 * Return: 0, or -EINVAL with @limit left alone.
 */
int negative_dentry_parse_limit(char *buf, size_t len, unsigned long most,
				const char *none, unsigned long *limit)
{
	unsigned long val;

	if (strnlen(buf, len) != len)
		return -EINVAL;
	buf = strim(buf);
	if (none && !strcmp(buf, none))
		val = ULONG_MAX;
	else if (!isdigit(buf[0]) || kstrtoul(buf, 10, &val) || val > most)
		return -EINVAL;
	*limit = val;
	return 0;
}

static int proc_dentry_dir_max(const struct ctl_table *table, int write,
			       void *buffer, size_t *lenp, loff_t *ppos)
{
	unsigned long val;
	int old;

	if (!write)
		return proc_dointvec(table, write, buffer, lenp, ppos);
	/* One write sets the value whole: nothing is taken piecemeal. */
	if (*ppos ||
	    negative_dentry_parse_limit(buffer, *lenp, INT_MAX, NULL, &val) ||
	    !dentry_dir_max_valid((int)val))
		return -EINVAL;
	*ppos += *lenp;

	mutex_lock(&dentry_dir_max_mutex);
	old = dentry_dir_max;
	WRITE_ONCE(dentry_dir_max, (int)val);
	if (!old && val)
		static_branch_deferred_inc(&negative_dentry_limits);
	else if (old && !val)
		static_branch_slow_dec_deferred(&negative_dentry_limits);
	mutex_unlock(&dentry_dir_max_mutex);
	return 0;
}

static struct ctl_table negative_dentry_sysctls[] = {
	{
		.procname	= "dentry-dir-max",
		.data		= &dentry_dir_max,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dentry_dir_max,
	},
};

static int negative_dentry_works_get(void *data, u64 *val)
{
	*val = atomic_long_read(&negative_dentry_works);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(negative_dentry_works_fops,
			 negative_dentry_works_get, NULL, "%llu\n");

/* @data is a per-cpu total of this file's. */
static int negative_dentry_total_get(void *data, u64 *val)
{
	unsigned long __percpu *total;
	unsigned long sum = 0;
	int cpu;

	total = (__force unsigned long __percpu *)data;
	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(total, cpu);
	*val = sum;
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(negative_dentry_total_fops,
			 negative_dentry_total_get, NULL, "%llu\n");

/* Limits holding the static key, one lifted under a second ago included. */
static int negative_dentry_limits_get(void *data, u64 *val)
{
	*val = max(static_key_count(&negative_dentry_limits.key.key), 0);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(negative_dentry_limits_fops,
			 negative_dentry_limits_get, NULL, "%llu\n");

/**
 * negative_dentry_debugfs_dir - negative_dentry/ in debugfs, for both limits
 *
 * Made by the first caller; only initcalls call it, one after the other.
 *
 * Return: the directory, or an error pointer debugfs takes as a parent.
 */
struct dentry * __init negative_dentry_debugfs_dir(void)
{
	static struct dentry *dir __initdata;

	if (!dir)
		dir = debugfs_create_dir("negative_dentry", NULL);
	return dir;
}

static int __init negative_dentry_init(void)
{
	struct dentry *dir;

	negative_dentry_wq = alloc_workqueue("negative_dentry", WQ_UNBOUND, 0);
	if (!negative_dentry_wq)
		return -ENOMEM;
	register_sysctl_init("fs", negative_dentry_sysctls);
	dir = negative_dentry_debugfs_dir();
	debugfs_create_file_unsafe("reclaimed", 0444, dir,
				   (void __force *)&negative_dentry_reclaimed_total,
				   &negative_dentry_total_fops);
	debugfs_create_file_unsafe("killed", 0444, dir,
				   (void __force *)&negative_dentry_killed_total,
				   &negative_dentry_total_fops);
	debugfs_create_file_unsafe("works", 0444, dir, NULL,
				   &negative_dentry_works_fops);
	debugfs_create_file_unsafe("limits", 0444, dir, NULL,
				   &negative_dentry_limits_fops);
	return 0;
}
fs_initcall(negative_dentry_init);

#ifdef CONFIG_NEGATIVE_DENTRY_KUNIT_TEST
#include "tests/negative_dentry_kunit.c"
#include "tests/negative_dentry_evict_kunit.c"
#include "tests/negative_dentry_count_kunit.c"
#endif
