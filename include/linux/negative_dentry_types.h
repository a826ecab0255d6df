/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-cgroup state of the negative dentry limits, which struct
 * mem_cgroup embeds. The rest of the interface is in negative_dentry.h.
 */
#ifndef _LINUX_NEGATIVE_DENTRY_TYPES_H
#define _LINUX_NEGATIVE_DENTRY_TYPES_H

#include <linux/atomic.h>
#include <linux/cgroup-defs.h>
#include <linux/types.h>
#include <linux/workqueue_types.h>

#ifdef CONFIG_MEMCG
/**
 * struct memcg_negative_dentry - negative dentries of a memory cgroup
 * @pending: per-cpu changes not yet added to @usage and the ancestors'
 * @batch: how many changes one way may wait per cpu, fewer the closer a
 *	limit
 * @usage: negative dentries of this cgroup and its descendants
 * @max: the limit, LONG_MAX for none
 * @events: times the limit of this cgroup or of a descendant started reclaim
 * @events_local: times the limit of this cgroup started reclaim
 * @reclaimed: negative dentries of the subtree reclaimed by the limits
 * @killed: negative dentries of the subtree killed on their final dput()
 * @reclaiming: the reclaim work is in the middle of bringing @usage down
 * @reclaim_work: brings @usage down to the target when it exceeds @max
 * @drain_work: once the cgroup is removed, reclaims its dentries, then
 *	adds @pending to the ancestors
 * @events_file: memory.negative_dentry.events, for notifications
 * @events_local_file: memory.negative_dentry.events.local, for notifications
 */
struct memcg_negative_dentry {
	long __percpu *pending;
	long batch;
	atomic_long_t usage;
	long max;
	atomic_long_t events;
	atomic_long_t events_local;
	atomic_long_t reclaimed;
	atomic_long_t killed;
	bool reclaiming;
	struct work_struct reclaim_work;
	struct work_struct drain_work;
	struct cgroup_file events_file;
	struct cgroup_file events_local_file;
};

#endif /* CONFIG_MEMCG */

#endif /* _LINUX_NEGATIVE_DENTRY_TYPES_H */
