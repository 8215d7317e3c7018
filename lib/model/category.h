/* category.h — what kind of work an operator's kernels do, after TraceLens'
 * op categories (TraceLens/PerfModel/torch_op_mapping.py): the operator's
 * name first, then the name of its first kernel.  Shared by `ops --group
 * category` and `roofline` (internal to libtprof). */
#ifndef TPROF_CATEGORY_H
#define TPROF_CATEGORY_H

enum tp_category {
    TP_CAT_GEMM,
    TP_CAT_CONV,
    TP_CAT_ATTENTION,      /* SDPA, flash / efficient / paged attention, KV-cache writes */
    TP_CAT_NORM,           /* batch, layer, group, instance and RMS norm */
    TP_CAT_ELEMENTWISE,    /* pointwise ops and multi_tensor_apply (foreach) kernels */
    TP_CAT_REDUCTION,
    TP_CAT_COMM,           /* collectives: NCCL/RCCL kernels, c10d and nccl: ops */
    TP_CAT_MEMCPY,         /* GPU memcpy / memset activities */
    TP_CAT_OTHER,
    TP_CAT_COUNT
};

/* "GEMM", "CONV", "attention", "normalization", "elementwise", "reduction",
 * "communication", "memcpy/memset", "other". */
const char *tp_category_name(enum tp_category c);

/* The category of a launcher: op is the launching operator's name (a
 * runtime call's name when no operator encloses the launch; NULL or "" when
 * none), kernel the name of its first GPU activity (NULL: none), copy 1 when
 * that activity is a memcpy or memset. */
enum tp_category tp_category_of(const char *op, const char *kernel, int copy);

/* 1 when a kernel name is a collective's (NCCL / RCCL). */
int tp_category_is_comm_kernel(const char *kernel);

#endif
