/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events of memory.negative_dentry.max, with those of
 * trace/events/negative_dentry.h.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM negative_dentry

#if !defined(_TRACE_NEGATIVE_DENTRY_MEMCG_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_NEGATIVE_DENTRY_MEMCG_H

#include <linux/tracepoint.h>

/* A run of memory.negative_dentry.max reclaim, or of a removed cgroup's drain. */
TRACE_EVENT(negative_dentry_reclaim_memcg,
	    TP_PROTO(u64 cgroup, bool drain, long usage, long scanned,
		     long reclaimed),
	    TP_ARGS(cgroup, drain, usage, scanned, reclaimed),
	    TP_STRUCT__entry(__field(u64, cgroup)
			     __field(bool, drain)
			     __field(long, usage)
			     __field(long, scanned)
			     __field(long, reclaimed)),
	    TP_fast_assign(__entry->cgroup = cgroup;
			   __entry->drain = drain;
			   __entry->usage = usage;
			   __entry->scanned = scanned;
			   __entry->reclaimed = reclaimed;),
	    TP_printk("cgroup %llu %s usage %ld scanned %ld reclaimed %ld",
		      __entry->cgroup, __entry->drain ? "drain" : "limit",
		      __entry->usage, __entry->scanned, __entry->reclaimed)
);

/*
 * A task that took a cgroup far over its limit, the reclaim work being
 * behind, reclaimed from it on its way back to user space.
 */
TRACE_EVENT(negative_dentry_reclaim_task,
	    TP_PROTO(u64 cgroup, long usage, long scanned, long reclaimed),
	    TP_ARGS(cgroup, usage, scanned, reclaimed),
	    TP_STRUCT__entry(__field(u64, cgroup)
			     __field(long, usage)
			     __field(long, scanned)
			     __field(long, reclaimed)),
	    TP_fast_assign(__entry->cgroup = cgroup;
			   __entry->usage = usage;
			   __entry->scanned = scanned;
			   __entry->reclaimed = reclaimed;),
	    TP_printk("cgroup %llu usage %ld scanned %ld reclaimed %ld",
		      __entry->cgroup, __entry->usage, __entry->scanned,
		      __entry->reclaimed)
);

#endif /* _TRACE_NEGATIVE_DENTRY_MEMCG_H */

/* The system's other events are in negative_dentry.h: name this file. */
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE negative_dentry_memcg

/* This part must be outside protection */
#include <trace/define_trace.h>
