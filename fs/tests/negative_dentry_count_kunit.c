// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of what the per-directory limit keeps of a directory, on
 * real dentries of the tests' own filesystem (negative_dentry_test_fs.h):
 * the count of its negative children, exact through whatever the dcache
 * does to them and to the directory, and its name, which nothing may move
 * or write over.
 */
#include "negative_dentry_test_fs.h"

/*
 * @n negative children @prefix<i> of @dir, as lookups of missing names leave
 * them: hashed, unused, on the LRU.
 */
static void negtest_negative_children(struct kunit *test, struct dentry *dir,
				      const char *prefix, int n)
{
	struct dentry *child;
	char name[32];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s%d", prefix, i);
		child = d_alloc_name(dir, name);
		KUNIT_ASSERT_NOT_NULL(test, child);
		d_add(child, NULL);
		dput(child);
	}
}

/* The child @name of @dir, referenced. */
static struct dentry *negtest_lookup(struct kunit *test, struct dentry *dir,
				     const char *name)
{
	struct dentry *dentry = d_hash_and_lookup(dir, &QSTR(name));

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dentry);
	return dentry;
}

/*
 * The count follows each child into and out of the negative dentries of the
 * LRU: a lookup of a missing name adds one, which stays counted while in
 * use; a create over it takes it away; the unlink of a file adds it back;
 * and the directory's last children going leave it at 0.
 */
static void count_follows_the_children(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct dentry *dir = negtest_mkdir(test, sb);
	struct dentry *child;

	negtest_negative_children(test, dir, "missing", 3);
	KUNIT_EXPECT_EQ(test, d_negative_children(dir), 3);

	child = negtest_lookup(test, dir, "missing0");
	KUNIT_EXPECT_EQ(test, d_negative_children(dir), 3);
	d_instantiate(child, negtest_inode(test, sb, S_IFREG | 0644));
	KUNIT_EXPECT_EQ(test, d_negative_children(dir), 2);
	dput(child);
	KUNIT_EXPECT_EQ(test, d_negative_children(dir), 2);

	child = negtest_lookup(test, dir, "missing0");
	clear_nlink(d_inode(child));
	d_delete(child);
	KUNIT_EXPECT_EQ(test, d_negative_children(dir), 3);
	dput(child);
	KUNIT_EXPECT_EQ(test, d_negative_children(dir), 3);

	shrink_dcache_parent(dir);
	KUNIT_EXPECT_EQ(test, d_negative_children(dir), 0);
	dput(dir);
}

/*
 * The count is the directory's inode's, so it goes where the directory
 * goes: a rename into another directory (d_move()) keeps it, and neither
 * parent's count changes, the directory being positive.
 */
static void count_moves_with_a_renamed_directory(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct dentry *a = negtest_mkdir_in(test, sb->s_root, "a");
	struct dentry *b = negtest_mkdir_in(test, sb->s_root, "b");
	struct dentry *target = d_alloc_name(b, "renamed");

	KUNIT_ASSERT_NOT_NULL(test, target);
	negtest_negative_children(test, a, "missing", 5);
	negtest_negative_children(test, sb->s_root, "missing", 2);
	d_move(a, target);
	dput(target);

	KUNIT_EXPECT_PTR_EQ(test, a->d_parent, b);
	KUNIT_EXPECT_EQ(test, d_negative_children(a), 5);
	KUNIT_EXPECT_EQ(test, d_negative_children(b), 0);
	KUNIT_EXPECT_EQ(test, d_negative_children(sb->s_root), 2);
	dput(a);
	dput(b);
}

/* An exchange (d_exchange()) swaps the directories, each with its count. */
static void count_stays_through_an_exchange(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct dentry *p = negtest_mkdir_in(test, sb->s_root, "p");
	struct dentry *a = negtest_mkdir_in(test, sb->s_root, "a");
	struct dentry *b = negtest_mkdir_in(test, p, "b");

	negtest_negative_children(test, a, "missing", 3);
	negtest_negative_children(test, b, "missing", 7);
	d_exchange(a, b);

	KUNIT_EXPECT_PTR_EQ(test, a->d_parent, p);
	KUNIT_EXPECT_PTR_EQ(test, b->d_parent, sb->s_root);
	KUNIT_EXPECT_EQ(test, d_negative_children(a), 3);
	KUNIT_EXPECT_EQ(test, d_negative_children(b), 7);
	KUNIT_EXPECT_EQ(test, d_negative_children(p), 0);
	KUNIT_EXPECT_EQ(test, d_negative_children(sb->s_root), 0);
	dput(a);
	dput(b);
	dput(p);
}

/*
 * A directory found by a file handle has a disconnected dentry
 * (d_obtain_alias()) until a lookup splices it into the tree
 * (d_splice_alias()); negative children it collects meanwhile stay
 * counted, and its new parent's count does not change.
 */
static void count_survives_splicing_a_disconnected_directory(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct inode *inode = negtest_inode(test, sb, S_IFDIR | 0755);
	struct dentry *alias, *found, *spliced;

	inode->i_op = &simple_dir_inode_operations;
	inode->i_fop = &simple_dir_operations;
	set_nlink(inode, 2);
	ihold(inode);
	alias = d_obtain_alias(inode);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, alias);
	KUNIT_EXPECT_TRUE(test, IS_ROOT(alias));
	negtest_negative_children(test, alias, "missing", 4);
	negtest_negative_children(test, sb->s_root, "missing", 2);
	KUNIT_EXPECT_EQ(test, d_negative_children(alias), 4);

	found = d_alloc_name(sb->s_root, "found");
	KUNIT_ASSERT_NOT_NULL(test, found);
	spliced = d_splice_alias(inode, found);
	KUNIT_EXPECT_PTR_EQ(test, spliced, alias);
	KUNIT_EXPECT_PTR_EQ(test, alias->d_parent, sb->s_root);
	KUNIT_EXPECT_EQ(test, d_negative_children(alias), 4);
	KUNIT_EXPECT_EQ(test, d_negative_children(sb->s_root), 2);
	if (!IS_ERR_OR_NULL(spliced))
		dput(spliced);
	dput(found);
	dput(alias);
}

/* Reclaim takes a directory's cold negative children down to the target. */
static void dir_reclaim_trims_to_the_target(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct dentry *dir = negtest_mkdir(test, sb);

	negtest_negative_children(test, dir, "missing", 2 * DENTRY_DIR_MAX_MIN);
	KUNIT_EXPECT_EQ(test, d_negative_children(dir), 2 * DENTRY_DIR_MAX_MIN);
	WRITE_ONCE(dentry_dir_max, DENTRY_DIR_MAX_MIN);
	negative_dentry_queue_dir(dir);
	flush_work(&negative_dir_work);
	WRITE_ONCE(dentry_dir_max, 0);
	KUNIT_EXPECT_EQ(test, d_negative_children(dir),
			negative_dentry_target(DENTRY_DIR_MAX_MIN));
	dput(dir);
}

/*
 * A task may hold a directory's d_name.name across a sleep, under the
 * parent's i_rwsem: ext4 and f2fs in the fscrypt filename across directory
 * block I/O, FUSE in a request the daemon copies later. An RCU grace
 * period does not cover it, so the limit must leave the name where it is,
 * byte for byte. 32 bytes is the length of an md5 digest or a machine-id
 * in hex, and fits inline.
 */
static void dir_reclaim_leaves_the_name_in_place(struct kunit *test)
{
	static const char name[] = "0123456789abcdef0123456789abcdef";
	struct super_block *sb = negtest_mount(test);
	struct dentry *dir = negtest_mkdir_in(test, sb->s_root, name);
	const unsigned char *before = dir->d_name.name;

	KUNIT_ASSERT_PTR_EQ(test, before, (const unsigned char *)dir->d_iname);
	negtest_negative_children(test, dir, "missing", 2 * DENTRY_DIR_MAX_MIN);
	WRITE_ONCE(dentry_dir_max, DENTRY_DIR_MAX_MIN);
	negative_dentry_queue_dir(dir);
	flush_work(&negative_dir_work);
	WRITE_ONCE(dentry_dir_max, 0);

	KUNIT_EXPECT_PTR_EQ(test, dir->d_name.name, before);
	KUNIT_EXPECT_EQ(test, memcmp(dir->d_iname, name, sizeof(name)), 0);
	KUNIT_EXPECT_EQ(test, dir->d_name.len, sizeof(name) - 1);
	dput(dir);
}

static struct kunit_case negative_dentry_count_test_cases[] = {
	KUNIT_CASE(count_follows_the_children),
	KUNIT_CASE(count_moves_with_a_renamed_directory),
	KUNIT_CASE(count_stays_through_an_exchange),
	KUNIT_CASE(count_survives_splicing_a_disconnected_directory),
	KUNIT_CASE(dir_reclaim_trims_to_the_target),
	KUNIT_CASE(dir_reclaim_leaves_the_name_in_place),
	{}
};

static struct kunit_suite negative_dentry_count_test_suite = {
	.name = "negative_dentry_count",
	.test_cases = negative_dentry_count_test_cases,
};

kunit_test_suite(negative_dentry_count_test_suite);
