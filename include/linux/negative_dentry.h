/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Limits on negative dentries: what the per-directory limit
 * (fs.dentry-dir-max, fs/negative_dentry.c) and the per-cgroup limit
 * (memory.negative_dentry.max, mm/memcg_negative_dentry.c) share. Both
 * reclaim unused negative dentries from a workqueue, coldest first, and
 * have the final dput() of a new one kill it when a runaway outpaces
 * reclaim.
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
 * Enabled while any negative dentry limit is set, and for a second after
 * the last one is lifted: so that flipping a limit in a loop, which a
 * delegated user may do, cannot patch kernel text at the loop's rate.
 */
extern struct static_key_false_deferred negative_dentry_limits;

static inline bool negative_dentry_limits_enabled(void)
{
	return static_branch_unlikely(&negative_dentry_limits.key);
}

extern struct workqueue_struct *negative_dentry_wq;

/* Dentries a reclaim run may look at before it yields. */
#define NEGATIVE_DENTRY_RUN_BUDGET	65536L

/* Reclaim stops at the limit less an eighth, so it does not run constantly. */
static inline long negative_dentry_target(long limit)
{
	return limit - limit / 8;
}

/*
 * Past negative_dentry_kill_threshold() of a limit, a new negative dentry
 * is killed on its final dput() instead of being kept: reclaim cannot keep
 * up with whoever makes them. The threshold is this many times the limit,
 * so that a workload reclaim trims often still keeps what it looks up
 * again; and at least NEGATIVE_DENTRY_KILL_MIN, so that a small limit
 * leaves reclaim the time of a few thousand lookups to catch up.
 */
#define NEGATIVE_DENTRY_KILL_FACTOR	4
#define NEGATIVE_DENTRY_KILL_MIN	10000L

/*
 * Limits are at most INT_MAX or PAGE_COUNTER_MAX, and the limits need
 * 64BIT: the product fits (asserted in mm/memcg_negative_dentry.c).
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
