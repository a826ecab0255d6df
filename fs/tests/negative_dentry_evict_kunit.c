// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of where reclaim may drop the last reference of a removed
 * directory. That is the final iput() of an unlinked inode, which on a
 * frozen filesystem waits for the thaw (ext4_evict_inode() starts a
 * transaction). So it must not happen on a frozen filesystem, whose thaw
 * takes s_umount exclusively, nor under negative_dirs_mutex, which the
 * umount of every filesystem takes. A filesystem of the test's own records
 * the state each eviction finds, so that no race has to be won.
 */
#include <kunit/test.h>
#include <linux/fs_context.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>

#define EVICT_TEST_MAGIC	0x6e646576	/* "ndev" */

/* What the last eviction of a directory found. */
static struct {
	int evicted;
	bool frozen;
	bool dirs_mutex;
	bool s_umount;
} evict_seen;

static void evict_test_evict_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	if (inode->i_private != &evict_seen)
		return;
	evict_seen.evicted++;
	evict_seen.frozen = sb->s_writers.frozen != SB_UNFROZEN;
	evict_seen.dirs_mutex = mutex_is_locked(&negative_dirs_mutex);
	evict_seen.s_umount = rwsem_is_locked(&sb->s_umount);
}

static const struct super_operations evict_test_sops = {
	.statfs		= simple_statfs,
	.evict_inode	= evict_test_evict_inode,
};

static int evict_test_init_fs_context(struct fs_context *fc)
{
	struct pseudo_fs_context *ctx = init_pseudo(fc, EVICT_TEST_MAGIC);

	if (!ctx)
		return -ENOMEM;
	ctx->ops = &evict_test_sops;
	return 0;
}

static struct file_system_type evict_test_fs_type = {
	.name			= "negative_dentry_evict_test",
	.init_fs_context	= evict_test_init_fs_context,
	.kill_sb		= kill_anon_super,
};

static void evict_test_unmount(void *mnt)
{
	kern_unmount(mnt);
}

static struct super_block *evict_test_mount(struct kunit *test)
{
	struct vfsmount *mnt = kern_mount(&evict_test_fs_type);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mnt);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, evict_test_unmount,
							mnt), 0);
	memset(&evict_seen, 0, sizeof(evict_seen));
	return mnt->mnt_sb;
}

/* A directory in the root of @sb, referenced once by the caller. */
static struct dentry *evict_test_mkdir(struct kunit *test,
				       struct super_block *sb)
{
	struct dentry *dir = d_alloc_name(sb->s_root, "dir");
	struct inode *inode = new_inode(sb);

	KUNIT_ASSERT_NOT_NULL(test, dir);
	KUNIT_ASSERT_NOT_NULL(test, inode);
	inode->i_ino = get_next_ino();
	inode->i_mode = S_IFDIR | 0755;
	inode->i_op = &simple_dir_inode_operations;
	inode->i_fop = &simple_dir_operations;
	inode->i_private = &evict_seen;
	set_nlink(inode, 2);
	d_add(dir, inode);
	return dir;
}

/* What rmdir leaves of a directory: an unhashed dentry, an unlinked inode. */
static void evict_test_remove(struct dentry *dir)
{
	clear_nlink(d_inode(dir));
	d_drop(dir);
}

/*
 * The directory worker holds the last reference of a directory removed
 * while it was queued: it must drop it holding neither negative_dirs_mutex
 * nor s_umount. Holding the mutex keeps the worker from starting before
 * the directory is removed and the test's own reference gone.
 */
static void dir_worker_drops_a_removed_directory_unlocked(struct kunit *test)
{
	struct super_block *sb = evict_test_mount(test);
	struct dentry *dir = evict_test_mkdir(test, sb);

	mutex_lock(&negative_dirs_mutex);
	negative_dentry_queue_dir(dir);
	if (!(dir->d_flags & DCACHE_NEGATIVE_RECLAIM)) {
		mutex_unlock(&negative_dirs_mutex);
		dput(dir);
		KUNIT_FAIL(test, "the directory was not queued");
		return;
	}
	evict_test_remove(dir);
	dput(dir);
	mutex_unlock(&negative_dirs_mutex);
	flush_work(&negative_dir_work);

	KUNIT_EXPECT_EQ(test, evict_seen.evicted, 1);
	KUNIT_EXPECT_FALSE(test, evict_seen.dirs_mutex);
	KUNIT_EXPECT_FALSE(test, evict_seen.s_umount);
}

/*
 * A negative child that outlived its directory's rmdir (it was being looked
 * up) holds the last reference of the directory. Reclaim must leave it
 * alone while the filesystem is frozen, and take it after the thaw.
 */
static void reclaim_waits_for_the_thaw(struct kunit *test)
{
	struct super_block *sb = evict_test_mount(test);
	struct dentry *dir = evict_test_mkdir(test, sb);
	struct negative_dentry_reclaim nr = {
		.age = true,
		.nr_to_reclaim = 1,
		.budget = 16,
	};
	struct dentry *child = d_alloc_name(dir, "missing");

	KUNIT_ASSERT_NOT_NULL(test, child);
	d_add(child, NULL);
	dput(child);
	evict_test_remove(dir);
	dput(dir);
	KUNIT_ASSERT_EQ(test, list_lru_count(&sb->s_dentry_lru), 1);

	KUNIT_ASSERT_EQ(test, freeze_super(sb, FREEZE_HOLDER_KERNEL), 0);
	negative_dentry_reclaim_shrinker(sb->s_shrink, &nr);
	KUNIT_EXPECT_EQ(test, nr.reclaimed, 0);
	KUNIT_EXPECT_EQ(test, evict_seen.evicted, 0);
	KUNIT_EXPECT_FALSE(test, evict_seen.frozen);
	KUNIT_ASSERT_EQ(test, thaw_super(sb, FREEZE_HOLDER_KERNEL), 0);

	negative_dentry_reclaim_shrinker(sb->s_shrink, &nr);
	KUNIT_EXPECT_EQ(test, nr.reclaimed, 1);
	KUNIT_EXPECT_EQ(test, evict_seen.evicted, 1);
	KUNIT_EXPECT_FALSE(test, evict_seen.frozen);
}

static struct kunit_case negative_dentry_evict_test_cases[] = {
	KUNIT_CASE(dir_worker_drops_a_removed_directory_unlocked),
	KUNIT_CASE(reclaim_waits_for_the_thaw),
	{}
};

static struct kunit_suite negative_dentry_evict_test_suite = {
	.name = "negative_dentry_evict",
	.test_cases = negative_dentry_evict_test_cases,
};

kunit_test_suite(negative_dentry_evict_test_suite);
