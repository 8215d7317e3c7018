/* flops_aten.c — FLOP/byte formulas for kineto operators ("aten::addmm"
 * with "Input Dims"/"Input type", turned into a tp_opcall with mod "aten" by
 * tp_opcall_from_kineto).  Dialect 3X only.
 *
 * The rule: a number is given only when the inputs determine it.  Kineto
 * records tensor shapes and dtypes, and PyTorch 2.x also the values of int
 * lists and scalars ("Concrete Inputs": stride, padding, kernel size,
 * reduction...; tp_opcall_add_concrete); ops that need a value the trace
 * lacks (convolution output size, pooling, mse_loss's reduction) report
 * "na" (known = 0): the values are present when an int list has ivalue 1,
 * an INT an svalue that is not "unknown".  Unknown dtypes likewise give "na".
 *
 * Formulas (isz = bytes per element, numel = product of dims; FMA = 2 FLOPs):
 *   mm(A[m,k], B[k,n]), addmm(C, A, B), linear(x[...,k], w[m,k], b)
 *       FLOPs 2·m·n·k, bytes isz·(m·k + k·n + m·n)   (PyProf's).  addmm
 *       adds C: + m·n FLOPs and + bytes(C), as TraceLens counts its bias,
 *       unless beta is recorded as 0.  linear: n = numel(x[:-1]) (its bias
 *       add runs in the addmm it calls, or in a kernel of its own).
 *   bmm(A[b,m,k], B[b,k,n])   2·b·m·n·k, isz·b·(mk+kn+mn); baddbmm(C, A, B)
 *       adds C like addmm: + b·m·n FLOPs, + bytes(C)
 *   aiter::gemm_a16w16[_atomic_](x[m,k], w[n,k], bias), vllm::
 *       rocm_unquantized_gemm(x, w, bias): like linear, 2·m·n·k, + m·n and
 *       bytes(bias) when a bias tensor is passed
 *   matmul(A, B)   numpy matmul rules, batch broadcast: 2·numel(batch)·m·n·k,
 *       isz·numel(batch)·(mk+kn+mn)  (PyProf leaves the batch out of bytes;
 *       we count it)
 *   convolution, pooling: flops_conv.c; attention: flops_attn.c
 *   add/sub/mul/div (+ in-place, rsub, true_divide): out = broadcast of the
 *       tensor inputs; FLOPs numel(out), bytes Σbytes(tensor inputs) +
 *       bytes(out)   (PyProf's binary fprop)
 *   comparisons (eq, ne, lt, le, gt, ge): same, out is bool (1 byte)
 *   unary pointwise: relu/gelu/silu/hardtanh/leaky_relu/elu/threshold/abs/neg/
 *       clamp/floor/ceil/round/sign/reciprocal...: numel FLOPs, 2·bytes(in);
 *       transcendental (exp/log/sqrt/rsqrt/sin/cos/tanh/sigmoid/erf/pow...):
 *       20·numel FLOPs (PyProf's estimate), 2·bytes(in)
 *   sum, mean (one tensor): numel (+1 for mean) FLOPs, bytes(in) (+isz)
 *   softmax/_softmax: 40·numel, 3·bytes(in); log_softmax/_log_softmax:
 *       21·numel, 3·bytes(in)   (PyProf 3.x)
 *   batch_norm/native_batch_norm/cudnn_batch_norm/_batch_norm_impl_index,
 *   layer_norm/native_layer_norm, group_norm/native_group_norm,
 *   instance_norm: 8·numel FLOPs, 4·bytes(in)   (PyProf's BatchNorm)
 *   embedding(weight[V,E], indices): 0 FLOPs,
 *       bytes(indices) + 2·numel(indices)·E·isz(weight)   (PyProf)
 *   dropout/native_dropout/feature_dropout (+ in-place): 5·numel, 2·bytes
 *   mse_loss(input, target, reduction value): e = numel·(3 none / 2 else),
 *       FLOPs 2e+1, bytes e·isz   (PyProf's fprop)
 *   nll_loss/nll_loss_nd/nll_loss2d(input, target): FLOPs numel(target),
 *       bytes bytes(target) + numel(target)·isz(input) + isz(input)
 *   cross_entropy_loss(input, target): log_softmax + nll_loss:
 *       21·numel(in) + numel(target) FLOPs, 3·bytes(in) + bytes(target) +
 *       numel(target)·isz(in) bytes
 *   optimizer steps on tensor lists whose shapes and dtype are known:
 *       _foreach_add_/sub_/mul_/div_/addcmul_/addcdiv_/lerp_ ...: FLOPs
 *       numel (×2 for addcmul/addcdiv/lerp), bytes (inputs + 1)·bytes;
 *       _fused_adam_/_fused_adamw_: FLOPs 12·numel (m and v updates, bias
 *       corrections, sqrt, division, parameter update), bytes 7·bytes(params)
 *       (read p, g, m, v; write p, m, v); _fused_sgd_: 2·numel, 3·bytes.
 *       Kineto seldom records list shapes: then "na".
 * Anything else: "na" with the inputs listed in params. */
/* sizes come from the input: products of absurd shapes must wrap, not be UB */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("wrapv")
#endif
#include <stdio.h>
#include <string.h>
#include "flops_int.h"
#include "strlist.h"

const struct tp_arg *tp_fa_targ(struct fctx *x, int i)
{
    return i < x->c->nargs && x->c->args[i].type == TP_ARG_TENSOR ? &x->c->args[i] : NULL;
}

int tp_fa_known_ints(const struct tp_arg *a)
{
    return a && a->type == TP_ARG_LIST && a->ivalue == 1 && !tp_streq(a->svalue, "unknown");
}

int tp_fa_known_int(const struct tp_arg *a)
{
    return a && a->type == TP_ARG_INT && !tp_streq(a->svalue, "unknown");
}

/* the params column: "[a,b]fp32;[c]int64" of the tensor inputs */
void tp_fa_params_inputs(struct fctx *x)
{
    size_t n = 0;
    char *p = x->r->params;
    size_t cap = sizeof x->r->params;
    p[0] = 0;
    for (int i = 0; i < x->c->nargs && n + 1 < cap; i++) {
        const struct tp_arg *a = &x->c->args[i];
        if (a->type != TP_ARG_TENSOR)
            continue;
        if (n && n + 1 < cap)
            p[n++] = ';';
        n += tp_ff_tensor_str(p + n, cap - n, a->shape, a->ndim, a->dtype[0] ? a->dtype : "?");
        if (n >= cap)
            n = cap - 1;
    }
    p[n < cap ? n : cap - 1] = 0;
}

/* "tensors;stride=[..],padding=[..]...": the params column says which
 * scalar values the numbers came from (a leading ',' in text is dropped) */
void tp_fa_params_append(struct fctx *x, const char *text)
{
    size_t n = strlen(x->r->params);
    snprintf(x->r->params + n, sizeof x->r->params - n, ";%s", text[0] == ',' ? text + 1 : text);
}

int tp_fa_isz_of(struct fctx *x, const struct tp_arg *a, int *isz)
{
    *isz = a && a->dtype[0] ? tp_ff_isz(x, a->dtype) : 0;
    if (!*isz)
        return tp_ff_fail(x, "%s: dtype of an input unknown", x->c->op);
    return 0;
}

void tp_fa_done(struct fctx *x, int64_t flops, int64_t bytes, const char *tc)
{
    tp_ff_int(&x->r->flops, flops);
    tp_ff_int(&x->r->bytes, bytes);
    snprintf(x->r->tc, sizeof x->r->tc, "%s", tc);
}

static const char *gemm_tc(struct fctx *x) { return tp_kernel_uses_tc(x->k) ? "1" : "0"; }

static int gemm(struct fctx *x, int64_t b, int64_t m, int64_t n, int64_t k, const struct tp_arg *A)
{
    int isz;
    if (tp_fa_isz_of(x, A, &isz))
        return -1;
    tp_fa_done(x, 2 * b * m * n * k, isz * b * (m * k + k * n + m * n), gemm_tc(x));
    return 0;
}

/* addmm/baddbmm: beta·C + alpha·(A@B) adds C to every output element
 * (b·m·n FLOPs, as TraceLens counts the bias) and reads C, unless beta is
 * recorded as 0 (then C is ignored). */
static void add_c_term(struct fctx *x, int c_arg, int beta_arg, int64_t b, int64_t m, int64_t n)
{
    const struct tp_arg *C = tp_fa_targ(x, c_arg);
    const struct tp_arg *beta = beta_arg >= 0 && x->c->nargs > beta_arg ? &x->c->args[beta_arg] : NULL;
    if (!C || (beta && (beta->type == TP_ARG_INT || beta->type == TP_ARG_FLOAT) && !beta->svalue[0] &&
               beta->fvalue == 0.0))
        return;
    int isz = C->dtype[0] ? tp_ff_isz(x, C->dtype) : 0;
    x->r->flops.value += (double)(b * m * n);
    x->r->bytes.value += (double)(tp_ff_numel(C->shape, C->ndim) * isz);
}

static int binary(struct fctx *x, int comparison)
{
    const struct tp_arg *t[2] = { NULL, NULL };
    int nt = 0;
    for (int i = 0; i < x->c->nargs && i < 2; i++)
        if (x->c->args[i].type == TP_ARG_TENSOR)
            t[nt++] = &x->c->args[i];
    if (!nt)
        return tp_ff_fail(x, "%s: no tensor input", x->c->op);
    int64_t out[TP_MAX_DIMS];
    int no = t[0]->ndim;
    memcpy(out, t[0]->shape, sizeof out);
    if (nt == 2 && tp_ff_broadcast(t[0]->shape, t[0]->ndim, t[1]->shape, t[1]->ndim, out, &no) != 0)
        return tp_ff_fail(x, "%s: shapes do not broadcast", x->c->op);
    int64_t b = 0;
    for (int i = 0; i < nt; i++) {
        int isz;
        if (tp_fa_isz_of(x, t[i], &isz))
            return -1;
        b += tp_ff_numel(t[i]->shape, t[i]->ndim) * isz;
    }
    int oisz = comparison ? 1 : tp_ff_isz(x, t[0]->dtype);
    int64_t on = tp_ff_numel(out, no);
    tp_fa_done(x, on, b + on * oisz, "-");
    return 0;
}

static int one(struct fctx *x, int64_t fmul, int64_t fadd, int64_t bmul, int extra_isz)
{
    const struct tp_arg *in = tp_fa_targ(x, 0);
    if (!in)
        return tp_ff_fail(x, "%s: input shape unknown", x->c->op);
    int isz;
    if (tp_fa_isz_of(x, in, &isz))
        return -1;
    int64_t n = tp_ff_numel(in->shape, in->ndim);
    tp_fa_done(x, n * fmul + fadd, n * isz * bmul + (extra_isz ? isz : 0), "-");
    return 0;
}

/* tensor lists: total numel in ivalue when the shapes were recorded */
static int foreach_op(struct fctx *x, int64_t fmul, int64_t nread)
{
    const struct tp_arg *l = x->c->nargs ? &x->c->args[0] : NULL;
    if (!l || l->type != TP_ARG_LIST || !tp_streq(l->svalue, "TensorList") || l->ivalue <= 0 || !l->dtype[0])
        return tp_ff_fail(x, "%s: tensor list shapes/dtype not recorded", x->c->op);
    int isz = tp_ff_isz(x, l->dtype);
    if (!isz)
        return tp_ff_fail(x, "%s: dtype %s", x->c->op, l->dtype);
    tp_fa_done(x, l->ivalue * fmul, l->ivalue * isz * nread, "-");
    return 0;
}

/* GEMMs of inference libraries that take the weight as [N, K] like linear:
 * aiter::gemm_a16w16(x, w, bias, ...), vllm::rocm_unquantized_gemm(x, w, bias) */
static int is_linear_ext(const struct tp_opcall *c)
{
    return (tp_streq(c->mod, "aiter") && (tp_streq(c->op, "gemm_a16w16") || tp_streq(c->op, "gemm_a16w16_atomic_"))) ||
           (tp_streq(c->mod, "vllm") && tp_streq(c->op, "rocm_unquantized_gemm"));
}

int tp_flops_kineto_owns(const struct tp_opcall *c)
{
    return tp_streq(c->mod, "aten") || tp_flops_attn_owns(c) || is_linear_ext(c);
}

int tp_flops_aten(struct fctx *x)
{
    static const char *const add_ops[] = { "add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "rsub",
        "true_divide", "true_divide_", "floor_divide", "remainder", "maximum", "minimum", "where", NULL };
    static const char *const cmp_ops[] = { "eq", "ne", "lt", "le", "gt", "ge", "eq_", "ne_", "lt_", "le_", "gt_",
                                           "ge_", NULL };
    static const char *const simple_unary[] = { "relu", "relu_", "gelu", "gelu_", "silu", "silu_", "hardtanh",
        "hardtanh_", "leaky_relu", "leaky_relu_", "elu", "elu_", "threshold", "threshold_", "abs", "abs_",
        "neg", "neg_", "clamp", "clamp_", "clamp_min", "clamp_min_", "clamp_max", "floor", "ceil", "round",
        "sign", "reciprocal", "reciprocal_", "hardswish", "hardswish_", "hardsigmoid", "mish", "relu6",
        "square", "fill_", "zero_", NULL };
    static const char *const trans_unary[] = { "exp", "exp_", "log", "log_", "log1p", "log2", "log10", "sqrt",
        "sqrt_", "rsqrt", "rsqrt_", "sin", "cos", "tan", "sinh", "cosh", "tanh", "tanh_", "sigmoid", "sigmoid_",
        "erf", "erfc", "erfinv", "pow", "pow_", "expm1", "atan", "asin", "acos", "softplus", NULL };
    static const char *const norm_ops[] = { "batch_norm", "native_batch_norm", "cudnn_batch_norm",
        "_batch_norm_impl_index", "layer_norm", "native_layer_norm", "group_norm", "native_group_norm",
        "instance_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_no_training", "rms_norm",
        "_fused_rms_norm", NULL };
    static const char *const dropout_ops[] = { "dropout", "dropout_", "native_dropout", "feature_dropout",
                                               "feature_dropout_", NULL };
    static const char *const foreach1[] = { "_foreach_add_", "_foreach_sub_", "_foreach_mul_", "_foreach_div_",
        "_foreach_add", "_foreach_mul", "_foreach_sqrt_", "_foreach_neg_", "_foreach_zero_", NULL };
    static const char *const foreach2[] = { "_foreach_addcmul_", "_foreach_addcdiv_", "_foreach_lerp_", NULL };

    const char *op = x->c->op;
    int rc;
    tp_fa_params_inputs(x);
    snprintf(x->r->op, sizeof x->r->op, "%s", op);
    rc = tp_flops_conv(x);
    if (rc == TP_FF_NOT_MINE)
        rc = tp_flops_attn(x);
    if (rc != TP_FF_NOT_MINE)
        return rc;
    if (tp_streq(op, "mm") || tp_streq(op, "addmm") || tp_streq(op, "addmm_")) {
        const struct tp_arg *A = tp_fa_targ(x, tp_streq(op, "mm") ? 0 : 1), *B = tp_fa_targ(x, tp_streq(op, "mm") ? 1 : 2);
        if (!A || !B || A->ndim != 2 || B->ndim != 2 || A->shape[1] != B->shape[0])
            return tp_ff_fail(x, "%s: operand shapes unknown", op);
        rc = gemm(x, 1, A->shape[0], B->shape[1], A->shape[1], A);
        if (rc == 0 && !tp_streq(op, "mm"))
            add_c_term(x, 0, 3, 1, A->shape[0], B->shape[1]);
    } else if (tp_streq(op, "bmm") || tp_streq(op, "baddbmm") || tp_streq(op, "baddbmm_")) {
        const struct tp_arg *A = tp_fa_targ(x, tp_streq(op, "bmm") ? 0 : 1), *B = tp_fa_targ(x, tp_streq(op, "bmm") ? 1 : 2);
        if (!A || !B || A->ndim != 3 || B->ndim != 3 || A->shape[2] != B->shape[1] || A->shape[0] != B->shape[0])
            return tp_ff_fail(x, "%s: operand shapes unknown", op);
        rc = gemm(x, A->shape[0], A->shape[1], B->shape[2], A->shape[2], A);
        if (rc == 0 && !tp_streq(op, "bmm"))
            add_c_term(x, 0, 3, A->shape[0], A->shape[1], B->shape[2]);
    } else if (is_linear_ext(x->c)) {
        /* x [M, K] @ w[N, K]ᵀ (+ bias [N]) */
        const struct tp_arg *X = tp_fa_targ(x, 0), *W = tp_fa_targ(x, 1), *bias = tp_fa_targ(x, 2);
        if (!X || !W || X->ndim != 2 || W->ndim != 2 || X->shape[1] != W->shape[1])
            return tp_ff_fail(x, "%s: operand shapes unknown", op);
        rc = gemm(x, 1, X->shape[0], W->shape[0], X->shape[1], X);
        if (rc == 0 && bias)
            add_c_term(x, 2, -1, 1, X->shape[0], W->shape[0]);
    } else if (tp_streq(op, "linear")) {
        const struct tp_arg *X = tp_fa_targ(x, 0), *W = tp_fa_targ(x, 1);
        if (!X || !W || X->ndim < 1 || W->ndim != 2 || X->shape[X->ndim - 1] != W->shape[1])
            return tp_ff_fail(x, "linear: operand shapes unknown");
        rc = gemm(x, 1, W->shape[0], tp_ff_numel(X->shape, X->ndim - 1), W->shape[1], X);
    } else if (tp_streq(op, "matmul")) {
        const struct tp_arg *A = tp_fa_targ(x, 0), *B = tp_fa_targ(x, 1);
        if (!A || !B || !A->ndim || !B->ndim)
            return tp_ff_fail(x, "matmul: operand shapes unknown");
        int la = A->ndim, lb = B->ndim;
        int64_t m = la >= 2 ? A->shape[la - 2] : 1, k = A->shape[la - 1];
        int64_t kb = lb >= 2 ? B->shape[lb - 2] : B->shape[0], n = lb >= 2 ? B->shape[lb - 1] : 1;
        if (k != kb)
            return tp_ff_fail(x, "matmul: inner sizes differ");
        int64_t out[TP_MAX_DIMS];
        int no = 0;
        if (tp_ff_broadcast(A->shape, la > 2 ? la - 2 : 0, B->shape, lb > 2 ? lb - 2 : 0, out, &no) != 0)
            return tp_ff_fail(x, "matmul: batch shapes do not broadcast");
        rc = gemm(x, tp_ff_numel(out, no), m, n, k, A);
    } else if (tp_str_in(op, add_ops)) {
        rc = binary(x, 0);
    } else if (tp_str_in(op, cmp_ops)) {
        rc = binary(x, 1);
    } else if (tp_str_in(op, simple_unary)) {
        rc = one(x, 1, 0, 2, 0);
    } else if (tp_str_in(op, trans_unary)) {
        rc = one(x, 20, 0, 2, 0);
    } else if (tp_streq(op, "sum")) {
        rc = one(x, 1, 0, 1, 0);
    } else if (tp_streq(op, "mean")) {
        rc = one(x, 1, 1, 1, 1);
    } else if (tp_streq(op, "softmax") || tp_streq(op, "_softmax")) {
        rc = one(x, 40, 0, 3, 0);
    } else if (tp_streq(op, "log_softmax") || tp_streq(op, "_log_softmax")) {
        rc = one(x, 21, 0, 3, 0);
    } else if (tp_str_in(op, norm_ops)) {
        rc = one(x, 8, 0, 4, 0);
    } else if (tp_str_in(op, dropout_ops)) {
        rc = one(x, 5, 0, 2, 0);
    } else if (tp_streq(op, "embedding")) {
        const struct tp_arg *W = tp_fa_targ(x, 0), *I = tp_fa_targ(x, 1);
        if (!W || !I || W->ndim != 2)
            return tp_ff_fail(x, "embedding: shapes unknown");
        int wi, ii;
        if (tp_fa_isz_of(x, W, &wi) || tp_fa_isz_of(x, I, &ii))
            return -1;
        int64_t n = tp_ff_numel(I->shape, I->ndim);
        tp_fa_done(x, 0, n * ii + 2 * n * W->shape[1] * wi, "-");
        rc = 0;
    } else if (tp_streq(op, "mse_loss")) {
        const struct tp_arg *in = tp_fa_targ(x, 0), *r = x->c->nargs > 2 ? &x->c->args[2] : NULL;
        if (!in || !tp_fa_known_int(r))
            return tp_ff_fail(x, "mse_loss: input shape or reduction value not recorded");
        int isz;
        if (tp_fa_isz_of(x, in, &isz))
            return -1;
        int64_t e = tp_ff_numel(in->shape, in->ndim) * (r->ivalue == 0 ? 3 : 2);
        tp_fa_done(x, 2 * e + 1, e * isz, "-");
        rc = 0;
    } else if (tp_streq(op, "nll_loss") || tp_streq(op, "nll_loss_nd") || tp_streq(op, "nll_loss2d") ||
               tp_streq(op, "cross_entropy_loss")) {
        const struct tp_arg *in = tp_fa_targ(x, 0), *tg = tp_fa_targ(x, 1);
        if (!in || !tg)
            return tp_ff_fail(x, "%s: shapes unknown", op);
        int isz, tsz;
        if (tp_fa_isz_of(x, in, &isz) || tp_fa_isz_of(x, tg, &tsz))
            return -1;
        int64_t nt = tp_ff_numel(tg->shape, tg->ndim), ni = tp_ff_numel(in->shape, in->ndim);
        if (tp_streq(op, "cross_entropy_loss"))
            tp_fa_done(x, 21 * ni + nt, 3 * ni * isz + nt * tsz + nt * isz, "-");
        else
            tp_fa_done(x, nt, nt * tsz + nt * isz + isz, "-");
        rc = 0;
    } else if (tp_str_in(op, foreach1)) {
        rc = foreach_op(x, 1, 3);
    } else if (tp_str_in(op, foreach2)) {
        rc = foreach_op(x, 2, 4);
    } else if (tp_streq(op, "_fused_adam_") || tp_streq(op, "_fused_adamw_")) {
        rc = foreach_op(x, 12, 7);
    } else if (tp_streq(op, "_fused_sgd_")) {
        rc = foreach_op(x, 2, 3);
    } else {
        snprintf(x->r->tc, sizeof x->r->tc, "-");
        return 1;      /* no formula: "known" stays 0, params list the inputs */
    }
    return rc;
}
