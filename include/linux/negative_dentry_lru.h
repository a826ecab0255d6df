/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reclaim of the negative dentries on a memcg's own dentry LRU lists, for
 * memory.negative_dentry.max (fs/negative_dentry_lru.c).
 */
#ifndef _LINUX_NEGATIVE_DENTRY_LRU_H
#define _LINUX_NEGATIVE_DENTRY_LRU_H

#include <linux/types.h>

struct mem_cgroup;

/**
 * struct negative_dentry_cursor - where a reclaim that ran out of budget
 *	stopped, for the next one to go on from
 * @nid: the node of the list it stopped in
 * @shrinker_id: the id of the shrinker of that list's superblock
 * @left: the dentries of that list still to look at
 * @valid: set when a run stopped out of budget; the lists before it are
 *	done
 */
struct negative_dentry_cursor {
	int nid;
	int shrinker_id;
	unsigned long left;
	bool valid;
};

/**
 * struct negative_dentry_reclaim - a reclaim of negative dentries from LRU lists
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
 * @yielded: a drain stopped for, or skipped a superblock held by, a writer
 *	of its s_umount
 * @cursor: if not NULL, where to start in the lists, and on return where
 *	this reclaim stopped if it ran out of budget
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
	bool yielded;
	struct negative_dentry_cursor *cursor;
};

bool negative_dentry_reclaim_memcg(struct mem_cgroup *map_memcg,
				   struct negative_dentry_reclaim *sc);

#endif /* _LINUX_NEGATIVE_DENTRY_LRU_H */
