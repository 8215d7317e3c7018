/* link.h — the linker's internal entry points. */
#ifndef TPROF_LINK_H
#define TPROF_LINK_H

#include "store.h"

/* prof.py rows (st->annots) for kineto kernels, from the linked op trees
 * (link_annot.c). */
int tp_link_kernel_annots(tp_store *st, tp_error *err);

/* Fill st->attr from launcher/launch_op (attribution.c); 0, -1 out of memory. */
int tp_link_attribution(tp_store *st);
void tp_attribution_free(struct tp_attribution *a);

#endif
