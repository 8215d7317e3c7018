/* category.c — operator categories after TraceLens (see category.h).
 *
 * TraceLens looks an operator up in its registry of perf-model classes
 * (GEMM, CONV, SDPA, NORM, elementwise, reduce), then falls back on the
 * first kernel's name: "void at::native..." kernels named *elementwise*,
 * *reduce* or *multi_tensor_apply*.  The lists below are its registry's
 * entries folded into tprof's nine categories; operators of extensions it
 * registers one by one (aiter::, primus_turbo::, vllm::...) are matched by
 * what their names say (gemm, attention, norm) so that the next extension
 * is not "other" for want of a line here. */
#include <string.h>
#include <strings.h>
#include "category.h"
#include "strlist.h"

static const char *const names[TP_CAT_COUNT] = {
    "GEMM", "CONV", "attention", "normalization", "elementwise", "reduction",
    "communication", "memcpy/memset", "other",
};

const char *tp_category_name(enum tp_category c)
{
    return (unsigned)c < TP_CAT_COUNT ? names[c] : "other";
}

/* case-insensitive substring */
static int has(const char *s, const char *needle)
{
    size_t n = strlen(needle);
    for (; *s; s++)
        if (strncasecmp(s, needle, n) == 0)
            return 1;
    return 0;
}

static int has_any(const char *s, const char *const *needles)
{
    for (; *needles; needles++)
        if (has(s, *needles))
            return 1;
    return 0;
}

int tp_category_is_comm_kernel(const char *kernel)
{
    return kernel && (has(kernel, "nccl") || has(kernel, "rccl"));
}

/* TraceLens' registry: aten::mm, addmm, _scaled_mm, bmm, baddbmm and the
 * GEMM entry points of extensions (te_gemm_ts, cublas_scaled_mm,
 * int8_linear_matmul, grouped_gemm, hipblaslt_gemm_*, gemm_a4w4) */
static const char *const gemm_ops[] = {"mm", "addmm", "_scaled_mm", "bmm", "baddbmm", NULL};
static const char *const gemm_words[] = {"gemm", "scaled_mm", "linear_matmul", NULL};
/* aten::convolution, convolution_backward, cudnn_/miopen_/mkldnn_convolution
 * (TraceLens' category-only map), ConvBias_* */
static const char *const conv_words[] = {"convolution", "conv1d", "conv2d", "conv3d", "conv_transpose",
                                         "conv_depthwise", NULL};
/* SDPA, flash/efficient attention, aiter fmha / mha_*, vLLM's unified
 * attention, KV-cache writes and MLA metadata (TraceLens' InferenceAttention) */
static const char *const attn_words[] = {"attention", "attn", "fmha", "::mha_", "and_cache", "store_cache",
                                         "mla_metadata", NULL};
static const char *const norm_words[] = {"batch_norm", "layer_norm", "group_norm", "instance_norm", "rms_norm",
                                         "rmsnorm", "layernorm", "groupnorm", "fused_ln_modulate", NULL};
/* TraceLens' reduce_ops */
static const char *const reduce_ops[] = {"sum", "mean", "max", "min", "norm", "linalg_norm", "std", "var",
                                         "logsumexp", "cumsum", "cumprod", "amin", "amax", NULL};
/* TraceLens' unary_elemwise_ops and binary_elemwise_ops */
static const char *const elementwise_ops[] = {"copy", "copy_", "clamp_min", "clamp_min_", "clamp_max",
                                              "clamp_max_", "sigmoid", "rsqrt", "silu", "neg", "pow", "div",
                                              "div_", "mul", "mul_", "add", "add_", "sigmoid_backward",
                                              "threshold_backward", NULL};
static const char *const comm_words[] = {"nccl", "rccl", "c10d::", "gloo:", "record_param_comms", "all_reduce",
                                         "allreduce", "all_gather", "allgather", "reduce_scatter",
                                         "all_to_all", "alltoall", NULL};

enum tp_category tp_category_of(const char *op, const char *kernel, int copy)
{
    if (!op)
        op = "";
    if (tp_category_is_comm_kernel(kernel) || has_any(op, comm_words))
        return TP_CAT_COMM;
    /* a copy is a copy whichever operator asked for it (TraceLens files
     * aten::copy_'s memcpy under elementwise: see tprof(1)) */
    if (copy)
        return TP_CAT_MEMCPY;
    const char *base = strncmp(op, "aten::", 6) == 0 ? op + 6 : NULL;
    if ((base && tp_str_in(base, gemm_ops)) || has_any(op, gemm_words))
        return TP_CAT_GEMM;
    /* ConvBias_, ConvBiasReLU_ (apex): "Conv" then a capital */
    if (has_any(op, conv_words) || (strncmp(op, "ConvBias", 8) == 0))
        return TP_CAT_CONV;
    if (has_any(op, attn_words))
        return TP_CAT_ATTENTION;
    if (has_any(op, norm_words))
        return TP_CAT_NORM;
    if (base && tp_str_in(base, reduce_ops))
        return TP_CAT_REDUCTION;
    if (base && tp_str_in(base, elementwise_ops))
        return TP_CAT_ELEMENTWISE;
    /* TraceLens' fallback on the first kernel of ATen's own kernels */
    if (kernel && strncmp(kernel, "void at::native", 15) == 0) {
        if (strstr(kernel, "elementwise"))
            return TP_CAT_ELEMENTWISE;
        if (strstr(kernel, "reduce"))
            return TP_CAT_REDUCTION;
        if (strstr(kernel, "multi_tensor_apply"))
            return TP_CAT_ELEMENTWISE;
    }
    return TP_CAT_OTHER;
}
