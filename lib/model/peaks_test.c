/* peaks_test.c — the built-in peak table (peaks.c): lookup by device name,
 * dtype of a params text, and which peak bounds which work. */
#include "peaks.h"
#include "testing.h"

int main(void)
{
    const struct tp_peaks *p = tp_peaks_find("NVIDIA H100 80GB HBM3");
    CHECK("peaks_h100_sxm", p && p->hbm_gbs == 3350);
    CHECK("peaks_h100_pcie_unknown", tp_peaks_find("NVIDIA H100 PCIe") == NULL);
    CHECK("peaks_h200", tp_peaks_find("NVIDIA H200") && tp_peaks_find("NVIDIA H200")->hbm_gbs == 4800);
    CHECK("peaks_h200_nvl_unknown", tp_peaks_find("NVIDIA H200 NVL") == NULL);
    CHECK("peaks_a100_80", tp_peaks_find("NVIDIA A100-SXM4-80GB") != NULL);
    CHECK("peaks_a100_40_unknown", tp_peaks_find("NVIDIA A100-SXM4-40GB") == NULL);
    CHECK("peaks_v100", tp_peaks_find("Tesla V100-SXM2-16GB") != NULL);
    CHECK("peaks_b200", tp_peaks_find("NVIDIA B200") != NULL);
    CHECK("peaks_mi250x", tp_peaks_find("AMD Instinct MI250X") != NULL);
    CHECK("peaks_mi300x_vf", tp_peaks_find("AMD Instinct MI300X VF") != NULL);
    CHECK("peaks_unknown", tp_peaks_find("NVIDIA GeForce RTX 4090") == NULL && tp_peaks_find(NULL) == NULL);
    /* every number is a rate or 0 (unknown); dense tensor rates below sparse */
    size_t n;
    const struct tp_peaks *t = tp_peaks_table(&n);
    int sane = n >= 7;
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < TP_DT_COUNT; d++)
            sane &= t[i].vector[d] >= 0 && t[i].matrix[d] >= 0 && t[i].matrix[d] < 10000;
    CHECK("peaks_table_sane", sane);

    CHECK_INT("dtype_bf16", tp_dtype_of("[768]bf16;[788,768]bf16"), TP_DT_BF16);
    CHECK_INT("dtype_first", tp_dtype_of("M=1,N=2,K=3,type=fp16;out=fp32"), TP_DT_FP16);
    CHECK_INT("dtype_fp8", tp_dtype_of("[16,16]float8_e4m3fn"), TP_DT_FP8);
    CHECK_INT("dtype_none", tp_dtype_of("[4,4]int64"), TP_DT_UNKNOWN);
    CHECK_STR("dtype_name", tp_dtype_name(TP_DT_TF32), "tf32");
    CHECK_STR("dtype_name_unknown", tp_dtype_name(TP_DT_UNKNOWN), "-");

    const char *label;
    CHECK("peak_matrix_bf16", tp_peak_tflops(p, TP_DT_BF16, 1, &label) == 989.5);
    CHECK_STR("peak_matrix_bf16_label", label, "matrix bf16");
    CHECK("peak_fp32_tc_is_tf32", tp_peak_tflops(p, TP_DT_FP32, 1, &label) == 494.5);
    CHECK_STR("peak_tf32_label", label, "matrix tf32");
    /* bf16 vector work: the fp32 vector peak, and the label says so */
    CHECK("peak_vector_bf16", tp_peak_tflops(p, TP_DT_BF16, 0, &label) == 67);
    CHECK_STR("peak_vector_label", label, "vector fp32");
    /* unknown: 0 and "-" */
    CHECK("peak_mi300x_compute_unknown",
          tp_peak_tflops(tp_peaks_find("AMD Instinct MI300X"), TP_DT_BF16, 1, &label) == 0);
    CHECK_STR("peak_unknown_label", label, "-");
    CHECK("peak_no_device", tp_peak_tflops(NULL, TP_DT_FP32, 0, NULL) == 0);
    TEST_EXIT();
}
