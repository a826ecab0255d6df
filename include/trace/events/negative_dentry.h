/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM negative_dentry

#if !defined(_TRACE_NEGATIVE_DENTRY_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_NEGATIVE_DENTRY_H

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/tracepoint.h>

/* A run of fs.dentry-dir-max reclaim over one directory. */
TRACE_EVENT(negative_dentry_reclaim_dir,
	    TP_PROTO(struct dentry *dir, long scanned, long reclaimed),
	    TP_ARGS(dir, scanned, reclaimed),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(long, scanned)
			     __field(long, reclaimed)),
	    TP_fast_assign(__entry->dev = dir->d_sb->s_dev;
			   __entry->ino = d_really_is_positive(dir) ?
					  d_inode(dir)->i_ino : 0;
			   __entry->scanned = scanned;
			   __entry->reclaimed = reclaimed;),
	    TP_printk("dev %d:%d dir %lu scanned %ld reclaimed %ld",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->scanned, __entry->reclaimed)
);

/*
 * fs.dentry-dir-max reclaim sets how many of a directory's negative
 * children to take: from this count of them, its inode's.
 */
TRACE_EVENT(negative_dentry_dir_count,
	    TP_PROTO(struct dentry *dir, long negatives),
	    TP_ARGS(dir, negatives),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(long, negatives)),
	    TP_fast_assign(__entry->dev = dir->d_sb->s_dev;
			   __entry->ino = d_really_is_positive(dir) ?
					  d_inode(dir)->i_ino : 0;
			   __entry->negatives = negatives;),
	    TP_printk("dev %d:%d dir %lu negative %ld",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->negatives)
);

/* A negative dentry killed on its final dput(), far over a limit. */
TRACE_EVENT(negative_dentry_kill,
	    TP_PROTO(struct dentry *dentry, bool dir_limit),
	    TP_ARGS(dentry, dir_limit),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, dir)
			     __field(bool, dir_limit)),
	    TP_fast_assign(__entry->dev = dentry->d_sb->s_dev;
			   __entry->dir = d_really_is_positive(dentry->d_parent) ?
					  d_inode(dentry->d_parent)->i_ino : 0;
			   __entry->dir_limit = dir_limit;),
	    TP_printk("dev %d:%d dir %lu limit %s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->dir,
		      __entry->dir_limit ? "directory" : "cgroup")
);

#endif /* _TRACE_NEGATIVE_DENTRY_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
