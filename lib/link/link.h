/* link.h — the linker's internal entry points. */
#ifndef TPROF_LINK_H
#define TPROF_LINK_H

#include "store.h"

/* prof.py rows (st->annots) for kineto kernels, from the linked op trees
 * (link_annot.c). */
int tp_link_kernel_annots(tp_store *st, tp_error *err);

#endif
