/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filesystem of the KUnit tests' own, in memory, for the tests of where
 * negative dentry reclaim drops references. Its inodes record what their
 * last eviction found: whether the filesystem was frozen, whether s_umount
 * was held, and whatever a test asks of negtest_seen.lock_held(). The
 * final iput() of an unlinked directory on a frozen ext4 waits for the
 * thaw, so those are the places reclaim must not drop one; recorded, they
 * need no race to be won.
 */
#ifndef _FS_TESTS_NEGATIVE_DENTRY_TEST_FS_H
#define _FS_TESTS_NEGATIVE_DENTRY_TEST_FS_H

#include <kunit/test.h>
#include <linux/fs_context.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/topology.h>

#define NEGTEST_MAGIC	0x6e646576	/* "ndev" */

static struct {
	int evicted;
	bool frozen;
	bool s_umount;
	bool (*lock_held)(void);
	bool locked;
} negtest_seen;

static void negtest_evict_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	if (inode->i_private != &negtest_seen)
		return;
	negtest_seen.evicted++;
	negtest_seen.frozen = sb->s_writers.frozen != SB_UNFROZEN;
	negtest_seen.s_umount = rwsem_is_locked(&sb->s_umount);
	negtest_seen.locked = negtest_seen.lock_held &&
			      negtest_seen.lock_held();
}

static const struct super_operations negtest_sops = {
	.statfs		= simple_statfs,
	.evict_inode	= negtest_evict_inode,
};

static int negtest_init_fs_context(struct fs_context *fc)
{
	struct pseudo_fs_context *ctx = init_pseudo(fc, NEGTEST_MAGIC);

	if (!ctx)
		return -ENOMEM;
	ctx->ops = &negtest_sops;
	return 0;
}

static struct file_system_type negtest_fs_type = {
	.name			= "negative_dentry_test",
	.init_fs_context	= negtest_init_fs_context,
	.kill_sb		= kill_anon_super,
};

static void negtest_unmount(void *mnt)
{
	kern_unmount(mnt);
}

static void negtest_unpin(void *unused)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

/*
 * A dentry goes on the LRU list of its slab page's NUMA node, and the tests
 * walk node 0's: the test's thread allocates them from a CPU of node 0.
 */
static void negtest_pin_to_node0(struct kunit *test)
{
	int cpu = cpumask_first_and(cpumask_of_node(0), cpu_online_mask);

	if (cpu >= nr_cpu_ids)
		kunit_skip(test, "no CPU of node 0 is online");
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, negtest_unpin,
							NULL), 0);
}

/*
 * A new instance, unmounted when the test ends; negtest_seen cleared. The
 * test runs on node 0 from here on.
 */
static struct super_block *negtest_mount(struct kunit *test)
{
	struct vfsmount *mnt;

	negtest_pin_to_node0(test);
	mnt = kern_mount(&negtest_fs_type);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mnt);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, negtest_unmount,
							mnt), 0);
	memset(&negtest_seen, 0, sizeof(negtest_seen));
	return mnt->mnt_sb;
}

KUNIT_DEFINE_ACTION_WRAPPER(negtest_dput, dput, struct dentry *);

/*
 * A new dentry @name in @parent on a slab page of node 0, whose LRU list
 * the tests walk. Its CPU is node 0's (negtest_mount()), but the CPU's slab
 * may still be a page of another node: a dentry from there goes back and
 * is taken again, nameless and off every list, and held until the test
 * ends, until the slab moves on to a page of node 0.
 */
static inline struct dentry *negtest_alloc_name(struct kunit *test,
						struct dentry *parent,
						const char *name)
{
	int i;

	for (i = 0; i < 1024; i++) {
		struct dentry *dentry = d_alloc_name(parent, name);

		KUNIT_ASSERT_NOT_NULL(test, dentry);
		if (page_to_nid(virt_to_page(dentry)) == 0)
			return dentry;
		dput(dentry);
		dentry = d_alloc_anon(parent->d_sb);
		KUNIT_ASSERT_NOT_NULL(test, dentry);
		KUNIT_ASSERT_EQ(test,
				kunit_add_action_or_reset(test, negtest_dput,
							  dentry), 0);
	}
	KUNIT_FAIL_AND_ABORT(test, "no dentry of node 0 in 1024 tries");
	return NULL;
}

/* An inode of @sb whose eviction is recorded. */
static struct inode *negtest_inode(struct kunit *test, struct super_block *sb,
				   umode_t mode)
{
	struct inode *inode = new_inode(sb);

	KUNIT_ASSERT_NOT_NULL(test, inode);
	inode->i_ino = get_next_ino();
	inode->i_mode = mode;
	inode->i_private = &negtest_seen;
	return inode;
}

/* A directory @name in @parent, referenced once by the caller. */
static struct dentry *negtest_mkdir_in(struct kunit *test,
				       struct dentry *parent, const char *name)
{
	struct dentry *dir = d_alloc_name(parent, name);
	struct inode *inode;

	KUNIT_ASSERT_NOT_NULL(test, dir);
	inode = negtest_inode(test, parent->d_sb, S_IFDIR | 0755);
	inode->i_op = &simple_dir_inode_operations;
	inode->i_fop = &simple_dir_operations;
	set_nlink(inode, 2);
	d_add(dir, inode);
	return dir;
}

/* A directory in the root of @sb, referenced once by the caller. */
static struct dentry *negtest_mkdir(struct kunit *test, struct super_block *sb)
{
	return negtest_mkdir_in(test, sb->s_root, "dir");
}

/* What rmdir leaves of a directory: an unhashed dentry, an unlinked inode. */
static void negtest_remove(struct dentry *dir)
{
	clear_nlink(d_inode(dir));
	d_drop(dir);
}

#endif /* _FS_TESTS_NEGATIVE_DENTRY_TEST_FS_H */
