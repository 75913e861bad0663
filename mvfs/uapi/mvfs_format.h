/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mvfs_format.h: the on-disk format of an mvfs store, format 3.
 *
 * Shared by the module (mvfs/store.c is its only reader in the kernel) and
 * the tools (userspace/lib/store.c is its only user of it).
 * docs/FORMAT.md says the same in prose; change both together and bump
 * MVFS_FORMAT when the layout changes.
 *
 * A store is a directory on an ext2 filesystem:
 *
 *   state          the only mutable file: revisions, labels, views, and how
 *                  much of pack, index and objects is committed.  Replaced
 *                  whole (state.tmp, fsync, rename, fsync of the directory),
 *                  which makes every change atomic.
 *   pack           append-only: a struct mvfs_pack_hdr, then trees, symlink
 *                  targets and messages, each referenced by its byte offset.
 *   index          append-only, tools only: struct mvfs_index_rec, the
 *                  content hash of every object and tree, for dedup.
 *   index.sorted   tools only, a cache made from index: its records
 *                  sorted by hash (struct mvfs_isort_hdr); may be absent.
 *   views/TAG/     format 2: the private area of view TAG: upper/ is its
 *                  private tree (an overlay upper layer), work/ where
 *                  copy-ups are built before being renamed into upper/.
 *                  Entries of upper/ carry trusted.mvfs.* xattrs (below).
 *   objects/XX/N   file contents, one exact-size file per distinct content:
 *                  N is the object number in lowercase hex, XX is N & 0xff
 *                  in two hex digits.  Object 0 is the empty file and has
 *                  no file.  The tools number objects so that 256 in a row
 *                  share a folder (docs/FORMAT.md); readers only need N.
 *
 * Bytes of pack and index past state's pack_len and index_len, and objects
 * numbered next_object or above, are left by an interrupted import: readers
 * ignore them and the next import overwrites them.
 *
 * All integers are little-endian; every structure has fixed width and no
 * hidden padding.
 */
#ifndef _UAPI_MVFS_FORMAT_H
#define _UAPI_MVFS_FORMAT_H

#include <linux/types.h>

/*
 * The store's format, in the state file.  Format 1 has no private areas
 * (views are read-only); format 2 adds views/; format 3 adds branches,
 * a parent and a merge source to each revision, and a config spec to
 * each view.  The pack's own layout has not changed: its header says
 * MVFS_PACK_FORMAT.  MVFS_FORMAT is what mvfs init writes; a new format
 * becomes it only once the module and the tools both read it.
 */
#define MVFS_FORMAT		3
#define MVFS_FORMAT_MIN		1	/* still read, read-only views */
#define MVFS_PACK_FORMAT	1
#define MVFS_STATE_MAGIC	0x5453564d	/* "MVST" */
#define MVFS_PACK_MAGIC		0x4b50564d	/* "MVPK" */
#define MVFS_TREE_MAGIC		0x5254564d	/* "MVTR" */

#define MVFS_STATE_FILE		"state"
#define MVFS_STATE_TMP		"state.tmp"
/* The replaced state's second name while a commit reaches the disk */
#define MVFS_STATE_OLD		"state.old"
#define MVFS_PACK_FILE		"pack"
#define MVFS_INDEX_FILE		"index"
#define MVFS_ISORT_FILE		"index.sorted"
#define MVFS_ISORT_TMP		"index.sorted.tmp"
#define MVFS_ISORT_OLD		"index.sorted.old"
#define MVFS_OBJECTS_DIR	"objects"
#define MVFS_VIEWS_DIR		"views"		/* format 2 */
#define MVFS_UPPER_DIR		"upper"		/* views/TAG/upper */
#define MVFS_WORK_DIR		"work"		/* views/TAG/work */

/*
 * The private area of a view (views/TAG/upper) is a directory tree on the
 * store's ext2, as overlayfs's upper layer is, over the tree the view
 * selects.  What its entries are:
 *
 *  - a character device 0/0 is a whiteout: the element of that name is
 *    removed in this view;
 *  - an entry with MVFS_XATTR_ORIGIN is an element copied up from the
 *    revision and path the xattr names: a changed element, renamed when the
 *    origin's path is not the entry's own.  A directory with an origin
 *    shows its own entries over those of the element at the origin's path
 *    in the revision the view selects now; a directory without one shows
 *    only its own;
 *  - an entry with MVFS_XATTR_ELEM was made an element by mkelem: it is
 *    added at the next check-in;
 *  - anything else is view-private (a build output): never checked in;
 *  - a whiteout, or an entry without an origin at the name of an element
 *    (a new file renamed over it, as `sed -i` saves), may have
 *    MVFS_XATTR_BASE, of MVFS_XATTR_ORIGIN's layout with ino 0: the
 *    revision the view showed that element from when it was removed or
 *    replaced, and its path.  A check-in asks whether the element changed
 *    since then; without one (or naming another path) it takes the
 *    revision of the directory's origin, else the view's selection.  An
 *    addition: tools and modules that ignore it take that rule always;
 *  - a directory with MVFS_XATTR_IMPURE (value empty) may hold an entry
 *    whose inode number is not its own: one with an origin, moved or
 *    linked in.  Its listing reads each entry's origin, as a directory
 *    that shows a tree's always does.  Set before such an entry arrives;
 *    a module that ignores it lists such an entry under its own number.
 */
#define MVFS_XATTR_ORIGIN	"trusted.mvfs.origin"
#define MVFS_XATTR_ELEM		"trusted.mvfs.elem"
#define MVFS_XATTR_IMPURE	"trusted.mvfs.impure"
#define MVFS_XATTR_BASE		"trusted.mvfs.base"

/* The value of MVFS_XATTR_ORIGIN: this header, then path_len bytes. */
struct mvfs_origin_disk {
	__le64	rev;		/* the revision the element was copied from */
	__le64	ino;		/* its inode number in the view, kept */
	__le32	path_len;	/* then the element's path, no NUL, "" top */
	__le32	reserved;	/* 0 */
};

#define MVFS_ORIGIN_MAX		(sizeof(struct mvfs_origin_disk) + 4096)

/* Tags and label names: 1..64 of [A-Za-z0-9._-], not "." or "..". */
#define MVFS_NAME_MAX		64
#define MVFS_NAME_FIELD		72	/* NUL-padded on disk */

/* Entries are at most this many bytes of name (no '/', no NUL). */
#define MVFS_ENTRY_NAME_MAX	255

/* The first 64 bytes of state. */
struct mvfs_state_hdr {
	__le32	magic;		/* MVFS_STATE_MAGIC */
	__le32	format;		/* MVFS_FORMAT */
	__le64	checksum;	/* mvfs_fnv64 of the file, this field 0 */
	__le64	size;		/* bytes in the whole file */
	__le64	pack_len;	/* committed bytes of pack */
	__le64	next_object;	/* above every committed object number */
	__le64	index_len;	/* committed bytes of index */
	__le32	nrevs;		/* then struct mvfs_rev_disk[nrevs] */
	__le32	nlabels;	/* then struct mvfs_label_disk[nlabels] */
	__le32	nviews;		/* then struct mvfs_view_disk[nviews] */
	__le32	nbranches;	/* format 3: then mvfs_branch_disk[]; else 0 */
};

/*
 * One name in a directory, and the root of a revision.  Which of size and
 * ref mean what depends on the type in mode:
 *   S_IFREG: size in bytes, ref the object number (0: empty file);
 *   S_IFLNK: size the target's length, ref its pack offset;
 *   S_IFDIR: size the number of entries, ref the tree's pack offset.
 */
struct mvfs_entry_disk {
	__le32	name_off;	/* of the name in the tree's names */
	__le16	name_len;
	__le16	reserved;	/* 0 */
	__le32	mode;		/* type and permission bits, as st_mode */
	__le32	uid;
	__le32	gid;
	__le32	mtime_nsec;
	__le64	mtime;		/* seconds since the epoch, signed */
	__le64	size;
	__le64	ref;
};

/*
 * A directory: this header, count entries sorted by name (bytewise, a
 * prefix first), then names_len bytes of names, not NUL-terminated.
 */
struct mvfs_tree_hdr {
	__le32	magic;		/* MVFS_TREE_MAGIC */
	__le32	count;
	__le32	names_len;
	__le32	reserved;	/* 0 */
};

/* Revision N is record N - 1; a revision never changes once committed. */
struct mvfs_rev_disk {
	struct mvfs_entry_disk root;	/* the top directory; no name */
	__le64	time;		/* of the import, seconds since the epoch */
	__le64	msg_off;	/* pack offset of the message */
	__le32	msg_len;
	__le32	author;		/* uid of the importer */
};

/*
 * Format 3: a revision record is struct mvfs_rev3_disk.  Revisions are
 * numbered 1, 2, 3... across all branches; each is on one branch.
 */
struct mvfs_rev3_disk {
	struct mvfs_rev_disk	r;	/* as in formats 1 and 2 */
	__le64	parent;		/* the revision it was made from; 0 none */
	__le64	merge;		/* the revision merged into it; 0 none */
	__le32	branch;		/* index of its branch record; 0 main */
	__le32	reserved;	/* 0 */
};

struct mvfs_label_disk {
	char	name[MVFS_NAME_FIELD];
	__le64	rev;
};

/*
 * Format 3: a branch.  Record 0 is always "main", from 0.  A branch's
 * newest revision (BRANCH/LATEST) is the highest-numbered revision on it,
 * or, while it has none, the revision it starts from.
 */
#define MVFS_MAIN_BRANCH	"main"
struct mvfs_branch_disk {
	char	name[MVFS_NAME_FIELD];
	__le64	from;		/* the revision it branches from; 0 main */
};

enum mvfs_select {
	MVFS_SEL_REV	= 1,	/* a fixed revision */
	MVFS_SEL_LABEL	= 2,	/* whatever revision the label names */
	MVFS_SEL_LATEST	= 3,	/* the newest revision, moving */
};

/* Formats 1 and 2: a view selects one revision. */
struct mvfs_view_disk {
	char	tag[MVFS_NAME_FIELD];
	char	label[MVFS_NAME_FIELD];	/* MVFS_SEL_LABEL */
	__le64	rev;			/* MVFS_SEL_REV */
	__le32	select;			/* enum mvfs_select */
	__le32	uid;			/* owner */
	__le32	gid;
	__le32	mode;			/* permission bits, 0..0777 */
};

/*
 * Format 3: a view selects by its config spec (mvfs_spec.h), text in the
 * pack.  A spec is never changed in place: setcs appends a new one.
 */
struct mvfs_view3_disk {
	char	tag[MVFS_NAME_FIELD];
	__le64	cs_off;			/* pack offset of the spec's text */
	__le32	cs_len;			/* its length, 1..MVFS_SPEC_MAX */
	__le32	uid;			/* owner */
	__le32	gid;
	__le32	mode;			/* permission bits, 0..0777 */
	__le64	reserved;		/* 0 */
};

struct mvfs_pack_hdr {
	__le32	magic;		/* MVFS_PACK_MAGIC */
	__le32	format;		/* MVFS_PACK_FORMAT */
	__le64	reserved;	/* 0 */
};

/*
 * index: the content hash of an object, or (MVFS_INDEX_TREE set) of bytes
 * in the pack: a tree or a symlink target.  A match is used only after
 * the bytes compare equal.
 */
#define MVFS_INDEX_TREE		0x8000000000000000ULL	/* bit 63 */
struct mvfs_index_rec {
	__le64	hash;		/* mvfs_fnv64 of the bytes */
	__le64	ref;		/* object number, or pack offset | TREE */
};

/*
 * index.sorted: tools only, a cache that may be removed at any time.  The
 * valid records among the first `records` of index, sorted by hash, then
 * ref: this header, MVFS_ISORT_FANOUT __le32 counts (count i: the entries
 * whose hash's top byte is at most i), then `entries` mvfs_index_rec.
 * last_hash and last_ref repeat index record `records` - 1, so that a copy
 * made from another index than the one beside it is told apart.
 */
#define MVFS_ISORT_MAGIC	0x5349564d	/* "MVIS" */
#define MVFS_ISORT_VERSION	1
#define MVFS_ISORT_FANOUT	256
struct mvfs_isort_hdr {
	__le32	magic;		/* MVFS_ISORT_MAGIC */
	__le32	version;	/* MVFS_ISORT_VERSION */
	__le64	records;	/* index records it covers, at least 1 */
	__le64	entries;	/* its entries */
	__le64	last_hash;	/* index record records - 1 */
	__le64	last_ref;
	__le64	reserved;	/* 0 */
};

/*
 * Checks that the module and the tools both make, written once.
 */

/* A view tag or label name: 1..64 of [A-Za-z0-9._-], not "." or "..". */
static inline int mvfs_tag_valid(const char *name, unsigned long len)
{
	unsigned long i;
	char c;

	if (len == 0 || len > MVFS_NAME_MAX)
		return 0;
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return 0;
	for (i = 0; i < len; i++) {
		c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return 0;
	}
	return 1;
}

/*
 * Does [off, off + len) lie within [0, end)?  For offsets and lengths
 * read from a store, which no reader may trust: written so that no sum
 * can wrap.
 */
static inline int mvfs_range_ok(__u64 off, __u64 len, __u64 end)
{
	return off <= end && len <= end - off;
}

/* An entry name: 1..255 bytes, no '/' or NUL, not "." or "..". */
static inline int mvfs_entry_name_ok(const char *name, unsigned long len)
{
	unsigned long i;

	if (len == 0 || len > MVFS_ENTRY_NAME_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if (name[i] == '/' || name[i] == '\0')
			return 0;
	return !(name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')));
}

/*
 * The size of a state file of FORMAT with these counts.  Formats 1 and 2
 * have no branch records (their nbranches field is reserved, 0).
 */
static inline __u64 mvfs_state_size(__u32 format, __u32 nrevs, __u32 nlabels,
				    __u32 nviews, __u32 nbranches)
{
	if (format < 3)
		return sizeof(struct mvfs_state_hdr) +
		       (__u64)nrevs * sizeof(struct mvfs_rev_disk) +
		       (__u64)nlabels * sizeof(struct mvfs_label_disk) +
		       (__u64)nviews * sizeof(struct mvfs_view_disk);
	return sizeof(struct mvfs_state_hdr) +
	       (__u64)nrevs * sizeof(struct mvfs_rev3_disk) +
	       (__u64)nlabels * sizeof(struct mvfs_label_disk) +
	       (__u64)nviews * sizeof(struct mvfs_view3_disk) +
	       (__u64)nbranches * sizeof(struct mvfs_branch_disk);
}

/* The largest state file a reader takes (about 700,000 revisions). */
#define MVFS_STATE_MAX		(64ULL << 20)

/* "objects/XX/N" of object n, into buf of MVFS_OBJ_PATH_LEN bytes. */
#define MVFS_OBJ_PATH_LEN	(sizeof(MVFS_OBJECTS_DIR) + 20)
static inline void mvfs_object_path(char *buf, __u64 n)
{
	static const char hex[] = "0123456789abcdef";
	char *p = buf;
	const char *d = MVFS_OBJECTS_DIR;
	int shift;

	while (*d)
		*p++ = *d++;
	*p++ = '/';
	*p++ = hex[(n >> 4) & 0xf];
	*p++ = hex[n & 0xf];
	*p++ = '/';
	for (shift = 60; shift > 0 && !(n >> shift); shift -= 4)
		;
	for (; shift >= 0; shift -= 4)
		*p++ = hex[(n >> shift) & 0xf];
	*p = '\0';
}

#define MVFS_FNV64_INIT		0xcbf29ce484222325ULL
#define MVFS_FNV64_PRIME	0x100000001b3ULL

/* FNV-1a, 64 bits: state's checksum and the index's content hash. */
static inline __u64 mvfs_fnv64(__u64 hash, const void *buf, __u64 len)
{
	const unsigned char *p = (const unsigned char *)buf;

	while (len--) {
		hash ^= *p++;
		hash *= MVFS_FNV64_PRIME;
	}
	return hash;
}

#endif /* _UAPI_MVFS_FORMAT_H */
