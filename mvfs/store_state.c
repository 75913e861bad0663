// SPDX-License-Identifier: GPL-2.0
/*
 * store_state.c: the store's state file (uapi/mvfs_format.h,
 * docs/FORMAT.md "state"): read whole, checked in the order FORMAT.md
 * gives, parsed into a struct mvfs_state.  store.c reads the rest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "mvfs.h"
#include "store_int.h"

/* Copy a NUL-padded name field; false unless it is a valid name. */
static bool mvfs_name_field(char *dst, const char *field)
{
	size_t len = strnlen(field, MVFS_NAME_FIELD);

	if (!mvfs_tag_valid(field, len))
		return false;
	memcpy(dst, field, len);
	dst[len] = '\0';
	return true;
}

static int mvfs_state_parse_revs(struct mvfs_sb_info *sbi,
				 struct mvfs_state *st, const void *p)
{
	const struct mvfs_rev_disk *d = p;
	struct mvfs_bounds b = { .below = st->pack_len,
				 .objects = st->next_object };
	struct mvfs_entry *e;
	int err = 0;
	u32 i;

	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	for (i = 0; i < st->nrevs; i++) {
		if (!mvfs_entry_decode(&d[i].root, e, &b) ||
		    !S_ISDIR(e->mode) || d[i].root.name_off ||
		    d[i].root.name_len) {
			err = mvfs_state_corrupt(sbi, "revision", i + 1);
			break;
		}
		mvfs_attr_from_entry(&st->revs[i].root, e);
		if (!(i % 1024))
			cond_resched();
	}
	kfree(e);
	return err;
}

static int mvfs_state_parse_names(struct mvfs_sb_info *sbi,
				  struct mvfs_state *st, const void *p)
{
	const struct mvfs_label_disk *l = p;
	const struct mvfs_view_disk *v = (const void *)(l + st->nlabels);
	struct mvfs_view_rec *r;
	u32 i;

	for (i = 0; i < st->nlabels; i++) {
		st->labels[i].rev = le64_to_cpu(l[i].rev);
		if (!mvfs_name_field(st->labels[i].name, l[i].name) ||
		    !st->labels[i].rev || st->labels[i].rev > st->nrevs)
			return mvfs_state_corrupt(sbi, "label", i + 1);
	}
	for (i = 0; i < st->nviews; i++) {
		r = &st->views[i];
		r->rev = le64_to_cpu(v[i].rev);
		r->select = le32_to_cpu(v[i].select);
		r->uid = le32_to_cpu(v[i].uid);
		r->gid = le32_to_cpu(v[i].gid);
		r->mode = le32_to_cpu(v[i].mode);
		if (!mvfs_name_field(r->tag, v[i].tag) || r->mode > 0777 ||
		    r->select < MVFS_SEL_REV || r->select > MVFS_SEL_LATEST ||
		    (r->select == MVFS_SEL_REV && r->rev > st->nrevs) ||
		    (r->select == MVFS_SEL_LABEL &&
		     !mvfs_name_field(r->label, v[i].label)))
			return mvfs_state_corrupt(sbi, "view", i + 1);
	}
	return 0;
}

/* FNV-1a of a state file, yielding the CPU between chunks. */
static u64 mvfs_state_sum(const void *buf, u64 size)
{
	u64 sum = MVFS_FNV64_INIT, n;

	for (; size; size -= n, buf += n) {
		n = min_t(u64, size, SZ_256K);
		sum = mvfs_fnv64(sum, buf, n);
		cond_resched();
	}
	return sum;
}

/*
 * Check the header of a state file of SIZE bytes, in the order FORMAT.md
 * gives, each failure with a message of its own: 0 or -EINVAL/-EIO.
 */
static int mvfs_state_check(struct mvfs_sb_info *sbi, void *buf, u64 size)
{
	struct mvfs_state_hdr *h = buf;
	u64 sum = le64_to_cpu(h->checksum);
	const char *why = NULL;

	if (le32_to_cpu(h->magic) != MVFS_STATE_MAGIC) {
		pr_err("store %s: %s is not an mvfs state file\n",
		       sbi->store_name, MVFS_STATE_FILE);
		return -EINVAL;
	}
	if (le32_to_cpu(h->format) < MVFS_FORMAT_MIN ||
	    le32_to_cpu(h->format) > MVFS_FORMAT) {
		pr_err("store %s: format %u, this module reads formats %u to %u\n",
		       sbi->store_name, le32_to_cpu(h->format),
		       MVFS_FORMAT_MIN, MVFS_FORMAT);
		return -EINVAL;
	}
	h->checksum = 0;
	if (le64_to_cpu(h->size) != size)
		why = "its size field is not its size";
	else if (mvfs_state_sum(buf, size) != sum)
		why = "checksum mismatch";
	else if (mvfs_state_size(le32_to_cpu(h->nrevs),
				 le32_to_cpu(h->nlabels),
				 le32_to_cpu(h->nviews)) != size)
		why = "its records do not fill it";
	else if (h->reserved)
		why = "reserved field set";
	else if (le64_to_cpu(h->pack_len) < sizeof(struct mvfs_pack_hdr) ||
		 le64_to_cpu(h->pack_len) > i_size_read(file_inode(sbi->pack)) ||
		 !le64_to_cpu(h->next_object))
		why = "pack_len or next_object disagrees with pack";
	if (why) {
		pr_err("store %s: %s is corrupt: %s\n", sbi->store_name,
		       MVFS_STATE_FILE, why);
		return -EIO;
	}
	return 0;
}

static struct mvfs_state *mvfs_state_alloc(const struct mvfs_state_hdr *h)
{
	struct mvfs_state *st;
	u32 nrevs = le32_to_cpu(h->nrevs), nlabels = le32_to_cpu(h->nlabels);
	u32 nviews = le32_to_cpu(h->nviews);

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return NULL;
	st->nrevs = nrevs;
	st->nlabels = nlabels;
	st->nviews = nviews;
	st->revs = kvcalloc(nrevs, sizeof(*st->revs), GFP_KERNEL);
	st->labels = kvcalloc(nlabels, sizeof(*st->labels), GFP_KERNEL);
	st->views = kvcalloc(nviews, sizeof(*st->views), GFP_KERNEL);
	if ((nrevs && !st->revs) || (nlabels && !st->labels) ||
	    (nviews && !st->views)) {
		mvfs_state_free(st);
		return NULL;
	}
	return st;
}

/**
 * mvfs_state_free - free what mvfs_store_read_state() returned
 * @st: the state, or NULL
 */
void mvfs_state_free(struct mvfs_state *st)
{
	if (!st)
		return;
	kvfree(st->revs);
	kvfree(st->labels);
	kvfree(st->views);
	kfree(st);
}

/*
 * Parse a checked state file.  Its records are checked against the
 * lengths it commits, never below those in force (committed lengths only
 * grow); sbi is not changed: the caller commits st->pack_len and
 * st->next_object once the whole state is accepted.
 */
static struct mvfs_state *mvfs_state_parse(struct mvfs_sb_info *sbi,
					   const void *buf)
{
	const struct mvfs_state_hdr *h = buf;
	const void *p = h + 1;
	struct mvfs_state *st;
	int err;

	st = mvfs_state_alloc(h);
	if (!st)
		return ERR_PTR(-ENOMEM);
	st->pack_len = max(READ_ONCE(sbi->pack_len), le64_to_cpu(h->pack_len));
	st->next_object = max(READ_ONCE(sbi->next_object),
			      le64_to_cpu(h->next_object));
	err = mvfs_state_parse_revs(sbi, st, p);
	p += (size_t)st->nrevs * sizeof(struct mvfs_rev_disk);
	if (!err)
		err = mvfs_state_parse_names(sbi, st, p);
	if (err) {
		mvfs_state_free(st);
		return ERR_PTR(err);
	}
	return st;
}

/**
 * mvfs_store_read_state - read and check the store's state file
 * @sbi: the mount, its store open
 *
 * Callers serialise (sbi->state_lock held for writing, or at mount).
 * Nothing of @sbi changes: the caller commits the state's lengths.
 *
 * Return: the state (mvfs_state_free() it), or ERR_PTR(-EINVAL) for a
 * file that is not a state of our format (or not a regular file),
 * ERR_PTR(-EIO) for a corrupt or unreadable one, ERR_PTR(-ENOMEM).  Logs
 * one line on failure.
 */
struct mvfs_state *mvfs_store_read_state(struct mvfs_sb_info *sbi)
{
	struct mvfs_state *st;
	struct file *file;
	void *buf = NULL;
	u64 size;
	int err;

	file = mvfs_open(sbi, MVFS_STATE_FILE);
	if (PTR_ERR(file) == -ENOMEM)
		return ERR_CAST(file);
	if (IS_ERR(file)) {
		pr_err("store %s: no %s regular file (%ld): not an mvfs store\n",
		       sbi->store_name, MVFS_STATE_FILE, PTR_ERR(file));
		return ERR_PTR(-EINVAL);
	}
	size = i_size_read(file_inode(file));
	err = -EIO;
	if (size < sizeof(struct mvfs_state_hdr) || size > MVFS_STATE_MAX) {
		pr_err("store %s: %s has a bad size %llu\n", sbi->store_name,
		       MVFS_STATE_FILE, size);
		goto out_fput;
	}
	err = -ENOMEM;
	buf = kvmalloc(size, GFP_KERNEL);
	if (!buf)
		goto out_fput;
	err = mvfs_read_at(file, buf, size, 0);
	if (err) {
		pr_err("store %s: cannot read %s (%d)\n", sbi->store_name,
		       MVFS_STATE_FILE, err);
		goto out_free;
	}
	err = mvfs_state_check(sbi, buf, size);
	if (err)
		goto out_free;
	st = mvfs_state_parse(sbi, buf);
	kvfree(buf);
	fput(file);
	return st;

out_free:
	kvfree(buf);
out_fput:
	fput(file);
	return ERR_PTR(err);
}
