/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The charge of negative dentries to their memory cgroup, for
 * memory.negative_dentry.* (mm/memcg_negative_dentry.c). Only fs/dcache.c
 * and mm/ include this.
 */
#ifndef _LINUX_MEMCG_NEGATIVE_DENTRY_H
#define _LINUX_MEMCG_NEGATIVE_DENTRY_H

#include <linux/local_lock.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>

struct mem_cgroup;

#ifdef CONFIG_MEMCG_NEGATIVE_DENTRY
/* A stock charges this many negative dentries ahead for each memcg it holds. */
#define MEMCG_NEGATIVE_DENTRY_CHARGE_BATCH	32

/* The memcgs a cpu's stock holds credit for at once. */
#define MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS	4

/**
 * struct memcg_negative_dentry_slot - a stock's credit for one memcg
 * @memcg: the memcg, with a css reference, or NULL
 * @credit: negative dentries charged to @memcg and its ancestors, under
 *	their limits, that no dentry uses yet
 */
struct memcg_negative_dentry_slot {
	struct mem_cgroup *memcg;
	int credit;
};

/**
 * struct memcg_negative_dentry_stock - a cpu's charges made ahead
 * @lock: keeps the other tasks of the cpu out
 * @last: the slot the last charge used, which the next looks at first
 * @slot: the credit of a few memcgs
 * @next: the slot the next memcg takes, once all are taken
 * @drain_work: gives back the credit of every slot, and lets the memcgs go
 *
 * As memcg_stock for pages: counters are charged a batch at a time, so
 * they never read below the count, and a cpu going back and forth between
 * a few cgroups charges once per batch.
 */
struct memcg_negative_dentry_stock {
	local_lock_t lock;
	struct memcg_negative_dentry_slot *last;
	struct memcg_negative_dentry_slot slot[MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS];
	unsigned int next;
	struct work_struct drain_work;
};

DECLARE_PER_CPU(struct memcg_negative_dentry_stock,
		memcg_negative_dentry_stock);

void __memcg_negative_dentry_charge(struct memcg_negative_dentry_stock *stock,
				    struct mem_cgroup *memcg, int nr);

/**
 * memcg_negative_dentry_charge - charge or uncharge a negative dentry
 * @memcg: the memcg of the dentry's slab object, or NULL; the caller holds
 *	rcu_read_lock() and the dentry's d_lock
 * @nr: 1 when it became a negative dentry on the LRU, -1 when it stopped
 *
 * Inline, as every negative dentry created comes here: a charge takes the
 * credit of the slot the last one used. A slot without credit, or of
 * another memcg, and an uncharge make a call; an uncharge goes to the
 * counters, as memcg's page uncharges do, so that credit is only ever
 * what a charge under the limits took ahead.
 */
static inline void memcg_negative_dentry_charge(struct mem_cgroup *memcg,
						int nr)
{
	struct memcg_negative_dentry_stock *stock;
	struct memcg_negative_dentry_slot *slot;

	if (!memcg)
		return;
	local_lock(&memcg_negative_dentry_stock.lock);
	stock = this_cpu_ptr(&memcg_negative_dentry_stock);
	slot = stock->last;
	/* @nr is a constant where this is inlined. */
	if (nr > 0 && slot->memcg == memcg && slot->credit > 0)
		WRITE_ONCE(slot->credit, slot->credit - 1);
	else
		__memcg_negative_dentry_charge(stock, memcg, nr);
	local_unlock(&memcg_negative_dentry_stock.lock);
}

bool memcg_negative_dentry_over_kill(struct mem_cgroup *memcg);
void memcg_negative_dentry_evicted(struct mem_cgroup *memcg, bool killed);
#else
static inline void memcg_negative_dentry_charge(struct mem_cgroup *memcg,
						int nr)
{
}

static inline bool memcg_negative_dentry_over_kill(struct mem_cgroup *memcg)
{
	return false;
}

static inline void memcg_negative_dentry_evicted(struct mem_cgroup *memcg,
						 bool killed)
{
}
#endif /* CONFIG_MEMCG_NEGATIVE_DENTRY */

#endif /* _LINUX_MEMCG_NEGATIVE_DENTRY_H */
