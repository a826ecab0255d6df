/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Negative dentry limits inside fs/: the hooks fs/dcache.c calls, and the
 * per-directory count. The dcache helpers they use are in fs/internal.h.
 */
#ifndef _FS_NEGATIVE_DENTRY_H
#define _FS_NEGATIVE_DENTRY_H

#include <linux/atomic.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/negative_dentry.h>

#ifdef CONFIG_NEGATIVE_DENTRY_LIMITS
/*
 * @dir's negative children on the LRU (d_negative_child_account()). The caller
 * keeps @dir positive by a child's d_lock or a reference (d_delete() only
 * unhashes).
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
 * @dentry, locked and on the LRU, just turned negative: check its directory,
 * unless unhashed (fs.dentry-negative) and so going at its final dput().
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
