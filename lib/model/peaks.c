/* peaks.c — the built-in table of GPU peaks (see peaks.h).
 *
 * Dense rates only: NVIDIA's sheets print tensor-core rates "with sparsity"
 * (2:4), twice what dense GEMMs can reach; the table holds half of those.
 * A number left at 0 is one whose vendor sheet could not be checked (see
 * tprof(1)); the roofline prints "-" for what depends on it. */
#include <string.h>
#include "peaks.h"

/*                                fp64    fp32    tf32    bf16    fp16     fp8 */
static const struct tp_peaks table[] = {
    /* NVIDIA Tesla V100 SXM2 datasheet; 125 TFLOPS tensor: NVIDIA's
     * "Programming Tensor Cores in CUDA 9" */
    {"V100 SXM2", {"V100-SXM2", "V100 SXM2", NULL}, NULL,
     {7.8, 15.7, 0, 0, 0, 0}, {0, 0, 0, 0, 125, 0}, 900},
    /* NVIDIA A100 datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4), SXM 80GB */
    {"A100 SXM 80GB", {"A100-SXM4-80GB", "A100-SXM-80GB", "A100 SXM4 80GB"}, NULL,
     {9.7, 19.5, 0, 0, 0, 0}, {19.5, 0, 156, 312, 312, 0}, 2039},
    /* NVIDIA H100 datasheet, SXM column (tensor rates: half the sparse ones);
     * the SXM part reports itself as "H100 80GB HBM3" */
    {"H100 SXM", {"H100 80GB HBM3", "H100 SXM", NULL}, "PCIe",
     {34, 67, 0, 0, 0, 0}, {67, 0, 494.5, 989.5, 989.5, 1979}, 3350},
    /* NVIDIA H200 datasheet, SXM column */
    {"H200 SXM", {"H200", NULL, NULL}, "NVL",
     {34, 0, 0, 0, 0, 0}, {0, 0, 0, 989.5, 989.5, 1979}, 4800},
    /* NVIDIA HGX B200 / DGX B200 specifications, per GPU (1000 W) */
    {"B200", {"B200", NULL, NULL}, NULL,
     {40, 80, 0, 0, 0, 0}, {40, 0, 1100, 2250, 2250, 4500}, 8000},
    /* AMD Instinct MI250X datasheet; ROCm shows each of its two GCDs as a
     * device: half the package's rates and bandwidth */
    {"MI250X (one GCD)", {"MI250X", NULL, NULL}, NULL,
     {23.95, 23.95, 0, 0, 0, 0}, {0, 0, 0, 191.5, 191.5, 0}, 1638.4},
    /* AMD Instinct MI300X datasheet: bandwidth only (see tprof(1)) */
    {"MI300X", {"MI300X", NULL, NULL}, NULL,
     {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}, 5300},
};

const struct tp_peaks *tp_peaks_table(size_t *n)
{
    if (n)
        *n = sizeof table / sizeof *table;
    return table;
}

const struct tp_peaks *tp_peaks_find(const char *name)
{
    if (!name || !*name)
        return NULL;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        const struct tp_peaks *p = &table[i];
        if (p->unless && strstr(name, p->unless))
            continue;
        for (size_t k = 0; k < 3 && p->match[k]; k++)
            if (strstr(name, p->match[k]))
                return p;
    }
    return NULL;
}

static const char *const dt_names[TP_DT_COUNT] = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8"};

const char *tp_dtype_name(enum tp_dtype d)
{
    return d >= 0 && d < TP_DT_COUNT ? dt_names[d] : "-";
}

enum tp_dtype tp_dtype_of(const char *text)
{
    /* the spellings of PyProf's params (fp16, bf16 ...) and of torch
     * dtypes; the one that comes first names the inputs' type */
    static const struct { const char *word; enum tp_dtype d; } words[] = {
        {"bf16", TP_DT_BF16}, {"bfloat16", TP_DT_BF16}, {"fp16", TP_DT_FP16}, {"float16", TP_DT_FP16},
        {"half", TP_DT_FP16}, {"fp32", TP_DT_FP32}, {"float32", TP_DT_FP32}, {"tf32", TP_DT_TF32},
        {"fp64", TP_DT_FP64}, {"float64", TP_DT_FP64}, {"double", TP_DT_FP64}, {"fp8", TP_DT_FP8},
        {"float8", TP_DT_FP8}, {"e4m3", TP_DT_FP8}, {"e5m2", TP_DT_FP8},
    };
    if (!text)
        return TP_DT_UNKNOWN;
    const char *best = NULL;
    enum tp_dtype d = TP_DT_UNKNOWN;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        const char *at = strstr(text, words[i].word);
        if (at && (!best || at < best)) {
            best = at;
            d = words[i].d;
        }
    }
    return d;
}

double tp_peak_tflops(const struct tp_peaks *p, enum tp_dtype d, int tc, const char **label)
{
    static const char *const labels[2][TP_DT_COUNT] = {
        {"vector fp64", "vector fp32", "vector tf32", "vector bf16", "vector fp16", "vector fp8"},
        {"matrix fp64", "matrix fp32", "matrix tf32", "matrix bf16", "matrix fp16", "matrix fp8"},
    };
    if (label)
        *label = "-";
    if (!p || d < 0 || d >= TP_DT_COUNT)
        return 0;
    enum tp_dtype use = d;
    int matrix = tc;
    if (tc && d == TP_DT_FP32)
        use = TP_DT_TF32;   /* fp32 on tensor cores is TF32 */
    else if (!tc && (d == TP_DT_BF16 || d == TP_DT_FP16 || d == TP_DT_FP8 || d == TP_DT_TF32) &&
             p->vector[d] == 0)
        use = TP_DT_FP32;   /* narrow vector math runs at least at the fp32 rate */
    double v = matrix ? p->matrix[use] : p->vector[use];
    if (v > 0 && label)
        *label = labels[matrix][use];
    return v;
}
