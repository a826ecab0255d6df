// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim of memory.negative_dentry.max, and the drain of a removed
 * cgroup's negative dentries.
 *
 * Past its limit, a cgroup's work takes the unused, cold negative dentries
 * of its subtree from their own LRU lists (fs/negative_dentry_lru.c walks
 * them) down to the limit less a margin; each memcg of the subtree may
 * keep an equal share of that target. A task that outruns the work takes
 * a bounded batch from its own lists on its way back to user space. A
 * removed cgroup's dentries are spliced to its parent's lists, and if it
 * or an ancestor has a limit, a drain reclaims the negative ones, so that
 * rmdir does not wait for them.
 */
#include <linux/cgroup.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/oom.h>
#include <linux/page_counter.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "memcg_negative_dentry.h"

#define CREATE_TRACE_POINTS
#include <trace/events/negative_dentry_memcg.h>

/* Drains queued and not finished: each holds its removed cgroup's css. */
static atomic_long_t negative_dentry_drains;

static long negative_dentry_count(struct mem_cgroup *memcg)
{
	return page_counter_read(&memcg->negative_dentry.counter);
}

/*
 * The negative dentries on @memcg's own lists: its count less its online
 * children's (a removed child's are on @memcg's lists). The caller holds
 * rcu_read_lock().
 */
static long negative_dentry_own(struct mem_cgroup *memcg)
{
	long own = negative_dentry_count(memcg);
	struct cgroup_subsys_state *css;

	css_for_each_child(css, &memcg->css) {
		if (css->flags & CSS_ONLINE)
			own -= negative_dentry_count(mem_cgroup_from_css(css));
	}
	return max(own, 0L);
}

/*
 * How reclaim of a subtree down to a target shares out: each memcg with
 * negative dentries on its own lists may keep an equal part of the target,
 * and gives up in proportion to what it holds above it. So a cgroup under
 * its share keeps what it has while a sibling floods.
 */
struct negative_dentry_shares {
	long fair;
	long above;
	long want;
};

static void negative_dentry_shares(struct mem_cgroup *root, long target,
				   long want, struct negative_dentry_shares *sh)
{
	struct cgroup_subsys_state *css;
	long holders = 0;

	rcu_read_lock();
	css_for_each_descendant_pre(css, &root->css)
		if ((css->flags & CSS_ONLINE) &&
		    negative_dentry_own(mem_cgroup_from_css(css)))
			holders++;
	sh->fair = holders ? target / holders : 0;
	sh->above = 0;
	css_for_each_descendant_pre(css, &root->css)
		if (css->flags & CSS_ONLINE)
			sh->above += max(negative_dentry_own(mem_cgroup_from_css(css)) -
					 sh->fair, 0L);
	rcu_read_unlock();
	sh->want = want;
}

/* The part of @sh->want a memcg with @own gives up: at most its excess. */
static long negative_dentry_quota_of(long own,
				     const struct negative_dentry_shares *sh)
{
	long above = own - sh->fair;
	u64 quota;

	if (above <= 0 || sh->above <= 0 || sh->want <= 0)
		return 0;
	/*
	 * Rounded up, so that a small holder still gives its part. The
	 * product may not fit in 64 bits; the remainder does, so it can be
	 * found modulo 2^64.
	 */
	quota = mul_u64_u64_div_u64(sh->want, above, sh->above);
	if ((u64)sh->want * above - quota * sh->above)
		quota++;
	return min_t(u64, above, quota);
}

static long negative_dentry_quota(struct mem_cgroup *memcg,
				  const struct negative_dentry_shares *sh)
{
	long own;

	rcu_read_lock();
	own = negative_dentry_own(memcg);
	rcu_read_unlock();
	return negative_dentry_quota_of(own, sh);
}

/*
 * One round over the online memcgs of @limit's subtree, in
 * mem_cgroup_iter() order, each reclaimed of its quota, resuming at the
 * memcg and cursor where the last run stopped, and keeping where this one
 * stops. Return true if done or out of budget, false at the round's end.
 */
static bool negative_dentry_reclaim_round(struct memcg_negative_dentry_limit *limit,
					  struct negative_dentry_reclaim *sc,
					  const struct negative_dentry_shares *sh)
{
	struct mem_cgroup *root = limit->memcg;
	u64 resume = limit->cursor_id;
	long want = sc->nr_to_reclaim;
	struct mem_cgroup *memcg;
	bool done = false;

again:
	memcg = NULL;
	while (!done && (memcg = mem_cgroup_iter(root, memcg, NULL))) {
		u64 id = cgroup_id(memcg->css.cgroup);
		struct negative_dentry_cursor cursor = { };
		long quota;

		if (resume) {
			if (id != resume)
				continue;
			resume = 0;
			cursor = limit->cursor;
		}
		/* An offline memcg's lists are its parent's. */
		if (!mem_cgroup_online(memcg))
			continue;
		quota = negative_dentry_quota(memcg, sh);
		if (!quota)
			continue;
		sc->memcg = memcg;
		sc->cursor = &cursor;
		sc->nr_to_reclaim = min(want, sc->reclaimed + quota);
		negative_dentry_reclaim_memcg(memcg, sc);
		done = sc->reclaimed >= want || sc->budget <= 0;
		if (done) {
			limit->cursor_id = id;
			limit->cursor = cursor;
		}
	}
	if (memcg)
		mem_cgroup_iter_break(root, memcg);
	/* The memcg it stopped in is gone: the round starts again. */
	if (resume) {
		resume = 0;
		goto again;
	}
	if (!done)
		limit->cursor_id = 0;
	sc->nr_to_reclaim = want;
	sc->cursor = NULL;
	return done;
}

/*
 * Reclaim @limit's subtree down to @target, each memcg by its share,
 * resuming where the last run stopped. A cycle is a round sparing hot
 * negative dentries, then one aging them, over the whole subtree, in as
 * many runs as the budget takes. Return false if a whole cycle freed
 * nothing: what is left is in use, hot, or on a frozen filesystem, and
 * another run would only walk the lists again.
 */
static bool negative_dentry_reclaim_cycle(struct memcg_negative_dentry_limit *limit,
					  struct negative_dentry_reclaim *sc,
					  long target)
{
	struct negative_dentry_shares sh;

	for (;;) {
		long reclaimed = sc->reclaimed;
		bool stopped;

		sc->age = limit->aging;
		negative_dentry_shares(limit->memcg, target,
				       sc->nr_to_reclaim - sc->reclaimed, &sh);
		WRITE_ONCE(limit->fair, sh.fair);
		stopped = negative_dentry_reclaim_round(limit, sc, &sh);
		if (sc->reclaimed > reclaimed)
			limit->freed = true;
		if (stopped)
			return true;
		/* The round is done: the aging one next, or a new cycle. */
		limit->aging = !limit->aging;
		if (limit->aging)
			continue;
		if (!limit->freed)
			return false;
		limit->freed = false;
	}
}

/*
 * Start a pass of @limit's count over its max, and count it, if none is
 * under way; within a second of a cycle that freed nothing, passes are not
 * counted, unless the limit was written since.
 */
static void negative_dentry_pass_start(struct memcg_negative_dentry_limit *limit)
{
	if (!test_and_set_bit(NEGATIVE_DENTRY_RECLAIMING, &limit->flags) &&
	    (time_after_eq(jiffies, READ_ONCE(limit->quiet_until)) ||
	     READ_ONCE(limit->quiet_written) != atomic_read(&limit->written)))
		negative_dentry_max_passed(limit->memcg);
}

/*
 * Whether @limit is being reclaimed for a pass of its count over @max. If
 * not yet and the counter is over, the stocks give back the subtree's
 * credit first: only a count still over is a pass, so credit alone is
 * never counted. Even when the count read past the credit is under @max:
 * credit left near the limit would let the count pass it later with no
 * charge that fails to say so. Might sleep.
 */
static bool negative_dentry_reclaim_start(struct memcg_negative_dentry_limit *limit,
					  long max)
{
	struct mem_cgroup *memcg = limit->memcg;

	if (test_bit(NEGATIVE_DENTRY_RECLAIMING, &limit->flags))
		return true;
	if (negative_dentry_count(memcg) <= max)
		return false;
	negative_dentry_drain_stocks(memcg, false);
	if (negative_dentry_usage(memcg) <= max)
		return false;
	negative_dentry_pass_start(limit);
	return true;
}

static void negative_dentry_reclaim_workfn(struct work_struct *work)
{
	struct memcg_negative_dentry_limit *limit =
		container_of(work, struct memcg_negative_dentry_limit,
			     reclaim_work);
	struct mem_cgroup *memcg = limit->memcg;
	struct negative_dentry_reclaim sc = {
		.budget = NEGATIVE_DENTRY_RUN_BUDGET,
	};
	/* Before the limit and the pass: a write after it voids our quiet. */
	int written = atomic_read_acquire(&limit->written);
	long max, usage;
	bool more;

	if (!css_tryget_online(&memcg->css))
		goto gone;
	max = READ_ONCE(memcg->negative_dentry.counter.max);
	if (!negative_dentry_reclaim_start(limit, max))
		goto out;
	usage = negative_dentry_usage(memcg);
	if (usage <= max)
		goto done;
	sc.nr_to_reclaim = usage - negative_dentry_target(max);
	more = negative_dentry_reclaim_cycle(limit, &sc,
					     negative_dentry_target(max));
	trace_negative_dentry_reclaim_memcg(cgroup_id(memcg->css.cgroup), false,
					    usage, sc.scanned, sc.reclaimed);
	/*
	 * Out of budget short of the target: run again from where this run
	 * stopped, even if it freed nothing, as it may have walked over
	 * positive dentries and the cgroup may never charge again. A cycle
	 * that freed nothing ends it until a charge queues the work again.
	 */
	if (more && sc.budget <= 0 && sc.reclaimed < sc.nr_to_reclaim) {
		negative_dentry_queue_work(work);
		goto out;
	}
	if (!more) {
		WRITE_ONCE(limit->quiet_written, written);
		WRITE_ONCE(limit->quiet_until, jiffies + HZ);
	}
done:
	/* Queued again by what this run freed (overlayfs): the pass goes on. */
	if (!work_pending(work))
		clear_bit(NEGATIVE_DENTRY_RECLAIMING, &limit->flags);
out:
	css_put(&memcg->css);
gone:
	negative_dentry_work_done();
}

/**
 * negative_dentry_limit_get - the reclaim state of a cgroup's limit
 * @memcg: the cgroup, whose limit is being set; the caller may sleep
 *
 * Made at the first limit and kept until the cgroup is freed, so that a
 * cgroup without one pays nothing.
 *
 * Return: the state, or NULL if there is no memory for it.
 */
struct memcg_negative_dentry_limit *
negative_dentry_limit_get(struct mem_cgroup *memcg)
{
	struct memcg_negative_dentry_limit *limit, *old;

	limit = READ_ONCE(memcg->negative_dentry.limit);
	if (limit)
		return limit;
	limit = kzalloc(sizeof(*limit), GFP_KERNEL_ACCOUNT);
	if (!limit)
		return NULL;
	limit->memcg = memcg;
	limit->quiet_until = jiffies;
	INIT_WORK(&limit->reclaim_work, negative_dentry_reclaim_workfn);
	/* Two writers of the first limit at once: one state stays. */
	old = cmpxchg(&memcg->negative_dentry.limit, NULL, limit);
	if (old) {
		kfree(limit);
		return old;
	}
	return limit;
}

/**
 * negative_dentry_limit_free - free the reclaim state of a cgroup's limit
 * @memcg: the cgroup, about to be freed: nothing can queue its work any more
 */
void negative_dentry_limit_free(struct mem_cgroup *memcg)
{
	struct memcg_negative_dentry_limit *limit = memcg->negative_dentry.limit;

	if (!limit)
		return;
	/* Queued and not run: its count goes with it. */
	if (cancel_work_sync(&limit->reclaim_work))
		negative_dentry_work_done();
	kfree(limit);
}

/**
 * negative_dentry_reclaim_rearm - count the next pass of a limit just written
 * @memcg: the cgroup
 *
 * Neither a pass under the old limit nor a quiet second hides the next.
 */
void negative_dentry_reclaim_rearm(struct mem_cgroup *memcg)
{
	struct memcg_negative_dentry_limit *limit =
		READ_ONCE(memcg->negative_dentry.limit);

	if (limit) {
		clear_bit(NEGATIVE_DENTRY_RECLAIMING, &limit->flags);
		/* A run that sees this write sees the pass ended. */
		atomic_inc_return_release(&limit->written);
	}
}

/**
 * negative_dentry_reclaim_queue - have a cgroup's limit looked at
 * @memcg: the cgroup, whose count may be past its limit
 */
void negative_dentry_reclaim_queue(struct mem_cgroup *memcg)
{
	struct memcg_negative_dentry_limit *limit =
		READ_ONCE(memcg->negative_dentry.limit);

	if (limit)
		negative_dentry_queue_work(&limit->reclaim_work);
}

/* At most this many negative dentries a task reclaims on one return. */
#define NEGATIVE_DENTRY_TASK_BATCH	1024L

/*
 * A task scans at most this many dentries per one to reclaim, so that its
 * return to user space stays short; the work takes what it leaves.
 */
#define NEGATIVE_DENTRY_TASK_SCAN_RATIO	4

/*
 * On its way back to user space, a task that charged while the work was
 * behind takes a bounded batch from its own lists, for each ancestor still
 * over by more than the margin: the offender pays in its own CPU time, as
 * memory.high makes it pay for memory, not everyone's kworkers. Only what
 * its lists hold above their share, so a cgroup under its share keeps its
 * own; the cost is the batch's, whatever the number of cgroups below. It
 * waits for no other cpu, so it cannot drain the stocks: before the work
 * has counted a pass, it starts one (and queues the work, which ends it)
 * only if the counter is past the margin by more than all their credit.
 */
static void negative_dentry_task_reclaim(struct callback_head *cb)
{
	struct mem_cgroup *memcg, *iter;

	kfree(cb);
	/* An exiting task (an OOM victim, say) would only delay its exit. */
	if ((current->flags & PF_EXITING) || fatal_signal_pending(current) ||
	    tsk_is_oom_victim(current))
		return;
	memcg = get_mem_cgroup_from_current();
	for (iter = memcg; iter && !mem_cgroup_is_root(iter);
	     iter = parent_mem_cgroup(iter)) {
		struct memcg_negative_dentry_limit *limit =
			READ_ONCE(iter->negative_dentry.limit);
		long max = READ_ONCE(iter->negative_dentry.counter.max);
		long usage = negative_dentry_count(iter);
		struct negative_dentry_reclaim sc = { .memcg = memcg };
		bool certain;
		long own;

		if (!limit || !negative_dentry_behind(usage, max))
			continue;
		if (!test_bit(NEGATIVE_DENTRY_RECLAIMING, &limit->flags)) {
			/* The bound of the cpus the counter was read with. */
			if (!cpus_read_trylock())
				continue;
			certain = negative_dentry_behind(negative_dentry_count(iter) -
							 negative_dentry_credit_bound(),
							 max);
			cpus_read_unlock();
			if (!certain)
				continue;
			negative_dentry_pass_start(limit);
			negative_dentry_queue_work(&limit->reclaim_work);
		}
		usage = negative_dentry_usage(iter);
		rcu_read_lock();
		own = negative_dentry_own(memcg);
		rcu_read_unlock();
		sc.nr_to_reclaim = min3(usage - negative_dentry_target(max),
					own - READ_ONCE(limit->fair),
					NEGATIVE_DENTRY_TASK_BATCH);
		if (sc.nr_to_reclaim <= 0)
			continue;
		sc.budget = NEGATIVE_DENTRY_TASK_SCAN_RATIO * sc.nr_to_reclaim;
		negative_dentry_reclaim_memcg(memcg, &sc);
		trace_negative_dentry_reclaim_task(cgroup_id(iter->css.cgroup),
						   usage, sc.scanned,
						   sc.reclaimed);
	}
	mem_cgroup_put(memcg);
}

/**
 * negative_dentry_task_reclaim_queue - have the current task reclaim
 *
 * Before it returns to user space. Called with d_lock held: nothing here
 * sleeps. A request already queued is reused, so a task has one at most.
 */
void negative_dentry_task_reclaim_queue(void)
{
	struct callback_head *cb;

	if (!current->mm || (current->flags & (PF_KTHREAD | PF_EXITING)))
		return;
	cb = task_work_cancel_func(current, negative_dentry_task_reclaim);
	if (!cb)
		cb = kmalloc(sizeof(*cb), GFP_NOWAIT | __GFP_NOWARN);
	if (!cb)
		return;
	init_task_work(cb, negative_dentry_task_reclaim);
	if (task_work_add(current, cb, TWA_RESUME | TWAF_NO_ALLOC))
		kfree(cb);
}

/* How long a drain that made way for a writer of s_umount waits. */
#define NEGATIVE_DENTRY_DRAIN_RETRY	(HZ / 10)

/* The drain of one removed cgroup, made at its offline. */
struct negative_dentry_drain {
	struct delayed_work work;
	struct mem_cgroup *memcg;
};

/*
 * The offline cgroup's dentries are at the head of its parent's LRU lists,
 * on the superblocks its shrinker maps name. The drain takes the negative
 * ones, each list in one pass, and runs again a little later if a writer
 * of s_umount (umount, remount) held it up. A frozen superblock it leaves.
 */
static void negative_dentry_drain_workfn(struct work_struct *work)
{
	struct negative_dentry_drain *drain =
		container_of(to_delayed_work(work), struct negative_dentry_drain,
			     work);
	struct mem_cgroup *memcg = drain->memcg;
	struct negative_dentry_reclaim sc = {
		.memcg = parent_mem_cgroup(memcg),
		.drain = true,
		.nr_to_reclaim = LONG_MAX,
		/* The removed cgroup's run is finite: take it whole. */
		.budget = LONG_MAX,
	};

	/* Uncharged at the parent since: it had none when it went. */
	if (negative_dentry_count(memcg)) {
		negative_dentry_reclaim_memcg(memcg, &sc);
		trace_negative_dentry_reclaim_memcg(cgroup_id(memcg->css.cgroup),
						    true, negative_dentry_count(memcg),
						    sc.scanned, sc.reclaimed);
		if (sc.yielded) {
			queue_delayed_work(negative_dentry_wq, &drain->work,
					   NEGATIVE_DENTRY_DRAIN_RETRY);
			return;
		}
	}
	atomic_long_dec(&negative_dentry_drains);
	css_put(&memcg->css);
	kfree(drain);
}

/**
 * negative_dentry_drain_queue - drain a removed cgroup's negative dentries
 * @memcg: the memcg going offline; the caller may sleep
 *
 * The drain holds the css until it is done. Without memory for it, the
 * negative dentries stay, as without a limit.
 */
void negative_dentry_drain_queue(struct mem_cgroup *memcg)
{
	struct negative_dentry_drain *drain = kmalloc(sizeof(*drain),
						      GFP_KERNEL);

	if (!drain)
		return;
	drain->memcg = memcg;
	INIT_DELAYED_WORK(&drain->work, negative_dentry_drain_workfn);
	css_get(&memcg->css);
	atomic_long_inc(&negative_dentry_drains);
	queue_delayed_work(negative_dentry_wq, &drain->work, 0);
}

static int negative_dentry_drains_get(void *data, u64 *val)
{
	*val = atomic_long_read(&negative_dentry_drains);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(negative_dentry_drains_fops,
			 negative_dentry_drains_get, NULL, "%llu\n");

static int __init memcg_negative_dentry_reclaim_init(void)
{
	if (!mem_cgroup_disabled())
		debugfs_create_file_unsafe("drains", 0444,
					   negative_dentry_debugfs_dir(), NULL,
					   &negative_dentry_drains_fops);
	return 0;
}
subsys_initcall(memcg_negative_dentry_reclaim_init);

#ifdef CONFIG_NEGATIVE_DENTRY_KUNIT_TEST
#include "tests/memcg_negative_dentry_reclaim_kunit.c"
#endif
