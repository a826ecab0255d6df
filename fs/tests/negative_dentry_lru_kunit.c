// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the LRU order that negative dentry reclaim leaves behind.
 * Reclaim walks a list oldest first and takes negative dentries only; the
 * positive ones it walks over must keep their places, or memory pressure,
 * which walks the same list, would evict the dentries behind them first.
 * The drain of a removed cgroup walks the same way. Between batches they
 * stay on the list, within reach of others, and the next batch goes on
 * after the last of them. Only a run that runs out of budget before it
 * gets what it came for rotates them, so that the next run gets further.
 * On a filesystem of the tests' own, in the root memcg's lists; and where
 * reclaim may drop the last reference of a removed directory: not on a
 * frozen filesystem.
 */
#include "negative_dentry_test_fs.h"

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

/* The oldest dentry of the list of @sb is @want. */
static void lru_test_expect_first(struct kunit *test, struct super_block *sb,
				  struct dentry *want)
{
	struct lru_test_order order = { };

	list_lru_walk(&sb->s_dentry_lru, lru_test_record, &order, ULONG_MAX);
	KUNIT_ASSERT_GT(test, order.nr, 0);
	KUNIT_EXPECT_PTR_EQ(test, order.dentry[0], want);
}

/* An unused positive (a file) or negative dentry in @dir. */
static struct dentry *lru_test_dentry_in(struct kunit *test,
					 struct dentry *dir, const char *name,
					 bool positive)
{
	struct dentry *dentry = negtest_alloc_name(test, dir, name);

	d_add(dentry, positive ? negtest_inode(test, dir->d_sb,
					       S_IFREG | 0644) : NULL);
	dput(dentry);
	return dentry;
}

/* An unused positive or negative dentry in the root of @sb. */
static struct dentry *lru_test_dentry(struct kunit *test,
				      struct super_block *sb, const char *name,
				      bool positive)
{
	return lru_test_dentry_in(test, sb->s_root, name, positive);
}

/*
 * p0 n0 p1 n1 p2 n2 p3 n3, then q0 .. q3: a reclaim of four that looks at
 * the first eight takes n0 .. n3, and leaves p0 .. p3 ahead of q0 .. q3,
 * as they were. Rotating them to the tail put them behind q0 .. q3.
 */
static void reclaim_keeps_positives_in_place(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct negative_dentry_reclaim sc = {
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

	negative_dentry_reclaim_shrinker(sb->s_shrink, &sc);
	KUNIT_EXPECT_EQ(test, sc.reclaimed, 4);
	KUNIT_EXPECT_EQ(test, sc.scanned, 8);
	lru_test_expect_order(test, sb, want, 8);
}

/*
 * Between the batches of a pass, while it sleeps, the positive dentries it
 * walked over are still on the list, unused, for others to take:
 * d_prune_aliases() takes p1, and d_invalidate() of their directory skips
 * p0, in use, rather than waiting for the pass, as it did for dentries
 * taken off the list. The bookmark, p2, pinned, is skipped too. The next
 * batch goes on after it, with q0, and the one after finds nothing more.
 */
static void kept_dentries_stay_in_reach(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct dentry *dir = negtest_mkdir(test, sb);
	struct negative_dentry_reclaim sc = { .nr_to_reclaim = 1 };
	struct dentry *p0, *p1, *p2, *q0, *want[3];
	struct d_negative_bookmark mark = { };

	p0 = lru_test_dentry_in(test, dir, "p0", true);
	p1 = lru_test_dentry_in(test, dir, "p1", true);
	p2 = lru_test_dentry_in(test, dir, "p2", true);
	q0 = lru_test_dentry(test, sb, "q0", true);
	KUNIT_ASSERT_TRUE(test, negative_dentry_lock_sb(sb));
	KUNIT_EXPECT_EQ(test, d_negative_reclaim_lru(sb, &sc, 3, &mark), 0);
	KUNIT_EXPECT_EQ(test, sc.scanned, 3);
	KUNIT_ASSERT_EQ(test, list_lru_count(&sb->s_dentry_lru), 4);
	KUNIT_EXPECT_PTR_EQ(test, mark.dentry, p2);

	d_prune_aliases(d_inode(p1));
	KUNIT_EXPECT_EQ(test, negtest_seen.evicted, 1);
	dget(p0);
	d_invalidate(dir);
	KUNIT_EXPECT_EQ(test, negtest_seen.evicted, 1);

	KUNIT_EXPECT_EQ(test, d_negative_reclaim_lru(sb, &sc, 3, &mark), 0);
	KUNIT_EXPECT_EQ(test, sc.scanned, 4);
	KUNIT_EXPECT_PTR_EQ(test, mark.dentry, q0);
	KUNIT_EXPECT_EQ(test, d_negative_reclaim_lru(sb, &sc, 3, &mark), 0);
	KUNIT_EXPECT_EQ(test, sc.scanned, 4);
	d_negative_reclaim_end(sb, &sc, &mark, false);
	up_read(&sb->s_umount);
	dput(p0);
	KUNIT_EXPECT_EQ(test, d_count(p2), 0);
	KUNIT_EXPECT_EQ(test, d_count(q0), 0);
	/* Let go of, not put as dput() does: not aged. */
	KUNIT_EXPECT_FALSE(test, p2->d_flags & DCACHE_REFERENCED);
	want[0] = p0;
	want[1] = p2;
	want[2] = q0;
	lru_test_expect_order(test, sb, want, 3);
	dput(dir);
}

/*
 * Memory pressure finds the dentry a pass pinned, its bookmark p1, and
 * takes it off the list as in use; p0, which the pass walked over and
 * left unused on the list, it evicts. The next batch walks from the head
 * again, and p1 goes back at the tail when the pass lets go of it, as
 * after any use.
 */
static void bookmark_lost_to_memory_pressure(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct negative_dentry_reclaim sc = { .nr_to_reclaim = 1 };
	struct shrink_control prune = { .nr_to_scan = 2 };
	struct dentry *p1, *p2, *want[2];
	struct d_negative_bookmark mark = { };

	lru_test_dentry(test, sb, "p0", true);
	p1 = lru_test_dentry(test, sb, "p1", true);
	p2 = lru_test_dentry(test, sb, "p2", true);
	KUNIT_ASSERT_TRUE(test, negative_dentry_lock_sb(sb));
	d_negative_reclaim_lru(sb, &sc, 2, &mark);
	KUNIT_ASSERT_PTR_EQ(test, mark.dentry, p1);
	prune_dcache_sb(sb, &prune);
	KUNIT_EXPECT_EQ(test, negtest_seen.evicted, 1);
	KUNIT_EXPECT_EQ(test, list_lru_count(&sb->s_dentry_lru), 1);

	d_negative_reclaim_lru(sb, &sc, 2, &mark);
	KUNIT_EXPECT_EQ(test, sc.scanned, 3);
	KUNIT_EXPECT_PTR_EQ(test, mark.dentry, p2);
	d_negative_reclaim_end(sb, &sc, &mark, false);
	up_read(&sb->s_umount);
	KUNIT_EXPECT_EQ(test, d_count(p1), 0);
	want[0] = p2;
	want[1] = p1;
	lru_test_expect_order(test, sb, want, 2);
}

/*
 * Two passes over one list: each walks over the other's bookmark, pinned,
 * as over any positive dentry, and leaves it in place; neither loses its
 * own, and the list keeps its order.
 */
static void two_passes_keep_their_bookmarks(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct negative_dentry_reclaim a = { .nr_to_reclaim = 1 };
	struct negative_dentry_reclaim b = { .nr_to_reclaim = 1 };
	struct dentry *want[4];
	struct d_negative_bookmark mark_a = { }, mark_b = { };
	char name[4];
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		want[i] = lru_test_dentry(test, sb, name, true);
	}
	KUNIT_ASSERT_TRUE(test, negative_dentry_lock_sb(sb));
	d_negative_reclaim_lru(sb, &a, 2, &mark_a);
	d_negative_reclaim_lru(sb, &b, 3, &mark_b);
	KUNIT_EXPECT_PTR_EQ(test, mark_a.dentry, want[1]);
	KUNIT_EXPECT_PTR_EQ(test, mark_b.dentry, want[2]);
	d_negative_reclaim_lru(sb, &a, 2, &mark_a);
	d_negative_reclaim_lru(sb, &b, 2, &mark_b);
	KUNIT_EXPECT_EQ(test, a.scanned, 4);
	KUNIT_EXPECT_EQ(test, b.scanned, 4);
	d_negative_reclaim_end(sb, &a, &mark_a, false);
	d_negative_reclaim_end(sb, &b, &mark_b, false);
	up_read(&sb->s_umount);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, d_count(want[i]), 0);
	lru_test_expect_order(test, sb, want, 4);
}

/*
 * Two passes over one list both run out of budget and rotate what they
 * walked over: a walks p0 .. p3, b walks p0 .. p1, each keeping its last
 * as its bookmark. Whichever ends first, the other's range must still be
 * a range of the list: rotating from a first dentry that the other pass
 * had already put behind the bookmark cut the list into detached cycles
 * that no walk reached, while list_lru_count() still counted them. Each
 * rotates from the head of the list to its bookmark.
 */
static void two_passes_rotate(struct kunit *test, bool a_first)
{
	struct super_block *sb = negtest_mount(test);
	struct negative_dentry_reclaim a = { .nr_to_reclaim = 1 };
	struct negative_dentry_reclaim b = { .nr_to_reclaim = 1 };
	struct d_negative_bookmark mark_a = { }, mark_b = { };
	struct dentry *p[6], *want[6];
	char name[4];
	int i;

	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		p[i] = lru_test_dentry(test, sb, name, true);
	}
	KUNIT_ASSERT_TRUE(test, negative_dentry_lock_sb(sb));
	d_negative_reclaim_lru(sb, &a, 4, &mark_a);
	d_negative_reclaim_lru(sb, &b, 2, &mark_b);
	KUNIT_ASSERT_PTR_EQ(test, mark_a.dentry, p[3]);
	KUNIT_ASSERT_PTR_EQ(test, mark_b.dentry, p[1]);
	if (a_first) {
		d_negative_reclaim_end(sb, &a, &mark_a, true);
		d_negative_reclaim_end(sb, &b, &mark_b, true);
	} else {
		d_negative_reclaim_end(sb, &b, &mark_b, true);
		d_negative_reclaim_end(sb, &a, &mark_a, true);
	}
	up_read(&sb->s_umount);
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ(test, d_count(p[i]), 0);
	/* a: p4 p5 p0 p1 p2 p3, then b: p2 p3 p4 p5 p0 p1. */
	for (i = 0; i < 6; i++)
		want[i] = p[a_first ? (i + 2) % 6 : (i + 4) % 6];
	lru_test_expect_order(test, sb, want, 6);
}

static void two_passes_rotate_longer_first(struct kunit *test)
{
	two_passes_rotate(test, true);
}

static void two_passes_rotate_shorter_first(struct kunit *test)
{
	two_passes_rotate(test, false);
}

/*
 * h, a negative dentry looked up again, ahead of c, a cold one: a pass
 * that spares hot ones takes c and leaves h as it was; a pass that ages
 * them takes nothing, and clears h's mark; the next sparing pass takes h.
 * A drain, which takes hot and cold alike, takes nothing of a cgroup that
 * was not removed (these dentries have no objcg): it stops at the first.
 */
static void hot_negatives_are_spared_then_aged(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct negative_dentry_reclaim spare = { .nr_to_reclaim = 2,
						 .budget = 100 };
	struct negative_dentry_reclaim age = { .nr_to_reclaim = 1,
					       .budget = 100, .age = true };
	struct negative_dentry_reclaim again = { .nr_to_reclaim = 1,
						 .budget = 100 };
	struct negative_dentry_reclaim drain = { .nr_to_reclaim = 2,
						 .budget = 100, .drain = true };
	struct dentry *h = lru_test_dentry(test, sb, "h", false);
	struct dentry *want[2];

	lru_test_dentry(test, sb, "c", false);
	/* A lookup of a dentry on the LRU marks it, as retain_dentry() does. */
	dput(dget(h));
	KUNIT_ASSERT_TRUE(test, h->d_flags & DCACHE_REFERENCED);

	negative_dentry_reclaim_shrinker(sb->s_shrink, &spare);
	KUNIT_EXPECT_EQ(test, spare.reclaimed, 1);
	lru_test_expect_order(test, sb, &h, 1);
	KUNIT_EXPECT_TRUE(test, h->d_flags & DCACHE_REFERENCED);

	negative_dentry_reclaim_shrinker(sb->s_shrink, &age);
	KUNIT_EXPECT_EQ(test, age.reclaimed, 0);
	lru_test_expect_order(test, sb, &h, 1);
	KUNIT_EXPECT_FALSE(test, h->d_flags & DCACHE_REFERENCED);

	negative_dentry_reclaim_shrinker(sb->s_shrink, &again);
	KUNIT_EXPECT_EQ(test, again.reclaimed, 1);
	KUNIT_EXPECT_EQ(test, list_lru_count(&sb->s_dentry_lru), 0);

	want[0] = lru_test_dentry(test, sb, "h2", false);
	want[1] = lru_test_dentry(test, sb, "c2", false);
	dput(dget(want[0]));
	negative_dentry_reclaim_shrinker(sb->s_shrink, &drain);
	KUNIT_EXPECT_EQ(test, drain.reclaimed, 0);
	lru_test_expect_order(test, sb, want, 2);
}

/*
 * More positive dentries ahead of a negative one than a batch looks at:
 * the pass gets to it in its second batch, and leaves them in place.
 */
static void reclaim_goes_on_over_batches(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct negative_dentry_reclaim sc = {
		.nr_to_reclaim = 1,
		.budget = 1000,
	};
	struct dentry *want[2];
	char name[8];
	int i;

	for (i = 0; i < NEGATIVE_DENTRY_BATCH + 8; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		want[i ? 1 : 0] = lru_test_dentry(test, sb, name, true);
	}
	lru_test_dentry(test, sb, "n0", false);

	negative_dentry_reclaim_shrinker(sb->s_shrink, &sc);
	KUNIT_EXPECT_EQ(test, sc.reclaimed, 1);
	KUNIT_EXPECT_EQ(test, sc.scanned, NEGATIVE_DENTRY_BATCH + 9);
	KUNIT_EXPECT_EQ(test, list_lru_count(&sb->s_dentry_lru),
			NEGATIVE_DENTRY_BATCH + 8);
	KUNIT_EXPECT_EQ(test, d_count(want[1]), 0);
	lru_test_expect_first(test, sb, want[0]);
}

/*
 * More positive dentries ahead of the negative ones than a run may look
 * at: kept in place, they would stop every run at the same spot. A run
 * out of budget short of its quota rotates them instead, so that the next
 * one reaches the negative dentry behind them.
 */
static void reclaim_out_of_budget_gets_past_positives(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct negative_dentry_reclaim sc = {
		.nr_to_reclaim = 1,
		.budget = 3,
	};
	struct dentry *p0 = lru_test_dentry(test, sb, "p0", true);
	struct dentry *p1 = lru_test_dentry(test, sb, "p1", true);
	struct dentry *p2 = lru_test_dentry(test, sb, "p2", true);
	struct dentry *n0 = lru_test_dentry(test, sb, "n0", false);
	struct dentry *want[] = { n0, p0, p1, p2 };

	negative_dentry_reclaim_shrinker(sb->s_shrink, &sc);
	KUNIT_EXPECT_EQ(test, sc.reclaimed, 0);
	lru_test_expect_order(test, sb, want, 4);

	sc.budget = 3;
	negative_dentry_reclaim_shrinker(sb->s_shrink, &sc);
	KUNIT_EXPECT_EQ(test, sc.reclaimed, 1);
	lru_test_expect_order(test, sb, want + 1, 3);
}

/*
 * The limit's reclaim of a list of positives alone: the positives a run
 * out of budget put at the tail come round again. With its cursor, the
 * next run looks at what the first did not reach, p3, and then ends,
 * rather than walking p0 .. p2 again, run after run.
 */
static void cursor_resumes_where_budget_ran_out(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct negative_dentry_cursor cursor = { };
	struct negative_dentry_reclaim sc = {
		.nr_to_reclaim = LONG_MAX,
		.budget = 3,
		.cursor = &cursor,
	};
	struct dentry *p0 = lru_test_dentry(test, sb, "p0", true);
	struct dentry *p1 = lru_test_dentry(test, sb, "p1", true);
	struct dentry *p2 = lru_test_dentry(test, sb, "p2", true);
	struct dentry *p3 = lru_test_dentry(test, sb, "p3", true);
	struct dentry *want[] = { p3, p0, p1, p2 };

	negative_dentry_reclaim_shrinker(sb->s_shrink, &sc);
	KUNIT_EXPECT_EQ(test, sc.scanned, 3);
	KUNIT_EXPECT_TRUE(test, cursor.valid);
	KUNIT_EXPECT_EQ(test, cursor.left, 1);
	lru_test_expect_order(test, sb, want, 4);

	sc.budget = 3;
	sc.scanned = 0;
	negative_dentry_reclaim_shrinker(sb->s_shrink, &sc);
	KUNIT_EXPECT_EQ(test, sc.scanned, 1);
	KUNIT_EXPECT_FALSE(test, cursor.valid);
	lru_test_expect_order(test, sb, want, 4);
}

/*
 * A list with nothing on it costs a pass one unit of budget and never
 * s_umount: a drain does not wait for a writer of a superblock it has no
 * dentries on, and a task's reclaim is bounded by the lists it visits.
 */
static void empty_list_costs_a_unit(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct negative_dentry_reclaim sc = {
		.drain = true,
		.nr_to_reclaim = LONG_MAX,
		.budget = 10,
	};

	down_write(&sb->s_umount);
	negative_dentry_reclaim_shrinker(sb->s_shrink, &sc);
	up_write(&sb->s_umount);
	KUNIT_EXPECT_FALSE(test, sc.yielded);
	KUNIT_EXPECT_EQ(test, sc.budget, 9);
}

/*
 * A negative child that outlived its directory's rmdir (it was being looked
 * up) holds the last reference of the directory. Reclaim must leave it
 * alone while the filesystem is frozen, and take it after the thaw.
 */
static void reclaim_waits_for_the_thaw(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct dentry *dir = negtest_mkdir(test, sb);
	struct negative_dentry_reclaim sc = {
		.age = true,
		.nr_to_reclaim = 1,
		.budget = 16,
	};
	struct dentry *child = negtest_alloc_name(test, dir, "missing");

	KUNIT_ASSERT_NOT_NULL(test, child);
	d_add(child, NULL);
	dput(child);
	negtest_remove(dir);
	dput(dir);
	KUNIT_ASSERT_EQ(test, list_lru_count(&sb->s_dentry_lru), 1);

	KUNIT_ASSERT_EQ(test, freeze_super(sb, FREEZE_HOLDER_KERNEL), 0);
	negative_dentry_reclaim_shrinker(sb->s_shrink, &sc);
	KUNIT_EXPECT_EQ(test, sc.reclaimed, 0);
	KUNIT_EXPECT_EQ(test, negtest_seen.evicted, 0);
	KUNIT_ASSERT_EQ(test, thaw_super(sb, FREEZE_HOLDER_KERNEL), 0);

	negative_dentry_reclaim_shrinker(sb->s_shrink, &sc);
	KUNIT_EXPECT_EQ(test, sc.reclaimed, 1);
	KUNIT_EXPECT_EQ(test, negtest_seen.evicted, 1);
	KUNIT_EXPECT_FALSE(test, negtest_seen.frozen);
}

static struct kunit_case negative_dentry_lru_test_cases[] = {
	KUNIT_CASE(reclaim_keeps_positives_in_place),
	KUNIT_CASE(reclaim_out_of_budget_gets_past_positives),
	KUNIT_CASE(cursor_resumes_where_budget_ran_out),
	KUNIT_CASE(kept_dentries_stay_in_reach),
	KUNIT_CASE(bookmark_lost_to_memory_pressure),
	KUNIT_CASE(two_passes_keep_their_bookmarks),
	KUNIT_CASE(two_passes_rotate_longer_first),
	KUNIT_CASE(two_passes_rotate_shorter_first),
	KUNIT_CASE(reclaim_goes_on_over_batches),
	KUNIT_CASE(hot_negatives_are_spared_then_aged),
	KUNIT_CASE(empty_list_costs_a_unit),
	KUNIT_CASE(reclaim_waits_for_the_thaw),
	{}
};

static struct kunit_suite negative_dentry_lru_test_suite = {
	.name = "negative_dentry_lru",
	.test_cases = negative_dentry_lru_test_cases,
};

kunit_test_suite(negative_dentry_lru_test_suite);
