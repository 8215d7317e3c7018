/* flops_aten.c — FLOP/byte formulas for kineto operators ("aten::addmm"
 * with "Input Dims"/"Input type", turned into a tp_opcall with mod "aten" by
 * tp_opcall_from_kineto).  Dialect 3X only.
 *
 * The rule: a number is given only when the inputs determine it.  Kineto
 * records tensor shapes and dtypes but not the values of int lists or
 * scalars (stride, padding, kernel size, reduction), so ops that need those
 * (convolution output size, pooling, mse_loss's reduction) report "na"
 * (known = 0) unless the values are present (TP_ARG_LIST with ivalue 1, or
 * an INT whose svalue is not "unknown").  Unknown dtypes likewise give "na".
 *
 * Formulas (isz = bytes per element, numel = product of dims; FMA = 2 FLOPs):
 *   mm(A[m,k], B[k,n]), addmm(C, A, B), linear(x[...,k], w[m,k], b)
 *       FLOPs 2·m·n·k, bytes isz·(m·k + k·n + m·n)   (PyProf's; the bias/C
 *       add is not counted, as in PyProf).  linear: n = numel(x[:-1]).
 *   bmm(A[b,m,k], B[b,k,n]), baddbmm(C, A, B)   2·b·m·n·k, isz·b·(mk+kn+mn)
 *   matmul(A, B)   numpy matmul rules, batch broadcast: 2·numel(batch)·m·n·k,
 *       isz·numel(batch)·(mk+kn+mn)  (PyProf leaves the batch out of bytes;
 *       we count it)
 *   convolution family (conv1d/2d/3d, convolution, _convolution,
 *       cudnn_convolution, mkldnn_convolution; input [N,C,*S], weight
 *       [K,C/g,*R]) with stride/padding/dilation/groups values:
 *       out_i = (S_i + 2p_i - d_i(R_i-1) - 1)/s_i + 1,
 *       FLOPs 2·N·K·(C/g)·ΠR·Πout, bytes isz·(numel(in)+numel(w)+N·K·Πout)
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
 *   pooling (max_pool1d/2d/3d, avg_pool*, *_with_indices) with kernel size,
 *       stride, padding (and dilation) values: output numel × kernel size
 *       FLOPs, bytes(in) + bytes(out); adaptive pools with output_size
 *       values: numel(in) FLOPs, bytes(in) + bytes(out)
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

static int streq(const char *a, const char *b) { return strcmp(a, b) == 0; }

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

static const struct tp_arg *targ(struct fctx *x, int i)
{
    return i < x->c->nargs && x->c->args[i].type == TP_ARG_TENSOR ? &x->c->args[i] : NULL;
}

static int known_ints(const struct tp_arg *a)
{
    return a && a->type == TP_ARG_LIST && a->ivalue == 1 && !streq(a->svalue, "unknown");
}

static int known_int(const struct tp_arg *a)
{
    return a && a->type == TP_ARG_INT && !streq(a->svalue, "unknown");
}

/* the params column: "[a,b]fp32;[c]int64" of the tensor inputs */
static void params_inputs(struct fctx *x)
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

static int isz_of(struct fctx *x, const struct tp_arg *a, int *isz)
{
    *isz = a && a->dtype[0] ? tp_ff_isz(x, a->dtype) : 0;
    if (!*isz)
        return tp_ff_fail(x, "%s: dtype of an input unknown", x->c->op);
    return 0;
}

static void done(struct fctx *x, int64_t flops, int64_t bytes, const char *tc)
{
    tp_ff_int(&x->r->flops, flops);
    tp_ff_int(&x->r->bytes, bytes);
    snprintf(x->r->tc, sizeof x->r->tc, "%s", tc);
}

static const char *gemm_tc(struct fctx *x) { return tp_kernel_uses_tc(x->k) ? "1" : "0"; }

static int gemm(struct fctx *x, int64_t b, int64_t m, int64_t n, int64_t k, const struct tp_arg *A)
{
    int isz;
    if (isz_of(x, A, &isz))
        return -1;
    done(x, 2 * b * m * n * k, isz * b * (m * k + k * n + m * n), gemm_tc(x));
    return 0;
}

static int conv(struct fctx *x, int first_param)
{
    const struct tp_arg *in = targ(x, 0), *w = targ(x, 1);
    if (!in || !w || in->ndim < 3 || in->ndim != w->ndim)
        return tp_ff_fail(x, "%s: input/weight shapes unknown", x->c->op);
    int sp = in->ndim - 2;
    const struct tp_arg *st = first_param < x->c->nargs ? &x->c->args[first_param] : NULL;
    const struct tp_arg *pd = first_param + 1 < x->c->nargs ? &x->c->args[first_param + 1] : NULL;
    const struct tp_arg *dl = first_param + 2 < x->c->nargs ? &x->c->args[first_param + 2] : NULL;
    /* groups: the last int argument */
    const struct tp_arg *g = NULL;
    for (int i = x->c->nargs - 1; i > first_param + 2; i--)
        if (x->c->args[i].type == TP_ARG_INT) {
            g = &x->c->args[i];
            break;
        }
    if (!known_ints(st) || !known_ints(pd) || !known_ints(dl) || !known_int(g))
        return tp_ff_fail(x, "%s: stride/padding/dilation/groups values not recorded", x->c->op);
    int64_t G = g->ivalue;
    if (G < 1 || w->shape[1] * G != in->shape[1])
        return tp_ff_fail(x, "%s: channels do not match groups", x->c->op);
    int64_t outn = 1, kern = 1;
    for (int i = 0; i < sp; i++) {
        int64_t s = st->ndim == 1 ? st->shape[0] : i < st->ndim ? st->shape[i] : 1;
        int64_t p = pd->ndim == 1 ? pd->shape[0] : i < pd->ndim ? pd->shape[i] : 0;
        int64_t d = dl->ndim == 1 ? dl->shape[0] : i < dl->ndim ? dl->shape[i] : 1;
        if (s <= 0)
            return tp_ff_fail(x, "%s: stride 0", x->c->op);
        int64_t o = (in->shape[2 + i] + 2 * p - d * (w->shape[2 + i] - 1) - 1) / s + 1;
        outn *= o;
        kern *= w->shape[2 + i];
    }
    int isz;
    if (isz_of(x, in, &isz))
        return -1;
    int64_t N = in->shape[0], K = w->shape[0], Cg = w->shape[1];
    int64_t f = 2 * N * K * Cg * kern * outn;
    int64_t b = isz * (tp_ff_numel(in->shape, in->ndim) + tp_ff_numel(w->shape, w->ndim) + N * K * outn);
    done(x, f, b, tp_kernel_uses_tc(x->k) ? "1" : "-");
    return 0;
}

static int pool(struct fctx *x, int adaptive)
{
    const struct tp_arg *in = targ(x, 0);
    if (!in || in->ndim < 2)
        return tp_ff_fail(x, "%s: input shape unknown", x->c->op);
    int isz;
    if (isz_of(x, in, &isz))
        return -1;
    int64_t numel = tp_ff_numel(in->shape, in->ndim);
    const struct tp_arg *ks = x->c->nargs > 1 ? &x->c->args[1] : NULL;
    if (!known_ints(ks))
        return tp_ff_fail(x, "%s: kernel/output size values not recorded", x->c->op);
    int sp = ks->ndim;
    if (sp < 1 || sp > in->ndim)
        return tp_ff_fail(x, "%s: bad size list", x->c->op);
    int64_t lead = tp_ff_numel(in->shape, in->ndim - sp);
    if (adaptive) {
        int64_t on = lead * tp_ff_numel(ks->shape, sp);
        done(x, numel, (numel + on) * isz, "-");
        return 0;
    }
    const struct tp_arg *st = x->c->nargs > 2 ? &x->c->args[2] : NULL;
    const struct tp_arg *pd = x->c->nargs > 3 ? &x->c->args[3] : NULL;
    const struct tp_arg *dl = x->c->nargs > 4 && x->c->args[4].type == TP_ARG_LIST ? &x->c->args[4] : NULL;
    if (!known_ints(st) || !known_ints(pd) || (dl && !known_ints(dl)))
        return tp_ff_fail(x, "%s: stride/padding values not recorded", x->c->op);
    int64_t on = lead, kern = 1;
    for (int i = 0; i < sp; i++) {
        int64_t k = ks->shape[i];
        int64_t s = st->ndim == 0 ? k : st->ndim == 1 ? st->shape[0] : st->shape[i];
        int64_t p = pd->ndim == 1 ? pd->shape[0] : i < pd->ndim ? pd->shape[i] : 0;
        int64_t d = dl ? (dl->ndim == 1 ? dl->shape[0] : dl->shape[i]) : 1;
        if (s <= 0)
            return tp_ff_fail(x, "%s: stride 0", x->c->op);
        int64_t o = (in->shape[in->ndim - sp + i] + 2 * p - d * (k - 1) - 1) / s + 1;
        on *= o;
        kern *= k;
    }
    done(x, on * kern, (numel + on) * isz, "-");
    return 0;
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
        if (isz_of(x, t[i], &isz))
            return -1;
        b += tp_ff_numel(t[i]->shape, t[i]->ndim) * isz;
    }
    int oisz = comparison ? 1 : tp_ff_isz(x, t[0]->dtype);
    int64_t on = tp_ff_numel(out, no);
    done(x, on, b + on * oisz, "-");
    return 0;
}

static int one(struct fctx *x, int64_t fmul, int64_t fadd, int64_t bmul, int extra_isz)
{
    const struct tp_arg *in = targ(x, 0);
    if (!in)
        return tp_ff_fail(x, "%s: input shape unknown", x->c->op);
    int isz;
    if (isz_of(x, in, &isz))
        return -1;
    int64_t n = tp_ff_numel(in->shape, in->ndim);
    done(x, n * fmul + fadd, n * isz * bmul + (extra_isz ? isz : 0), "-");
    return 0;
}

/* tensor lists: total numel in ivalue when the shapes were recorded */
static int foreach_op(struct fctx *x, int64_t fmul, int64_t nread)
{
    const struct tp_arg *l = x->c->nargs ? &x->c->args[0] : NULL;
    if (!l || l->type != TP_ARG_LIST || !streq(l->svalue, "TensorList") || l->ivalue <= 0 || !l->dtype[0])
        return tp_ff_fail(x, "%s: tensor list shapes/dtype not recorded", x->c->op);
    int isz = tp_ff_isz(x, l->dtype);
    if (!isz)
        return tp_ff_fail(x, "%s: dtype %s", x->c->op, l->dtype);
    done(x, l->ivalue * fmul, l->ivalue * isz * nread, "-");
    return 0;
}

int tp_flops_aten(struct fctx *x)
{
    static const char *const conv_ops[] = { "conv1d", "conv2d", "conv3d", "convolution", "_convolution",
        "cudnn_convolution", "mkldnn_convolution", "_convolution_mode", NULL };
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
    static const char *const pool_ops[] = { "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d",
        "avg_pool2d", "avg_pool3d", "max_pool2d_with_indices", "max_pool3d_with_indices", NULL };
    static const char *const apool_ops[] = { "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
        "_adaptive_avg_pool2d", "adaptive_max_pool2d", "adaptive_max_pool1d", NULL };
    static const char *const foreach1[] = { "_foreach_add_", "_foreach_sub_", "_foreach_mul_", "_foreach_div_",
        "_foreach_add", "_foreach_mul", "_foreach_sqrt_", "_foreach_neg_", "_foreach_zero_", NULL };
    static const char *const foreach2[] = { "_foreach_addcmul_", "_foreach_addcdiv_", "_foreach_lerp_", NULL };

    const char *op = x->c->op;
    int rc;
    params_inputs(x);
    snprintf(x->r->op, sizeof x->r->op, "%s", op);
    if (streq(op, "mm") || streq(op, "addmm") || streq(op, "addmm_")) {
        const struct tp_arg *A = targ(x, streq(op, "mm") ? 0 : 1), *B = targ(x, streq(op, "mm") ? 1 : 2);
        if (!A || !B || A->ndim != 2 || B->ndim != 2 || A->shape[1] != B->shape[0])
            return tp_ff_fail(x, "%s: operand shapes unknown", op);
        rc = gemm(x, 1, A->shape[0], B->shape[1], A->shape[1], A);
    } else if (streq(op, "bmm") || streq(op, "baddbmm") || streq(op, "baddbmm_")) {
        const struct tp_arg *A = targ(x, streq(op, "bmm") ? 0 : 1), *B = targ(x, streq(op, "bmm") ? 1 : 2);
        if (!A || !B || A->ndim != 3 || B->ndim != 3 || A->shape[2] != B->shape[1] || A->shape[0] != B->shape[0])
            return tp_ff_fail(x, "%s: operand shapes unknown", op);
        rc = gemm(x, A->shape[0], A->shape[1], B->shape[2], A->shape[2], A);
    } else if (streq(op, "linear")) {
        const struct tp_arg *X = targ(x, 0), *W = targ(x, 1);
        if (!X || !W || X->ndim < 1 || W->ndim != 2 || X->shape[X->ndim - 1] != W->shape[1])
            return tp_ff_fail(x, "linear: operand shapes unknown");
        rc = gemm(x, 1, W->shape[0], tp_ff_numel(X->shape, X->ndim - 1), W->shape[1], X);
    } else if (streq(op, "matmul")) {
        const struct tp_arg *A = targ(x, 0), *B = targ(x, 1);
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
    } else if (in_list(op, conv_ops)) {
        rc = conv(x, 3);
    } else if (in_list(op, add_ops)) {
        rc = binary(x, 0);
    } else if (in_list(op, cmp_ops)) {
        rc = binary(x, 1);
    } else if (in_list(op, simple_unary)) {
        rc = one(x, 1, 0, 2, 0);
    } else if (in_list(op, trans_unary)) {
        rc = one(x, 20, 0, 2, 0);
    } else if (streq(op, "sum")) {
        rc = one(x, 1, 0, 1, 0);
    } else if (streq(op, "mean")) {
        rc = one(x, 1, 1, 1, 1);
    } else if (streq(op, "softmax") || streq(op, "_softmax")) {
        rc = one(x, 40, 0, 3, 0);
    } else if (streq(op, "log_softmax") || streq(op, "_log_softmax")) {
        rc = one(x, 21, 0, 3, 0);
    } else if (in_list(op, norm_ops)) {
        rc = one(x, 8, 0, 4, 0);
    } else if (in_list(op, dropout_ops)) {
        rc = one(x, 5, 0, 2, 0);
    } else if (streq(op, "embedding")) {
        const struct tp_arg *W = targ(x, 0), *I = targ(x, 1);
        if (!W || !I || W->ndim != 2)
            return tp_ff_fail(x, "embedding: shapes unknown");
        int wi, ii;
        if (isz_of(x, W, &wi) || isz_of(x, I, &ii))
            return -1;
        int64_t n = tp_ff_numel(I->shape, I->ndim);
        done(x, 0, n * ii + 2 * n * W->shape[1] * wi, "-");
        rc = 0;
    } else if (in_list(op, pool_ops)) {
        rc = pool(x, 0);
    } else if (in_list(op, apool_ops)) {
        rc = pool(x, 1);
    } else if (streq(op, "mse_loss")) {
        const struct tp_arg *in = targ(x, 0), *r = x->c->nargs > 2 ? &x->c->args[2] : NULL;
        if (!in || !known_int(r))
            return tp_ff_fail(x, "mse_loss: input shape or reduction value not recorded");
        int isz;
        if (isz_of(x, in, &isz))
            return -1;
        int64_t e = tp_ff_numel(in->shape, in->ndim) * (r->ivalue == 0 ? 3 : 2);
        done(x, 2 * e + 1, e * isz, "-");
        rc = 0;
    } else if (streq(op, "nll_loss") || streq(op, "nll_loss_nd") || streq(op, "nll_loss2d") ||
               streq(op, "cross_entropy_loss")) {
        const struct tp_arg *in = targ(x, 0), *tg = targ(x, 1);
        if (!in || !tg)
            return tp_ff_fail(x, "%s: shapes unknown", op);
        int isz, tsz;
        if (isz_of(x, in, &isz) || isz_of(x, tg, &tsz))
            return -1;
        int64_t nt = tp_ff_numel(tg->shape, tg->ndim), ni = tp_ff_numel(in->shape, in->ndim);
        if (streq(op, "cross_entropy_loss"))
            done(x, 21 * ni + nt, 3 * ni * isz + nt * tsz + nt * isz, "-");
        else
            done(x, nt, nt * tsz + nt * isz + isz, "-");
        rc = 0;
    } else if (in_list(op, foreach1)) {
        rc = foreach_op(x, 1, 3);
    } else if (in_list(op, foreach2)) {
        rc = foreach_op(x, 2, 4);
    } else if (streq(op, "_fused_adam_") || streq(op, "_fused_adamw_")) {
        rc = foreach_op(x, 12, 7);
    } else if (streq(op, "_fused_sgd_")) {
        rc = foreach_op(x, 2, 3);
    } else {
        snprintf(x->r->tc, sizeof x->r->tc, "-");
        return 1;      /* no formula: "known" stays 0, params list the inputs */
    }
    return rc;
}
