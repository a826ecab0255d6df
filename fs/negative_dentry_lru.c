// SPDX-License-Identifier: GPL-2.0
/*
 * Negative dentry reclaim from a memcg's own dentry LRU lists, for
 * memory.negative_dentry.max (mm/memcg_negative_dentry.c).
 *
 * The lists of a memcg are found through its shrinker maps, which say on
 * which superblocks, and nodes, it has dentries: no superblock it never
 * touched is visited and sb_lock is never taken. Each list is walked
 * oldest first with the verdicts of the per-directory limit, in batches,
 * under the superblock's s_umount taken shared and never on a frozen
 * filesystem (negative_dentry_lock_sb()). The positive dentries walked
 * over keep their places on the list, and each batch goes on after the
 * last of them.
 *
 * No pass relies on where another left anything: several may walk one
 * list at once (a cgroup's work, a task's reclaim, an ancestor's work, a
 * drain), each with its own bookmark, which the others walk over as over
 * any positive dentry. A reclaim pass out of budget rotates the list up
 * to its own bookmark, from the head or just after a removed cgroup's
 * dentries there, a range that is always whole, and its next run resumes
 * by count (struct negative_dentry_cursor). A drain never rotates: the
 * removed cgroup's positive dentries stay at the head of the list, older
 * than the parent's, and a drain pass goes on to the first live dentry, a
 * finite run, yielding only to a writer of s_umount.
 */
#include <linux/fs.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
#include <linux/negative_dentry_lru.h>
#include <linux/sched.h>
#include <linux/shrinker.h>

#include "internal.h"
#include "negative_dentry.h"

static bool negative_dentry_reclaim_done(struct negative_dentry_reclaim *sc)
{
	return sc->reclaimed >= sc->nr_to_reclaim || sc->budget <= 0 ||
	       sc->yielded;
}

/* Whether an earlier run of a reclaim with a cursor finished this list. */
static bool negative_dentry_before_cursor(struct negative_dentry_reclaim *sc,
					  struct shrinker *shrinker)
{
	struct negative_dentry_cursor *cur = sc->cursor;

	/* The shrinkers of a node are walked in the order of their ids. */
	return cur && cur->valid && cur->nid == sc->nid &&
	       shrinker->id < cur->shrinker_id;
}

/*
 * How many dentries of the list of @shrinker, @count long, to look at: if
 * a reclaim with a cursor reached its list or a later one, what the
 * cursor kept for its list, and the cursor is used up.
 */
static unsigned long negative_dentry_resume(struct negative_dentry_reclaim *sc,
					    struct shrinker *shrinker,
					    unsigned long count)
{
	struct negative_dentry_cursor *cur = sc->cursor;

	if (!cur || !cur->valid)
		return count;
	cur->valid = false;
	if (cur->nid == sc->nid && cur->shrinker_id == shrinker->id)
		return min(count, cur->left);
	return count;
}

/*
 * If @shrinker is a superblock's, make one pass, oldest first, over that
 * superblock's dentry LRU list of @arg's cgroup and node. Return false
 * once the pass has reclaimed enough or spent its budget.
 */
static bool negative_dentry_reclaim_shrinker(struct shrinker *shrinker,
					     void *arg)
{
	struct negative_dentry_reclaim *sc = arg;
	struct super_block *sb;
	unsigned long left;
	struct d_negative_bookmark mark = { };
	bool to_tail;

	if (negative_dentry_before_cursor(sc, shrinker))
		return true;
	sb = super_from_shrinker(shrinker);
	if (!sb)
		return true;
	if (!negative_dentry_lock_sb(sb)) {
		/*
		 * A writer holds s_umount: a drain comes back for it, as its
		 * cgroup never charges again. A frozen superblock it leaves.
		 */
		if (sc->drain && READ_ONCE(sb->s_writers.frozen) == SB_UNFROZEN)
			sc->yielded = true;
		return !negative_dentry_reclaim_done(sc);
	}
	sc->stopped = false;
	left = negative_dentry_resume(sc, shrinker,
				      list_lru_count_one(&sb->s_dentry_lru,
							 sc->nid, sc->memcg));
	while (left && !sc->stopped && !negative_dentry_reclaim_done(sc)) {
		unsigned long batch = min3(left, (unsigned long)sc->budget,
					   (unsigned long)NEGATIVE_DENTRY_BATCH);
		long scanned = sc->scanned;

		sc->reclaimed += d_negative_reclaim_lru(sb, sc, batch, &mark);
		scanned = sc->scanned - scanned;
		sc->budget -= scanned;
		left -= min_t(unsigned long, left, scanned);
		if (scanned < batch)
			break;
		/* umount, remount or freeze: the drain runs again after it. */
		if (sc->drain && rwsem_is_contended(&sb->s_umount)) {
			sc->yielded = true;
			break;
		}
		cond_resched();
	}
	/*
	 * The positive dentries walked over keep their places, unless the
	 * budget ran out short of both the quota and the end of the list:
	 * the next run would then find them in its way and get no further,
	 * so they go to the tail, as rotated, for it to get past them.
	 */
	to_tail = !sc->drain && left && sc->budget <= 0 &&
		  sc->reclaimed < sc->nr_to_reclaim;
	d_negative_reclaim_end(sb, sc, &mark, to_tail);
	/*
	 * Out of budget: the next run goes on from here, past the positive
	 * dentries just put at the tail, or from the next list if this one
	 * is done. Starting each run from the first list instead would meet
	 * the same positives every time and never reach what is behind them.
	 */
	if (sc->cursor && sc->budget <= 0)
		*sc->cursor = (struct negative_dentry_cursor) {
			.nid = sc->nid,
			.shrinker_id = shrinker->id,
			.left = to_tail ? left : 0,
			.valid = true,
		};
	up_read(&sb->s_umount);
	return !negative_dentry_reclaim_done(sc);
}

/**
 * negative_dentry_reclaim_memcg - reclaim from a memcg's dentry LRU lists
 * @map_memcg: the memcg whose shrinker maps name the superblocks to visit:
 *	@sc->memcg itself, or, to drain it, a removed child whose dentries
 *	were spliced to the lists of @sc->memcg
 * @sc: the lists, of @sc->memcg on every node, and how to reclaim from
 *	them; @sc->nid is set for each node in turn
 *
 * A first reclaim over a cgroup's lists spares hot negative dentries; only
 * if that fell short should the caller make a second with @sc->age, so
 * that the cold ones of every list go first. Might sleep.
 *
 * Return: true once @sc has reclaimed enough or spent its budget.
 */
bool negative_dentry_reclaim_memcg(struct mem_cgroup *map_memcg,
				   struct negative_dentry_reclaim *sc)
{
	int nid;

	for_each_node(nid) {
		/* The nodes before the cursor's are done. */
		if (sc->cursor && sc->cursor->valid && nid < sc->cursor->nid)
			continue;
		sc->nid = nid;
		shrinker_memcg_walk(map_memcg, nid,
				    negative_dentry_reclaim_shrinker, sc);
		if (negative_dentry_reclaim_done(sc))
			return true;
	}
	return false;
}

#ifdef CONFIG_NEGATIVE_DENTRY_KUNIT_TEST
#include "tests/negative_dentry_lru_kunit.c"
#endif
