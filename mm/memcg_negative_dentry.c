// SPDX-License-Identifier: GPL-2.0
/*
 * memory.negative_dentry.*: a limit on the negative dentries of a memory
 * cgroup.
 *
 * What user space sees:
 *
 * - .current: the negative dentries of the cgroup and its descendants on
 *   their LRU lists. Exact while none changes; otherwise off by at most a
 *   batch (MEMCG_NEGATIVE_DENTRY_CHARGE_BATCH) per stock slot either way.
 * - .max: "max" or a decimal count; anything else fails with EINVAL and
 *   leaves the limit. Past it, a work item reclaims the subtree's unused
 *   negative dentries, coldest first, down to seven eighths of it; a task
 *   that outruns the work reclaims on its way back to user space; past
 *   four times it (at least 10000), the final dput() frees one at once.
 * - .peak: the highest count, credit charged ahead included (at most a
 *   batch per stock slot above it); a write resets it for that open file,
 *   as memory.peak.
 * - .events and .events.local: "max N", the times the subtree, or the
 *   cgroup's own limit, was passed, counted once until reclaim is done.
 * - memory.stat: negative_dentries, negative_dentry_reclaimed and
 *   negative_dentry_killed.
 *
 * A negative dentry is charged to the memcg of its slab object, whose LRU
 * lists hold it, while it is negative and on them. The counter is a
 * hierarchical page_counter, as memcg->swap, charged a batch ahead from a
 * per-cpu stock as memcg_stock charges pages, so it is never below the
 * true count. Near a limit a charge takes one; one that does not fit is
 * counted anyway, and the limit's reclaim work sees to it
 * (memcg_negative_dentry_reclaim.c).
 */
#include <linux/cgroup.h>
#include <linux/cpuhotplug.h>
#include <linux/memcg_negative_dentry.h>
#include <linux/memcontrol.h>
#include <linux/negative_dentry.h>
#include <linux/page_counter.h>
#include <linux/sched/isolation.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"
#include "memcg_negative_dentry.h"

DEFINE_PER_CPU(struct memcg_negative_dentry_stock, memcg_negative_dentry_stock) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

/* negative_dentry_kill_threshold() of any limit fits in a long. */
static_assert(PAGE_COUNTER_MAX <= (LONG_MAX / NEGATIVE_DENTRY_KILL_FACTOR));

/* memcg_negative_dentry.flags */
#define NEGATIVE_DENTRY_KEY_HELD	0

static struct memcg_negative_dentry *
mnd_of_counter(struct page_counter *counter)
{
	return container_of(counter, struct memcg_negative_dentry, counter);
}

/* The credit of slot @i of @cpu's stock if it holds a memcg under @root. */
static long negative_dentry_credit_of(int cpu, int i, struct mem_cgroup *root)
{
	struct memcg_negative_dentry_slot *slot =
		&per_cpu_ptr(&memcg_negative_dentry_stock, cpu)->slot[i];
	struct mem_cgroup *memcg = READ_ONCE(slot->memcg);

	if (!memcg || !mem_cgroup_is_descendant(memcg, root))
		return 0;
	return READ_ONCE(slot->credit);
}

/**
 * negative_dentry_usage - the negative dentries of a memcg's subtree
 * @memcg: the memcg
 *
 * The counter less the credit the stocks hold for the subtree, read while
 * charges move it: exact while no dentry of the subtree changes, else off
 * by at most the credit of every slot, and never above the count by credit
 * a slot gave back while it was read.
 *
 * Return: the count, 0 or more.
 */
long negative_dentry_usage(struct mem_cgroup *memcg)
{
	struct page_counter *counter = &memcg->negative_dentry.counter;
	long before = page_counter_read(counter), credit = 0;
	int cpu, i;

	/*
	 * A dead cpu's stock is empty (negative_dentry_cpu_dead()); a dying
	 * one's is not yet.
	 */
	rcu_read_lock();
	for_each_cpu_or(cpu, cpu_online_mask, cpu_dying_mask)
		for (i = 0; i < MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS; i++)
			credit += negative_dentry_credit_of(cpu, i, memcg);
	rcu_read_unlock();
	/*
	 * A slot drained after the first read gave its credit back to the
	 * counter and read empty: the second read leaves that credit out.
	 */
	return max(min_t(long, before, page_counter_read(counter)) - credit, 0L);
}

/**
 * negative_dentry_credit_bound - the most credit the stocks can hold
 *
 * That of every slot of every online cpu, and of the one cpu that may be
 * going offline: a subtree's counter less this is never above its count.
 *
 * Return: the bound.
 */
long negative_dentry_credit_bound(void)
{
	return (num_online_cpus() + 1L) * MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS *
	       MEMCG_NEGATIVE_DENTRY_CHARGE_BATCH;
}

/*
 * The counter of @mnd passed its limit: queue the reclaim work, which
 * checks the count without the stocks' credit, and set *@behind if the
 * counter is past the work's margin, for the charging task to reclaim too.
 * Called from a charge, with the stock locked.
 */
static void negative_dentry_over(struct memcg_negative_dentry *mnd,
				 bool *behind)
{
	struct memcg_negative_dentry_limit *limit;

	/* The max just read was set after the limit (negative_dentry_set_max()). */
	smp_rmb();
	limit = READ_ONCE(mnd->limit);
	if (!limit)
		return;
	negative_dentry_queue_work(&limit->reclaim_work);
	*behind |= negative_dentry_behind(page_counter_read(&mnd->counter),
					  READ_ONCE(mnd->counter.max));
}

/* Charge @nr exactly; past a limit too, as a dentry is never refused. */
static void negative_dentry_charge_exact(struct mem_cgroup *memcg,
					 unsigned long nr, bool *behind)
{
	struct page_counter *fail;

	if (page_counter_try_charge(&memcg->negative_dentry.counter, nr, &fail))
		return;
	page_counter_charge(&memcg->negative_dentry.counter, nr);
	/* Counters above the one the try stopped at may be over too. */
	for (; fail; fail = fail->parent)
		if (page_counter_read(fail) > READ_ONCE(fail->max))
			negative_dentry_over(mnd_of_counter(fail), behind);
}

/* Give back @slot's credit and let its memcg go; the caller owns the stock. */
static void negative_dentry_slot_drain(struct memcg_negative_dentry_slot *slot)
{
	struct mem_cgroup *memcg = slot->memcg;
	int credit = slot->credit;

	if (!memcg)
		return;
	WRITE_ONCE(slot->credit, 0);
	WRITE_ONCE(slot->memcg, NULL);
	if (credit)
		page_counter_uncharge(&memcg->negative_dentry.counter, credit);
	css_put(&memcg->css);
}

/* Give back the credit of every slot of @stock, which the caller owns. */
static void negative_dentry_stock_drain(struct memcg_negative_dentry_stock *stock)
{
	int i;

	for (i = 0; i < MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS; i++)
		negative_dentry_slot_drain(&stock->slot[i]);
}

/*
 * Whether this cpu's stock may take @memcg. Only the current task's own
 * cgroups: a task touching another cgroup's dentry (memory pressure, an
 * unlink in a shared directory) takes no slot from the cgroups running
 * here. Never on an isolated cpu, which a limit passed elsewhere must not
 * interrupt, nor a memcg going offline (memcg_negative_dentry_offline()).
 * The caller holds rcu_read_lock().
 */
static bool negative_dentry_stock_may_take(struct mem_cgroup *memcg)
{
	return !cpu_is_isolated(smp_processor_id()) &&
	       mem_cgroup_is_descendant(mem_cgroup_from_task(current), memcg) &&
	       css_tryget_online(&memcg->css);
}

/*
 * The slot of @stock for @memcg: the one holding it, else an empty one or
 * the next in turn, drained; NULL if the stock may not take @memcg.
 */
static struct memcg_negative_dentry_slot *
negative_dentry_slot_get(struct memcg_negative_dentry_stock *stock,
			 struct mem_cgroup *memcg)
{
	struct memcg_negative_dentry_slot *slot = NULL;
	int i;

	for (i = 0; i < MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS; i++) {
		if (stock->slot[i].memcg == memcg)
			return &stock->slot[i];
		if (!stock->slot[i].memcg)
			slot = &stock->slot[i];
	}
	if (!negative_dentry_stock_may_take(memcg))
		return NULL;
	if (!slot) {
		slot = &stock->slot[stock->next];
		stock->next = (stock->next + 1) %
			      MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS;
		negative_dentry_slot_drain(slot);
	}
	WRITE_ONCE(slot->memcg, memcg);
	return slot;
}

/**
 * __memcg_negative_dentry_charge - the slow path of a charge or uncharge
 * @stock: this cpu's stock, locked
 * @memcg: the memcg of the dentry; the caller holds rcu_read_lock()
 * @nr: 1, when the last slot used holds another memcg or no credit; or -1
 *
 * A charge takes a batch ahead if it fits under the limits, else just one;
 * an uncharge goes to the counters. The root, which holds only what
 * removed cgroups left it, counts nothing. Called under a dentry's d_lock.
 */
void __memcg_negative_dentry_charge(struct memcg_negative_dentry_stock *stock,
				    struct mem_cgroup *memcg, int nr)
{
	struct page_counter *counter = &memcg->negative_dentry.counter;
	struct memcg_negative_dentry_slot *slot;
	struct page_counter *fail;
	bool behind = false;

	if (mem_cgroup_is_root(memcg))
		return;
	if (nr < 0) {
		page_counter_uncharge(counter, 1);
		return;
	}
	/* Isolated since it took slots: give their credit back, for good. */
	if (unlikely(cpu_is_isolated(smp_processor_id())))
		negative_dentry_stock_drain(stock);
	slot = negative_dentry_slot_get(stock, memcg);
	if (!slot) {
		negative_dentry_charge_exact(memcg, 1, &behind);
		goto out;
	}
	stock->last = slot;
	if (slot->credit) {
		WRITE_ONCE(slot->credit, slot->credit - 1);
		return;
	}
	if (page_counter_try_charge(counter, MEMCG_NEGATIVE_DENTRY_CHARGE_BATCH,
				    &fail)) {
		WRITE_ONCE(slot->credit, MEMCG_NEGATIVE_DENTRY_CHARGE_BATCH - 1);
		return;
	}
	negative_dentry_charge_exact(memcg, 1, &behind);
out:
	if (behind)
		negative_dentry_task_reclaim_queue();
}

static void negative_dentry_stock_drain_workfn(struct work_struct *work)
{
	local_lock(&memcg_negative_dentry_stock.lock);
	negative_dentry_stock_drain(this_cpu_ptr(&memcg_negative_dentry_stock));
	local_unlock(&memcg_negative_dentry_stock.lock);
}

/* Whether @cpu's stock holds a memcg under @root, with credit if @credit. */
static bool negative_dentry_stock_holds(int cpu, struct mem_cgroup *root,
					bool credit)
{
	struct memcg_negative_dentry_stock *stock =
		per_cpu_ptr(&memcg_negative_dentry_stock, cpu);
	struct mem_cgroup *memcg;
	bool holds = false;
	int i;

	rcu_read_lock();
	for (i = 0; i < MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS && !holds; i++) {
		memcg = READ_ONCE(stock->slot[i].memcg);
		holds = memcg && mem_cgroup_is_descendant(memcg, root) &&
			(!credit || READ_ONCE(stock->slot[i].credit));
	}
	rcu_read_unlock();
	return holds;
}

/**
 * negative_dentry_drain_stocks - give back the credit held for a subtree
 * @root: the subtree's memcg
 * @offline: @root is going offline: let go of it, isolated cpus included,
 *	and wait for nothing; else wait until the credit is back (the caller
 *	may sleep)
 *
 * As drain_all_stock(): only the cpus whose stocks hold a memcg of the
 * subtree (with credit, unless @offline) drain them, on that cpu. A cpu
 * isolated after it took slots keeps its credit rather than be
 * interrupted for a limit (negative_dentry_usage() leaves it out), but not
 * a memcg going offline.
 */
void negative_dentry_drain_stocks(struct mem_cgroup *root, bool offline)
{
	bool wait = !offline;
	cpumask_var_t queued;
	int cpu;

	/* Without memory for the mask, just not waited for. */
	if (wait && !zalloc_cpumask_var(&queued, GFP_KERNEL))
		wait = false;
	for_each_online_cpu(cpu) {
		if ((offline || !cpu_is_isolated(cpu)) &&
		    negative_dentry_stock_holds(cpu, root, !offline)) {
			queue_work_on(cpu, system_wq,
				      &per_cpu_ptr(&memcg_negative_dentry_stock,
						   cpu)->drain_work);
			if (wait)
				cpumask_set_cpu(cpu, queued);
		}
	}
	if (!wait)
		return;
	/* Only those queued here, none isolated: nothing else is waited for. */
	for_each_cpu(cpu, queued)
		flush_work(&per_cpu_ptr(&memcg_negative_dentry_stock,
					cpu)->drain_work);
	free_cpumask_var(queued);
}

/* Drain a dead cpu's stock, so that readers look at online cpus only. */
static int negative_dentry_cpu_dead(unsigned int cpu)
{
	negative_dentry_stock_drain(per_cpu_ptr(&memcg_negative_dentry_stock,
						cpu));
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
		struct page_counter *counter = &memcg->negative_dentry.counter;
		unsigned long max = READ_ONCE(counter->max);

		/* No limit: not even a look at the usage's busy cacheline. */
		if (max != PAGE_COUNTER_MAX &&
		    page_counter_read(counter) >=
		    negative_dentry_kill_threshold(max))
			return true;
	}
	return false;
}

/**
 * memcg_negative_dentry_evicted - count a reclaimed or killed negative dentry
 * @memcg: the memcg of the dentry's slab object, or NULL; the caller holds
 *	rcu_read_lock()
 * @killed: killed on its final dput(), not reclaimed
 */
void memcg_negative_dentry_evicted(struct mem_cgroup *memcg, bool killed)
{
	for (; memcg && !mem_cgroup_is_root(memcg);
	     memcg = parent_mem_cgroup(memcg))
		atomic_long_inc(killed ? &memcg->negative_dentry.killed :
					 &memcg->negative_dentry.reclaimed);
}

/**
 * negative_dentry_max_passed - count that a cgroup's limit was passed
 * @memcg: the cgroup
 *
 * In its .events.local, and in the .events of it and its ancestors, as
 * memory.events (only its own with the memory_localevents mount option).
 */
void negative_dentry_max_passed(struct mem_cgroup *memcg)
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

/**
 * memcg_negative_dentry_init - set up a new memcg: no limit, nothing counted
 * @memcg: the memcg being allocated
 * @parent: its parent, or NULL for the root
 */
void memcg_negative_dentry_init(struct mem_cgroup *memcg,
				struct mem_cgroup *parent)
{
	struct memcg_negative_dentry *mnd = &memcg->negative_dentry;

	/* The root counts nothing: its children's counters have no parent. */
	page_counter_init(&mnd->counter,
			  parent && !mem_cgroup_is_root(parent) ?
			  &parent->negative_dentry.counter : NULL, false);
	INIT_LIST_HEAD(&mnd->peaks);
}

/* Whether @memcg or an ancestor has a limit. */
static bool negative_dentry_is_limited(struct mem_cgroup *memcg)
{
	for (; !mem_cgroup_is_root(memcg); memcg = parent_mem_cgroup(memcg))
		if (READ_ONCE(memcg->negative_dentry.counter.max) !=
		    PAGE_COUNTER_MAX)
			return true;
	return false;
}

/**
 * memcg_negative_dentry_offline - let go of a removed cgroup
 * @memcg: the memcg going offline, its objcgs and LRU lists reparented
 *
 * Its dentries are its parent's now, under the parent's limits: its limit
 * lets go of the key, and every stock of its credit, isolated cpus' too
 * (css_tryget_online() keeps them from taking it again). If it or an
 * ancestor has a limit, the drain of its negative dentries is queued;
 * rmdir does not wait for it. Without one, removal is as without the
 * feature.
 */
void memcg_negative_dentry_offline(struct mem_cgroup *memcg)
{
	struct memcg_negative_dentry *mnd = &memcg->negative_dentry;

	if (test_and_clear_bit(NEGATIVE_DENTRY_KEY_HELD, &mnd->flags))
		static_branch_slow_dec_deferred(&negative_dentry_limits);
	if (!memcg_kmem_online())
		return;
	negative_dentry_drain_stocks(memcg, true);
	if (negative_dentry_is_limited(memcg))
		negative_dentry_drain_queue(memcg);
}

/*
 * Set the limit of @memcg to @max, PAGE_COUNTER_MAX for none. The first
 * limit turns the negative_dentry_limits key on until the cgroup goes
 * offline, so that a delegated user writing the limit in a loop cannot
 * have kernel text patched at that rate, and writers need no lock.
 * Return -ENOMEM, changing nothing, without memory for the reclaim state.
 */
static int negative_dentry_set_max(struct mem_cgroup *memcg, unsigned long max)
{
	struct memcg_negative_dentry *mnd = &memcg->negative_dentry;

	if (max != PAGE_COUNTER_MAX) {
		if (!negative_dentry_limit_get(memcg))
			return -ENOMEM;
		if (!test_and_set_bit(NEGATIVE_DENTRY_KEY_HELD, &mnd->flags))
			static_branch_deferred_inc(&negative_dentry_limits);
	}
	xchg(&mnd->counter.max, max);
	return 0;
}

/**
 * memcg_negative_dentry_reset - forget the limit of a memcg
 * @memcg: the memcg whose controller userspace disabled
 */
void memcg_negative_dentry_reset(struct mem_cgroup *memcg)
{
	negative_dentry_set_max(memcg, PAGE_COUNTER_MAX);
}

/**
 * memcg_negative_dentry_free - release a memcg about to be freed
 * @memcg: the memcg; nothing can charge it any more, no stock holds it,
 *	and its files are gone
 */
void memcg_negative_dentry_free(struct mem_cgroup *memcg)
{
	negative_dentry_limit_free(memcg);
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
	seq_buf_printf(s, "negative_dentries %ld\n",
		       negative_dentry_usage(memcg));
	seq_buf_printf(s, "negative_dentry_reclaimed %ld\n",
		       atomic_long_read(&mnd->reclaimed));
	seq_buf_printf(s, "negative_dentry_killed %ld\n",
		       atomic_long_read(&mnd->killed));
}

/* How memory.negative_dentry.max reads and takes "no limit". */
#define NEGATIVE_DENTRY_MAX_STR	"max"

/*
 * Read a limit written to .max, PAGE_COUNTER_MAX for "max"; a count the
 * counter cannot reach reads "max", as a too large memory.max does.
 */
static int negative_dentry_parse_max(char *buf, size_t len, unsigned long *max)
{
	int err = negative_dentry_parse_limit(buf, len, LONG_MAX,
					      NEGATIVE_DENTRY_MAX_STR, max);

	if (!err)
		*max = min_t(unsigned long, *max, PAGE_COUNTER_MAX);
	return err;
}

static s64 negative_dentry_current_read(struct cgroup_subsys_state *css,
					struct cftype *cft)
{
	return negative_dentry_usage(mem_cgroup_from_css(css));
}

static int negative_dentry_max_show(struct seq_file *m, void *v)
{
	struct mem_cgroup *memcg = mem_cgroup_from_seq(m);
	unsigned long max = READ_ONCE(memcg->negative_dentry.counter.max);

	if (max == PAGE_COUNTER_MAX)
		seq_puts(m, NEGATIVE_DENTRY_MAX_STR "\n");
	else
		seq_printf(m, "%lu\n", max);
	return 0;
}

static ssize_t negative_dentry_max_write(struct kernfs_open_file *of,
					 char *buf, size_t nbytes, loff_t off)
{
	struct mem_cgroup *memcg = mem_cgroup_from_css(of_css(of));
	unsigned long max;
	int err;

	/* Without kmem accounting (cgroup.memory=nokmem) nothing is counted. */
	if (!memcg_kmem_online())
		return -EOPNOTSUPP;
	err = negative_dentry_parse_max(buf, nbytes, &max);
	if (!err)
		err = negative_dentry_set_max(memcg, max);
	if (err)
		return err;
	negative_dentry_reclaim_rearm(memcg);
	/* Queued only if due: a user may write the limit in a loop. */
	if (page_counter_read(&memcg->negative_dentry.counter) > max)
		negative_dentry_reclaim_queue(memcg);
	return nbytes;
}

static int negative_dentry_peak_show(struct seq_file *m, void *v)
{
	struct page_counter *counter =
		&mem_cgroup_from_seq(m)->negative_dentry.counter;
	unsigned long fd_peak = READ_ONCE(of_peak(m->private)->value);

	/* Reset through this file (peak_write()), or not. */
	if (fd_peak == -1UL)
		seq_printf(m, "%lu\n", READ_ONCE(counter->watermark));
	else
		seq_printf(m, "%lu\n",
			   max(fd_peak, READ_ONCE(counter->local_watermark)));
	return 0;
}

static ssize_t negative_dentry_peak_write(struct kernfs_open_file *of,
					  char *buf, size_t nbytes, loff_t off)
{
	struct mem_cgroup *memcg = mem_cgroup_from_css(of_css(of));

	return peak_write(of, buf, nbytes, off, &memcg->negative_dentry.counter,
			  &memcg->negative_dentry.peaks);
}

static int negative_dentry_events_show(struct seq_file *m, void *v)
{
	struct mem_cgroup *memcg = mem_cgroup_from_seq(m);

	seq_printf(m, "max %ld\n",
		   atomic_long_read(&memcg->negative_dentry.events));
	return 0;
}

static int negative_dentry_events_local_show(struct seq_file *m, void *v)
{
	struct mem_cgroup *memcg = mem_cgroup_from_seq(m);

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
		.name = "negative_dentry.peak",
		.flags = CFTYPE_NOT_ON_ROOT,
		.open = peak_open,
		.release = peak_release,
		.seq_show = negative_dentry_peak_show,
		.write = negative_dentry_peak_write,
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

static int __init memcg_negative_dentry_files_init(void)
{
	int cpu;

	if (mem_cgroup_disabled())
		return 0;
	/* Before any memcg but the root, which counts nothing, has a dentry. */
	for_each_possible_cpu(cpu) {
		struct memcg_negative_dentry_stock *stock =
			per_cpu_ptr(&memcg_negative_dentry_stock, cpu);

		stock->last = &stock->slot[0];
		INIT_WORK(&stock->drain_work, negative_dentry_stock_drain_workfn);
	}
	WARN_ON(cgroup_add_dfl_cftypes(&memory_cgrp_subsys,
				       negative_dentry_files));
	WARN_ON(cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					  "mm/negative_dentry:dead", NULL,
					  negative_dentry_cpu_dead) < 0);
	return 0;
}
subsys_initcall(memcg_negative_dentry_files_init);

#ifdef CONFIG_NEGATIVE_DENTRY_KUNIT_TEST
#include "tests/memcg_negative_dentry_kunit.c"
#endif
