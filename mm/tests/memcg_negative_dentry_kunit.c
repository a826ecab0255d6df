// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of memory.negative_dentry.max parsing: "max" or a count in
 * decimal digits alone, anything else is -EINVAL, and a count the counter
 * cannot reach is "max".
 */
#include <kunit/test.h>

/* Parse a copy of @str, as written: the parse strips it in place. */
static int parse_max_of(const char *str, unsigned long *max)
{
	char buf[32];

	strscpy(buf, str, sizeof(buf));
	return negative_dentry_parse_max(buf, strlen(buf), max);
}

static void max_parses_max_and_counts(struct kunit *test)
{
	static const struct {
		const char *buf;
		unsigned long max;
	} good[] = {
		{ "max", PAGE_COUNTER_MAX },
		{ "0", 0 },
		{ "1", 1 },
		{ "5000", 5000 },
		{ "012", 12 },
		{ "9223372036854775806", PAGE_COUNTER_MAX },
		{ "9223372036854775807", PAGE_COUNTER_MAX },
	};
	unsigned long max;
	int i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		KUNIT_EXPECT_EQ_MSG(test, parse_max_of(good[i].buf, &max),
				    0, "\"%s\"", good[i].buf);
		KUNIT_EXPECT_EQ_MSG(test, max, good[i].max, "\"%s\"", good[i].buf);
	}
}

static void max_rejects_the_rest(struct kunit *test)
{
	static const char * const bad[] = {
		"", " ", "-1", "-0", "+12", "-0x1", "abc", "12abc", "1 2",
		"0x10", "1.5", "1e3", "MAX", "maxx", "max1", "max 5",
		"9223372036854775808",
		"99999999999999999999999", "\x01",
	};
	unsigned long max = 42;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, parse_max_of(bad[i], &max),
				    -EINVAL, "\"%s\"", bad[i]);
		KUNIT_EXPECT_EQ(test, max, 42);
	}
}

/* Each count up to the counter's limit is taken as it is. */
static void max_takes_every_count_it_can_reach(struct kunit *test)
{
	char buf[24];
	unsigned long max;

	snprintf(buf, sizeof(buf), "%lu", PAGE_COUNTER_MAX - 1);
	KUNIT_EXPECT_EQ(test, parse_max_of(buf, &max), 0);
	KUNIT_EXPECT_EQ(test, max, PAGE_COUNTER_MAX - 1);
}

static struct kunit_case memcg_negative_dentry_test_cases[] = {
	KUNIT_CASE(max_parses_max_and_counts),
	KUNIT_CASE(max_rejects_the_rest),
	KUNIT_CASE(max_takes_every_count_it_can_reach),
	{}
};

static struct kunit_suite memcg_negative_dentry_test_suite = {
	.name = "memcg_negative_dentry",
	.test_cases = memcg_negative_dentry_test_cases,
};

kunit_test_suite(memcg_negative_dentry_test_suite);
