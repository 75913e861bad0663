/* SPDX-License-Identifier: GPL-2.0 */
/*
 * priv.h: a view's private area (views/TAG/upper, docs/FORMAT.md) read as
 * a list of changes, and the module's calls that retire them.
 *
 * Calls returning int give 0 or -errno; on failure, err.h holds a message.
 */
#ifndef MVFS_PRIV_H
#define MVFS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "select.h"
#include "store.h"

enum mvfs_change_kind {
	MVFS_CH_MOD,	/* M: an element changed where it is */
	MVFS_CH_DEL,	/* D: an element removed (a whiteout) */
	MVFS_CH_REN,	/* R: an element moved here from ->from */
	MVFS_CH_ADD,	/* A: a new element (mkelem) */
	MVFS_CH_DIR,	/* a copied directory, itself unchanged */
	MVFS_CH_PRIV,	/* view-private: never checked in */
};

/*
 * One entry of the private area, parents before their children.  A
 * private entry without an origin over an element of the same name (what
 * "sed -i" or an editor that writes a new file and renames it leaves)
 * replaces that element: MVFS_CH_MOD, with the revision its directory was
 * copied from.
 */
struct mvfs_change {
	enum mvfs_change_kind	kind;
	char	*path;		/* its element path in the view */
	char	*upath;		/* the private entry on the store */
	char	*from;		/* the element it was: MOD, DEL, REN, DIR */
	char	*src;		/* directories: the element path whose
				 * entries show through, NULL for none
				 */
	__u64	rev;		/* the revision it was copied from, 0 none */
	char	*over;		/* REN: the element path its new directory
				 * shows at its new name (present or not),
				 * NULL when it shows no tree
				 */
	__u64	over_rev;	/* REN: the revision over was last seen in */
	mode_t	mode;		/* of the private entry */
	bool	moved;	/* DEL: the old name of an element moved (REN) */
	bool	selected;	/* check-in: part of it */
	__u64	gen;		/* check-in: what MVFS_IOC_PRIVGEN said */
};

struct mvfs_priv {
	struct mvfs_store	*s;
	const struct mvfs_sel	*sel;	/* what the view selects */
	char			*upper;	/* views/TAG/upper, on the store */
	struct mvfs_change	*v;
	size_t			n;
	size_t			cap;
	bool			ordered;	/* v by mvfs_path_order() */
	struct mvfs_change	**byfrom;	/* those with a from, by it */
	size_t			nfrom;
};

int mvfs_priv_read(struct mvfs_store *s, const char *store_dir,
		   const char *tag, const struct mvfs_sel *sel,
		   struct mvfs_priv *p);
void mvfs_priv_free(struct mvfs_priv *p);
struct mvfs_change *mvfs_priv_find(struct mvfs_priv *p, const char *path);
struct mvfs_change **mvfs_priv_from(const struct mvfs_priv *p,
				    const char *from, size_t *n);
bool mvfs_path_under(const char *path, const char *top);
int mvfs_path_order(const char *a, const char *b);
bool mvfs_paths_hold(char *const *sorted, int n, const char *path);
bool mvfs_paths_under(char *const *sorted, int n, const char *path);
char *mvfs_path_join(const char *dir, const char *name);
const char *mvfs_change_letter(const struct mvfs_change *ch);

/* The module's part (lib/retire.c): @vmnt is where mvfs is mounted. */
int mvfs_priv_gen(const char *vmnt, const char *tag, const char *path,
		  __u64 *gen);
int mvfs_priv_retire(const char *vmnt, const char *tag, const char *path,
		     __u64 gen, __u64 rev, __u32 flags);

#endif /* MVFS_PRIV_H */
