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

/* The newest format this module reads; mvfs init writes none newer. */
#define MVFS_FORMAT_READ	3
static_assert(MVFS_FORMAT <= MVFS_FORMAT_READ);

/* The most bytes of config specs a state may make the module read. */
#define MVFS_CS_TOTAL_MAX	(16U << 20)

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

/* The size of a revision record and of a view record in FORMAT. */
static size_t mvfs_rev_size(u32 format)
{
	return format < 3 ? sizeof(struct mvfs_rev_disk) :
			    sizeof(struct mvfs_rev3_disk);
}

static size_t mvfs_view_size(u32 format)
{
	return format < 3 ? sizeof(struct mvfs_view_disk) :
			    sizeof(struct mvfs_view3_disk);
}

/*
 * Format 3's fields of revision N: parent and merge below N, a branch
 * that exists, reserved 0.  Formats 1 and 2 are one line on main.
 */
static bool mvfs_rev3_decode(const struct mvfs_state *st, const void *rec,
			     u32 n, struct mvfs_rev *r)
{
	const struct mvfs_rev3_disk *d = rec;
	u64 parent, merge;

	r->parent = n - 1;
	r->branch = 0;
	if (st->format < 3)
		return true;
	parent = le64_to_cpu(d->parent);
	merge = le64_to_cpu(d->merge);
	r->branch = le32_to_cpu(d->branch);
	r->parent = parent;
	return parent < n && merge < n && r->branch < st->nbranches &&
	       !d->reserved;
}

static int mvfs_state_parse_revs(struct mvfs_sb_info *sbi,
				 struct mvfs_state *st, const void *p)
{
	struct mvfs_bounds b = { .below = st->pack_len,
				 .objects = st->next_object };
	size_t size = mvfs_rev_size(st->format);
	const struct mvfs_rev_disk *d;
	struct mvfs_entry *e;
	int err = 0;
	u32 i;

	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	for (i = 0; i < st->nrevs; i++) {
		d = p + (size_t)i * size;
		if (!mvfs_entry_decode(&d->root, e, &b) ||
		    !S_ISDIR(e->mode) || d->root.name_off ||
		    d->root.name_len ||
		    !mvfs_rev3_decode(st, d, i + 1, &st->revs[i])) {
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

/* A format 1 or 2 view: the one-rule spec its selection stands for. */
static int mvfs_view2_parse(struct mvfs_state *st, u32 i,
			    const struct mvfs_view_disk *v)
{
	struct mvfs_view_rec *r = &st->views[i];
	u32 select = le32_to_cpu(v->select);
	u64 rev = le64_to_cpu(v->rev);
	char label[MVFS_NAME_MAX + 1];
	char *text;

	r->uid = le32_to_cpu(v->uid);
	r->gid = le32_to_cpu(v->gid);
	r->mode = le32_to_cpu(v->mode);
	if (!mvfs_name_field(r->tag, v->tag) || r->mode > 0777)
		return -EIO;
	if (select == MVFS_SEL_REV && !rev)
		text = kstrdup("", GFP_KERNEL);	/* no rule: selects nothing */
	else if (select == MVFS_SEL_REV && rev <= st->nrevs)
		text = kasprintf(GFP_KERNEL, "element * %llu\n", rev);
	else if (select == MVFS_SEL_LABEL && mvfs_name_field(label, v->label))
		text = kasprintf(GFP_KERNEL, "element * %s\n", label);
	else if (select == MVFS_SEL_LATEST)
		text = kasprintf(GFP_KERNEL, "element * %s\n",
				 MVFS_SPEC_LATEST);
	else
		return -EIO;
	if (!text)
		return -ENOMEM;
	st->cs[i].text = text;
	st->cs[i].len = strlen(text);
	return 0;
}

/*
 * A format 3 view, its spec's text read from the pack.  *TOTAL counts
 * the bytes of all the specs read, which MVFS_CS_TOTAL_MAX bounds.
 */
static int mvfs_view3_parse(struct mvfs_sb_info *sbi, struct mvfs_state *st,
			    u32 i, const struct mvfs_view3_disk *v, u64 *total)
{
	struct mvfs_view_rec *r = &st->views[i];
	u64 off = le64_to_cpu(v->cs_off);
	u32 len = le32_to_cpu(v->cs_len);
	char *text;
	int err;

	r->uid = le32_to_cpu(v->uid);
	r->gid = le32_to_cpu(v->gid);
	r->mode = le32_to_cpu(v->mode);
	*total += len;
	if (!mvfs_name_field(r->tag, v->tag) || r->mode > 0777 ||
	    v->reserved || !len || len > MVFS_SPEC_MAX ||
	    len > st->pack_len - sizeof(struct mvfs_pack_hdr) ||
	    off < sizeof(struct mvfs_pack_hdr) || off > st->pack_len - len ||
	    *total > MVFS_CS_TOTAL_MAX)
		return -EIO;
	text = kvmalloc(len, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	err = mvfs_read_at(sbi->pack, text, len, off);
	if (err) {
		kvfree(text);
		/* A fatal signal or no memory: not the record's fault. */
		return err == -EINTR || err == -ENOMEM ? err : -EIO;
	}
	st->cs[i].text = text;
	st->cs[i].len = len;
	return 0;
}

static int mvfs_state_parse_names(struct mvfs_sb_info *sbi,
				  struct mvfs_state *st, const void *p)
{
	const struct mvfs_label_disk *l = p;
	const void *v = l + st->nlabels;
	size_t size = mvfs_view_size(st->format);
	u64 total = 0;
	int err;
	u32 i;

	for (i = 0; i < st->nlabels; i++) {
		st->labels[i].rev = le64_to_cpu(l[i].rev);
		if (!mvfs_name_field(st->labels[i].name, l[i].name) ||
		    !st->labels[i].rev || st->labels[i].rev > st->nrevs)
			return mvfs_state_corrupt(sbi, "label", i + 1);
	}
	for (i = 0; i < st->nviews; i++, v += size) {
		if (st->format < 3)
			err = mvfs_view2_parse(st, i, v);
		else
			err = mvfs_view3_parse(sbi, st, i, v, &total);
		if (err == -EIO)
			return mvfs_state_corrupt(sbi, "view", i + 1);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The branches: format 3's records (main first, from 0; every other from
 * an existing revision), or main alone.  Then each one's newest revision.
 */
static int mvfs_state_parse_branches(struct mvfs_sb_info *sbi,
				     struct mvfs_state *st, const void *p)
{
	const struct mvfs_branch_disk *d = p;
	struct mvfs_branch *b;
	u32 i;

	if (st->format < 3)
		strscpy(st->branches[0].name, MVFS_MAIN_BRANCH,
			sizeof(st->branches[0].name));
	for (i = 0; st->format >= 3 && i < st->nbranches; i++) {
		b = &st->branches[i];
		b->from = le64_to_cpu(d[i].from);
		if (!mvfs_name_field(b->name, d[i].name) ||
		    !strcmp(b->name, MVFS_MAIN_BRANCH) != !i ||
		    !b->from != !i || b->from > st->nrevs)
			return mvfs_state_corrupt(sbi, "branch", i + 1);
	}
	for (i = 0; i < st->nrevs; i++)
		st->branches[st->revs[i].branch].head = i + 1;
	for (i = 0; i < st->nbranches; i++)
		if (!st->branches[i].head)
			st->branches[i].head = st->branches[i].from;
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
	    le32_to_cpu(h->format) > MVFS_FORMAT_READ) {
		pr_err("store %s: format %u, this module reads formats %u to %u\n",
		       sbi->store_name, le32_to_cpu(h->format),
		       MVFS_FORMAT_MIN, MVFS_FORMAT_READ);
		return -EINVAL;
	}
	h->checksum = 0;
	if (le64_to_cpu(h->size) != size)
		why = "its size field is not its size";
	else if (mvfs_state_sum(buf, size) != sum)
		why = "checksum mismatch";
	else if (mvfs_state_size(le32_to_cpu(h->format),
				 le32_to_cpu(h->nrevs),
				 le32_to_cpu(h->nlabels),
				 le32_to_cpu(h->nviews),
				 le32_to_cpu(h->format) < 3 ? 0 :
				 le32_to_cpu(h->nbranches)) != size)
		why = "its records do not fill it";
	else if (le32_to_cpu(h->format) < 3 && h->nbranches)
		why = "reserved field set";
	else if (le32_to_cpu(h->format) >= 3 && !h->nbranches)
		why = "no main branch";
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

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return NULL;
	st->format = le32_to_cpu(h->format);
	st->nrevs = le32_to_cpu(h->nrevs);
	st->nlabels = le32_to_cpu(h->nlabels);
	st->nviews = le32_to_cpu(h->nviews);
	st->nbranches = st->format < 3 ? 1 : le32_to_cpu(h->nbranches);
	st->revs = kvcalloc(st->nrevs, sizeof(*st->revs), GFP_KERNEL);
	st->labels = kvcalloc(st->nlabels, sizeof(*st->labels), GFP_KERNEL);
	st->views = kvcalloc(st->nviews, sizeof(*st->views), GFP_KERNEL);
	st->cs = kvcalloc(st->nviews, sizeof(*st->cs), GFP_KERNEL);
	st->branches = kvcalloc(st->nbranches, sizeof(*st->branches),
				GFP_KERNEL);
	if ((st->nrevs && !st->revs) || (st->nlabels && !st->labels) ||
	    (st->nviews && (!st->views || !st->cs)) || !st->branches) {
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
	u32 i;

	if (!st)
		return;
	for (i = 0; st->cs && i < st->nviews; i++)
		kvfree(st->cs[i].text);
	kvfree(st->cs);
	kvfree(st->revs);
	kvfree(st->labels);
	kvfree(st->views);
	kvfree(st->branches);
	mvfs_nameidx_free(&st->label_idx);
	mvfs_nameidx_free(&st->view_idx);
	mvfs_nameidx_free(&st->branch_idx);
	kfree(st);
}

/* Index the names of a parsed state: none is searched one by one. */
static int mvfs_state_index(struct mvfs_state *st)
{
	/* Each record must start with its name (nameidx.c). */
	BUILD_BUG_ON(offsetof(struct mvfs_label, name) ||
		     offsetof(struct mvfs_view_rec, tag) ||
		     offsetof(struct mvfs_branch, name));
	return mvfs_nameidx_build(&st->label_idx, st->labels,
				  sizeof(*st->labels), st->nlabels) ?:
	       mvfs_nameidx_build(&st->view_idx, st->views,
				  sizeof(*st->views), st->nviews) ?:
	       mvfs_nameidx_build(&st->branch_idx, st->branches,
				  sizeof(*st->branches), st->nbranches);
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
	p += (size_t)st->nrevs * mvfs_rev_size(st->format);
	if (!err)
		err = mvfs_state_parse_names(sbi, st, p);
	p += (size_t)st->nlabels * sizeof(struct mvfs_label_disk) +
	     (size_t)st->nviews * mvfs_view_size(st->format);
	if (!err)
		err = mvfs_state_parse_branches(sbi, st, p);
	if (!err)
		err = mvfs_state_index(st);
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

	file = mvfs_follow_open_state(sbi);
	if (PTR_ERR(file) == -ENOMEM || PTR_ERR(file) == -EINTR)
		return ERR_CAST(file);
	if (IS_ERR(file) && mvfs_store_unreachable(PTR_ERR(file))) {
		pr_err("store %s: cannot open %s: %ld\n", sbi->store_name,
		       MVFS_STATE_FILE, PTR_ERR(file));
		return ERR_CAST(file);
	}
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
