/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the negative dentry limits fs.dentry-dir-max (fs/negative_dentry.c)
 * and memory.negative_dentry.max (mm/memcg_negative_dentry.c) share. Both
 * reclaim unused negative dentries coldest first from a workqueue, and kill
 * a new one at its final dput() when a runaway outpaces reclaim.
 */
#ifndef _LINUX_NEGATIVE_DENTRY_H
#define _LINUX_NEGATIVE_DENTRY_H

#include <linux/jump_label_ratelimit.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>

struct dentry;
struct workqueue_struct;

#ifdef CONFIG_NEGATIVE_DENTRY_LIMITS
/*
 * On while any limit is set and for a second after, so that a delegated user
 * flipping a limit in a loop cannot patch kernel text at the loop's rate.
 */
extern struct static_key_false_deferred negative_dentry_limits;

static inline bool negative_dentry_limits_enabled(void)
{
	return static_branch_unlikely(&negative_dentry_limits.key);
}

extern struct workqueue_struct *negative_dentry_wq;
bool negative_dentry_queue_work(struct work_struct *work);
void negative_dentry_work_done(void);

/* Dentries a reclaim run may look at before it yields. */
#define NEGATIVE_DENTRY_RUN_BUDGET	65536L

/* Reclaim stops at the limit less an eighth, so it does not run constantly. */
static inline long negative_dentry_target(long limit)
{
	return limit - limit / 8;
}

/*
 * Past negative_dentry_kill_threshold(), reclaim cannot keep up: the final
 * dput() of a new negative dentry kills it. The factor lets a workload that
 * reclaim trims often keep what it looks up again; the minimum gives reclaim
 * under a small limit a few thousand lookups' time to catch up.
 */
#define NEGATIVE_DENTRY_KILL_FACTOR	4
#define NEGATIVE_DENTRY_KILL_MIN	10000L

/*
 * The product fits: limits are at most INT_MAX or PAGE_COUNTER_MAX and need
 * 64BIT (asserted in mm/memcg_negative_dentry.c).
 */
static inline long negative_dentry_kill_threshold(long limit)
{
	return max(NEGATIVE_DENTRY_KILL_FACTOR * limit, NEGATIVE_DENTRY_KILL_MIN);
}

int negative_dentry_parse_limit(char *buf, size_t len, unsigned long most,
				const char *none, unsigned long *limit);
struct dentry *negative_dentry_debugfs_dir(void);
#else
static inline bool negative_dentry_limits_enabled(void)
{
	return false;
}
#endif /* CONFIG_NEGATIVE_DENTRY_LIMITS */

#endif /* _LINUX_NEGATIVE_DENTRY_H */
