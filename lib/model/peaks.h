/* peaks.h — dense peak FLOP rates and memory bandwidth of the GPUs tprof
 * knows by name, for the roofline view (internal to libtprof).  Every number
 * is a vendor datasheet's; tprof(1), ROOFLINE PEAKS, cites each sheet and
 * lists what could not be verified (left at 0: unknown). */
#ifndef TPROF_PEAKS_H
#define TPROF_PEAKS_H

#include <stddef.h>

enum tp_dtype { TP_DT_FP64, TP_DT_FP32, TP_DT_TF32, TP_DT_BF16, TP_DT_FP16, TP_DT_FP8, TP_DT_COUNT,
                TP_DT_UNKNOWN = -1 };

struct tp_peaks {
    const char *device;                /* "H100 SXM" */
    const char *match[3];              /* the device name holds one of these (NULL-ended) */
    const char *unless;                /* ... and not this (a variant with other peaks), or NULL */
    double vector[TP_DT_COUNT];        /* TFLOP/s of the vector (CUDA core / SIMD) units, 0 unknown */
    double matrix[TP_DT_COUNT];        /* TFLOP/s of the tensor / matrix cores, dense, 0 unknown */
    double hbm_gbs;                    /* GB/s (10^9 bytes), 0 unknown */
};

/* The peaks of a device named `name` (deviceProperties' or TARGET_INFO_GPU's
 * name), NULL when tprof has none. */
const struct tp_peaks *tp_peaks_find(const char *name);

/* The whole table (for tests and the man page). */
const struct tp_peaks *tp_peaks_table(size_t *n);

/* The dtype a PyProf params text names first ("[4,3]bf16;..." "type=fp16"),
 * TP_DT_UNKNOWN when none. */
enum tp_dtype tp_dtype_of(const char *text);
const char *tp_dtype_name(enum tp_dtype d);   /* "fp64" ... "fp8", "-" */

/* The compute peak (TFLOP/s) that bounds work in dtype d: the matrix units'
 * when its kernels use them (tc; fp32 there is TF32), else the vector
 * units', with 16- and 8-bit vector work bounded by the fp32 vector peak
 * where the sheet gives no vector peak of its own.  *label says which
 * ("matrix bf16", "vector fp32").  0 when unknown. */
double tp_peak_tflops(const struct tp_peaks *p, enum tp_dtype d, int tc, const char **label);

#endif
