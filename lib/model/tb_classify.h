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

/* What a host event's name says to the operator tree and the step
 * breakdown, tested once per distinct name: a 1 GB trace has 0.66M nodes
 * but a few hundred names, and the prefix tests were a visible part of
 * building both.  bits[id] caches string id's TP_TBN_* (0: not yet). */
enum { TP_TBN_KNOWN = 1, TP_TBN_STEP = 2, TP_TBN_DATALOADER = 4, TP_TBN_COMM = 8, TP_TBN_OPT_STEP = 16,
       TP_TBN_PL_PROFILE = 32, TP_TBN_PL_MODULE = 64 };
struct tp_tb_names { const tp_store *st; uint8_t *bits; };
/* 0, or -1 out of memory. */
int tp_tb_names_init(struct tp_tb_names *nm, const tp_store *st);
void tp_tb_names_free(struct tp_tb_names *nm);
/* The TP_TBN_* of string id (a name column value); TP_TBN_COMM stands for
 * tp_tb_comm_lib != 0, TP_TBN_STEP for the "ProfilerStep#" prefix. */
unsigned tp_tb_name_class(struct tp_tb_names *nm, uint32_t id);

#endif
