/* category_test.c — operator categories after TraceLens (category.c). */
#include "category.h"
#include "testing.h"

static const char *cat(const char *op, const char *kernel, int copy)
{
    return tp_category_name(tp_category_of(op, kernel, copy));
}

int main(void)
{
    /* TraceLens' registry entries */
    CHECK_STR("cat_addmm", cat("aten::addmm", "Cijk_Alik_Bljk", 0), "GEMM");
    CHECK_STR("cat_bmm", cat("aten::bmm", NULL, 0), "GEMM");
    CHECK_STR("cat_grouped_gemm", cat("primus_turbo::grouped_gemm", NULL, 0), "GEMM");
    CHECK_STR("cat_miopen_conv", cat("aten::miopen_convolution", "igemm_fwd_gtcx3", 0), "CONV");
    CHECK_STR("cat_conv_bwd", cat("aten::convolution_backward", NULL, 0), "CONV");
    CHECK_STR("cat_convbias", cat("ConvBiasReLU_", NULL, 0), "CONV");
    CHECK_STR("cat_not_convert", cat("aten::_convert_indices_from_coo_to_csr", NULL, 0), "other");
    CHECK_STR("cat_sdpa", cat("aten::_scaled_dot_product_flash_attention", NULL, 0), "attention");
    CHECK_STR("cat_flash_fwd", cat("aten::_flash_attention_forward", "attn_fwd", 0), "attention");
    CHECK_STR("cat_mha_prefill", cat("aiter::mha_batch_prefill", NULL, 0), "attention");
    CHECK_STR("cat_kv_cache", cat("_C_cache_ops::reshape_and_cache_flash", NULL, 0), "attention");
    CHECK_STR("cat_layer_norm", cat("aten::native_layer_norm", NULL, 0), "normalization");
    CHECK_STR("cat_rmsnorm_ext", cat("aiter::add_rmsnorm", NULL, 0), "normalization");
    CHECK_STR("cat_mean", cat("aten::mean", NULL, 0), "reduction");
    /* aten::norm is a reduction, not a normalization layer */
    CHECK_STR("cat_norm_is_reduce", cat("aten::norm", NULL, 0), "reduction");
    CHECK_STR("cat_add", cat("aten::add", NULL, 0), "elementwise");
    /* the fallback on ATen's own kernels */
    CHECK_STR("cat_gelu_kernel", cat("aten::gelu", "void at::native::vectorized_elementwise_kernel<8, Gelu>", 0),
              "elementwise");
    CHECK_STR("cat_argmax_kernel", cat("aten::argmax", "void at::native::reduce_kernel<512, 1>", 0), "reduction");
    CHECK_STR("cat_foreach", cat("aten::_foreach_add_", "void at::native::(anonymous namespace)::multi_tensor_apply_kernel", 0),
              "elementwise");
    CHECK_STR("cat_other_kernel", cat("aten::cat", "void at::native::CatArrayBatchedCopy", 0), "other");
    CHECK_STR("cat_triton", cat("triton_poi_fused_0", "triton_poi_fused_0", 0), "other");
    /* collectives, then copies */
    CHECK_STR("cat_nccl_kernel", cat("aten::add", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0), "communication");
    CHECK_STR("cat_c10d", cat("c10d::allreduce_", NULL, 0), "communication");
    CHECK_STR("cat_copy", cat("aten::copy_", "Memcpy DtoD (Device -> Device)", 1), "memcpy/memset");
    CHECK_STR("cat_none", cat(NULL, NULL, 0), "other");
    CHECK_STR("cat_name_range", tp_category_name(TP_CAT_COUNT), "other");
    CHECK_INT("cat_comm_kernel", tp_category_is_comm_kernel("rccl_kernel"), 1);
    CHECK_INT("cat_comm_kernel_no", tp_category_is_comm_kernel(NULL), 0);
    TEST_EXIT();
}
