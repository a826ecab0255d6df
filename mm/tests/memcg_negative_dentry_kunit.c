// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of memory.negative_dentry.max parsing: "max" or a count in
 * decimal digits alone, anything else is -EINVAL; of the per-cpu batch,
 * whose lag stays under an eighth of the limit whatever the number of
 * cpus; and of the shares reclaim takes from each cgroup of a subtree.
 */
#include <kunit/test.h>

static void max_parses_max_and_counts(struct kunit *test)
{
	static const struct {
		const char *buf;
		long max;
	} good[] = {
		{ "max", MEMCG_NEGATIVE_DENTRY_MAX },
		{ "0", 0 },
		{ "1", 1 },
		{ "5000", 5000 },
		{ "012", 12 },
		{ "9223372036854775806", MEMCG_NEGATIVE_DENTRY_MAX - 1 },
	};
	long max;
	int i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		KUNIT_EXPECT_EQ_MSG(test, negative_dentry_parse_max(good[i].buf, &max),
				    0, "\"%s\"", good[i].buf);
		KUNIT_EXPECT_EQ_MSG(test, max, good[i].max, "\"%s\"", good[i].buf);
	}
}

static void max_rejects_the_rest(struct kunit *test)
{
	static const char * const bad[] = {
		"", " ", "-1", "-0", "+12", "-0x1", "abc", "12abc", "1 2",
		"0x10", "1.5", "1e3", "MAX", "maxx", "max1", "max 5",
		"9223372036854775807", "9223372036854775808",
		"99999999999999999999999", "\x01",
	};
	long max = 42;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, negative_dentry_parse_max(bad[i], &max),
				    -EINVAL, "\"%s\"", bad[i]);
		KUNIT_EXPECT_EQ(test, max, 42);
	}
}

static void batch_is_full_without_limits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(LONG_MAX, LONG_MAX, 2), 32);
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(LONG_MAX, LONG_MAX, 4096),
			32);
}

/* Each slot of each cpu's stock lags by a batch less one at most. */
static void batch_lags_an_eighth_of_the_limit_at_most(struct kunit *test)
{
	static const unsigned int cpus[] = { 1, 2, 8, 64, 256, 4096 };
	static const long limits[] = { 1, 100, 1000, 10000, 1000000 };
	int i, j;

	for (i = 0; i < ARRAY_SIZE(cpus); i++) {
		unsigned int slots = cpus[i] * MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS;

		for (j = 0; j < ARRAY_SIZE(limits); j++) {
			long lag = slots * (long)(negative_dentry_batch(limits[j],
							limits[j], slots) - 1);

			KUNIT_EXPECT_LE_MSG(test, lag, limits[j] / 8,
					    "%u cpus, limit %ld", cpus[i],
					    limits[j]);
		}
	}
	/* 256 slots: the old fixed batch lagged by 31 * 256 = 7936 over 1000 */
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(1000, 1000, 256), 1);
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(1000, 1000, 2), 32);
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(100000, 100000, 64), 32);
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(10000, 10000, 64), 19);
}

static void batch_shrinks_near_the_limit(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(1000, 100, 2), 25);
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(1000, 8, 2), 2);
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(1000, 3, 2), 1);
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(1000, 0, 2), 1);
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(1000, -500, 2), 1);
	KUNIT_EXPECT_EQ(test, negative_dentry_batch(0, 0, 1), 1);
}

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

static struct kunit_case memcg_negative_dentry_test_cases[] = {
	KUNIT_CASE(max_parses_max_and_counts),
	KUNIT_CASE(max_rejects_the_rest),
	KUNIT_CASE(batch_is_full_without_limits),
	KUNIT_CASE(batch_lags_an_eighth_of_the_limit_at_most),
	KUNIT_CASE(batch_shrinks_near_the_limit),
	KUNIT_CASE(quota_spares_a_cgroup_under_its_share),
	KUNIT_CASE(quota_is_in_proportion_above_the_share),
	KUNIT_CASE(quota_never_goes_below_the_share),
	{}
};

static struct kunit_suite memcg_negative_dentry_test_suite = {
	.name = "memcg_negative_dentry",
	.test_cases = memcg_negative_dentry_test_cases,
};

kunit_test_suite(memcg_negative_dentry_test_suite);
