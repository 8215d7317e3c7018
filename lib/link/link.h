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

#endif
