/* SPDX-License-Identifier: GPL-2.0 */
/* memory.negative_dentry.max reclaim from a memcg's own dentry LRU lists. */
#ifndef _LINUX_NEGATIVE_DENTRY_LRU_H
#define _LINUX_NEGATIVE_DENTRY_LRU_H

#include <linux/types.h>

struct mem_cgroup;

/**
 * struct negative_dentry_cursor - where a reclaim out of budget stopped
 * @nid: the node of the list it stopped in
 * @shrinker_id: the id of the shrinker of that list's superblock
 * @left: the dentries of that list still to look at
 * @valid: set when a run stopped out of budget; the lists before it are done
 */
struct negative_dentry_cursor {
	int nid;
	int shrinker_id;
	unsigned long left;
	bool valid;
};

/**
 * struct negative_dentry_reclaim - negative dentry reclaim from LRU lists
 * @memcg: the cgroup whose dentry LRU lists are walked
 * @nid: the node of the lists
 * @drain: take removed cgroups' negative dentries only, from the lists' head
 * @age: also age hot negative dentries, after a pass sparing them fell short
 * @nr_to_reclaim: stop after reclaiming this many
 * @budget: stop after looking at this many
 * @scanned: dentries looked at
 * @reclaimed: negative dentries reclaimed
 * @stopped: a drain found the first dentry of a live cgroup
 * @yielded: a drain stopped for, or skipped a sb held by, an s_umount writer
 * @cursor: if not NULL, where to start, and on return where the budget ran out
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
