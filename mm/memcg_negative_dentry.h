/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the count and limit of memory.negative_dentry.*
 * (memcg_negative_dentry.c) and their reclaim
 * (memcg_negative_dentry_reclaim.c).
 */
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
 * @reclaiming: the count passed the limit, which was counted, and the
 *	work has not ended since
 * @quiet_until: a cycle that freed nothing ended then, plus a second:
 *	passes before that are not counted
 * @aging: the round of the work's cycle its next run is in: sparing hot
 *	negative dentries, or aging them
 * @freed: the cycle so far has freed negative dentries
 * @fair: the share of the target each memcg of the subtree with negative
 *	dentries of its own could keep, as the work's last round found it
 * @cursor_id: the cgroup id of the memcg the work's last run stopped in,
 *	0 for the start of the round
 * @cursor: where in that memcg's lists it ran out of budget
 *
 * Only a cgroup that ever had a limit has one.
 */
struct memcg_negative_dentry_limit {
	struct mem_cgroup *memcg;
	struct work_struct reclaim_work;
	bool reclaiming;
	unsigned long quiet_until;
	bool aging;
	bool freed;
	long fair;
	u64 cursor_id;
	struct negative_dentry_cursor cursor;
};

/*
 * Over by more than the reclaim margin: the work, which reclaims down to
 * negative_dentry_target(), has not kept up with whoever adds to @usage.
 */
static inline bool negative_dentry_behind(long usage, long max)
{
	return usage - max > max - negative_dentry_target(max);
}

/* memcg_negative_dentry.c */
long negative_dentry_usage(struct mem_cgroup *memcg);
void negative_dentry_drain_stocks(struct mem_cgroup *root, bool offline,
				  bool wait);
void negative_dentry_max_passed(struct mem_cgroup *memcg);

/* memcg_negative_dentry_reclaim.c */
struct memcg_negative_dentry_limit *
negative_dentry_limit_get(struct mem_cgroup *memcg);
void negative_dentry_limit_free(struct mem_cgroup *memcg);
void negative_dentry_reclaim_queue(struct mem_cgroup *memcg);
void negative_dentry_reclaim_rearm(struct mem_cgroup *memcg);
void negative_dentry_task_reclaim_queue(void);
void negative_dentry_drain_queue(struct mem_cgroup *memcg);
void negative_dentry_drain_workfn(struct work_struct *work);

#endif /* _MM_MEMCG_NEGATIVE_DENTRY_H */
