/* tb_classify.h — how the TensorBoard plugin classifies events by name and
 * category (kineto SPEC §2): communication ops, DataLoader steps, Python
 * frames, host nodes.  Shared by the steps, dist and ops views so that one
 * rule has one definition (internal to libtprof). */
#ifndef TPROF_TB_CLASSIFY_H
#define TPROF_TB_CLASSIFY_H

#include <stddef.h>
#include "store.h"

/* NcclOpNameSet / GlooOpNameSet: 1 for nccl:<op>, 2 for gloo:<op> where op is
 * broadcast, reduce, all_reduce, all_gather or reduce_scatter; else 0. */
int tp_tb_comm_lib(const char *name);

/* enumerate(DataLoader)#...__next__ or enumerate(DataPipe)#... */
int tp_tb_is_dataloader(const char *name);

/* The category "python" in any letter case (the plugin lower-cases cat). */
int tp_tb_is_python_cat(const char *cat);

/* Host events the plugin makes operator-like nodes of: CPU ops, user
 * annotations (GPU-side ones included) and python_function events of
 * category python. */
int tp_tb_is_host_node(const tp_store *st, size_t row);

#endif
