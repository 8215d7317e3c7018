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
/* the kineto operators tp_flops_aten takes: aten::*, and attention / GEMM
 * ops of other namespaces (flash_attn::, aiter::, vllm::) */
int tp_flops_kineto_owns(const struct tp_opcall *c);

/* Helpers of flops_aten.c shared with the op families below. */
const struct tp_arg *tp_fa_targ(struct fctx *x, int i);    /* argument i when a tensor */
int tp_fa_known_ints(const struct tp_arg *a);              /* an int list with its values */
int tp_fa_known_int(const struct tp_arg *a);               /* an int with its value */
void tp_fa_params_inputs(struct fctx *x);                  /* params = "[a,b]fp32;[c]int64" */
void tp_fa_params_append(struct fctx *x, const char *text); /* params += ";text" */
int tp_fa_isz_of(struct fctx *x, const struct tp_arg *a, int *isz);
void tp_fa_done(struct fctx *x, int64_t flops, int64_t bytes, const char *tc);

/* Op families (kineto operators): each returns TP_FF_NOT_MINE when the op
 * is none of its own, else the formula's result (0 done, -1 "na"). */
#define TP_FF_NOT_MINE 2
int tp_flops_conv(struct fctx *x);        /* flops_conv.c: convolution, pooling */
int tp_flops_attn(struct fctx *x);        /* flops_attn.c: SDPA, flash/efficient attention */
int tp_flops_attn_owns(const struct tp_opcall *c);   /* an attention op outside "aten::" too */
/* twice the query/key pairs a causal mask keeps (N_Q·N_KV when equal) */
int64_t tp_flops_causal_pairs2(int64_t nq, int64_t nk, int bottom_right);

#endif
