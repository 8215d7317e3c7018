/* flops_conv.c — FLOP/byte formulas for kineto convolution and pooling
 * operators.  Their output size needs the scalar arguments (stride,
 * padding, dilation, groups, transposed, output_padding, kernel size,
 * ceil_mode), which PyTorch 2.x traces record in "Concrete Inputs"
 * (tp_opcall_add_concrete); without them the row is "na".
 *
 * Convolution, input [N,C,*S], weight [K,C/g,*R] (transposed: [C,K/g,*R]):
 *   out_i = floor((S_i + 2p_i - d_i(R_i-1) - 1) / s_i) + 1
 *   transposed: out_i = (S_i-1)s_i - 2p_i + d_i(R_i-1) + op_i + 1
 *   FLOPs 2·N·K·(C/g)·ΠR·Πout   (transposed: 2·N·C·(K/g)·ΠR·ΠS, each input
 *   element scattered over the kernel), bytes isz·(numel(in) + numel(w) +
 *   N·K·Πout).  The bias is not counted: PyTorch adds it in its own kernel
 *   (aten::add_), which has its own row.  These are TraceLens' CONV_fwd
 *   numbers (torch.utils.flop_counter's formula).
 * convolution_backward: (dx + dw)·(forward FLOPs) + db·N·K·Πout for the
 *   gradients output_mask asks for; bytes per gradient: dout + w + dx,
 *   dout + x + dw, dout + db.  (TraceLens counts dx and dw always.)
 * Pooling (kernel k, stride s (omitted: k), padding p, dilation d, ceil_mode):
 *   out as PyTorch's pooling_output_shape; FLOPs Πout·Πk (one compare or
 *   add per window element), bytes isz·(numel(in) + numel(out)) (+ 8 per
 *   output for the int64 indices of *_with_indices); adaptive
 *   pools: numel(in) FLOPs, bytes isz·(numel(in) + numel(out)).
 * Pooling backward, grad_output dout, input x: max_pool*_with_indices_backward
 *   scatters each dout element to its argmax: numel(dout) FLOPs, bytes
 *   isz·(numel(dout) + numel(x)) + bytes(indices); avg_pool*_backward spreads
 *   each over its window: numel(dout)·Πk FLOPs, bytes isz·(numel(dout) +
 *   numel(x)). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("wrapv")
#endif
#include <stdio.h>
#include <string.h>
#include "flops_int.h"

/* Where each scalar sits in the op's schema (native_functions.yaml);
 * -1: the op has no such argument. */
struct conv_sig {
    const char *op;
    int8_t stride, padding, dilation, transposed, out_pad, groups;
    int8_t always_transposed;
    int8_t input;            /* index of the input (the weight follows) */
    int8_t output_mask;      /* backward: which gradients, -1 forward */
};

static const struct conv_sig conv_sigs[] = {
    /* (input, weight, bias, stride, padding, dilation, groups) */
    { "conv1d", 3, 4, 5, -1, -1, 6, 0, 0, -1 },
    { "conv2d", 3, 4, 5, -1, -1, 6, 0, 0, -1 },
    { "conv3d", 3, 4, 5, -1, -1, 6, 0, 0, -1 },
    { "_convolution_mode", 3, 4, 5, -1, -1, 6, 0, 0, -1 },
    /* (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, ...) */
    { "convolution", 3, 4, 5, 6, 7, 8, 0, 0, -1 },
    { "_convolution", 3, 4, 5, 6, 7, 8, 0, 0, -1 },
    /* (input, weight, bias, stride, padding, output_padding, groups, dilation) */
    { "conv_transpose1d", 3, 4, 7, -1, 5, 6, 1, 0, -1 },
    { "conv_transpose2d", 3, 4, 7, -1, 5, 6, 1, 0, -1 },
    { "conv_transpose3d", 3, 4, 7, -1, 5, 6, 1, 0, -1 },
    /* (self, weight, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32) */
    { "cudnn_convolution", 3, 2, 4, -1, -1, 5, 0, 0, -1 },
    /* (self, weight, padding, output_padding, stride, dilation, groups, ...) */
    { "cudnn_convolution_transpose", 4, 2, 5, -1, 3, 6, 1, 0, -1 },
    /* (self, weight, bias, padding, stride, dilation, groups, ...) */
    { "miopen_convolution", 4, 3, 5, -1, -1, 6, 0, 0, -1 },
    { "miopen_depthwise_convolution", 4, 3, 5, -1, -1, 6, 0, 0, -1 },
    { "mkldnn_convolution", 4, 3, 5, -1, -1, 6, 0, 0, -1 },
    /* (self, weight, bias, padding, output_padding, stride, dilation, groups, ...) */
    { "miopen_convolution_transpose", 5, 3, 6, -1, 4, 7, 1, 0, -1 },
    /* (grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
     *  output_padding, groups, output_mask) */
    { "convolution_backward", 4, 5, 6, 7, 8, 9, 0, 1, 10 },
};

static const struct tp_arg *argi(struct fctx *x, int i)
{
    return i >= 0 && i < x->c->nargs ? &x->c->args[i] : NULL;
}

/* element i of an int list that is either one value for all dims or one per dim */
static int list_at(const struct tp_arg *l, int i, int sp, int64_t *v)
{
    if (l->ndim == 1)
        *v = l->shape[0];
    else if (l->ndim == sp)
        *v = l->shape[i];
    else
        return -1;
    return 0;
}

static void print_list(char *buf, size_t cap, const char *key, const int64_t *v, int n)
{
    size_t o = strlen(buf);
    o += (size_t)snprintf(buf + o, o < cap ? cap - o : 0, ",%s=[", key);
    for (int i = 0; i < n && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%lld", i ? "," : "", (long long)v[i]);
    if (o < cap)
        snprintf(buf + o, cap - o, "]");
}

static int conv(struct fctx *x, const struct conv_sig *sig)
{
    const char *op = x->c->op;
    const struct tp_arg *in = tp_fa_targ(x, sig->input), *w = tp_fa_targ(x, sig->input + 1);
    if (!in || !w || in->ndim < 3 || in->ndim != w->ndim || in->ndim - 2 > 3)
        return tp_ff_fail(x, "%s: input/weight shapes unknown", op);
    int sp = in->ndim - 2;
    const struct tp_arg *mask = argi(x, sig->output_mask);
    if (sig->output_mask >= 0 && (!tp_fa_known_ints(mask) || mask->ndim != 3))
        return tp_ff_fail(x, "%s: output_mask not recorded", op);
    const struct tp_arg *st = argi(x, sig->stride), *pd = argi(x, sig->padding), *dl = argi(x, sig->dilation);
    const struct tp_arg *g = argi(x, sig->groups), *tr = argi(x, sig->transposed), *opd = argi(x, sig->out_pad);
    int transposed = sig->always_transposed;
    if (sig->transposed >= 0) {
        if (!tr || tr->type != TP_ARG_BOOL)
            return tp_ff_fail(x, "%s: transposed not recorded", op);
        transposed = (int)tr->ivalue;
    }
    /* padding="same"/"valid" (conv2d's string overload) */
    int same = pd && pd->type == TP_ARG_STR && strcmp(pd->svalue, "same") == 0;
    int valid = pd && pd->type == TP_ARG_STR && strcmp(pd->svalue, "valid") == 0;
    if (!tp_fa_known_ints(st) || (!same && !valid && !tp_fa_known_ints(pd)) || !tp_fa_known_ints(dl) ||
        !tp_fa_known_int(g) || (transposed && !tp_fa_known_ints(opd)))
        return tp_ff_fail(x, "%s: stride/padding/dilation/groups values not recorded", op);
    int64_t G = g->ivalue;
    int64_t C = in->shape[1];
    if (G < 1 || (transposed ? w->shape[0] != C : w->shape[1] * G != C))
        return tp_ff_fail(x, "%s: channels do not match groups", op);
    int64_t S[3], P[3], D[3], OP[3] = { 0, 0, 0 }, out[3];
    int64_t outn = 1, kern = 1, inn = 1;
    for (int i = 0; i < sp; i++) {
        int64_t R = w->shape[2 + i], X = in->shape[2 + i];
        if (list_at(st, i, sp, &S[i]) || list_at(dl, i, sp, &D[i]) ||
            (!same && !valid && list_at(pd, i, sp, &P[i])) || (transposed && list_at(opd, i, sp, &OP[i])))
            return tp_ff_fail(x, "%s: a stride/padding/dilation list has the wrong length", op);
        if (valid)
            P[i] = 0;
        if (S[i] <= 0 || D[i] <= 0)
            return tp_ff_fail(x, "%s: stride or dilation not positive", op);
        if (same) {
            P[i] = D[i] * (R - 1) / 2;     /* shown only; the output keeps the input size */
            out[i] = X;
        } else if (transposed) {
            out[i] = (X - 1) * S[i] - 2 * P[i] + D[i] * (R - 1) + OP[i] + 1;
        } else {
            int64_t span = X + 2 * P[i] - D[i] * (R - 1) - 1;
            if (span < 0)
                return tp_ff_fail(x, "%s: kernel larger than the padded input", op);
            out[i] = span / S[i] + 1;
        }
        if (out[i] <= 0)
            return tp_ff_fail(x, "%s: empty output", op);
        outn *= out[i];
        kern *= R;
        inn *= X;
    }
    int isz;
    if (tp_fa_isz_of(x, in, &isz))
        return -1;
    int64_t N = in->shape[0];
    int64_t K = transposed ? w->shape[1] * G : w->shape[0];
    int64_t per_elem = 2 * w->shape[1] * kern;          /* 2·(weight numel / weight dim 0) */
    int64_t f = transposed ? N * C * inn * per_elem : N * K * outn * per_elem;
    int64_t in_el = tp_ff_numel(in->shape, in->ndim), w_el = tp_ff_numel(w->shape, w->ndim), out_el = N * K * outn;
    int64_t b = isz * (in_el + w_el + out_el);
    if (mask) {
        /* backward: each gradient asked for costs one forward's FLOPs (dgrad
         * reads dout and w, writes dx; wgrad reads dout and x, writes dw);
         * the bias gradient sums dout over all but the channel */
        int dx = mask->shape[0] != 0, dw = mask->shape[1] != 0, db = mask->shape[2] != 0;
        f = (dx + dw) * f + db * out_el;
        b = isz * ((dx + dw) * (in_el + w_el + out_el) + db * (out_el + K));
    }
    tp_fa_done(x, f, b, tp_kernel_uses_tc(x->k) ? "1" : "-");
    char text[256] = "";
    print_list(text, sizeof text, "stride", S, sp);
    if (same || valid)
        snprintf(text + strlen(text), sizeof text - strlen(text), ",padding=%s", same ? "same" : "valid");
    else
        print_list(text, sizeof text, "padding", P, sp);
    print_list(text, sizeof text, "dilation", D, sp);
    if (transposed) {
        snprintf(text + strlen(text), sizeof text - strlen(text), ",transposed=1");
        print_list(text, sizeof text, "output_padding", OP, sp);
    }
    snprintf(text + strlen(text), sizeof text - strlen(text), ",groups=%lld", (long long)G);
    if (mask)
        print_list(text, sizeof text, "output_mask", mask->shape, 3);
    tp_fa_params_append(x, text);
    return 0;
}

/* PyTorch's pooling_output_shape: floor or ceil, and with ceil_mode the
 * last window must start inside the input or its left padding */
static int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int ceil_mode)
{
    int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil_mode && (o - 1) * s >= in + p)
        o--;
    return o;
}

struct pool_sig {
    const char *op;
    int8_t adaptive, dilation, ceil_mode;   /* argument indices, -1 none */
};

static const struct pool_sig pool_sigs[] = {
    /* (self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False) */
    { "max_pool1d", 0, 4, 5 }, { "max_pool2d", 0, 4, 5 }, { "max_pool3d", 0, 4, 5 },
    { "max_pool2d_with_indices", 0, 4, 5 }, { "max_pool3d_with_indices", 0, 4, 5 },
    /* (self, kernel_size, stride=[], padding=0, ceil_mode=False, count_include_pad=True, ...) */
    { "avg_pool1d", 0, -1, 4 }, { "avg_pool2d", 0, -1, 4 }, { "avg_pool3d", 0, -1, 4 },
    /* (self, output_size) */
    { "adaptive_avg_pool1d", 1, -1, -1 }, { "adaptive_avg_pool2d", 1, -1, -1 },
    { "adaptive_avg_pool3d", 1, -1, -1 }, { "_adaptive_avg_pool2d", 1, -1, -1 },
    { "_adaptive_avg_pool3d", 1, -1, -1 }, { "adaptive_max_pool1d", 1, -1, -1 },
    { "adaptive_max_pool2d", 1, -1, -1 }, { "adaptive_max_pool3d", 1, -1, -1 },
};

static int pool(struct fctx *x, const struct pool_sig *sig)
{
    const char *op = x->c->op;
    const struct tp_arg *in = tp_fa_targ(x, 0);
    if (!in || in->ndim < 2)
        return tp_ff_fail(x, "%s: input shape unknown", op);
    int isz;
    if (tp_fa_isz_of(x, in, &isz))
        return -1;
    int64_t numel = tp_ff_numel(in->shape, in->ndim);
    const struct tp_arg *ks = argi(x, 1);
    if (!tp_fa_known_ints(ks))
        return tp_ff_fail(x, "%s: kernel/output size values not recorded", op);
    int sp = ks->ndim;
    if (sp < 1 || sp > in->ndim || sp > 3)
        return tp_ff_fail(x, "%s: bad size list", op);
    /* a one-element list means the same size along every spatial dim */
    int nsp = sp == 1 && strstr(op, "2d") ? 2 : sp == 1 && strstr(op, "3d") ? 3 : sp;
    if (nsp > in->ndim - 1)
        return tp_ff_fail(x, "%s: input has fewer dims than the pool", op);
    int64_t lead = tp_ff_numel(in->shape, in->ndim - nsp);
    char text[256] = "";
    if (sig->adaptive) {
        int64_t on = lead;
        for (int i = 0; i < nsp; i++)
            on *= ks->shape[sp == 1 ? 0 : i];
        tp_fa_done(x, numel, (numel + on) * isz, "-");
        print_list(text, sizeof text, "output_size", ks->shape, sp);
        tp_fa_params_append(x, text);
        return 0;
    }
    const struct tp_arg *st = argi(x, 2), *pd = argi(x, 3), *dl = argi(x, sig->dilation);
    const struct tp_arg *cm = argi(x, sig->ceil_mode);
    if (!tp_fa_known_ints(st) || !tp_fa_known_ints(pd) || (dl && !tp_fa_known_ints(dl)))
        return tp_ff_fail(x, "%s: stride/padding values not recorded", op);
    if (cm && cm->type != TP_ARG_BOOL)
        return tp_ff_fail(x, "%s: ceil_mode not recorded", op);
    int ceil_mode = cm ? (int)cm->ivalue : 0;
    int64_t K[3], S[3], P[3], D[3];
    int64_t on = lead, kern = 1;
    for (int i = 0; i < nsp; i++) {
        if (list_at(ks, i, nsp, &K[i]) || (st->ndim == 0 ? (S[i] = K[i], 0) : list_at(st, i, nsp, &S[i])) ||
            list_at(pd, i, nsp, &P[i]) || (dl ? list_at(dl, i, nsp, &D[i]) : (D[i] = 1, 0)))
            return tp_ff_fail(x, "%s: a size list has the wrong length", op);
        if (S[i] <= 0 || K[i] <= 0 || D[i] <= 0)
            return tp_ff_fail(x, "%s: kernel/stride/dilation not positive", op);
        int64_t o = pool_out(in->shape[in->ndim - nsp + i], K[i], S[i], P[i], D[i], ceil_mode);
        if (o <= 0)
            return tp_ff_fail(x, "%s: empty output", op);
        on *= o;
        kern *= K[i];
    }
    /* *_with_indices also writes the int64 argmax of every output */
    tp_fa_done(x, on * kern, (numel + on) * isz + (strstr(op, "with_indices") ? 8 * on : 0), "-");
    print_list(text, sizeof text, "kernel", K, nsp);
    print_list(text, sizeof text, "stride", S, nsp);
    print_list(text, sizeof text, "padding", P, nsp);
    if (dl)
        print_list(text, sizeof text, "dilation", D, nsp);
    if (ceil_mode)
        snprintf(text + strlen(text), sizeof text - strlen(text), ",ceil_mode=1");
    tp_fa_params_append(x, text);
    return 0;
}

/* (grad_output, self, kernel_size, ...[, indices]) */
static int pool_backward(struct fctx *x, int is_max)
{
    const char *op = x->c->op;
    const struct tp_arg *dout = tp_fa_targ(x, 0), *in = tp_fa_targ(x, 1);
    if (!dout || !in)
        return tp_ff_fail(x, "%s: shapes unknown", op);
    int isz;
    if (tp_fa_isz_of(x, in, &isz))
        return -1;
    int64_t nd = tp_ff_numel(dout->shape, dout->ndim), ni = tp_ff_numel(in->shape, in->ndim);
    if (is_max) {
        const struct tp_arg *idx = tp_fa_targ(x, x->c->nargs - 1);
        int iisz = idx && idx != in && idx->dtype[0] ? tp_ff_isz(x, idx->dtype) : 0;
        if (!iisz)
            return tp_ff_fail(x, "%s: indices unknown", op);
        tp_fa_done(x, nd, isz * (nd + ni) + iisz * nd, "-");
        return 0;
    }
    const struct tp_arg *ks = argi(x, 2);
    if (!tp_fa_known_ints(ks) || ks->ndim < 1)
        return tp_ff_fail(x, "%s: kernel size not recorded", op);
    int n = ks->ndim == 1 && strstr(op, "2d") ? 2 : ks->ndim == 1 && strstr(op, "3d") ? 3 : ks->ndim;
    int64_t kern = 1;
    for (int i = 0; i < n; i++)
        kern *= ks->shape[ks->ndim == 1 ? 0 : i];
    tp_fa_done(x, nd * kern, isz * (nd + ni), "-");
    char text[128] = "";
    print_list(text, sizeof text, "kernel", ks->shape, ks->ndim);
    tp_fa_params_append(x, text);
    return 0;
}

int tp_flops_conv(struct fctx *x)
{
    static const char *const max_bwd[] = { "max_pool2d_with_indices_backward", "max_pool3d_with_indices_backward",
                                           NULL };
    static const char *const avg_bwd[] = { "avg_pool2d_backward", "avg_pool3d_backward", NULL };
    for (const char *const *p = max_bwd; *p; p++)
        if (strcmp(x->c->op, *p) == 0)
            return pool_backward(x, 1);
    for (const char *const *p = avg_bwd; *p; p++)
        if (strcmp(x->c->op, *p) == 0)
            return pool_backward(x, 0);
    for (size_t i = 0; i < sizeof conv_sigs / sizeof conv_sigs[0]; i++)
        if (strcmp(x->c->op, conv_sigs[i].op) == 0)
            return conv(x, &conv_sigs[i]);
    for (size_t i = 0; i < sizeof pool_sigs / sizeof pool_sigs[0]; i++)
        if (strcmp(x->c->op, pool_sigs[i].op) == 0)
            return pool(x, &pool_sigs[i]);
    return TP_FF_NOT_MINE;
}
