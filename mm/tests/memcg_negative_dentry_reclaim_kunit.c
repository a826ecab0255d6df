// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the shares that reclaim takes from each cgroup of a
 * subtree down to a limit's target.
 */
#include <kunit/test.h>

/*
 * Two cgroups under a limit of 1000, target 875: a quiet one with 300
 * and a flooder with 20000. The fair share is 437 each; only the
 * flooder is above it, and it gives up all that is wanted.
 */
static void quota_spares_a_cgroup_under_its_share(struct kunit *test)
{
	const struct negative_dentry_shares sh = {
		.fair = 875 / 2, .above = 20000 - 875 / 2, .want = 20300 - 875,
	};

	KUNIT_EXPECT_EQ(test, negative_dentry_quota_of(300, &sh), 0);
	KUNIT_EXPECT_EQ(test, negative_dentry_quota_of(875 / 2, &sh), 0);
	KUNIT_EXPECT_EQ(test, negative_dentry_quota_of(20000, &sh), 20300 - 875);
}

/* Those above their shares give up in proportion to what is above. */
static void quota_is_in_proportion_above_the_share(struct kunit *test)
{
	const struct negative_dentry_shares sh = {
		.fair = 100, .above = 1000 + 3000, .want = 2000,
	};

	KUNIT_EXPECT_EQ(test, negative_dentry_quota_of(1100, &sh), 500);
	KUNIT_EXPECT_EQ(test, negative_dentry_quota_of(3100, &sh), 1500);
	/* rounded up, so that small ones still give their part */
	KUNIT_EXPECT_EQ(test, negative_dentry_quota_of(101, &sh), 1);
}

/* Wanting more than is above the shares takes no one below its share. */
static void quota_never_goes_below_the_share(struct kunit *test)
{
	const struct negative_dentry_shares sh = {
		.fair = 100, .above = 500, .want = 5000,
	};

	KUNIT_EXPECT_EQ(test, negative_dentry_quota_of(600, &sh), 500);
	KUNIT_EXPECT_EQ(test, negative_dentry_quota_of(100, &sh), 0);
	KUNIT_EXPECT_EQ(test, negative_dentry_quota_of(0, &sh), 0);
}

/*
 * Counts beyond what a 64-bit product of two of them holds: 4e9 wanted of
 * 1e10 above the shares, from a cgroup with 5e9 of them, is 2e9.
 */
static void quota_of_huge_counts(struct kunit *test)
{
	const struct negative_dentry_shares sh = {
		.fair = 1000, .above = 10000000000L, .want = 4000000000L,
	};

	KUNIT_EXPECT_EQ(test, negative_dentry_quota_of(1000 + 5000000000L, &sh),
			2000000000L);
	/* 4e9 x 3 / 1e10 is 1.2: rounded up */
	KUNIT_EXPECT_EQ(test, negative_dentry_quota_of(1000 + 3, &sh), 2);
}

static struct kunit_case memcg_negative_dentry_reclaim_test_cases[] = {
	KUNIT_CASE(quota_spares_a_cgroup_under_its_share),
	KUNIT_CASE(quota_is_in_proportion_above_the_share),
	KUNIT_CASE(quota_never_goes_below_the_share),
	KUNIT_CASE(quota_of_huge_counts),
	{}
};

static struct kunit_suite memcg_negative_dentry_reclaim_test_suite = {
	.name = "memcg_negative_dentry_reclaim",
	.test_cases = memcg_negative_dentry_reclaim_test_cases,
};

kunit_test_suite(memcg_negative_dentry_reclaim_test_suite);
