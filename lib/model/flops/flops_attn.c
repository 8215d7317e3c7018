/* flops_attn.c — FLOP/byte formulas for kineto attention operators
 * (scaled dot-product attention and its flash / memory-efficient / cuDNN
 * kernels, the flash-attn and aiter packages), forward and backward.
 * Whether the attention is causal is a scalar argument: PyTorch 2.x records
 * it in "Concrete Inputs"; without it the row is "na".
 *
 * From q [B,H_Q,N_Q,d] (or [B,N_Q,H_Q,d] for the ops that take that layout),
 * k [.., H_KV, N_KV, d], v [.., H_KV, N_KV, d_v]; as TraceLens' SDPA model
 * (FlashAttention's benchmark convention):
 *   forward  FLOPs 2·B·H_Q·N_Q·N_KV·(d + d_v)   (QKᵀ and PV; softmax left out)
 *   backward FLOPs 2·B·H_Q·N_Q·N_KV·(2d + 2d_v) + B·N_KV·(d + d_v)·(H_Q/H_KV − 1)
 *            (dV, dP, dQ, dK; the GQA reduction of dK/dV over the query
 *            heads), plus 2·B·H_Q·N_Q·N_KV·d for the recomputed QKᵀ in the
 *            flash kernels
 *   causal: half of that when N_Q = N_KV; when they differ, the exact share
 *            of unmasked query/key pairs (top-left aligned for PyTorch's
 *            is_causal and custom_mask_type 1, bottom-right for flash-attn
 *            and custom_mask_type 2) where TraceLens gives up
 *   bytes forward isz·(q + k + v + out), backward isz·(q + k + v + dout +
 *            dq + dk + dv) (numel of each; out and dout have q's rows and
 *            d_v columns)
 * Varlen calls (q packed as [total, H, d] with cumulative sequence lengths)
 * give "na": the lengths of the sequences are not recorded. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("wrapv")
#endif
#include <stdio.h>
#include <string.h>
#include "flops_int.h"

enum layout { BHND, BNHD };
enum align { TOP_LEFT, BOTTOM_RIGHT };

struct attn_sig {
    const char *mod, *op;
    enum layout layout;
    int8_t q;            /* index of q (k and v follow) */
    int8_t causal;       /* bool is_causal, or int custom_mask_type when mask_type */
    int8_t mask_type;
    int8_t bwd, flash;   /* backward; recomputes QKᵀ in the backward */
    enum align align;
};

static const struct attn_sig attn_sigs[] = {
    /* (query, key, value, dropout_p, is_causal, return_debug_mask, scale) */
    { "aten", "_scaled_dot_product_flash_attention", BHND, 0, 4, 0, 0, 1, TOP_LEFT },
    /* (query, key, value, dropout_p, is_causal, attn_mask, scale) */
    { "aten", "_scaled_dot_product_flash_attention_for_cpu", BHND, 0, 4, 0, 0, 1, TOP_LEFT },
    /* (query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal, ...) */
    { "aten", "_scaled_dot_product_efficient_attention", BHND, 0, 6, 0, 0, 0, TOP_LEFT },
    { "aten", "_scaled_dot_product_cudnn_attention", BHND, 0, 6, 0, 0, 0, TOP_LEFT },
    /* (query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa) */
    { "aten", "scaled_dot_product_attention", BHND, 0, 5, 0, 0, 0, TOP_LEFT },
    /* (query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, ...) */
    { "aten", "_flash_attention_forward", BNHD, 0, 8, 0, 0, 1, BOTTOM_RIGHT },
    /* (query, key, value, bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
     *  dropout_p, custom_mask_type, ...) */
    { "aten", "_efficient_attention_forward", BNHD, 0, 9, 1, 0, 0, TOP_LEFT },
    /* (grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k,
     *  dropout_p, is_causal, ...) */
    { "aten", "_scaled_dot_product_flash_attention_backward", BHND, 1, 11, 0, 1, 1, TOP_LEFT },
    { "aten", "_flash_attention_backward", BNHD, 1, 11, 0, 1, 1, BOTTOM_RIGHT },
    /* (grad_out, query, key, value, attn_bias, out, logsumexp, philox_seed, philox_offset,
     *  dropout_p, grad_input_mask, is_causal, scale) */
    { "aten", "_scaled_dot_product_efficient_attention_backward", BHND, 1, 11, 0, 1, 0, TOP_LEFT },
    /* (grad_out, query, key, value, bias, out, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
     *  max_seqlen_k, logsumexp, dropout_p, philox_seed, philox_offset, custom_mask_type, ...) */
    { "aten", "_efficient_attention_backward", BNHD, 1, 14, 1, 1, 0, TOP_LEFT },
    /* flash-attn: (q, k, v, dropout_p, softmax_scale, causal, ...) */
    { "flash_attn", "_flash_attn_forward", BNHD, 0, 5, 0, 0, 1, BOTTOM_RIGHT },
    { "aiter", "_flash_attn_forward", BNHD, 0, 5, 0, 0, 1, BOTTOM_RIGHT },
    /* flash-attn: (dout, q, k, v, out, softmax_lse, dq, dk, dv, dropout_p, softmax_scale, causal, ...) */
    { "flash_attn", "_flash_attn_backward", BNHD, 1, 11, 0, 1, 1, BOTTOM_RIGHT },
};

static const struct attn_sig *find(const struct tp_opcall *c)
{
    for (size_t i = 0; i < sizeof attn_sigs / sizeof attn_sigs[0]; i++)
        if (strcmp(c->mod, attn_sigs[i].mod) == 0 && strcmp(c->op, attn_sigs[i].op) == 0)
            return &attn_sigs[i];
    return NULL;
}

int tp_flops_attn_owns(const struct tp_opcall *c)
{
    return find(c) != NULL;
}

/* Σ clamp(t, 0, nk) for t <= T */
static int64_t clamp_sum(int64_t T, int64_t nk)
{
    if (T <= 0)
        return 0;
    if (T <= nk)
        return T * (T + 1) / 2;
    return nk * (nk + 1) / 2 + (T - nk) * nk;
}

/* Twice the query/key pairs a causal mask leaves: N_Q·N_KV (half of all
 * pairs, the convention) when the lengths agree, else the exact count. */
int64_t tp_flops_causal_pairs2(int64_t nq, int64_t nk, int bottom_right)
{
    if (nq == nk)
        return nq * nk;
    /* query row i sees clamp(i + 1 + shift, 0, nk) keys: a sum of clamps */
    int64_t shift = bottom_right ? nk - nq : 0;
    return 2 * (clamp_sum(nq + shift, nk) - clamp_sum(shift, nk));
}

static int attn(struct fctx *x, const struct attn_sig *sig)
{
    const char *op = x->c->op;
    const struct tp_arg *q = tp_fa_targ(x, sig->q), *k = tp_fa_targ(x, sig->q + 1), *v = tp_fa_targ(x, sig->q + 2);
    if (!q || !k || !v)
        return tp_ff_fail(x, "%s: q/k/v shapes unknown", op);
    if (q->ndim != 4 || k->ndim != 4 || v->ndim != 4)
        return tp_ff_fail(x, "%s: q/k/v are not 4-D (packed variable-length sequences)", op);
    int h = sig->layout == BHND ? 1 : 2, n = sig->layout == BHND ? 2 : 1;
    int64_t B = q->shape[0], HQ = q->shape[h], NQ = q->shape[n], D = q->shape[3];
    int64_t HK = k->shape[h], NK = k->shape[n], DV = v->shape[3];
    if (k->shape[0] != B || v->shape[0] != B || k->shape[3] != D || v->shape[n] != NK || HK < 1 || HQ % HK)
        return tp_ff_fail(x, "%s: q/k/v shapes do not agree", op);
    const struct tp_arg *c = sig->causal < x->c->nargs ? &x->c->args[sig->causal] : NULL;
    int causal, align = sig->align;
    if (sig->mask_type) {
        if (!tp_fa_known_int(c))
            return tp_ff_fail(x, "%s: custom_mask_type not recorded", op);
        causal = c->ivalue != 0;
        align = c->ivalue == 2 ? BOTTOM_RIGHT : TOP_LEFT;
    } else {
        if (!c || c->type != TP_ARG_BOOL)
            return tp_ff_fail(x, "%s: is_causal not recorded", op);
        causal = (int)c->ivalue;
    }
    int isz;
    if (tp_fa_isz_of(x, q, &isz))
        return -1;
    int64_t pairs2 = causal ? tp_flops_causal_pairs2(NQ, NK, align == BOTTOM_RIGHT) : 2 * NQ * NK;
    int64_t f, e;
    int64_t q_el = B * HQ * NQ * D, k_el = B * HK * NK * D, v_el = B * HK * NK * DV, o_el = B * HQ * NQ * DV;
    if (!sig->bwd) {
        f = B * HQ * pairs2 * (D + DV);
        e = q_el + k_el + v_el + o_el;
    } else {
        /* TraceLens halves the GQA reduction too when causal */
        int64_t gqa = B * NK * (D + DV) * (HQ / HK - 1);
        f = B * HQ * pairs2 * (2 * D + 2 * DV + (sig->flash ? D : 0)) + (causal && NQ == NK ? gqa / 2 : gqa);
        e = 2 * (q_el + k_el + v_el) + o_el;
    }
    tp_fa_done(x, f, e * isz, tp_kernel_uses_tc(x->k) ? "1" : "-");
    tp_fa_params_append(x, causal ? "causal=1" : "causal=0");
    return 0;
}

int tp_flops_attn(struct fctx *x)
{
    const struct attn_sig *sig = find(x->c);
    return sig ? attn(x, sig) : TP_FF_NOT_MINE;
}
