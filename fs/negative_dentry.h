/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Negative dentry limits inside fs/: what fs/dcache.c asks of the policy in
 * fs/negative_dentry.c, and the dcache building blocks that policy uses.
 */
#ifndef _FS_NEGATIVE_DENTRY_H
#define _FS_NEGATIVE_DENTRY_H

#include <linux/dcache.h>
#include <linux/negative_dentry.h>
#include <linux/unaligned.h>

/*
 * A directory keeps an estimate of how many of its children are positive
 * in the four bytes of d_iname just before the NUL at its end, which must
 * stay zero for lockless name comparison. The bytes are free while the
 * name is external or short enough to end before them; otherwise there is
 * no estimate and every child counts as negative, until the directory
 * count moves the name out of line (d_npositive_make_room()).
 */
#define D_NPOSITIVE_OFFSET	(DNAME_INLINE_LEN - 1 - sizeof(u32))

static inline bool d_has_npositive(const struct dentry *dentry)
{
	return dentry->d_name.name != dentry->d_iname ||
	       dentry->d_name.len < D_NPOSITIVE_OFFSET;
}

static inline unsigned int d_npositive(const struct dentry *dentry)
{
	if (!d_has_npositive(dentry))
		return 0;
	return get_unaligned((const u32 *)&dentry->d_iname[D_NPOSITIVE_OFFSET]);
}

/*
 * For a new dentry, before its name is copied in: an estimate of 0, which a
 * name long enough to reach it overwrites, where d_has_npositive() is false.
 */
static inline void d_init_npositive(struct dentry *dentry)
{
	put_unaligned(0, (u32 *)&dentry->d_iname[D_NPOSITIVE_OFFSET]);
}

/* Caller holds @dentry->d_lock, or nobody else can see @dentry yet. */
static inline void d_set_npositive(struct dentry *dentry, unsigned int n)
{
	if (d_has_npositive(dentry))
		put_unaligned(n, (u32 *)&dentry->d_iname[D_NPOSITIVE_OFFSET]);
}

/* The negative dentries of @dir: its children less the positive estimate. */
static inline unsigned int d_nnegative_estimate(const struct dentry *dir)
{
	unsigned int children = READ_ONCE(dir->d_nchildren);
	unsigned int positive = d_npositive(dir);

	return children > positive ? children - positive : 0;
}

/* fs/negative_dentry.c */
void negative_dentry_hit(struct dentry *dentry);
bool negative_dentry_kill(struct dentry *dentry, struct mem_cgroup *memcg);
void negative_dentry_unlinked(struct dentry *dentry);
void negative_dentry_queue_dir(struct dentry *dir);
void negative_dentry_quiesce(struct super_block *sb);
void negative_dentry_reclaimed(struct dentry *dentry);

/*
 * A lookup under RCU found @dentry negative. No dput() follows, which would
 * mark a dentry found again on the LRU referenced: mark it here, so that
 * reclaim gives a negative dentry looked up again its second chance. Only
 * while a limit is set, and only once between two aging passes of reclaim.
 */
static inline void d_negative_hit(struct dentry *dentry)
{
	if (static_branch_unlikely(&negative_dentry_limits.key) &&
	    !(READ_ONCE(dentry->d_flags) & DCACHE_REFERENCED))
		negative_dentry_hit(dentry);
}

/*
 * Should the final dput() of @dentry, negative and about to join the LRU of
 * @memcg, kill it instead? Only when a limit is set and far exceeded; a
 * directory over its limit is queued for reclaim either way.
 */
static inline bool negative_dentry_should_kill(struct dentry *dentry,
					       struct mem_cgroup *memcg)
{
	return static_branch_unlikely(&negative_dentry_limits.key) &&
	       d_is_negative(dentry) && negative_dentry_kill(dentry, memcg);
}

/*
 * @dentry, locked and on the LRU, just turned negative: its directory may
 * now exceed fs.dentry-dir-max. Not if it is unhashed (d_delete() under
 * fs.dentry-negative): it cannot be kept, and goes at its final dput().
 */
static inline void d_negative_unlinked(struct dentry *dentry)
{
	if (static_branch_unlikely(&negative_dentry_limits.key) &&
	    !d_unhashed(dentry))
		negative_dentry_unlinked(dentry);
}

/* fs/dcache.c */

/**
 * struct d_negative_scan - a scan of some children of a directory
 * @nr_to_scan: look at no more children than this
 * @nr_to_reclaim: reclaim up to this many cold negative children; 0 only
 *	counts
 * @age: age the hot negative children (see d_negative_classify()) rather
 *	than just spare them
 * @scanned: children looked at
 * @positives: positive children among them
 * @negatives: negative children among them
 * @end: the scan reached the last child
 */
struct d_negative_scan {
	long nr_to_scan;
	long nr_to_reclaim;
	bool age;
	long scanned;
	long positives;
	long negatives;
	bool end;
};

long d_negative_scan_dir(struct dentry *dir, struct dentry *cursor,
			 struct d_negative_scan *scan);
bool d_npositive_make_room(struct dentry *dir);
long d_negative_reclaim_lru(struct super_block *sb,
			    struct negative_dentry_reclaim *nr,
			    unsigned long nr_to_walk, struct list_head *parked);
void d_negative_putback(struct list_head *parked, bool to_tail);

#endif /* _FS_NEGATIVE_DENTRY_H */
