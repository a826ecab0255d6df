/* SPDX-License-Identifier: GPL-2.0 */
/* Between memcg_negative_dentry.c and memcg_negative_dentry_reclaim.c. */
#ifndef _MM_MEMCG_NEGATIVE_DENTRY_H
#define _MM_MEMCG_NEGATIVE_DENTRY_H

#include <linux/negative_dentry.h>
#include <linux/negative_dentry_lru.h>
#include <linux/workqueue.h>

struct mem_cgroup;

/**
 * struct memcg_negative_dentry_limit - the reclaim of a cgroup's limit
 * @memcg: the cgroup
 * @reclaim_work: brings the count down to the target once it passed the limit
 * @flags: NEGATIVE_DENTRY_RECLAIMING: a pass was started (counted, unless
 *	in a quiet second), and the work has not ended it since
 * @written: bumped by each write of the limit, which re-arms the count
 * @quiet_until: a second after a cycle that freed nothing: passes before
 *	are not counted, while @written is still @quiet_written
 * @quiet_written: @written as the run that set @quiet_until read it first
 * @aging: the next run is in the round that ages hot negative dentries
 * @freed: the cycle so far has freed negative dentries
 * @fair: each memcg's share of the target, as the last round found it; 0
 *	before the first, when a task still charging while far over may
 *	take its own down to the target
 * @cursor_id: the cgroup id of the memcg the last run stopped in, 0 for
 *	the start of the round
 * @cursor: where in that memcg's lists it ran out of budget
 *
 * Only a cgroup that ever had a limit has one.
 */
struct memcg_negative_dentry_limit {
	struct mem_cgroup *memcg;
	struct work_struct reclaim_work;
	unsigned long flags;
	atomic_t written;
	unsigned long quiet_until;
	int quiet_written;
	bool aging;
	bool freed;
	long fair;
	u64 cursor_id;
	struct negative_dentry_cursor cursor;
};

/* memcg_negative_dentry_limit.flags */
#define NEGATIVE_DENTRY_RECLAIMING	0

/* Over by more than the margin: the work has not kept up. */
static inline bool negative_dentry_behind(long usage, long max)
{
	return usage - max > max - negative_dentry_target(max);
}

/* memcg_negative_dentry.c */
long negative_dentry_usage(struct mem_cgroup *memcg);
long negative_dentry_credit_bound(void);
void negative_dentry_drain_stocks(struct mem_cgroup *root, bool offline);
void negative_dentry_max_passed(struct mem_cgroup *memcg);

/* memcg_negative_dentry_reclaim.c */
struct memcg_negative_dentry_limit *
negative_dentry_limit_get(struct mem_cgroup *memcg);
void negative_dentry_limit_free(struct mem_cgroup *memcg);
void negative_dentry_reclaim_queue(struct mem_cgroup *memcg);
void negative_dentry_reclaim_rearm(struct mem_cgroup *memcg);
void negative_dentry_task_reclaim_queue(void);
void negative_dentry_drain_queue(struct mem_cgroup *memcg);

#endif /* _MM_MEMCG_NEGATIVE_DENTRY_H */
