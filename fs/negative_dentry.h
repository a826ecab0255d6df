/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Negative dentry limits inside fs/: the hooks fs/dcache.c calls, and the
 * count of a directory's negative children that the per-directory limit
 * reads. The dcache building blocks the limits use are declared in
 * fs/internal.h.
 */
#ifndef _FS_NEGATIVE_DENTRY_H
#define _FS_NEGATIVE_DENTRY_H

#include <linux/atomic.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/negative_dentry.h>

#ifdef CONFIG_NEGATIVE_DENTRY_LIMITS
/*
 * The children of @dir that are negative and on the LRU, as its inode
 * counts them (d_negative_child_account()). The caller keeps @dir
 * positive: it holds the d_lock of a child of @dir, or a reference to
 * @dir, which d_delete() then only unhashes.
 */
static inline long d_negative_children(const struct dentry *dir)
{
	return max(atomic_read(&dir->d_inode->i_negative_children), 0);
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
