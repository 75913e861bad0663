// SPDX-License-Identifier: GPL-2.0
/*
 * mvfs_test_warn: a test-only module that proves the harness's console
 * scan.  Loaded, it does what its "action" parameter says: "warn" triggers
 * a WARN_ON (the default), "panic" panics the guest.  mvfs.ko carries no
 * such hook; this module is never part of mvfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/string.h>

static char *action = "warn";
module_param(action, charp, 0444);
MODULE_PARM_DESC(action, "warn (default) or panic");

static int __init mvfs_test_warn_init(void)
{
	if (!strcmp(action, "panic"))
		panic("mvfs_test_warn: panic requested by the harness test\n");
	pr_info("triggering a WARN_ON for the harness test\n");
	WARN_ON(1);
	return 0;
}

static void __exit mvfs_test_warn_exit(void)
{
}

module_init(mvfs_test_warn_init);
module_exit(mvfs_test_warn_exit);

MODULE_DESCRIPTION("mvfs harness test: trigger a kernel report on load");
MODULE_LICENSE("GPL");
