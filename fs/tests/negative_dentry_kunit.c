// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the arithmetic of fs/negative_dentry.c: the positive
 * estimate kept in a directory's d_iname, the estimate of its negative
 * children, the reclaim target and excess, the kill threshold and the
 * values fs.dentry-dir-max takes.
 */
#include <kunit/test.h>

static struct dentry *kunit_dentry(struct kunit *test, unsigned int len)
{
	struct dentry *dentry = kunit_kzalloc(test, sizeof(*dentry), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dentry);
	dentry->d_name.len = len;
	dentry->d_name.name = dentry->d_iname;
	memset(dentry->d_iname, 'a', min(len, DNAME_INLINE_LEN - 1));
	return dentry;
}

static void npositive_needs_room_after_the_name(struct kunit *test)
{
	unsigned int len;

	for (len = 0; len < DNAME_INLINE_LEN; len++)
		KUNIT_EXPECT_EQ_MSG(test, d_has_npositive(kunit_dentry(test, len)),
				    len < D_NPOSITIVE_OFFSET, "name length %u", len);
}

static void npositive_fits_an_external_name(struct kunit *test)
{
	struct dentry *dentry = kunit_dentry(test, 100);
	static const unsigned char long_name[101];

	dentry->d_name.name = long_name;
	KUNIT_EXPECT_TRUE(test, d_has_npositive(dentry));
	d_set_npositive(dentry, 123456);
	KUNIT_EXPECT_EQ(test, d_npositive(dentry), 123456);
}

static void npositive_keeps_the_name_and_the_nul_backstop(struct kunit *test)
{
	unsigned int len = D_NPOSITIVE_OFFSET - 1;
	struct dentry *dentry = kunit_dentry(test, len);
	unsigned int i;

	d_set_npositive(dentry, U32_MAX);
	KUNIT_EXPECT_EQ(test, d_npositive(dentry), U32_MAX);
	for (i = 0; i < len; i++)
		KUNIT_EXPECT_EQ(test, dentry->d_iname[i], 'a');
	KUNIT_EXPECT_EQ(test, dentry->d_iname[len], 0);
	KUNIT_EXPECT_EQ(test, dentry->d_iname[DNAME_INLINE_LEN - 1], 0);
}

static void npositive_is_zero_without_room(struct kunit *test)
{
	struct dentry *dentry = kunit_dentry(test, DNAME_INLINE_LEN - 1);

	d_set_npositive(dentry, 77);
	KUNIT_EXPECT_EQ(test, d_npositive(dentry), 0);
	/* the name was not touched */
	KUNIT_EXPECT_EQ(test, dentry->d_iname[D_NPOSITIVE_OFFSET], 'a');
}

/* As __d_alloc() does: the estimate zeroed, then the name copied over it. */
static void npositive_starts_at_zero_under_any_name(struct kunit *test)
{
	unsigned int len;

	for (len = 0; len < DNAME_INLINE_LEN; len++) {
		struct dentry *dentry = kunit_dentry(test, 0);

		memset(dentry->d_iname, 0xff, DNAME_INLINE_LEN - 1);
		d_init_npositive(dentry);
		memset(dentry->d_iname, 'b', len);
		dentry->d_iname[len] = 0;
		dentry->d_name.len = len;
		if (d_has_npositive(dentry))
			KUNIT_EXPECT_EQ_MSG(test, d_npositive(dentry), 0,
					    "name length %u", len);
		KUNIT_EXPECT_EQ_MSG(test, strlen(dentry->d_iname), len,
				    "name length %u", len);
	}
}

static void nnegative_is_children_less_positives(struct kunit *test)
{
	struct dentry *dir = kunit_dentry(test, 3);

	dir->d_nchildren = 1000;
	d_set_npositive(dir, 300);
	KUNIT_EXPECT_EQ(test, d_nnegative_estimate(dir), 700);
	d_set_npositive(dir, 1000);
	KUNIT_EXPECT_EQ(test, d_nnegative_estimate(dir), 0);
	/* a stale estimate above the child count means none negative */
	d_set_npositive(dir, 5000);
	KUNIT_EXPECT_EQ(test, d_nnegative_estimate(dir), 0);
}

static void nnegative_counts_every_child_without_estimate(struct kunit *test)
{
	struct dentry *dir = kunit_dentry(test, DNAME_INLINE_LEN - 2);

	dir->d_nchildren = 42;
	KUNIT_EXPECT_EQ(test, d_nnegative_estimate(dir), 42);
}

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
	KUNIT_EXPECT_EQ(test, negative_dentry_kill_threshold(LONG_MAX / 4 + 1),
			LONG_MAX);
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

static void dir_max_parses_digits_alone(struct kunit *test)
{
	static const struct {
		const char *buf;
		size_t len;
		int val;
	} good[] = {
		{ "0", 1, 0 }, { "256", 3, 256 }, { "1000\n", 5, 1000 },
		{ " 300\t\n", 6, 300 }, { "2147483647", 10, INT_MAX },
	};
	static const struct {
		const char *buf;
		size_t len;
	} bad[] = {
		{ "", 0 }, { "\t\n", 2 }, { "255", 3 }, { "-1", 2 }, { "+300", 4 },
		{ "0x100", 5 }, { "300.0", 5 }, { "300 400", 7 },
		{ "300abc", 6 }, { "300\0", 4 }, { "\x01", 1 },
		{ "2147483648", 10 }, { "0000000000000000000000000000000300", 34 },
	};
	int i, val;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		val = -1;
		KUNIT_EXPECT_EQ_MSG(test, dentry_dir_max_parse(good[i].buf,
							       good[i].len, &val),
				    0, "\"%s\"", good[i].buf);
		KUNIT_EXPECT_EQ_MSG(test, val, good[i].val, "\"%s\"", good[i].buf);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, dentry_dir_max_parse(bad[i].buf,
							       bad[i].len, &val),
				    -EINVAL, "\"%s\"", bad[i].buf);
}

static struct kunit_case negative_dentry_test_cases[] = {
	KUNIT_CASE(npositive_needs_room_after_the_name),
	KUNIT_CASE(npositive_fits_an_external_name),
	KUNIT_CASE(npositive_keeps_the_name_and_the_nul_backstop),
	KUNIT_CASE(npositive_is_zero_without_room),
	KUNIT_CASE(npositive_starts_at_zero_under_any_name),
	KUNIT_CASE(nnegative_is_children_less_positives),
	KUNIT_CASE(nnegative_counts_every_child_without_estimate),
	KUNIT_CASE(target_leaves_a_margin_of_an_eighth),
	KUNIT_CASE(kill_threshold_is_four_times_or_ten_thousand),
	KUNIT_CASE(excess_is_negatives_less_target),
	KUNIT_CASE(dir_max_takes_zero_or_256_up),
	KUNIT_CASE(dir_max_parses_digits_alone),
	{}
};

static struct kunit_suite negative_dentry_test_suite = {
	.name = "negative_dentry",
	.test_cases = negative_dentry_test_cases,
};

kunit_test_suite(negative_dentry_test_suite);
