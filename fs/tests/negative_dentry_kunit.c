// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the arithmetic of fs/negative_dentry.c: the reclaim
 * target and excess, the kill threshold and the values fs.dentry-dir-max
 * takes.
 */
#include <kunit/test.h>

static void target_leaves_a_margin_of_an_eighth(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, negative_dentry_target(1000), 875);
	KUNIT_EXPECT_EQ(test, negative_dentry_target(5000), 4375);
	KUNIT_EXPECT_EQ(test, negative_dentry_target(7), 7);
	KUNIT_EXPECT_EQ(test, negative_dentry_target(0), 0);
}

static void kill_threshold_is_four_times_or_ten_thousand(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, negative_dentry_kill_threshold(0), 10000);
	KUNIT_EXPECT_EQ(test, negative_dentry_kill_threshold(1000), 10000);
	KUNIT_EXPECT_EQ(test, negative_dentry_kill_threshold(2500), 10000);
	KUNIT_EXPECT_EQ(test, negative_dentry_kill_threshold(5000), 20000);
	KUNIT_EXPECT_EQ(test, negative_dentry_kill_threshold(INT_MAX),
			4L * INT_MAX);
}

static void excess_is_negatives_less_target(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, negative_dir_excess(100000, 1000), 100000 - 875);
	KUNIT_EXPECT_EQ(test, negative_dir_excess(876, 1000), 1);
	KUNIT_EXPECT_EQ(test, negative_dir_excess(875, 1000), 0);
	KUNIT_EXPECT_EQ(test, negative_dir_excess(100, 1000), 0);
}

static void dir_max_takes_zero_or_256_up(struct kunit *test)
{
	static const int bad[] = { 1, 2, 100, 255, -1, -256, INT_MIN };
	int i;

	KUNIT_EXPECT_TRUE(test, dentry_dir_max_valid(0));
	KUNIT_EXPECT_TRUE(test, dentry_dir_max_valid(256));
	KUNIT_EXPECT_TRUE(test, dentry_dir_max_valid(INT_MAX));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_FALSE_MSG(test, dentry_dir_max_valid(bad[i]),
				       "%d", bad[i]);
}

static void limit_parses_digits_alone(struct kunit *test)
{
	static const struct {
		const char *buf;
		size_t len;
		unsigned long val;
	} good[] = {
		{ "0", 1, 0 }, { "256", 3, 256 }, { "1000\n", 5, 1000 },
		{ " 300\t\n", 6, 300 }, { "2147483647", 10, INT_MAX },
		{ "0000000000000000000000000000000300", 34, 300 },
	};
	static const struct {
		const char *buf;
		size_t len;
	} bad[] = {
		{ "", 0 }, { "\t\n", 2 }, { "-1", 2 }, { "+300", 4 },
		{ "0x100", 5 }, { "300.0", 5 }, { "300 400", 7 },
		{ "300abc", 6 }, { "300\0", 4 }, { "\x01", 1 },
		{ "2147483648", 10 }, { "max", 3 },
	};
	unsigned long val;
	char buf[40];
	int i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		memcpy(buf, good[i].buf, good[i].len + 1);
		val = 1;
		KUNIT_EXPECT_EQ_MSG(test,
				    negative_dentry_parse_limit(buf, good[i].len,
								INT_MAX, NULL, &val),
				    0, "\"%s\"", good[i].buf);
		KUNIT_EXPECT_EQ_MSG(test, val, good[i].val, "\"%s\"", good[i].buf);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(buf, bad[i].buf, bad[i].len + 1);
		val = 1;
		KUNIT_EXPECT_EQ_MSG(test,
				    negative_dentry_parse_limit(buf, bad[i].len,
								INT_MAX, NULL, &val),
				    -EINVAL, "\"%s\"", bad[i].buf);
		KUNIT_EXPECT_EQ(test, val, 1);
	}
}

static struct kunit_case negative_dentry_test_cases[] = {
	KUNIT_CASE(target_leaves_a_margin_of_an_eighth),
	KUNIT_CASE(kill_threshold_is_four_times_or_ten_thousand),
	KUNIT_CASE(excess_is_negatives_less_target),
	KUNIT_CASE(dir_max_takes_zero_or_256_up),
	KUNIT_CASE(limit_parses_digits_alone),
	{}
};

static struct kunit_suite negative_dentry_test_suite = {
	.name = "negative_dentry",
	.test_cases = negative_dentry_test_cases,
};

kunit_test_suite(negative_dentry_test_suite);
