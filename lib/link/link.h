/* link.h — the linker's internal entry points. */
#ifndef TPROF_LINK_H
#define TPROF_LINK_H

#include "store.h"

/* prof.py rows (st->annots) for kineto kernels, from the linked op trees
 * (link_annot.c). */
int tp_link_kernel_annots(tp_store *st, tp_error *err);

/* 1 when s[0..len) names an autograd node ("...Backward...", or starting
 * "autograd::engine::"): a kernel under one is bprop (link_annot.c). */
int tp_is_autograd_name(const char *s, size_t len);

/* Fill st->attr from launcher/launch_op (attribution.c); 0, -1 out of memory. */
int tp_link_attribution(tp_store *st);
void tp_attribution_free(struct tp_attribution *a);

/* Sorts the host rows idx[0..n) (in store order) by thread (pid, tid),
 * start, longer first, operators before the runtime calls of the same
 * range, then row: the order the host trees are built in (host_order.c).
 * 0, or -1 out of memory. */
int tp_link_host_order(const tp_store *st, int64_t *idx, size_t n);

/* Row r is a torch event: a complete operator, record_function label,
 * runtime or driver call (torch_tree.c). */
int tp_link_is_torch_event(const tp_store *st, size_t r);
/* The torch events nested among themselves, without the python frames the
 * linker's tree (st->parent) nests them with: *out a parent per row (-1:
 * none, and for every other row), or NULL when the store has no python
 * frame (st->parent is that nesting).  0, or -1 out of memory. */
int tp_link_torch_parents(const tp_store *st, int32_t **out);

#endif
