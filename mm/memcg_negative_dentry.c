// SPDX-License-Identifier: GPL-2.0
/*
 * memory.negative_dentry.{max,current,events,events.local}: the negative
 * dentries of a memory cgroup.
 *
 * A negative dentry belongs to the memcg of its slab object, whose dentry
 * LRU lists hold it, and counts while it is on those lists. Counting has
 * three layers, each with its own verb:
 *
 * - fs/dcache.c accounts each change of a dentry (d_negative_account());
 * - the change is added to a slot of the cpu's stock, which keeps the
 *   changes of a few memcgs at a time, as memcg_stock does for page
 *   charges (memcg_negative_dentry_stock_add(), inline, and
 *   __memcg_negative_dentry_stock_add() when the slot is full or holds
 *   another memcg);
 * - a slot's changes are charged to the memcg and each ancestor at once
 *   (negative_dentry_charge()).
 *
 * So every cgroup counts its subtree, a dentry charged to a removed child
 * can be uncharged at the parent its objcg was reparented to, and the
 * count any limit acts on misses at most one batch for each slot, however
 * many descendants the cgroup has.
 *
 * Over its limit, a cgroup's reclaim work takes the unused, cold negative
 * dentries of the cgroup and its descendants from their own LRU lists, on
 * the superblocks the shrinker maps name, down to the limit less a margin
 * (fs/negative_dentry_lru.c walks the lists). When a cgroup is removed, its
 * dentries are spliced to its parent's lists and a drain work reclaims the
 * negative ones, so that rmdir does not wait for them, and then has the
 * stocks that still hold the cgroup charge what they hold and let it go.
 */
#include <linux/cgroup.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/memcontrol.h>
#include <linux/negative_dentry.h>
#include <linux/negative_dentry_lru.h>
#include <linux/oom.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/negative_dentry_memcg.h>

/*
 * Changes wait in a slot of a cpu's stock until there are this many, or
 * fewer near a limit (negative_dentry_batch()); .current adds the waiting
 * changes in. Without a limit on the path of the slot's memcg, nothing
 * acts on its count but readers, who add the slots in: twice as many
 * wait, for half the charges.
 */
#define NEGATIVE_DENTRY_CHARGE_BATCH	32
#define NEGATIVE_DENTRY_UNLIMITED_BATCH	64

/*
 * A memcg keeps the batch its last charge sized in the low bits of
 * memcg_negative_dentry.batch, and the negative_dentry_max_seq it was
 * sized under in the rest (the low bits of that, where a long has fewer).
 */
#define NEGATIVE_DENTRY_BATCH_BITS	8
#define NEGATIVE_DENTRY_BATCH_MASK	((1L << NEGATIVE_DENTRY_BATCH_BITS) - 1)

/* How memory.negative_dentry.max reads and takes "no limit". */
#define MEMCG_NEGATIVE_DENTRY_MAX_STR	"max"

DEFINE_PER_CPU(struct memcg_negative_dentry_stock, memcg_negative_dentry_stock) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

/*
 * Moves on each time a limit is lowered, before the stocks' batches are
 * lowered to match: a charge that sized its batch from the old limit sees
 * it move and does not keep that batch (negative_dentry_lower_batches()).
 */
static atomic_t negative_dentry_max_seq;

static struct mem_cgroup *mnd_memcg(struct memcg_negative_dentry *mnd)
{
	return container_of(mnd, struct mem_cgroup, negative_dentry);
}

/* Drains queued and not finished: each holds its removed cgroup's css. */
static atomic_long_t negative_dentry_drains;

/*
 * How many changes a slot lets wait, given the tightest @limit on the
 * path of its memcg to the root and the least @headroom left under a limit
 * there, with @slots slots in the stocks of the cpus online. As each slot
 * holds one memcg, the counts the limits act on then lag by less than an
 * eighth of the limit, and less than half the headroom, whatever the
 * number of cgroups below that changes them; within 2 * @slots of a limit,
 * as each memcg's last charge found it, nothing waits and they are exact.
 * (Siblings that fill a parent's limit leave a memcg's batch as its own
 * last charge sized it, within those bounds.)
 */
static int negative_dentry_batch(long limit, long headroom, unsigned int slots)
{
	long room = min(limit / 8, headroom / 2);

	if (room < (long)slots)
		return 1;
	return min(room / slots, (long)NEGATIVE_DENTRY_CHARGE_BATCH);
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

static long negative_dentry_batch_tag(int seq)
{
	return (long)((unsigned long)(unsigned int)seq <<
		      NEGATIVE_DENTRY_BATCH_BITS);
}

/*
 * Keep @batch, sized under the limits of @seq, as the batch a slot taking
 * @memcg anew starts with. Written only when it changes, so that the
 * cache line stays clean while the batch is steady.
 */
static void negative_dentry_keep_batch(struct mem_cgroup *memcg, long batch,
				       int seq)
{
	long kept = negative_dentry_batch_tag(seq) | batch;

	BUILD_BUG_ON(NEGATIVE_DENTRY_UNLIMITED_BATCH >
		     NEGATIVE_DENTRY_BATCH_MASK);
	if (READ_ONCE(memcg->negative_dentry.batch) != kept)
		WRITE_ONCE(memcg->negative_dentry.batch, kept);
}

/*
 * The batch @memcg keeps, if it was sized under the limits of @seq; if a
 * limit was lowered since, 1: it may come from the old limit.
 */
static long negative_dentry_kept_batch(struct mem_cgroup *memcg, int seq)
{
	long kept = READ_ONCE(memcg->negative_dentry.batch);
	long tag = kept & ~NEGATIVE_DENTRY_BATCH_MASK;

	return tag == negative_dentry_batch_tag(seq) ?
	       kept & NEGATIVE_DENTRY_BATCH_MASK : 1;
}

/*
 * Add @nr to @memcg and its ancestors and start reclaim where it is due.
 * Return how many changes of @memcg may wait in a stock, given how close
 * that took it to a limit, and keep that in @memcg, whichever slot a
 * change of it takes next. Set *@behind if the work is behind on one of
 * them: then the task adding the dentries should reclaim too.
 */
static long negative_dentry_charge(struct mem_cgroup *memcg, long nr,
				   bool *behind)
{
	/* Before the limits: pairs with negative_dentry_lower_batches(). */
	int seq = atomic_read_acquire(&negative_dentry_max_seq);
	long limit = MEMCG_NEGATIVE_DENTRY_MAX, headroom = LONG_MAX;
	struct mem_cgroup *pos = memcg;
	long batch;

	for (; pos && !mem_cgroup_is_root(pos); pos = parent_mem_cgroup(pos)) {
		struct memcg_negative_dentry *mnd = &pos->negative_dentry;
		long usage = atomic_long_add_return(nr, &mnd->usage);
		long max = READ_ONCE(mnd->max);

		if (nr > 0 && usage > max) {
			queue_work(negative_dentry_wq, &mnd->reclaim_work);
			*behind |= negative_dentry_behind(usage, max);
		}
		if (max != MEMCG_NEGATIVE_DENTRY_MAX) {
			limit = min(limit, max);
			/*
			 * A cpu's batch of uncharges can reach @usage before
			 * another's batch of the charges they undo: below
			 * zero, there is just the whole limit left.
			 */
			headroom = min(headroom, max - max(usage, 0L));
		}
	}
	/* Without a limit on the path, no need to count cpus. */
	if (limit == MEMCG_NEGATIVE_DENTRY_MAX)
		batch = NEGATIVE_DENTRY_UNLIMITED_BATCH;
	else
		batch = negative_dentry_batch(limit, headroom,
					      num_online_cpus() *
					      MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS);
	negative_dentry_keep_batch(memcg, batch, seq);
	return batch;
}

/*
 * Charge what @slot holds and let its memcg go. The caller owns the
 * stock: it holds its lock, or the stock's cpu is dead.
 */
static void negative_dentry_slot_drain(struct memcg_negative_dentry_slot *slot)
{
	struct mem_cgroup *memcg = slot->memcg;
	long nr = slot->nr;
	bool behind = false;

	if (!memcg)
		return;
	/*
	 * Emptied first: a reader may miss the changes, not count them
	 * twice. They only ever go to the counts, never to another slot.
	 */
	WRITE_ONCE(slot->nr, 0);
	WRITE_ONCE(slot->memcg, NULL);
	/*
	 * Whoever is behind, it is not the task this runs for: the changes
	 * are older than its own.
	 */
	if (nr)
		negative_dentry_charge(memcg, nr, &behind);
	css_put(&memcg->css);
}

/*
 * The slot of @stock that holds @memcg; if none does, NULL, and *@free
 * is a slot that holds nothing, if there is one.
 */
static struct memcg_negative_dentry_slot *
negative_dentry_slot_of(struct memcg_negative_dentry_stock *stock,
			struct mem_cgroup *memcg,
			struct memcg_negative_dentry_slot **free)
{
	int i;

	*free = NULL;
	for (i = 0; i < MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS; i++) {
		if (stock->slot[i].memcg == memcg)
			return &stock->slot[i];
		if (!stock->slot[i].memcg)
			*free = &stock->slot[i];
	}
	return NULL;
}

/*
 * Have @slot, emptied, hold @memcg with the batch the last charge of
 * @memcg sized (1 if that was under other limits than those of @seq), and
 * add the change @nr to it if that batch has room. Return whether the slot took
 * the change; if not, the caller charges it at once. So a memcg whose
 * last charge left it near a limit charges each change, whichever slot it
 * takes: when a change waited in a slot taken anew until the memcg's
 * next, the one that took a cgroup over its limit could wait there for
 * good, uncharged.
 */
static bool negative_dentry_slot_take(struct memcg_negative_dentry_slot *slot,
				      struct mem_cgroup *memcg, int nr,
				      int seq)
{
	/*
	 * A memcg whose last reference is gone is being freed once this
	 * RCU read section ends: charge it, but do not keep it.
	 */
	if (!css_tryget(&memcg->css))
		return false;
	WRITE_ONCE(slot->memcg, memcg);
	/* Before its changes: see negative_dentry_usage(). */
	smp_wmb();
	WRITE_ONCE(slot->batch, negative_dentry_kept_batch(memcg, seq));
	/*
	 * Pairs with the barrier in negative_dentry_lower_batches(), for a
	 * limit lowered since @seq was read: either this sees the sequence
	 * move, or that sees @memcg in the slot, writes its batch after this
	 * did and has this cpu's flush work charge what the slot took.
	 */
	smp_mb();
	return atomic_read(&negative_dentry_max_seq) == seq &&
	       memcg_negative_dentry_slot_add(slot, memcg, nr);
}

/**
 * __memcg_negative_dentry_stock_add - the slow path of a change to a stock
 * @stock: this cpu's stock, locked
 * @memcg: the memcg of the change; the caller holds rcu_read_lock()
 * @nr: the change, which filled the batch of @memcg's slot, or was not
 *	for the memcg of the slot the last change went to
 *
 * A slot then holds @memcg, the one the next change looks at first: with
 * the change added if a slot held @memcg with room in its batch, or if
 * none did and the batch @memcg's last charge sized has room; otherwise
 * after a charge, with nothing waiting. A slot taken anew, an empty one or
 * the next in turn, first charges the memcg it held. (A @memcg being
 * freed is charged at once, and nothing is kept.) If the reclaim work is
 * behind, the task adding negative dentries reclaims too, before it
 * returns to user space. Called from memcg_negative_dentry_stock_add(),
 * under a dentry's d_lock. (The root cgroup, whose dentries come from
 * removed cgroups reparented to it, counts nothing: for it, the slot just
 * empties.)
 */
void
__memcg_negative_dentry_stock_add(struct memcg_negative_dentry_stock *stock,
				  struct mem_cgroup *memcg, int nr)
{
	struct memcg_negative_dentry_slot *slot, *free;
	int seq = atomic_read_acquire(&negative_dentry_max_seq);
	bool behind = false;
	long pending = nr;
	long batch;

	slot = negative_dentry_slot_of(stock, memcg, &free);
	if (slot) {
		stock->last = slot;
		if (memcg_negative_dentry_slot_add(slot, memcg, nr))
			return;
		pending += slot->nr;
	} else {
		slot = free;
		if (!slot) {
			slot = &stock->slot[stock->next];
			stock->next = (stock->next + 1) %
				      MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS;
		}
		stock->last = slot;
		negative_dentry_slot_drain(slot);
		if (negative_dentry_slot_take(slot, memcg, nr, seq))
			return;
	}
	WRITE_ONCE(slot->nr, 0);
	batch = negative_dentry_charge(memcg, pending, &behind);
	WRITE_ONCE(slot->batch, batch);
	/*
	 * Pairs with the barrier in negative_dentry_lower_batches(): either
	 * this sees the sequence move, or that sees @memcg in the slot and
	 * writes its batch after this did. A batch sized from a limit since
	 * lowered does not stay.
	 */
	smp_mb();
	if (atomic_read(&negative_dentry_max_seq) != seq)
		WRITE_ONCE(slot->batch, 1);
	if (behind)
		negative_dentry_task_reclaim_queue();
}

/*
 * Charge what @slot holds and keep its memcg, whose next change then
 * charges and sizes the batch again: the slot is its cpu's for the memcg
 * still, and the next change needs no drain and no css reference. The
 * caller owns the stock.
 */
static void negative_dentry_slot_charge(struct memcg_negative_dentry_slot *slot)
{
	long nr = slot->nr;
	bool behind = false;

	if (!nr)
		return;
	/* Emptied first, as negative_dentry_slot_drain() does. */
	WRITE_ONCE(slot->nr, 0);
	negative_dentry_charge(slot->memcg, nr, &behind);
}

/*
 * On this cpu: charge the slots that hold removed cgroups and let those
 * go, and charge what waits in the slots whose batch lets no change wait,
 * which a lowered limit may have left holding what the old batch let
 * wait (negative_dentry_lower_batches()). Dying, not offline: the drain
 * that queues this may run before offline_css() has cleared CSS_ONLINE,
 * which it does after the ->css_offline() that queued the drain returns.
 */
static void negative_dentry_stock_flush_workfn(struct work_struct *work)
{
	struct memcg_negative_dentry_stock *stock;
	int i;

	local_lock(&memcg_negative_dentry_stock.lock);
	stock = this_cpu_ptr(&memcg_negative_dentry_stock);
	for (i = 0; i < MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS; i++) {
		struct memcg_negative_dentry_slot *slot = &stock->slot[i];

		if (!slot->memcg)
			continue;
		if (css_is_dying(&slot->memcg->css))
			negative_dentry_slot_drain(slot);
		else if (READ_ONCE(slot->batch) == 1)
			negative_dentry_slot_charge(slot);
	}
	local_unlock(&memcg_negative_dentry_stock.lock);
}

/*
 * The memcg slot @i of @cpu's stock holds, if it is @root or a descendant
 * of @root, else NULL. The caller holds rcu_read_lock(): the memcg the
 * slot held stays until it ends, even if the slot lets it go meanwhile.
 */
static struct mem_cgroup *negative_dentry_slot_in(int cpu, int i,
						  struct mem_cgroup *root)
{
	struct memcg_negative_dentry_slot *slot =
		&per_cpu_ptr(&memcg_negative_dentry_stock, cpu)->slot[i];
	struct mem_cgroup *cached = READ_ONCE(slot->memcg);

	return cached && mem_cgroup_is_descendant(cached, root) ? cached : NULL;
}

/*
 * Have the slots that hold @root or a descendant, once @root was removed
 * or its limit lowered, charge what they hold, and those of a removed
 * cgroup let it go: each from its own cpu, as only that cpu may change
 * its stock (a flush queued on a cpu going down runs elsewhere, and the
 * cpu's death charges its stock). Whether a slot holds changes is not
 * read from here: a cpu may be adding one it sized against the old batch,
 * so a cpu whose slot holds the subtree is flushed at each lowering, one
 * work item however many slots and writes. The flushes are not
 * waited for, as drain_all_stock() does not wait for memcg_stock's: what
 * waits in a stock is counted by .current meanwhile, and the charge
 * starts reclaim if it takes a cgroup over its limit. Unlike that, this
 * does not skip isolated cpus: one would keep its changes, or a removed
 * cgroup, until it next changed that cgroup, maybe for good.
 */
static void negative_dentry_flush_stocks(struct mem_cgroup *root)
{
	int cpu, i;

	rcu_read_lock();
	for_each_online_cpu(cpu) {
		struct memcg_negative_dentry_stock *stock =
			per_cpu_ptr(&memcg_negative_dentry_stock, cpu);

		for (i = 0; i < MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS; i++) {
			if (negative_dentry_slot_in(cpu, i, root)) {
				queue_work_on(cpu, system_wq, &stock->flush_work);
				break;
			}
		}
	}
	rcu_read_unlock();
}

/*
 * What waits in slot @i of another cpu's stock for a memcg of @root's
 * subtree: nothing if the slot holds none, or let the one it held go
 * meanwhile, as the changes read could be another memcg's. (A slot takes
 * a memcg before it adds changes of it, with a write barrier.)
 */
static long negative_dentry_slot_nr(int cpu, int i, struct mem_cgroup *root)
{
	struct memcg_negative_dentry_slot *slot =
		&per_cpu_ptr(&memcg_negative_dentry_stock, cpu)->slot[i];
	struct mem_cgroup *memcg = negative_dentry_slot_in(cpu, i, root);
	long nr;

	if (!memcg)
		return 0;
	/* The memcg before its changes: pairs with the charge's smp_wmb(). */
	smp_rmb();
	nr = READ_ONCE(slot->nr);
	/* The changes before the memcg again: were they that memcg's? */
	smp_rmb();
	return READ_ONCE(slot->memcg) == memcg ? nr : 0;
}

/*
 * The negative dentries of @memcg's subtree: its count and what waits in
 * the slots of its descendants. The slots are read while their changes
 * move into the counts: a batch that moves after @usage was read and
 * before its slot is read is missed, so a count can briefly read short by
 * up to one batch per slot, or below zero near zero; none is counted
 * twice (changes leave a slot for the counts only), nor one of a cgroup
 * outside the subtree (negative_dentry_slot_nr()).
 */
static long negative_dentry_usage(struct mem_cgroup *memcg)
{
	long usage = atomic_long_read(&memcg->negative_dentry.usage);
	int cpu, i;

	/*
	 * The count before the slots: a drain empties its slot before it
	 * adds to the counts, with a fully ordered add.
	 */
	smp_rmb();
	/* A dead cpu's stock is empty: negative_dentry_cpu_dead(). */
	rcu_read_lock();
	for_each_cpu_or(cpu, cpu_online_mask, cpu_dying_mask)
		for (i = 0; i < MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS; i++)
			usage += negative_dentry_slot_nr(cpu, i, memcg);
	rcu_read_unlock();
	return max(usage, 0L);
}

/*
 * A cpu is dead: charge what its stock held, so that the readers need look
 * at the cpus online alone, however many are possible (cloud guests boot
 * with hundreds, and a few online), and let its memcg go.
 */
static int negative_dentry_cpu_dead(unsigned int cpu)
{
	struct memcg_negative_dentry_stock *stock =
		per_cpu_ptr(&memcg_negative_dentry_stock, cpu);
	int i;

	for (i = 0; i < MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS; i++)
		negative_dentry_slot_drain(&stock->slot[i]);
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

		if (max != MEMCG_NEGATIVE_DENTRY_MAX &&
		    atomic_long_read(&mnd->usage) >=
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
 * The negative dentries on @memcg's own lists: its count less those of its
 * online children, which have lists of their own. A removed child's
 * dentries are on @memcg's lists, and in its count. The caller holds
 * rcu_read_lock().
 */
static long negative_dentry_own(struct mem_cgroup *memcg)
{
	long own = atomic_long_read(&memcg->negative_dentry.usage);
	struct cgroup_subsys_state *css;

	css_for_each_child(css, &memcg->css) {
		struct mem_cgroup *child = mem_cgroup_from_css(css);

		if (css->flags & CSS_ONLINE)
			own -= atomic_long_read(&child->negative_dentry.usage);
	}
	return max(own, 0L);
}

/*
 * How the reclaim of a subtree down to a target shares out: each memcg of
 * the subtree with negative dentries on its own lists may keep an equal
 * part of the target, its fair share, and gives up dentries in proportion
 * to what it holds above it. So a cgroup under its share keeps what it has
 * while a sibling floods past their parent's limit, and the flooder's
 * reclaim takes its own.
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

/*
 * What a memcg with @own negative dentries on its own lists gives up of
 * @sh->want: its part of what all hold above their shares, never more than
 * it holds above its own.
 */
static long negative_dentry_quota_of(long own,
				     const struct negative_dentry_shares *sh)
{
	long above = own - sh->fair;

	if (above <= 0 || sh->above <= 0)
		return 0;
	return min(above, DIV_ROUND_UP(sh->want * above, sh->above));
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
 * One round over the lists of @root's online memcgs, in the order of
 * mem_cgroup_iter(), each reclaimed of its quota. With @mnd, the reclaim
 * work's own state, the round goes on from where the work's last run
 * stopped in it: the memcgs before that one are done, and that one's lists
 * resume at its cursor. Where this run stops is kept for the next. Return
 * true if the reclaim is done or out of budget, false at the end of the
 * round.
 */
static bool negative_dentry_reclaim_round(struct mem_cgroup *root,
					  struct negative_dentry_reclaim *sc,
					  const struct negative_dentry_shares *sh,
					  struct memcg_negative_dentry *mnd)
{
	u64 resume = mnd ? mnd->reclaim_cursor_id : 0;
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
			cursor = mnd->reclaim_cursor;
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
		if (mnd && done) {
			mnd->reclaim_cursor_id = id;
			mnd->reclaim_cursor = cursor;
		}
	}
	if (memcg)
		mem_cgroup_iter_break(root, memcg);
	/* The memcg it stopped in is gone: the round starts again. */
	if (resume) {
		resume = 0;
		goto again;
	}
	if (mnd && !done)
		mnd->reclaim_cursor_id = 0;
	sc->nr_to_reclaim = want;
	sc->cursor = NULL;
	return done;
}

/*
 * Reclaim from the lists of @root and of its online descendants, down to
 * @target, each memcg of the subtree by its share, for a task: a round
 * that takes cold negative dentries only and spares the hot ones; if that
 * fell short, a round that ages the hot ones (a later reclaim takes those
 * not looked up again) while taking what is cold.
 */
static void negative_dentry_reclaim_subtree(struct mem_cgroup *root,
					    struct negative_dentry_reclaim *sc,
					    long target)
{
	struct negative_dentry_shares sh;

	for (sc->age = false; ; sc->age = true) {
		negative_dentry_shares(root, target,
				       sc->nr_to_reclaim - sc->reclaimed, &sh);
		if (negative_dentry_reclaim_round(root, sc, &sh, NULL) ||
		    sc->age)
			return;
	}
}

/*
 * The same for the reclaim work of @root, whose runs go on from where the
 * last one stopped: in the sparing round or the aging one, in a memcg, in
 * its lists. A cycle is a sparing round and an aging one over the whole
 * subtree, in as many runs as the budget takes. Return false if a whole
 * cycle freed nothing: every negative dentry left is in use, looked up
 * again and again, or on a frozen filesystem, and running again would
 * only walk the lists once more.
 */
static bool negative_dentry_reclaim_cycle(struct mem_cgroup *root,
					  struct negative_dentry_reclaim *sc,
					  long target,
					  struct memcg_negative_dentry *mnd)
{
	struct negative_dentry_shares sh;

	for (;;) {
		long reclaimed = sc->reclaimed;
		bool stopped;

		sc->age = mnd->reclaim_aging;
		negative_dentry_shares(root, target,
				       sc->nr_to_reclaim - sc->reclaimed, &sh);
		stopped = negative_dentry_reclaim_round(root, sc, &sh, mnd);
		if (sc->reclaimed > reclaimed)
			mnd->reclaim_freed = true;
		if (stopped)
			return true;
		/* The round is done: the aging one next, or a new cycle. */
		mnd->reclaim_aging = !mnd->reclaim_aging;
		if (mnd->reclaim_aging)
			continue;
		if (!mnd->reclaim_freed)
			return false;
		mnd->reclaim_freed = false;
	}
}

/* At most this many negative dentries a task reclaims on one return. */
#define NEGATIVE_DENTRY_TASK_BATCH	1024L

/*
 * A task scans at most this many dentries for each one it is to reclaim:
 * its lists may be mostly positive or hot negative dentries, and its
 * return to user space must stay short. The reclaim work takes what it
 * leaves.
 */
#define NEGATIVE_DENTRY_TASK_SCAN_RATIO	4

/*
 * On its way back to user space, a task that added negative dentries
 * while the reclaim work was behind takes a bounded batch from each cgroup
 * on its own path still over by more than the margin: the cost then falls
 * on the offender's CPU time and latency (its cpu.max, say), not on
 * everyone's kworkers, as memory.high makes it pay for memory.
 */
static void negative_dentry_task_reclaim(struct callback_head *cb)
{
	struct mem_cgroup *memcg, *iter;

	kfree(cb);
	/*
	 * A task on its way out, killed by the OOM killer say, runs this
	 * after exit_mm(): it would only delay the exit that frees memory.
	 */
	if ((current->flags & PF_EXITING) || fatal_signal_pending(current) ||
	    tsk_is_oom_victim(current))
		return;
	memcg = get_mem_cgroup_from_current();
	for (iter = memcg; iter && !mem_cgroup_is_root(iter);
	     iter = parent_mem_cgroup(iter)) {
		long max = READ_ONCE(iter->negative_dentry.max);
		long usage = atomic_long_read(&iter->negative_dentry.usage);
		long target = negative_dentry_target(max);
		struct negative_dentry_reclaim sc = { };
		struct negative_dentry_shares sh;

		if (max == MEMCG_NEGATIVE_DENTRY_MAX ||
		    !negative_dentry_behind(usage, max))
			continue;
		sc.nr_to_reclaim = min(usage - target, NEGATIVE_DENTRY_TASK_BATCH);
		sc.budget = NEGATIVE_DENTRY_TASK_SCAN_RATIO * sc.nr_to_reclaim;
		/*
		 * The task's own lists first, it is the one adding to them,
		 * but only for its quota: a task of a cgroup under its share
		 * that happens to charge while another floods keeps its own.
		 */
		negative_dentry_shares(iter, target, sc.nr_to_reclaim, &sh);
		sc.memcg = memcg;
		sc.nr_to_reclaim = min(sc.nr_to_reclaim,
				       negative_dentry_quota(memcg, &sh));
		if (sc.nr_to_reclaim)
			negative_dentry_reclaim_memcg(memcg, &sc);
		sc.nr_to_reclaim = sh.want;
		if (sc.reclaimed < sc.nr_to_reclaim && sc.budget > 0)
			negative_dentry_reclaim_subtree(iter, &sc, target);
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
	bool more = false;
	long usage, max;

	if (!css_tryget_online(&memcg->css))
		return;
	/*
	 * Queued only where the count the limit acts on went over it, or
	 * .current did for a write of the limit: an event, even if the task
	 * that took it over has reclaimed back under it by now
	 * (negative_dentry_task_reclaim()), as memory.events counts a charge
	 * over memory.max that reclaim then made room for.
	 */
	if (!mnd->reclaiming) {
		mnd->reclaiming = true;
		negative_dentry_event(memcg);
	}
	max = READ_ONCE(mnd->max);
	usage = negative_dentry_usage(memcg);
	if (usage > max) {
		sc.nr_to_reclaim = usage - negative_dentry_target(max);
		more = negative_dentry_reclaim_cycle(memcg, &sc,
						     negative_dentry_target(max),
						     mnd);
		trace_negative_dentry_reclaim_memcg(cgroup_id(memcg->css.cgroup),
						    false, usage, sc.scanned,
						    sc.reclaimed);
	}
	/*
	 * Out of budget short of the target: run again, from where this run
	 * stopped. Whether it freed any negative dentries on the way does
	 * not matter: a run that spent its budget walking over positive ones
	 * got that much further, and the cgroup may never charge again to
	 * queue another. A cycle that freed nothing ends it, until a charge
	 * over the limit queues the work again.
	 */
	if (more && sc.budget <= 0 && sc.reclaimed < sc.nr_to_reclaim)
		queue_work(negative_dentry_wq, work);
	else
		mnd->reclaiming = false;
	css_put(&memcg->css);
}

/*
 * The cgroup is offline: its dentries are now at the head of its parent's
 * LRU lists, on the superblocks its own shrinker maps still name, and
 * uncharged at the parent. Once they are drained, the stocks that still
 * hold the cgroup charge what they hold to it and its ancestors, whose
 * counts must include the dentries they uncharge, and let it go: a stock
 * would otherwise keep a removed cgroup until its cpu charged another.
 * That waits for an RCU grace period, after which nothing can charge the
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
	negative_dentry_flush_stocks(memcg);
	atomic_long_dec(&negative_dentry_drains);
	css_put(&memcg->css);
}

/**
 * memcg_negative_dentry_init - set up a new memcg: no limit, nothing counted
 * @memcg: the memcg being allocated
 */
void memcg_negative_dentry_init(struct mem_cgroup *memcg)
{
	struct memcg_negative_dentry *mnd = &memcg->negative_dentry;

	/* Its first change charges, and sizes the batch. */
	mnd->batch = 1;
	mnd->max = MEMCG_NEGATIVE_DENTRY_MAX;
	mutex_init(&mnd->max_mutex);
	INIT_WORK(&mnd->reclaim_work, negative_dentry_reclaim_workfn);
	INIT_WORK(&mnd->drain_work, negative_dentry_drain_workfn);
}

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
 * A lower limit on @memcg: the slots that hold @memcg or a descendant
 * let no change wait until their next charge sizes their batch again,
 * and their flush work charges what the old batch let wait, up to
 * NEGATIVE_DENTRY_UNLIMITED_BATCH - 1 changes in each slot. Left there, those
 * would stay out of the count the limit acts on until the slot's cpu next
 * changed the cgroup, while other cpus took it over the limit unseen. The
 * batches that all memcgs keep, not only those of the subtree, were sized
 * under the old sequence: a slot taking one anew starts with 1
 * (negative_dentry_kept_batch()), which costs a charge for each memcg's
 * next slot taken anew, whoever lowered the limit.
 *
 * A charge that read the old limit may write its batch after this, and a
 * slot taken anew may start with a batch sized from it: the full barrier
 * pairs with the ones in __memcg_negative_dentry_stock_add() and
 * negative_dentry_slot_take() so that either they see the sequence move
 * and lower their own batch, or this sees their memcg in the slot and
 * writes after them.
 */
static void negative_dentry_lower_batches(struct mem_cgroup *memcg)
{
	int cpu, i;

	/*
	 * Fully ordered: the new limit before the sequence, for the acquire
	 * that reads it, and the sequence before the stocks are read.
	 */
	atomic_inc_return(&negative_dentry_max_seq);
	rcu_read_lock();
	for_each_cpu_or(cpu, cpu_online_mask, cpu_dying_mask) {
		for (i = 0; i < MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS; i++) {
			struct memcg_negative_dentry_stock *stock =
				per_cpu_ptr(&memcg_negative_dentry_stock, cpu);

			/* Another memcg's meanwhile: it just charges sooner. */
			if (negative_dentry_slot_in(cpu, i, memcg))
				WRITE_ONCE(stock->slot[i].batch, 1);
		}
	}
	rcu_read_unlock();
	negative_dentry_flush_stocks(memcg);
}

/*
 * Each limit set holds the key once. Lifting the last one turns the key
 * off only after a second without limits (negative_dentry_limits is a
 * deferred key), so that a user who flips a limit in a loop cannot make
 * the kernel patch its text and interrupt every cpu at that rate. The
 * mutex orders a cgroup's increment before its decrement: kernfs does not
 * serialise separate opens of one file, and a delegated, unprivileged
 * user may write it from many. Writers of different cgroups do not wait
 * for each other.
 */
static void negative_dentry_set_max(struct mem_cgroup *memcg, long max)
{
	struct memcg_negative_dentry *mnd = &memcg->negative_dentry;
	bool limited = max != MEMCG_NEGATIVE_DENTRY_MAX;
	bool was_limited;
	long old;

	mutex_lock(&mnd->max_mutex);
	old = mnd->max;
	was_limited = old != MEMCG_NEGATIVE_DENTRY_MAX;
	WRITE_ONCE(mnd->max, max);
	if (max < old)
		negative_dentry_lower_batches(memcg);
	if (!was_limited && limited)
		static_branch_deferred_inc(&negative_dentry_limits);
	else if (was_limited && !limited)
		static_branch_slow_dec_deferred(&negative_dentry_limits);
	mutex_unlock(&mnd->max_mutex);
}

/**
 * memcg_negative_dentry_reset - forget the limit of a memcg
 * @memcg: the memcg whose controller userspace disabled
 */
void memcg_negative_dentry_reset(struct mem_cgroup *memcg)
{
	negative_dentry_set_max(memcg, MEMCG_NEGATIVE_DENTRY_MAX);
}

/**
 * memcg_negative_dentry_free - release a memcg about to be freed
 * @memcg: the memcg; nothing can charge it any more, no stock holds it,
 *	and its files are gone, so nothing writes its limit either
 *
 * The limit's hold on the key goes, and a reclaim work queued before the
 * last charge is cancelled; a memcg that never had a limit takes no lock.
 */
void memcg_negative_dentry_free(struct mem_cgroup *memcg)
{
	struct memcg_negative_dentry *mnd = &memcg->negative_dentry;

	if (mnd->max != MEMCG_NEGATIVE_DENTRY_MAX)
		static_branch_slow_dec_deferred(&negative_dentry_limits);
	cancel_work_sync(&mnd->reclaim_work);
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

/*
 * MEMCG_NEGATIVE_DENTRY_MAX_STR, or a count below MEMCG_NEGATIVE_DENTRY_MAX
 * in decimal digits alone: no sign, no base prefix, nothing after it.
 */
static int negative_dentry_parse_max(const char *buf, long *max)
{
	long val;

	if (!strcmp(buf, MEMCG_NEGATIVE_DENTRY_MAX_STR)) {
		*max = MEMCG_NEGATIVE_DENTRY_MAX;
		return 0;
	}
	if (!isdigit(buf[0]) || kstrtol(buf, 10, &val) ||
	    val == MEMCG_NEGATIVE_DENTRY_MAX)
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
	long max = READ_ONCE(mem_cgroup_from_seq(m)->negative_dentry.max);

	if (max == MEMCG_NEGATIVE_DENTRY_MAX)
		seq_puts(m, MEMCG_NEGATIVE_DENTRY_MAX_STR "\n");
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
	/* Queued only if due: a user may write the limit in a loop. */
	if (negative_dentry_usage(memcg) > max)
		queue_work(negative_dentry_wq, &memcg->negative_dentry.reclaim_work);
	return nbytes;
}

static void __negative_dentry_events_show(struct seq_file *m,
					  atomic_long_t *events)
{
	seq_printf(m, "max %ld\n", atomic_long_read(events));
}

static int negative_dentry_events_show(struct seq_file *m, void *v)
{
	struct mem_cgroup *memcg = mem_cgroup_from_seq(m);

	__negative_dentry_events_show(m, &memcg->negative_dentry.events);
	return 0;
}

static int negative_dentry_events_local_show(struct seq_file *m, void *v)
{
	struct mem_cgroup *memcg = mem_cgroup_from_seq(m);

	__negative_dentry_events_show(m, &memcg->negative_dentry.events_local);
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
	int cpu;

	if (mem_cgroup_disabled())
		return 0;
	/*
	 * Before any memcg but the root, whose dentries count nothing, can
	 * own a dentry: cgroups come from user space.
	 */
	for_each_possible_cpu(cpu) {
		struct memcg_negative_dentry_stock *stock =
			per_cpu_ptr(&memcg_negative_dentry_stock, cpu);

		stock->last = &stock->slot[0];
		INIT_WORK(&stock->flush_work, negative_dentry_stock_flush_workfn);
	}
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
