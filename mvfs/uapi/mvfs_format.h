/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mvfs_format.h: the on-disk format of an mvfs store, format 1.
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

#define MVFS_FORMAT		1
#define MVFS_STATE_MAGIC	0x5453564d	/* "MVST" */
#define MVFS_PACK_MAGIC		0x4b50564d	/* "MVPK" */
#define MVFS_TREE_MAGIC		0x5254564d	/* "MVTR" */

#define MVFS_STATE_FILE		"state"
#define MVFS_STATE_TMP		"state.tmp"
#define MVFS_PACK_FILE		"pack"
#define MVFS_INDEX_FILE		"index"
#define MVFS_OBJECTS_DIR	"objects"

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
	__le32	reserved;	/* 0 */
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

struct mvfs_label_disk {
	char	name[MVFS_NAME_FIELD];
	__le64	rev;
};

enum mvfs_select {
	MVFS_SEL_REV	= 1,	/* a fixed revision */
	MVFS_SEL_LABEL	= 2,	/* whatever revision the label names */
	MVFS_SEL_LATEST	= 3,	/* the newest revision, moving */
};

struct mvfs_view_disk {
	char	tag[MVFS_NAME_FIELD];
	char	label[MVFS_NAME_FIELD];	/* MVFS_SEL_LABEL */
	__le64	rev;			/* MVFS_SEL_REV */
	__le32	select;			/* enum mvfs_select */
	__le32	uid;			/* owner */
	__le32	gid;
	__le32	mode;			/* permission bits, 0..0777 */
};

struct mvfs_pack_hdr {
	__le32	magic;		/* MVFS_PACK_MAGIC */
	__le32	format;		/* MVFS_FORMAT */
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
