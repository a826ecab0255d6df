// SPDX-License-Identifier: GPL-2.0
/*
 * Negative dentry reclaim from a memcg's own dentry LRU lists, for
 * memory.negative_dentry.max (mm/memcg_negative_dentry.c).
 *
 * The memcg's shrinker maps name only its superblocks and nodes, so sb_lock is
 * never taken. Each list is walked oldest first, in batches, with the
 * per-directory limit's verdicts, under s_umount (negative_dentry_lock_sb()).
 *
 * Passes may walk one list at once (a cgroup's work, a task's reclaim, an
 * ancestor's work, a drain), each after its own bookmark, which the others
 * pass like any positive dentry; positives keep their places. A reclaim pass
 * out of budget rotates the list up to its bookmark, from the head or just
 * after a removed cgroup's dentries (always a whole range), and its next run
 * resumes by count (struct negative_dentry_cursor). A drain never rotates:
 * the removed cgroup's positives stay at the head, older than the parent's,
 * and a drain goes on to the first live dentry, a finite run, yielding only
 * to a writer of s_umount.
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

/* How many of @shrinker's @count dentries to scan; uses up a valid cursor. */
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

/* Out of budget: the next run resumes at @shrinker's list, @left of it. */
static void negative_dentry_keep_cursor(struct negative_dentry_reclaim *sc,
					struct shrinker *shrinker,
					unsigned long left)
{
	if (sc->cursor && sc->budget <= 0)
		*sc->cursor = (struct negative_dentry_cursor) {
			.nid = sc->nid,
			.shrinker_id = shrinker->id,
			.left = left,
			.valid = true,
		};
}

/* Pass over @arg's list on @shrinker's superblock; false once @arg is done. */
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
	/*
	 * An empty list costs a unit of budget and not s_umount, which every
	 * cgroup's reclaim takes: a task's reclaim is bounded however many
	 * superblocks its memcg ever had dentries on. The shrinker's reference
	 * keeps @sb, as for super_cache_count().
	 */
	if (!list_lru_count_one(&sb->s_dentry_lru, sc->nid, sc->memcg)) {
		sc->budget--;
		negative_dentry_keep_cursor(sc, shrinker, 0);
		return !negative_dentry_reclaim_done(sc);
	}
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
	 * If the budget ran out short of both the quota and the end of the
	 * list, the positives walked over go to the tail, as rotated: the next
	 * run would otherwise find them in its way and get no further.
	 */
	to_tail = !sc->drain && left && sc->budget <= 0 &&
		  sc->reclaimed < sc->nr_to_reclaim;
	d_negative_reclaim_end(sb, sc, &mark, to_tail);
	/*
	 * Out of budget: the next run resumes here, past those positives, or
	 * at the next list, rather than meet them at the first list each time.
	 */
	negative_dentry_keep_cursor(sc, shrinker, to_tail ? left : 0);
	up_read(&sb->s_umount);
	return !negative_dentry_reclaim_done(sc);
}

/**
 * negative_dentry_reclaim_memcg - reclaim from a memcg's dentry LRU lists
 * @map_memcg: whose shrinker maps name the superblocks: @sc->memcg, or, to
 *	drain, a removed child whose dentries went to @sc->memcg's lists
 * @sc: the reclaim, over @sc->memcg's lists on every node (sets @sc->nid)
 *
 * Set @sc->age only after a reclaim without it fell short, so that the cold
 * negative dentries of every list go first. Might sleep.
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
