/* flops_int.h — internals shared by flops.c (PyProf's op classes) and
 * flops_aten.c (formulas for kineto "aten::" operators).  Not public. */
#ifndef TPROF_FLOPS_INT_H
#define TPROF_FLOPS_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "opcall.h"

struct fctx {
    const struct tp_opcall *c;
    const char *k;              /* kernel short name ("" when unknown) */
    int bp;                     /* bprop */
    int sub;
    const int32_t *grid;        /* gx,gy,gz or NULL */
    int apex;                   /* dialect TP_PYPROF_APEX */
    struct tp_flops_result *r;
};

/* Set the warning (first one wins) and return -1: the caller then prints
 * the row with prof.py's defaults (params na=na, tc na, 0 FLOPs/bytes). */
int tp_ff_fail(struct fctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Bytes of a dtype name ("float32", "half", "int", "bool"...), 0 unknown.
 * bfloat16 is an extension (2 bytes) and notes a warning. */
int tp_ff_isz(struct fctx *x, const char *dtype);
/* Dtype text as PyProf's Tensor str() prints it ("fp32", "int64", "byte"). */
const char *tp_ff_dtype_str(const char *dtype);

int64_t tp_ff_numel(const int64_t *shape, int ndim);
/* numpy broadcast of two shapes; -1 when not broadcastable. */
int tp_ff_broadcast(const int64_t *a, int na, const int64_t *b, int nb, int64_t *out, int *nout);

void tp_ff_int(struct tp_pynum *n, int64_t v);
void tp_ff_float(struct tp_pynum *n, double v);

/* The 3.x-style "[a,b]fp32" text of a tensor appended to buf. */
size_t tp_ff_tensor_str(char *buf, size_t cap, const int64_t *shape, int ndim, const char *dtype);

/* formulas for kineto operators (mod "aten"), dialect 3X */
int tp_flops_aten(struct fctx *x);

#endif
