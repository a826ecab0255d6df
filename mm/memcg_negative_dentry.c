// SPDX-License-Identifier: GPL-2.0
/*
 * memory.negative_dentry.{max,current,events,events.local}: the negative
 * dentries of a memory cgroup.
 *
 * A negative dentry belongs to the memcg of its slab object, whose dentry
 * LRU lists hold it, and counts while it is on those lists (fs/dcache.c
 * reports every change). Changes collect per cpu and then go to the memcg
 * and each ancestor at once, so that every cgroup counts its subtree and a
 * dentry charged to a removed child can be uncharged at the parent its
 * objcg was reparented to.
 *
 * Over its limit, a cgroup's reclaim work takes the unused, cold negative
 * dentries of the cgroup and its descendants from their own LRU lists, on
 * the superblocks the shrinker maps name, down to the limit less a margin
 * (fs/negative_dentry_lru.c walks the lists). When a cgroup is removed, its
 * dentries are spliced to its parent's lists and a drain work reclaims the
 * negative ones, so that rmdir does not wait for them. The drain first
 * adds the removed cgroup's waiting changes to its ancestors: from then on
 * its dentries are uncharged at the parent, whose count must include them.
 */
#include <linux/cgroup.h>
#include <linux/cpuhotplug.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/error-injection.h>
#include <linux/memcontrol.h>
#include <linux/negative_dentry.h>
#include <linux/negative_dentry_lru.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/task_work.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/negative_dentry_memcg.h>

/*
 * Changes wait per cpu until there are this many, or fewer near a limit
 * (negative_dentry_batch()); .current adds the waiting changes in.
 */
#define NEGATIVE_DENTRY_CHARGE_BATCH	32

static struct mem_cgroup *mnd_memcg(struct memcg_negative_dentry *mnd)
{
	return container_of(mnd, struct mem_cgroup, negative_dentry);
}

/*
 * Serialises the writers of memory.negative_dentry.max, so that each
 * static_branch_deferred_inc() of negative_dentry_limits comes before its
 * decrement: kernfs does not serialise separate opens of one file, and a
 * delegated, unprivileged user may write it from many.
 */
static DEFINE_MUTEX(negative_dentry_max_mutex);

/* Drains queued and not finished: each holds its removed cgroup's css. */
static atomic_long_t negative_dentry_drains;

/*
 * How many changes a cgroup lets wait per cpu, given the tightest @limit
 * on its path to the root and the least @headroom left under a limit
 * there, with @cpus cpus online. The counts the limits act on then lag by
 * less than an eighth of the limit, and less than half the headroom, per
 * cgroup below that changes them, however many cpus there are; within
 * 2 * @cpus of a limit nothing waits and they are exact.
 */
static int negative_dentry_batch(long limit, long headroom, unsigned int cpus)
{
	long room = min(limit / 8, headroom / 2);

	if (room < (long)cpus)
		return 1;
	return min(room / cpus, (long)NEGATIVE_DENTRY_CHARGE_BATCH);
}

/*
 * Over by more than the reclaim margin: the work, which reclaims down to
 * negative_dentry_target(), has not kept up with whoever adds to @usage.
 */
static bool negative_dentry_behind(long usage, long max)
{
	return usage - max > max - negative_dentry_target(max);
}

static void negative_dentry_task_reclaim_queue(void);

/*
 * Add @nr to @memcg and its ancestors, start reclaim where it is due, and
 * size @memcg's batch for how close that took it to a limit. Return true
 * if the work is behind on one of them: then the task adding the
 * dentries should reclaim too.
 */
static bool negative_dentry_charge(struct mem_cgroup *memcg, long nr)
{
	struct memcg_negative_dentry *leaf = &memcg->negative_dentry;
	long limit = LONG_MAX, headroom = LONG_MAX;
	bool behind = false;
	long batch;

	for (; memcg && !mem_cgroup_is_root(memcg);
	     memcg = parent_mem_cgroup(memcg)) {
		struct memcg_negative_dentry *mnd = &memcg->negative_dentry;
		long usage = atomic_long_add_return(nr, &mnd->usage);
		long max = READ_ONCE(mnd->max);

		if (nr > 0 && usage > max) {
			queue_work(negative_dentry_wq, &mnd->reclaim_work);
			behind |= negative_dentry_behind(usage, max);
		}
		if (max != LONG_MAX) {
			limit = min(limit, max);
			/*
			 * A cpu's batch of uncharges can reach @usage before
			 * another's batch of the charges they undo: below
			 * zero, there is just the whole limit left.
			 */
			headroom = min(headroom, max - max(usage, 0L));
		}
	}
	/* Without a limit on the path, the full batch: no need to count cpus. */
	batch = limit == LONG_MAX ? NEGATIVE_DENTRY_CHARGE_BATCH :
		negative_dentry_batch(limit, headroom, num_online_cpus());
	/* Written only if changed: other cpus read it on every change. */
	if (READ_ONCE(leaf->batch) != batch)
		WRITE_ONCE(leaf->batch, batch);
	return behind;
}

/**
 * __memcg_negative_dentry_charge - charge the changes waiting on this cpu
 * @memcg: the memcg whose batch of changes memcg_negative_dentry_account()
 *	filled; the caller holds rcu_read_lock() and a dentry's d_lock
 *
 * If the reclaim work is behind, the task adding them reclaims too, before
 * it returns to user space. (The root cgroup, whose dentries come from
 * removed cgroups reparented to it, counts nothing: for it, this just
 * empties the batch.)
 */
void __memcg_negative_dentry_charge(struct mem_cgroup *memcg)
{
	if (negative_dentry_charge(memcg,
				   this_cpu_xchg(*memcg->negative_dentry.pending, 0)))
		negative_dentry_task_reclaim_queue();
}

/*
 * Add the changes still waiting on every cpu to @memcg and its ancestors.
 * Nothing may change them meanwhile: @memcg has no objcg any more, and an
 * RCU grace period has passed since it had one (charges are made under
 * rcu_read_lock() with the memcg the objcg pointed to), or it is being
 * freed.
 */
static void negative_dentry_flush(struct mem_cgroup *memcg)
{
	long __percpu *pending = memcg->negative_dentry.pending;
	long sum = 0;
	int cpu;

	/* xchg(): negative_dentry_cpu_dead() may empty a dead cpu's too. */
	for_each_possible_cpu(cpu)
		sum += xchg(per_cpu_ptr(pending, cpu), 0);
	if (sum)
		negative_dentry_charge(memcg, sum);
}

/*
 * The changes of @memcg itself waiting per cpu. Only cpus online, or on
 * their way out, have any: negative_dentry_cpu_dead() adds a dead cpu's
 * to the counts.
 */
static long negative_dentry_pending(struct mem_cgroup *memcg)
{
	long __percpu *pending = memcg->negative_dentry.pending;
	long sum = 0;
	int cpu;

	for_each_cpu_or(cpu, cpu_online_mask, cpu_dying_mask)
		sum += READ_ONCE(*per_cpu_ptr(pending, cpu));
	return sum;
}

/*
 * The negative dentries of @memcg's subtree, exactly: the changes waiting
 * in its descendants included. A walk of the subtree.
 */
static long negative_dentry_usage(struct mem_cgroup *memcg)
{
	long usage = atomic_long_read(&memcg->negative_dentry.usage);
	struct cgroup_subsys_state *css;

	rcu_read_lock();
	css_for_each_descendant_pre(css, &memcg->css)
		usage += negative_dentry_pending(mem_cgroup_from_css(css));
	rcu_read_unlock();
	/*
	 * The sum is read while changes move from the cpus into @usage: a
	 * batch that moves after @usage was read and before its cpu is read
	 * is missed, so a count near zero can read below it for a moment.
	 */
	return max(usage, 0L);
}

/*
 * The negative dentries of @memcg's subtree, short of the changes still
 * waiting in its descendants: each has fewer than its batch per cpu
 * (none within 2 * cpus of a limit). Exact for a cgroup without children,
 * and cheap for any: no walk.
 */
static long negative_dentry_usage_approx(struct mem_cgroup *memcg)
{
	long usage = atomic_long_read(&memcg->negative_dentry.usage);

	/*
	 * A descendant's uncharges can reach @usage while the charges they
	 * undo still wait on its cpus: then the sum can be below zero.
	 */
	return max(usage + negative_dentry_pending(memcg), 0L);
}

/*
 * A cpu is dead: add what it left waiting to the counts, so that the
 * readers need look at the cpus online alone, however many are possible
 * (cloud guests boot with hundreds, and a few online). A removed cgroup
 * is still walked until it is freed; its drain may flush it at the same
 * time, hence xchg() on both sides. One freed meanwhile, the walk skips:
 * memcg_negative_dentry_free() flushes every cpu's.
 */
static int negative_dentry_cpu_dead(unsigned int cpu)
{
	struct mem_cgroup *memcg;

	for (memcg = mem_cgroup_iter(NULL, NULL, NULL); memcg;
	     memcg = mem_cgroup_iter(NULL, memcg, NULL)) {
		long nr = xchg(per_cpu_ptr(memcg->negative_dentry.pending, cpu),
			       0);

		if (nr)
			negative_dentry_charge(memcg, nr);
	}
	return 0;
}

/**
 * memcg_negative_dentry_over_kill - is a cgroup far over a limit?
 * @memcg: the memcg of a negative dentry about to join the LRU, or NULL;
 *	the caller holds rcu_read_lock()
 *
 * Return: true if @memcg or an ancestor has more negative dentries than
 * negative_dentry_kill_threshold() of its limit.
 */
bool memcg_negative_dentry_over_kill(struct mem_cgroup *memcg)
{
	for (; memcg && !mem_cgroup_is_root(memcg);
	     memcg = parent_mem_cgroup(memcg)) {
		struct memcg_negative_dentry *mnd = &memcg->negative_dentry;
		long max = READ_ONCE(mnd->max);

		if (max != LONG_MAX && atomic_long_read(&mnd->usage) >=
		    negative_dentry_kill_threshold(max))
			return true;
	}
	return false;
}

/**
 * memcg_negative_dentry_event - count a reclaimed or killed negative dentry
 * @memcg: the memcg of the dentry's slab object, or NULL; the caller holds
 *	rcu_read_lock()
 * @killed: killed on its final dput(), not reclaimed
 */
void memcg_negative_dentry_event(struct mem_cgroup *memcg, bool killed)
{
	for (; memcg && !mem_cgroup_is_root(memcg);
	     memcg = parent_mem_cgroup(memcg))
		atomic_long_inc(killed ? &memcg->negative_dentry.killed :
					 &memcg->negative_dentry.reclaimed);
}

/*
 * One pass over the lists of @root and of its online descendants. Return
 * true when the reclaim is done.
 */
static bool negative_dentry_reclaim_pass(struct mem_cgroup *root,
					 struct negative_dentry_reclaim *sc)
{
	struct mem_cgroup *memcg = mem_cgroup_iter(root, NULL, NULL);

	do {
		/* An offline memcg's lists are its parent's. */
		if (!mem_cgroup_online(memcg))
			continue;
		sc->memcg = memcg;
		if (negative_dentry_reclaim_memcg(memcg, sc)) {
			mem_cgroup_iter_break(root, memcg);
			return true;
		}
	} while ((memcg = mem_cgroup_iter(root, memcg, NULL)));
	return false;
}

/*
 * Reclaim from the lists of @root and of its online descendants: the first
 * round takes cold negative dentries only and spares the hot ones; if that
 * fell short, a second round ages the hot ones (a later run takes those not
 * looked up again) while taking what is cold.
 */
static void negative_dentry_reclaim_subtree(struct mem_cgroup *root,
					    struct negative_dentry_reclaim *sc)
{
	sc->age = false;
	if (negative_dentry_reclaim_pass(root, sc))
		return;
	sc->age = true;
	negative_dentry_reclaim_pass(root, sc);
}

/* At most this many negative dentries a task reclaims on one return. */
#define NEGATIVE_DENTRY_TASK_BATCH	1024L

/*
 * On its way back to user space, a task that added negative dentries
 * while the reclaim work was behind takes a bounded batch from each cgroup
 * on its own path still over by more than the margin: the cost then falls
 * on the offender's CPU time and latency (its cpu.max, say), not on
 * everyone's kworkers, as memory.high makes it pay for memory.
 */
static void negative_dentry_task_reclaim(struct callback_head *cb)
{
	struct mem_cgroup *memcg = get_mem_cgroup_from_current();
	struct mem_cgroup *iter;

	kfree(cb);
	for (iter = memcg; iter && !mem_cgroup_is_root(iter);
	     iter = parent_mem_cgroup(iter)) {
		long max = READ_ONCE(iter->negative_dentry.max);
		long usage = atomic_long_read(&iter->negative_dentry.usage);
		struct negative_dentry_reclaim sc = { };

		if (max == LONG_MAX || !negative_dentry_behind(usage, max))
			continue;
		sc.nr_to_reclaim = min(usage - negative_dentry_target(max),
				       NEGATIVE_DENTRY_TASK_BATCH);
		sc.budget = 4 * sc.nr_to_reclaim;
		negative_dentry_reclaim_subtree(iter, &sc);
		trace_negative_dentry_reclaim_task(cgroup_id(iter->css.cgroup),
						   usage, sc.scanned,
						   sc.reclaimed);
	}
	mem_cgroup_put(memcg);
}

/*
 * Have the current task reclaim before it returns to user space. Called
 * with d_lock held: nothing here sleeps. A request already queued is
 * reused, so a task has one at most.
 */
static void negative_dentry_task_reclaim_queue(void)
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

/*
 * The limit of @memcg started reclaim: an event in its .events.local, and
 * in the .events of @memcg and of each ancestor, which counts the events
 * of its subtree, as memory.events does (only @memcg's with the
 * memory_localevents mount option).
 */
static void negative_dentry_event(struct mem_cgroup *memcg)
{
	atomic_long_inc(&memcg->negative_dentry.events_local);
	cgroup_file_notify(&memcg->negative_dentry.events_local_file);
	do {
		atomic_long_inc(&memcg->negative_dentry.events);
		cgroup_file_notify(&memcg->negative_dentry.events_file);
		if (cgrp_dfl_root.flags & CGRP_ROOT_MEMORY_LOCAL_EVENTS)
			break;
	} while ((memcg = parent_mem_cgroup(memcg)) &&
		 !mem_cgroup_is_root(memcg));
}

static void negative_dentry_reclaim_workfn(struct work_struct *work)
{
	struct memcg_negative_dentry *mnd =
		container_of(work, struct memcg_negative_dentry, reclaim_work);
	struct mem_cgroup *memcg = mnd_memcg(mnd);
	struct negative_dentry_reclaim sc = {
		.budget = NEGATIVE_DENTRY_RUN_BUDGET,
	};
	long usage, max;

	if (!css_tryget_online(&memcg->css))
		return;
	max = READ_ONCE(mnd->max);
	usage = negative_dentry_usage(memcg);
	if (usage > max) {
		if (!mnd->reclaiming) {
			mnd->reclaiming = true;
			negative_dentry_event(memcg);
		}
		sc.nr_to_reclaim = usage - negative_dentry_target(max);
		negative_dentry_reclaim_subtree(memcg, &sc);
		trace_negative_dentry_reclaim_memcg(cgroup_id(memcg->css.cgroup),
						    false, usage, sc.scanned,
						    sc.reclaimed);
	}
	/* Carry on while there is more to do and the last run got somewhere. */
	if (sc.reclaimed && sc.reclaimed < sc.nr_to_reclaim)
		queue_work(negative_dentry_wq, work);
	else
		mnd->reclaiming = false;
	css_put(&memcg->css);
}

/*
 * The cgroup is offline: its dentries are now at the head of its parent's
 * LRU lists, on the superblocks its own shrinker maps still name, and
 * uncharged at the parent. Once they are drained, the changes still
 * waiting per cpu go to the ancestors, whose counts must include the
 * dentries they uncharge: a cgroup that stays dying (its page cache
 * pinned, say) would otherwise leave them short until it is freed. That
 * waits for an RCU grace period, after which nothing can charge the
 * cgroup any more; the drain itself starts at once, so that a removed
 * cgroup's dentries go as soon as they did.
 */
static void negative_dentry_drain_workfn(struct work_struct *work)
{
	struct memcg_negative_dentry *mnd =
		container_of(work, struct memcg_negative_dentry, drain_work);
	struct mem_cgroup *memcg = mnd_memcg(mnd);
	struct negative_dentry_reclaim sc = {
		.memcg = parent_mem_cgroup(memcg) ?: root_mem_cgroup,
		.drain = true,
		.nr_to_reclaim = LONG_MAX,
		.budget = NEGATIVE_DENTRY_RUN_BUDGET,
		.cursor = &mnd->drain_cursor,
	};

	if (!negative_dentry_usage(memcg))
		goto done;
	/* On the superblocks its own maps name, from its parent's lists. */
	negative_dentry_reclaim_memcg(memcg, &sc);
	trace_negative_dentry_reclaim_memcg(cgroup_id(memcg->css.cgroup), true,
					    negative_dentry_usage(memcg),
					    sc.scanned, sc.reclaimed);
	/*
	 * Out of budget: run again, still holding the css, from where this
	 * run stopped. Each run gets a budget further through the lists,
	 * whether or not it found negative dentries there: a removed cgroup
	 * never charges again, so a drain that stopped in front of its
	 * files would leave what is behind them counted for good.
	 */
	if (sc.budget <= 0) {
		queue_work(negative_dentry_wq, work);
		return;
	}
done:
	synchronize_rcu();
	negative_dentry_flush(memcg);
	atomic_long_dec(&negative_dentry_drains);
	css_put(&memcg->css);
}

/**
 * memcg_negative_dentry_init - set up a new memcg: no limit, nothing counted
 * @memcg: the memcg being allocated
 *
 * fail_function may fail it, to test mem_cgroup_alloc()'s error path.
 *
 * Return: 0, or -ENOMEM.
 */
int memcg_negative_dentry_init(struct mem_cgroup *memcg)
{
	struct memcg_negative_dentry *mnd = &memcg->negative_dentry;

	mnd->pending = alloc_percpu_gfp(long, GFP_KERNEL_ACCOUNT);
	if (!mnd->pending)
		return -ENOMEM;
	mnd->max = LONG_MAX;
	/* Sized at the first change, by the limits above. */
	mnd->batch = 1;
	INIT_WORK(&mnd->reclaim_work, negative_dentry_reclaim_workfn);
	INIT_WORK(&mnd->drain_work, negative_dentry_drain_workfn);
	return 0;
}
ALLOW_ERROR_INJECTION(memcg_negative_dentry_init, ERRNO);

/**
 * memcg_negative_dentry_offline - drain a removed cgroup's negative dentries
 * @memcg: the memcg going offline, after its objcgs and LRU lists were
 *	reparented
 *
 * Queues the drain and returns: rmdir does not wait for it. The drain
 * holds the css until it is done.
 */
void memcg_negative_dentry_offline(struct mem_cgroup *memcg)
{
	if (!memcg_kmem_online())
		return;
	css_get(&memcg->css);
	atomic_long_inc(&negative_dentry_drains);
	if (!queue_work(negative_dentry_wq,
			&memcg->negative_dentry.drain_work)) {
		atomic_long_dec(&negative_dentry_drains);
		css_put(&memcg->css);
	}
}

/*
 * A lower limit: the subtree waits for no change until each cgroup's next
 * one sizes its batch again. Changes waiting from before still count
 * against the old batch, at most NEGATIVE_DENTRY_CHARGE_BATCH per cpu.
 */
static void negative_dentry_shrink_batches(struct mem_cgroup *memcg)
{
	struct cgroup_subsys_state *css;

	rcu_read_lock();
	css_for_each_descendant_pre(css, &memcg->css)
		WRITE_ONCE(mem_cgroup_from_css(css)->negative_dentry.batch, 1);
	rcu_read_unlock();
}

/*
 * Each limit set holds the key once. Lifting the last one turns the key
 * off only after a second without limits (negative_dentry_limits is a
 * deferred key), so that a user who flips a limit in a loop cannot make
 * the kernel patch its text and interrupt every cpu at that rate.
 */
static void negative_dentry_set_max(struct mem_cgroup *memcg, long max)
{
	long old;

	mutex_lock(&negative_dentry_max_mutex);
	old = READ_ONCE(memcg->negative_dentry.max);
	WRITE_ONCE(memcg->negative_dentry.max, max);
	if (max < old)
		negative_dentry_shrink_batches(memcg);
	if (old == LONG_MAX && max != LONG_MAX)
		static_branch_deferred_inc(&negative_dentry_limits);
	else if (old != LONG_MAX && max == LONG_MAX)
		static_branch_slow_dec_deferred(&negative_dentry_limits);
	mutex_unlock(&negative_dentry_max_mutex);
}

/**
 * memcg_negative_dentry_reset - forget the limit of a memcg
 * @memcg: the memcg whose controller userspace disabled
 */
void memcg_negative_dentry_reset(struct mem_cgroup *memcg)
{
	negative_dentry_set_max(memcg, LONG_MAX);
}

/**
 * memcg_negative_dentry_free - release a memcg about to be freed
 * @memcg: the memcg; nothing can charge it any more
 *
 * Changes still waiting per cpu go to the ancestors, as the drain does
 * for a memcg that went offline; this one may never have been online.
 * The drain holds a reference, so it is done.
 */
void memcg_negative_dentry_free(struct mem_cgroup *memcg)
{
	struct memcg_negative_dentry *mnd = &memcg->negative_dentry;

	/* No limit left to queue reclaim of @memcg, then no reclaim. */
	negative_dentry_set_max(memcg, LONG_MAX);
	negative_dentry_flush(memcg);
	cancel_work_sync(&mnd->reclaim_work);
}

/**
 * memcg_negative_dentry_exit - free what memcg_negative_dentry_init() took
 * @memcg: the memcg being freed
 */
void memcg_negative_dentry_exit(struct mem_cgroup *memcg)
{
	free_percpu(memcg->negative_dentry.pending);
}

/**
 * memcg_negative_dentry_stat - the negative dentry lines of memory.stat
 * @memcg: the memcg
 * @s: the memory.stat buffer
 */
void memcg_negative_dentry_stat(struct mem_cgroup *memcg, struct seq_buf *s)
{
	struct memcg_negative_dentry *mnd = &memcg->negative_dentry;

	if (mem_cgroup_is_root(memcg))
		return;
	/*
	 * Monitoring reads memory.stat of every cgroup every few seconds,
	 * and its other counters lag too (mem_cgroup_flush_stats()); the
	 * exact count is in memory.negative_dentry.current.
	 */
	seq_buf_printf(s, "negative_dentries %ld\n",
		       negative_dentry_usage_approx(memcg));
	seq_buf_printf(s, "negative_dentry_reclaimed %ld\n",
		       atomic_long_read(&mnd->reclaimed));
	seq_buf_printf(s, "negative_dentry_killed %ld\n",
		       atomic_long_read(&mnd->killed));
}

/*
 * "max" or a count in 0 .. LONG_MAX - 1, in decimal digits alone: no sign,
 * no base prefix, nothing after it.
 */
static int negative_dentry_parse_max(const char *buf, long *max)
{
	long val;

	if (!strcmp(buf, "max")) {
		*max = LONG_MAX;
		return 0;
	}
	if (!isdigit(buf[0]) || kstrtol(buf, 10, &val) || val == LONG_MAX)
		return -EINVAL;
	*max = val;
	return 0;
}

static s64 negative_dentry_current_read(struct cgroup_subsys_state *css,
					struct cftype *cft)
{
	return negative_dentry_usage(mem_cgroup_from_css(css));
}

static int negative_dentry_max_show(struct seq_file *m, void *v)
{
	long max = READ_ONCE(mem_cgroup_from_css(seq_css(m))->negative_dentry.max);

	if (max == LONG_MAX)
		seq_puts(m, "max\n");
	else
		seq_printf(m, "%ld\n", max);
	return 0;
}

static ssize_t negative_dentry_max_write(struct kernfs_open_file *of,
					 char *buf, size_t nbytes, loff_t off)
{
	struct mem_cgroup *memcg = mem_cgroup_from_css(of_css(of));
	long max;
	int err;

	/* Without kmem accounting (cgroup.memory=nokmem) nothing is counted. */
	if (!memcg_kmem_online())
		return -EOPNOTSUPP;
	/* A NUL would hide what follows it from the parse. */
	if (strnlen(buf, nbytes) != nbytes)
		return -EINVAL;
	err = negative_dentry_parse_max(strstrip(buf), &max);
	if (err)
		return err;
	negative_dentry_set_max(memcg, max);
	if (max != LONG_MAX)
		queue_work(negative_dentry_wq, &memcg->negative_dentry.reclaim_work);
	return nbytes;
}

static int negative_dentry_events_show(struct seq_file *m, void *v)
{
	struct mem_cgroup *memcg = mem_cgroup_from_css(seq_css(m));

	seq_printf(m, "max %ld\n",
		   atomic_long_read(&memcg->negative_dentry.events));
	return 0;
}

static int negative_dentry_events_local_show(struct seq_file *m, void *v)
{
	struct mem_cgroup *memcg = mem_cgroup_from_css(seq_css(m));

	seq_printf(m, "max %ld\n",
		   atomic_long_read(&memcg->negative_dentry.events_local));
	return 0;
}

static struct cftype negative_dentry_files[] = {
	{
		.name = "negative_dentry.current",
		.flags = CFTYPE_NOT_ON_ROOT,
		.read_s64 = negative_dentry_current_read,
	},
	{
		.name = "negative_dentry.max",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = negative_dentry_max_show,
		.write = negative_dentry_max_write,
	},
	{
		.name = "negative_dentry.events",
		.flags = CFTYPE_NOT_ON_ROOT,
		.file_offset = offsetof(struct mem_cgroup,
					negative_dentry.events_file),
		.seq_show = negative_dentry_events_show,
	},
	{
		.name = "negative_dentry.events.local",
		.flags = CFTYPE_NOT_ON_ROOT,
		.file_offset = offsetof(struct mem_cgroup,
					negative_dentry.events_local_file),
		.seq_show = negative_dentry_events_local_show,
	},
	{ }	/* terminate */
};

static int negative_dentry_drains_get(void *data, u64 *val)
{
	*val = atomic_long_read(&negative_dentry_drains);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(negative_dentry_drains_fops,
			 negative_dentry_drains_get, NULL, "%llu\n");

static int __init memcg_negative_dentry_files_init(void)
{
	if (mem_cgroup_disabled())
		return 0;
	WARN_ON(cgroup_add_dfl_cftypes(&memory_cgrp_subsys,
				       negative_dentry_files));
	WARN_ON(cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					  "mm/negative_dentry:dead", NULL,
					  negative_dentry_cpu_dead) < 0);
	debugfs_create_file_unsafe("drains", 0444, negative_dentry_debugfs_dir(),
				   NULL, &negative_dentry_drains_fops);
	return 0;
}
subsys_initcall(memcg_negative_dentry_files_init);

#ifdef CONFIG_NEGATIVE_DENTRY_KUNIT_TEST
#include "tests/memcg_negative_dentry_kunit.c"
#endif
