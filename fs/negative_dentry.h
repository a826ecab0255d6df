/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Negative dentry limits inside fs/: the hooks fs/dcache.c calls, and the
 * estimate of a directory's positive children that the per-directory limit
 * keeps in the directory's name. The dcache building blocks the limits use
 * are declared in fs/internal.h.
 */
#ifndef _FS_NEGATIVE_DENTRY_H
#define _FS_NEGATIVE_DENTRY_H

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/negative_dentry.h>
#include <linux/unaligned.h>

#ifdef CONFIG_NEGATIVE_DENTRY_LIMITS
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

/*
 * The negative dentries of @dir: its children less the positive estimate.
 * The estimate dates from the last count of the children, which may since
 * have gone: then none is negative as far as the limit can tell.
 */
static inline unsigned int d_nnegative_estimate(const struct dentry *dir)
{
	unsigned int children = READ_ONCE(dir->d_nchildren);
	unsigned int positive = d_npositive(dir);

	return children > positive ? children - positive : 0;
}

/* Children or LRU entries reclaim looks at while it holds a lock. */
#define NEGATIVE_DENTRY_BATCH	128

/* fs/negative_dentry.c */
bool negative_dentry_lock_sb(struct super_block *sb);
bool negative_dentry_dir_kill(struct dentry *dentry);
void negative_dentry_killed(struct dentry *dentry, bool dir_limit);
void negative_dentry_reclaimed(struct dentry *dentry);
void negative_dentry_unlinked(struct dentry *dentry);
void negative_dentry_queue_dir(struct dentry *dir);
void negative_dentry_quiesce(struct super_block *sb);

/*
 * @dentry, locked and on the LRU, just turned negative: its directory may
 * now exceed fs.dentry-dir-max. Not if it is unhashed (d_delete() under
 * fs.dentry-negative): it cannot be kept, and goes at its final dput().
 */
static inline void d_negative_unlinked(struct dentry *dentry)
{
	if (negative_dentry_limits_enabled() && !d_unhashed(dentry))
		negative_dentry_unlinked(dentry);
}
#else
static inline void d_init_npositive(struct dentry *dentry)
{
}

static inline void d_set_npositive(struct dentry *dentry, unsigned int n)
{
}

static inline bool negative_dentry_dir_kill(struct dentry *dentry)
{
	return false;
}

static inline void negative_dentry_killed(struct dentry *dentry,
					  bool dir_limit)
{
}

static inline void d_negative_unlinked(struct dentry *dentry)
{
}

static inline void negative_dentry_quiesce(struct super_block *sb)
{
}
#endif /* CONFIG_NEGATIVE_DENTRY_LIMITS */

#endif /* _FS_NEGATIVE_DENTRY_H */
