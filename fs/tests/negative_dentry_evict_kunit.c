// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of where the per-directory limit drops the last reference of
 * a removed directory: not on a frozen filesystem, whose thaw takes
 * s_umount exclusively, and not under negative_dirs_mutex, which the
 * umount of every filesystem takes (negative_dentry_test_fs.h says why).
 */
#include "negative_dentry_test_fs.h"

static bool negative_dirs_mutex_held(void)
{
	return mutex_is_locked(&negative_dirs_mutex);
}

/*
 * The directory worker holds the last reference of a directory removed
 * while it was queued: it must drop it holding neither negative_dirs_mutex
 * nor s_umount. Holding the mutex keeps the worker from starting before
 * the directory is removed and the test's own reference gone.
 */
static void dir_worker_drops_a_removed_directory_unlocked(struct kunit *test)
{
	struct super_block *sb = negtest_mount(test);
	struct dentry *dir = negtest_mkdir(test, sb);

	negtest_seen.lock_held = negative_dirs_mutex_held;
	mutex_lock(&negative_dirs_mutex);
	negative_dentry_queue_dir(dir);
	if (!(dir->d_flags & DCACHE_NEGATIVE_RECLAIM)) {
		mutex_unlock(&negative_dirs_mutex);
		dput(dir);
		KUNIT_FAIL(test, "the directory was not queued");
		return;
	}
	negtest_remove(dir);
	dput(dir);
	mutex_unlock(&negative_dirs_mutex);
	flush_work(&negative_dir_work);

	KUNIT_EXPECT_EQ(test, negtest_seen.evicted, 1);
	KUNIT_EXPECT_FALSE(test, negtest_seen.locked);
	KUNIT_EXPECT_FALSE(test, negtest_seen.s_umount);
	KUNIT_EXPECT_FALSE(test, negtest_seen.frozen);
}

static struct kunit_case negative_dentry_evict_test_cases[] = {
	KUNIT_CASE(dir_worker_drops_a_removed_directory_unlocked),
	{}
};

static struct kunit_suite negative_dentry_evict_test_suite = {
	.name = "negative_dentry_evict",
	.test_cases = negative_dentry_evict_test_cases,
};

kunit_test_suite(negative_dentry_evict_test_suite);
