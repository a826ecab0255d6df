// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of memory.negative_dentry.max parsing: "max" or a count in
 * decimal digits alone, anything else is -EINVAL.
 */
#include <kunit/test.h>

static void max_parses_max_and_counts(struct kunit *test)
{
	static const struct {
		const char *buf;
		long max;
	} good[] = {
		{ "max", LONG_MAX },
		{ "0", 0 },
		{ "1", 1 },
		{ "5000", 5000 },
		{ "012", 12 },
		{ "9223372036854775806", LONG_MAX - 1 },
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

static struct kunit_case memcg_negative_dentry_test_cases[] = {
	KUNIT_CASE(max_parses_max_and_counts),
	KUNIT_CASE(max_rejects_the_rest),
	{}
};

static struct kunit_suite memcg_negative_dentry_test_suite = {
	.name = "memcg_negative_dentry",
	.test_cases = memcg_negative_dentry_test_cases,
};

kunit_test_suite(memcg_negative_dentry_test_suite);
