// SPDX-License-Identifier: GPL-2.0
/*
 * Negative dentry limits: the reclaim engine and the per-directory limit.
 *
 * fs.dentry-dir-max bounds the negative children of each directory. The
 * final dput() of a negative dentry in a directory that seems over the
 * limit, or an unlink that leaves one on the LRU there, queues the
 * directory for negative_dir_work. That counts the
 * children, which also refreshes the estimate of positive ones the check
 * relies on, and, if the directory is indeed over, trims its cold negative
 * children to the limit less a margin, a bounded number per run. Past
 * negative_dentry_kill_threshold() the final dput() kills the dentry
 * instead. memory.negative_dentry.max (mm/memcg_negative_dentry.c) drives
 * the same engine through negative_dentry_reclaim_shrinker().
 *
 * A queued directory is pinned. So that no reference survives into umount
 * or a remount read-only, negative_dentry_quiesce() drops the queued
 * directories of a superblock, and waits for the one being worked on.
 *
 * Reclaim never works on a frozen filesystem: killing a dentry may be the
 * final iput() of an unlinked directory, which waits for the thaw, and the
 * thaw waits for the s_umount that reclaim holds. Checked under s_umount,
 * since freezing takes it exclusively. The worker drops a directory's
 * last reference outside negative_dirs_mutex and s_umount, so that such an
 * iput() on a frozen filesystem holds up neither the thaw nor the umount
 * of another filesystem.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/jump_label_ratelimit.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/wait_bit.h>
#include <linux/sched.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>

#include "internal.h"
#include "negative_dentry.h"

#define CREATE_TRACE_POINTS
#include <trace/events/negative_dentry.h>

/* Smaller values of fs.dentry-dir-max would make directories churn. */
#define DENTRY_DIR_MAX_MIN	256

/* Children or LRU entries looked at while holding a lock. */
#define NEGATIVE_DENTRY_BATCH	128

DEFINE_STATIC_KEY_DEFERRED_FALSE(negative_dentry_limits, HZ);
struct workqueue_struct *negative_dentry_wq __ro_after_init;

static int dentry_dir_max __read_mostly;
static DEFINE_MUTEX(dentry_dir_max_mutex);

static atomic_long_t negative_dentry_reclaimed_total;
static atomic_long_t negative_dentry_killed_total;

/**
 * struct negative_dir - a directory queued for reclaim
 * @node: in negative_dirs
 * @dir: the directory, pinned while queued
 * @cursor: where the scan of its children resumes, or NULL
 * @positives: positive children counted so far
 * @negatives: negative children counted so far
 * @to_reclaim: 0 while counting, then how many negative children to take
 * @passes: reclaim passes over all children so far
 * @reclaimed: negative children reclaimed since the count
 */
struct negative_dir {
	struct list_head node;
	struct dentry *dir;
	struct dentry *cursor;
	long positives;
	long negatives;
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

/**
 * negative_dentry_hit - mark a negative dentry found under RCU referenced
 * @dentry: the dentry; the lookup holds no reference, only rcu_read_lock()
 *
 * Best effort, as the lookup that found it may not wait: only an
 * uncontended d_lock is taken.
 */
void negative_dentry_hit(struct dentry *dentry)
{
	if (!spin_trylock(&dentry->d_lock))
		return;
	if (d_is_negative(dentry) && (dentry->d_flags & DCACHE_LRU_LIST))
		dentry->d_flags |= DCACHE_REFERENCED;
	spin_unlock(&dentry->d_lock);
}

/* Queue the directory of @dentry if it exceeds @limit; its negatives. */
static long negative_dentry_dir_check(struct dentry *dentry, long limit)
{
	struct dentry *dir = dentry->d_parent;
	long negatives = d_nnegative_estimate(dir);

	if (negatives > limit)
		negative_dentry_queue_dir(dir);
	return negatives;
}

/**
 * negative_dentry_unlinked - a dentry on the LRU turned negative
 * @dentry: locked, counted as a negative dentry on the LRU from now on
 *	(d_delete() of an unused file)
 *
 * Queues its directory for reclaim if it exceeds fs.dentry-dir-max: the
 * final dput() of a dentry already on the LRU does not come through
 * d_lru_add(), and create, close and unlink of new names is a common way
 * to fill a directory with negative dentries.
 */
void negative_dentry_unlinked(struct dentry *dentry)
{
	long limit = READ_ONCE(dentry_dir_max);

	if (limit && !IS_ROOT(dentry))
		negative_dentry_dir_check(dentry, limit);
}

/**
 * negative_dentry_kill - should the final dput() kill this negative dentry?
 * @dentry: negative, locked, unused, about to be added to the LRU
 * @memcg: the memcg of @dentry's slab object, or NULL; the caller holds
 *	rcu_read_lock()
 *
 * Queues the directory of @dentry for reclaim if it exceeds
 * fs.dentry-dir-max, as @dentry is kept there or counted as killed.
 *
 * Return: true if its directory or its cgroup is far over its limit, in
 * which case the kill is counted.
 */
bool negative_dentry_kill(struct dentry *dentry, struct mem_cgroup *memcg)
{
	long limit = READ_ONCE(dentry_dir_max);
	bool dir_limit = false;

	if (limit && !IS_ROOT(dentry))
		dir_limit = negative_dentry_dir_check(dentry, limit) >=
			    negative_dentry_kill_threshold(limit);
	if (!dir_limit && !memcg_negative_dentry_over_kill(memcg))
		return false;

	atomic_long_inc(&negative_dentry_killed_total);
	memcg_negative_dentry_event(dentry, true);
	trace_negative_dentry_kill(dentry, dir_limit);
	return true;
}

/**
 * negative_dentry_reclaimed - count a negative dentry that reclaim kills
 * @dentry: the dentry, locked
 */
void negative_dentry_reclaimed(struct dentry *dentry)
{
	atomic_long_inc(&negative_dentry_reclaimed_total);
	memcg_negative_dentry_event(dentry, false);
}

/**
 * negative_dentry_queue_dir - queue a directory for negative dentry reclaim
 * @dir: a directory pinned by a child whose d_lock may be held, or found
 *	under rcu_read_lock()
 *
 * Best effort: it never sleeps and never fails the caller. If the
 * directory is busy or there is no memory for the queue entry, it is not
 * queued this time; the next negative dentry it keeps tries again, and the
 * kill on dput() bounds it meanwhile.
 */
void negative_dentry_queue_dir(struct dentry *dir)
{
	struct negative_dir *nd;

	if (READ_ONCE(dir->d_flags) & DCACHE_NEGATIVE_RECLAIM)
		return;
	nd = kzalloc(sizeof(*nd), GFP_NOWAIT | __GFP_NOWARN);
	if (!nd)
		return;
	/* Parent after child inverts the lock order: only try. */
	if (!spin_trylock(&dir->d_lock)) {
		kfree(nd);
		return;
	}
	if (dir->d_lockref.count < 0 ||
	    (dir->d_flags & DCACHE_NEGATIVE_RECLAIM)) {
		spin_unlock(&dir->d_lock);
		kfree(nd);
		return;
	}
	dir->d_flags |= DCACHE_NEGATIVE_RECLAIM;
	nd->dir = dget_dlock(dir);
	spin_unlock(&dir->d_lock);

	spin_lock(&negative_dirs_lock);
	list_add_tail(&nd->node, &negative_dirs);
	spin_unlock(&negative_dirs_lock);
	queue_work(negative_dentry_wq, &negative_dir_work);
}

/*
 * Unqueue, with negative_dirs_mutex held: the cursor leaves the children.
 * The caller then drops the directory and the cursor (negative_dir_put()).
 */
static void negative_dir_unqueue(struct negative_dir *nd)
{
	struct dentry *dir = nd->dir;

	spin_lock(&dir->d_lock);
	if (nd->cursor)
		hlist_del_init(&nd->cursor->d_sib);
	dir->d_flags &= ~DCACHE_NEGATIVE_RECLAIM;
	spin_unlock(&dir->d_lock);
}

static void negative_dir_put(struct negative_dir *nd)
{
	dput(nd->cursor);
	dput(nd->dir);
	kfree(nd);
}

/* True when the superblock's s_umount is held shared and it is not frozen. */
static bool negative_dentry_lock_sb(struct super_block *sb)
{
	if (!super_trylock_shared(sb))
		return false;
	if (sb->s_writers.frozen == SB_UNFROZEN)
		return true;
	up_read(&sb->s_umount);
	return false;
}

/* Count the children of a queued directory again, from the first one. */
static void negative_dir_restart(struct negative_dir *nd)
{
	spin_lock(&nd->dir->d_lock);
	hlist_del_init(&nd->cursor->d_sib);
	spin_unlock(&nd->dir->d_lock);
	nd->positives = 0;
	nd->negatives = 0;
	nd->to_reclaim = 0;
	nd->reclaimed = 0;
	nd->passes = 0;
}

/*
 * Count the children of a queued directory, then trim its negative ones
 * if it has too many: a reclaim relying on the estimate alone would take
 * the few negative children of a directory whose positive children the
 * estimate missed. Each step goes as far as *@budget allows.
 *
 * Return: true when the directory is done with, false to come back to it.
 */
static bool negative_dir_reclaim(struct negative_dir *nd, long *budget)
{
	struct dentry *dir = nd->dir;
	struct super_block *sb = dir->d_sb;
	long limit = READ_ONCE(dentry_dir_max);
	long scanned = 0, reclaimed = 0;
	bool done = false;

	if (!limit || d_unlinked(dir) || !negative_dentry_lock_sb(sb))
		return true;
	if (!nd->cursor) {
		/*
		 * Without room for the estimate, every child would seem
		 * negative: every new one would be killed, and each kill
		 * would queue another count of all the children.
		 */
		d_npositive_make_room(dir);
		nd->cursor = d_alloc_cursor(dir);
	}
	if (!nd->cursor)
		done = true;

	while (!done && *budget > 0) {
		struct d_negative_scan scan = {
			.nr_to_scan = min(*budget, NEGATIVE_DENTRY_BATCH),
			.nr_to_reclaim = nd->to_reclaim,
			.age = nd->passes > 0,
		};
		long n = d_negative_scan_dir(dir, nd->cursor, &scan);

		*budget -= scan.scanned;
		scanned += scan.scanned;
		reclaimed += n;
		if (!nd->to_reclaim) {
			nd->positives += scan.positives;
			nd->negatives += scan.negatives;
			if (scan.end) {
				unsigned int children;

				spin_lock(&dir->d_lock);
				d_set_npositive(dir, min_t(long, nd->positives,
							   UINT_MAX));
				children = dir->d_nchildren;
				spin_unlock(&dir->d_lock);
				trace_negative_dentry_dir_count(dir, children,
								nd->positives,
								nd->negatives);
				nd->to_reclaim = negative_dir_excess(nd->negatives,
								     limit);
				done = !nd->to_reclaim;
			}
		} else {
			nd->to_reclaim -= n;
			nd->reclaimed += n;
			/*
			 * The first pass spares hot negative children, the
			 * second ages them: the next episode takes them
			 * unless they are looked up again.
			 */
			if (nd->to_reclaim <= 0 || (scan.end && ++nd->passes >= 2))
				done = true;
		}
		/*
		 * Children that came during the count are not trimmed, and
		 * they stopped queueing the directory while it was queued:
		 * count again while it seems over and trimming gets somewhere.
		 */
		if (done && nd->reclaimed &&
		    d_nnegative_estimate(dir) > limit) {
			negative_dir_restart(nd);
			done = false;
		}
		cond_resched();
	}
	up_read(&sb->s_umount);
	trace_negative_dentry_reclaim_dir(dir, scanned, reclaimed);
	return done;
}

static struct negative_dir *negative_dir_pop(void)
{
	struct negative_dir *nd;

	spin_lock(&negative_dirs_lock);
	nd = list_first_entry_or_null(&negative_dirs, struct negative_dir,
				      node);
	if (nd)
		list_del_init(&nd->node);
	spin_unlock(&negative_dirs_lock);
	return nd;
}

static void negative_dir_workfn(struct work_struct *work)
{
	long budget = NEGATIVE_DENTRY_RUN_BUDGET;
	struct negative_dir *nd;
	bool more;

	while (budget > 0) {
		mutex_lock(&negative_dirs_mutex);
		nd = negative_dir_pop();
		if (!nd) {
			mutex_unlock(&negative_dirs_mutex);
			return;
		}
		if (!negative_dir_reclaim(nd, &budget)) {
			spin_lock(&negative_dirs_lock);
			list_add_tail(&nd->node, &negative_dirs);
			spin_unlock(&negative_dirs_lock);
			mutex_unlock(&negative_dirs_mutex);
			cond_resched();
			continue;
		}
		negative_dir_unqueue(nd);
		/* The quiesce of this superblock waits for the put. */
		WRITE_ONCE(negative_dir_putting, nd->dir->d_sb);
		mutex_unlock(&negative_dirs_mutex);
		negative_dir_put(nd);
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
		queue_work(negative_dentry_wq, &negative_dir_work);
}

/**
 * negative_dentry_quiesce - drop everything reclaim holds of a superblock
 * @sb: superblock about to be shut down or made read-only, s_umount held
 *	exclusively
 *
 * Drops the queued directories of @sb and waits for the one being worked
 * on or dropped, so that umount finds no dentry in use and remount
 * read-only finds no unlinked directory kept alive by reclaim. A
 * directory of another superblock being dropped is not waited for.
 */
void negative_dentry_quiesce(struct super_block *sb)
{
	struct negative_dir *nd, *next;
	LIST_HEAD(release);

	mutex_lock(&negative_dirs_mutex);
	spin_lock(&negative_dirs_lock);
	list_for_each_entry_safe(nd, next, &negative_dirs, node)
		if (nd->dir->d_sb == sb)
			list_move(&nd->node, &release);
	spin_unlock(&negative_dirs_lock);
	list_for_each_entry(nd, &release, node)
		negative_dir_unqueue(nd);
	mutex_unlock(&negative_dirs_mutex);
	list_for_each_entry_safe(nd, next, &release, node)
		negative_dir_put(nd);
	wait_var_event(&negative_dir_putting,
		       READ_ONCE(negative_dir_putting) != sb);
}

/**
 * negative_dentry_reclaim_shrinker - reclaim from the superblock of a shrinker
 * @shrinker: a shrinker holding objects of @arg's cgroup on @arg's node
 * @arg: the &struct negative_dentry_reclaim pass
 *
 * The per-cgroup limit walks the shrinkers a cgroup has objects on, rather
 * than every superblock, and calls this for each: if @shrinker is a
 * superblock's, make one pass, oldest first, over that superblock's dentry
 * LRU list of the cgroup and node, leaving the positive dentries where
 * they were. The caller's first round over all the lists spares hot
 * negative dentries; only if it fell short does a second round age them,
 * so that the cold ones of every list go first.
 *
 * Return: false once the pass has reclaimed enough or spent its budget.
 */
bool negative_dentry_reclaim_shrinker(struct shrinker *shrinker, void *arg)
{
	struct negative_dentry_reclaim *nr = arg;
	struct super_block *sb = super_from_shrinker(shrinker);
	unsigned long left;
	LIST_HEAD(parked);

	if (!sb || !negative_dentry_lock_sb(sb))
		return true;
	nr->stopped = false;
	left = list_lru_count_one(&sb->s_dentry_lru, nr->nid, nr->memcg);
	while (left && !nr->stopped && nr->reclaimed < nr->nr_to_reclaim &&
	       nr->budget > 0) {
		unsigned long batch = min3(left, (unsigned long)nr->budget,
					   (unsigned long)NEGATIVE_DENTRY_BATCH);
		long scanned = nr->scanned;

		nr->reclaimed += d_negative_reclaim_lru(sb, nr, batch, &parked);
		scanned = nr->scanned - scanned;
		nr->budget -= scanned;
		left -= min_t(unsigned long, left, scanned);
		if (scanned < batch)
			break;
		cond_resched();
	}
	/*
	 * The positive dentries walked over keep their places, unless the
	 * budget ran out short of both the quota and the end of the list:
	 * the next run would then find them in its way and get no further,
	 * so they go to the tail, as rotated, for it to get past them.
	 */
	d_negative_putback(&parked, left && nr->budget <= 0 && !nr->stopped &&
			   nr->reclaimed < nr->nr_to_reclaim);
	up_read(&sb->s_umount);
	return nr->reclaimed < nr->nr_to_reclaim && nr->budget > 0;
}

/*
 * A value of fs.dentry-dir-max: decimal digits alone, blanks around them
 * allowed, no sign, base prefix, second number or NUL.
 */
static int dentry_dir_max_parse(const char *buf, size_t len, int *val)
{
	char tmp[32], *s;

	if (len >= sizeof(tmp) || strnlen(buf, len) != len)
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	s = strim(tmp);
	if (!isdigit(s[0]) || kstrtoint(s, 10, val) ||
	    !dentry_dir_max_valid(*val))
		return -EINVAL;
	return 0;
}

static int proc_dentry_dir_max(const struct ctl_table *table, int write,
			       void *buffer, size_t *lenp, loff_t *ppos)
{
	int val = READ_ONCE(dentry_dir_max);
	struct ctl_table tmp = {
		.data = &val,
		.maxlen = sizeof(val),
	};
	int old, ret;

	if (!write)
		return proc_dointvec(&tmp, write, buffer, lenp, ppos);
	/* One write sets the value whole: nothing is taken piecemeal. */
	if (*ppos)
		return -EINVAL;
	ret = dentry_dir_max_parse(buffer, *lenp, &val);
	if (ret)
		return ret;
	*ppos += *lenp;

	mutex_lock(&dentry_dir_max_mutex);
	old = dentry_dir_max;
	WRITE_ONCE(dentry_dir_max, val);
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

static int negative_dentry_total_get(void *data, u64 *val)
{
	*val = atomic_long_read((atomic_long_t *)data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(negative_dentry_total_fops,
			 negative_dentry_total_get, NULL, "%llu\n");

/*
 * How many limits hold the static key that switches their work in lookups
 * and dput() on, one lifted less than a second ago included.
 */
static int negative_dentry_limits_get(void *data, u64 *val)
{
	*val = max(static_key_count(&negative_dentry_limits.key.key), 0);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(negative_dentry_limits_fops,
			 negative_dentry_limits_get, NULL, "%llu\n");

static int __init negative_dentry_init(void)
{
	negative_dentry_wq = alloc_workqueue("negative_dentry", WQ_UNBOUND, 0);
	if (!negative_dentry_wq)
		return -ENOMEM;
	register_sysctl_init("fs", negative_dentry_sysctls);
	debugfs_create_file_unsafe("negative_dentry_reclaimed", 0444, NULL,
				   &negative_dentry_reclaimed_total,
				   &negative_dentry_total_fops);
	debugfs_create_file_unsafe("negative_dentry_killed", 0444, NULL,
				   &negative_dentry_killed_total,
				   &negative_dentry_total_fops);
	debugfs_create_file_unsafe("negative_dentry_limits", 0444, NULL, NULL,
				   &negative_dentry_limits_fops);
	return 0;
}
fs_initcall(negative_dentry_init);

#ifdef CONFIG_NEGATIVE_DENTRY_KUNIT_TEST
#include "tests/negative_dentry_kunit.c"
#include "tests/negative_dentry_evict_kunit.c"
#include "tests/negative_dentry_lru_kunit.c"
#endif
