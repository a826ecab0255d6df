/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Limits on negative dentries.
 *
 * Two triggers share one reclaim engine: the per-directory limit
 * fs.dentry-dir-max (fs/negative_dentry.c) and the per-cgroup limit
 * memory.negative_dentry.max (mm/memcg_negative_dentry.c). Both reclaim
 * unused negative dentries from a workqueue, oldest and coldest first,
 * and kill new ones on their final dput() when a runaway outpaces
 * reclaim. The building blocks that touch the dcache are in fs/dcache.c.
 */
#ifndef _LINUX_NEGATIVE_DENTRY_H
#define _LINUX_NEGATIVE_DENTRY_H

#include <linux/jump_label_ratelimit.h>
#include <linux/limits.h>
#include <linux/memcontrol.h>
#include <linux/minmax.h>
#include <linux/negative_dentry_types.h>
#include <linux/types.h>

struct dentry;
struct mem_cgroup;
struct seq_buf;
struct shrinker;

/*
 * Enabled while any negative dentry limit is set, and for a second after
 * the last one is lifted: so that flipping a limit in a loop, which a
 * delegated user may do, cannot patch kernel text at the loop's rate.
 */
extern struct static_key_false_deferred negative_dentry_limits;

extern struct workqueue_struct *negative_dentry_wq;

/* Dentries a reclaim run may look at before it yields. */
#define NEGATIVE_DENTRY_RUN_BUDGET	65536L

/* Reclaim stops at the limit less an eighth, so it does not run constantly. */
static inline long negative_dentry_target(long limit)
{
	return limit - limit / 8;
}

/*
 * Past this many negative dentries, a new one is killed on its final dput()
 * instead of being kept: reclaim cannot keep up with whoever makes them.
 */
static inline long negative_dentry_kill_threshold(long limit)
{
	if (limit > LONG_MAX / 4)
		return LONG_MAX;
	return max(4 * limit, 10000L);
}

/**
 * struct negative_dentry_reclaim - one reclaim pass over a cgroup's dentries
 * @memcg: the cgroup whose dentry LRU lists are walked
 * @nid: the node of the lists
 * @drain: take the negative dentries of removed cgroups only, from the
 *	head of the lists their dentries were spliced to
 * @age: age hot negative dentries, rather than just spare them: reclaim
 *	does so only when a pass sparing them fell short
 * @nr_to_reclaim: stop after reclaiming this many
 * @budget: stop after looking at this many
 * @scanned: dentries looked at
 * @reclaimed: negative dentries reclaimed
 * @stopped: a drain found the first dentry of a live cgroup
 */
struct negative_dentry_reclaim {
	struct mem_cgroup *memcg;
	int nid;
	bool drain;
	bool age;
	long nr_to_reclaim;
	long budget;
	long scanned;
	long reclaimed;
	bool stopped;
};

bool negative_dentry_reclaim_shrinker(struct shrinker *shrinker, void *arg);

#ifdef CONFIG_MEMCG
void __memcg_negative_dentry_charge(struct mem_cgroup *memcg);

/**
 * memcg_negative_dentry_account - a dentry started or stopped counting
 * @memcg: the memcg of the dentry's slab object, or NULL; the caller holds
 *	rcu_read_lock() and the dentry's d_lock
 * @nr: 1 when it became a negative dentry on the LRU, -1 when it stopped
 *
 * The caller looks @memcg up: fs/dcache.c needs it for the LRU list too,
 * and looking it up once is what keeps this cheap. Inline, as every
 * negative dentry created or freed comes here: a per-cpu add, and only
 * once a batch of changes is waiting, a call.
 */
static inline void memcg_negative_dentry_account(struct mem_cgroup *memcg,
						 int nr)
{
	struct memcg_negative_dentry *nd;
	long pending;

	if (!memcg)
		return;
	nd = &memcg->negative_dentry;
	pending = this_cpu_add_return(*nd->pending, nr);
	/*
	 * Changes one way fill the batch: those the other way could only
	 * have emptied it. (@nr is a constant where this is inlined.)
	 */
	if (unlikely(nr > 0 ? pending >= READ_ONCE(nd->batch) :
			      pending <= -READ_ONCE(nd->batch)))
		__memcg_negative_dentry_charge(memcg);
}

bool memcg_negative_dentry_over_kill(struct mem_cgroup *memcg);
void memcg_negative_dentry_event(struct dentry *dentry, bool killed);
bool mem_cgroup_slab_obj_reparented(void *p);
int memcg_negative_dentry_init(struct mem_cgroup *memcg);
void memcg_negative_dentry_offline(struct mem_cgroup *memcg);
void memcg_negative_dentry_reset(struct mem_cgroup *memcg);
void memcg_negative_dentry_free(struct mem_cgroup *memcg);
void memcg_negative_dentry_exit(struct mem_cgroup *memcg);
void memcg_negative_dentry_stat(struct mem_cgroup *memcg, struct seq_buf *s);
#else
static inline void memcg_negative_dentry_account(struct mem_cgroup *memcg,
						 int nr)
{
}

static inline bool memcg_negative_dentry_over_kill(struct mem_cgroup *memcg)
{
	return false;
}

static inline void memcg_negative_dentry_event(struct dentry *dentry,
					       bool killed)
{
}

static inline bool mem_cgroup_slab_obj_reparented(void *p)
{
	return false;
}
#endif /* CONFIG_MEMCG */

#endif /* _LINUX_NEGATIVE_DENTRY_H */
