// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the LRU order that negative dentry reclaim leaves behind.
 * Reclaim walks a list oldest first and takes negative dentries only; the
 * positive ones it walks over must keep their places, or memory pressure,
 * which walks the same list, would evict the dentries behind them first.
 * The drain of a removed cgroup walks the same way. Only a run that runs
 * out of budget before it gets what it came for rotates them, so that the
 * next run gets further. Built on the filesystem of
 * negative_dentry_evict_kunit.c, in the root memcg's lists.
 */

#define LRU_TEST_MAX	16

/* The dentries of a list in order, oldest first. */
struct lru_test_order {
	struct dentry *dentry[LRU_TEST_MAX];
	int nr;
};

static enum lru_status lru_test_record(struct list_head *item,
				       struct list_lru_one *lru,
				       spinlock_t *lru_lock, void *arg)
{
	struct lru_test_order *order = arg;

	if (order->nr < LRU_TEST_MAX)
		order->dentry[order->nr] = container_of(item, struct dentry,
							d_lru);
	order->nr++;
	return LRU_SKIP;
}

static void lru_test_expect_order(struct kunit *test, struct super_block *sb,
				  struct dentry **want, int nr)
{
	struct lru_test_order order = { };
	int i;

	list_lru_walk(&sb->s_dentry_lru, lru_test_record, &order, ULONG_MAX);
	KUNIT_ASSERT_EQ(test, order.nr, nr);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_PTR_EQ_MSG(test, order.dentry[i], want[i],
					"LRU position %d", i);
}

/* An unused positive (a file) or negative dentry in the root of @sb. */
static struct dentry *lru_test_dentry(struct kunit *test,
				      struct super_block *sb, const char *name,
				      bool positive)
{
	struct dentry *dentry = d_alloc_name(sb->s_root, name);
	struct inode *inode = NULL;

	KUNIT_ASSERT_NOT_NULL(test, dentry);
	if (positive) {
		inode = new_inode(sb);
		KUNIT_ASSERT_NOT_NULL(test, inode);
		inode->i_ino = get_next_ino();
		inode->i_mode = S_IFREG | 0644;
		inode->i_private = &evict_seen;
	}
	d_add(dentry, inode);
	dput(dentry);
	return dentry;
}

/*
 * p0 n0 p1 n1 p2 n2 p3 n3, then q0 .. q3: a reclaim of four that looks at
 * the first eight takes n0 .. n3, and leaves p0 .. p3 ahead of q0 .. q3,
 * as they were. Rotating them to the tail put them behind q0 .. q3.
 */
static void reclaim_keeps_positives_in_place(struct kunit *test)
{
	struct super_block *sb = evict_test_mount(test);
	struct negative_dentry_reclaim nr = {
		.nr_to_reclaim = 4,
		.budget = 8,
	};
	struct dentry *want[8];
	char name[8];
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		want[i] = lru_test_dentry(test, sb, name, true);
		snprintf(name, sizeof(name), "n%d", i);
		lru_test_dentry(test, sb, name, false);
	}
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "q%d", i);
		want[4 + i] = lru_test_dentry(test, sb, name, true);
	}
	KUNIT_ASSERT_EQ(test, list_lru_count(&sb->s_dentry_lru), 12);

	negative_dentry_reclaim_shrinker(sb->s_shrink, &nr);
	KUNIT_EXPECT_EQ(test, nr.reclaimed, 4);
	KUNIT_EXPECT_EQ(test, nr.scanned, 8);
	lru_test_expect_order(test, sb, want, 8);
}

/*
 * Of three positive dentries walked over, the first is looked up and the
 * second unhashed (d_invalidate(), say) while the walk holds them: the
 * first leaves the list until its last dput() adds it at the tail, the
 * second is killed as its dput() would have, the third goes back to the
 * head.
 */
static void putback_follows_what_happened_meanwhile(struct kunit *test)
{
	struct super_block *sb = evict_test_mount(test);
	struct negative_dentry_reclaim nr = { .nr_to_reclaim = 1 };
	struct dentry *p0 = lru_test_dentry(test, sb, "p0", true);
	struct dentry *p1 = lru_test_dentry(test, sb, "p1", true);
	struct dentry *p2 = lru_test_dentry(test, sb, "p2", true);
	struct dentry *q0 = lru_test_dentry(test, sb, "q0", true);
	struct dentry *want[] = { p2, q0, p0 };
	LIST_HEAD(parked);

	KUNIT_ASSERT_TRUE(test, negative_dentry_lock_sb(sb));
	KUNIT_EXPECT_EQ(test, d_negative_reclaim_lru(sb, &nr, 3, &parked), 0);
	KUNIT_EXPECT_EQ(test, list_lru_count(&sb->s_dentry_lru), 1);
	dget(p0);
	d_drop(p1);
	d_negative_putback(&parked, false);
	up_read(&sb->s_umount);
	KUNIT_EXPECT_EQ(test, evict_seen.evicted, 1);
	KUNIT_EXPECT_EQ(test, list_lru_count(&sb->s_dentry_lru), 2);
	dput(p0);
	lru_test_expect_order(test, sb, want, 3);
}

/*
 * More positive dentries ahead of the negative ones than a run may look
 * at: kept in place, they would stop every run at the same spot. A run
 * out of budget short of its quota rotates them instead, so that the next
 * one reaches the negative dentry behind them.
 */
static void reclaim_out_of_budget_gets_past_positives(struct kunit *test)
{
	struct super_block *sb = evict_test_mount(test);
	struct negative_dentry_reclaim nr = {
		.nr_to_reclaim = 1,
		.budget = 3,
	};
	struct dentry *p0 = lru_test_dentry(test, sb, "p0", true);
	struct dentry *p1 = lru_test_dentry(test, sb, "p1", true);
	struct dentry *p2 = lru_test_dentry(test, sb, "p2", true);
	struct dentry *n0 = lru_test_dentry(test, sb, "n0", false);
	struct dentry *want[] = { n0, p0, p1, p2 };

	negative_dentry_reclaim_shrinker(sb->s_shrink, &nr);
	KUNIT_EXPECT_EQ(test, nr.reclaimed, 0);
	lru_test_expect_order(test, sb, want, 4);

	nr.budget = 3;
	negative_dentry_reclaim_shrinker(sb->s_shrink, &nr);
	KUNIT_EXPECT_EQ(test, nr.reclaimed, 1);
	lru_test_expect_order(test, sb, want + 1, 3);
}

static struct kunit_case negative_dentry_lru_test_cases[] = {
	KUNIT_CASE(reclaim_keeps_positives_in_place),
	KUNIT_CASE(reclaim_out_of_budget_gets_past_positives),
	KUNIT_CASE(putback_follows_what_happened_meanwhile),
	{}
};

static struct kunit_suite negative_dentry_lru_test_suite = {
	.name = "negative_dentry_lru",
	.test_cases = negative_dentry_lru_test_cases,
};

kunit_test_suite(negative_dentry_lru_test_suite);
