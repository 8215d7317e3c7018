/* opcall.h — one operator call as PyProf's formulas see it: module, op name,
 * and the argument list with tensor shapes and dtypes.
 *
 * nvprof/nsys dumps give it as PyProf's NVTX marker, a Python dict literal
 *   {'mod': 'torch', 'op': 'addmm', 'args': [{'name': '', 'type': 'tensor',
 *    'shape': (512,), 'dtype': 'float32'}, ...]}
 * kineto traces give it as an operator's "Input Dims"/"Input type"; both are
 * turned into a tp_opcall and fed to the same table-driven formulas (flops.c). */
#ifndef TPROF_OPCALL_H
#define TPROF_OPCALL_H

#include <stddef.h>
#include <stdint.h>

#define TP_MAX_DIMS 16
#define TP_MAX_ARGS 32
/* What tp_opcall_from_marker, tp_opcall_from_kineto and
 * tp_opcall_add_concrete return when an allocation failed (not "the text
 * does not parse", which is -1): the caller reports out of memory. */
#define TP_OPCALL_NOMEM (-3)

enum tp_argtype {
    TP_ARG_TENSOR, TP_ARG_INT, TP_ARG_FLOAT, TP_ARG_BOOL, TP_ARG_STR,
    TP_ARG_NONE, TP_ARG_LIST, TP_ARG_OTHER
};

struct tp_arg {
    char name[32];             /* '' for positional */
    enum tp_argtype type;
    int ndim;                  /* TENSOR: number of dims; LIST/tuple of ints: count */
    int64_t shape[TP_MAX_DIMS];/* TENSOR shape, or the ints of an int LIST/tuple */
    char dtype[24];            /* 'float32', 'int64', ... ('' unknown) */
    double fvalue;             /* FLOAT */
    int64_t ivalue;            /* INT, BOOL */
    char svalue[64];           /* STR */
};

struct tp_opcall {
    char mod[64];
    char op[64];
    int nargs;
    struct tp_arg args[TP_MAX_ARGS];
};

/* Which PyProf's formulas and text: apex-era prof.py (matches the real
 * lm.csv) or the final PyProf 3.x. */
enum tp_pyprof_dialect { TP_PYPROF_APEX, TP_PYPROF_3X };

/* A number as prof.py prints it: Python int, or float (str() gives "140000.0"). */
struct tp_pynum {
    double value;
    int is_float;
};

struct tp_flops_result {
    char op[64];               /* the op column (e.g. "linear" or "bias") */
    char params[512];          /* the params column */
    char tc[4];                /* "1", "0", "-", "na" */
    struct tp_pynum flops, bytes;
    int known;                 /* 0: no formula applied (Foo / unsupported) */
    char warning[160];         /* where the reference would abort: why tprof printed na */
};

/* Apply PyProf's per-operator formulas.  `kernel` is the kernel short name,
 * `bprop` the direction, `sub` the sub-sequence id. Never aborts: where the
 * reference asserts, the result is "na"/0 and `warning` says why. */
void tp_flops_eval(const struct tp_opcall *call, const char *kernel, int bprop, int sub,
                   enum tp_pyprof_dialect dialect, struct tp_flops_result *out);

/* Parse a PyProf marker (Python dict literal).  0 on success. */
int tp_opcall_from_marker(const char *text, struct tp_opcall *call);

/* Build a call from a kineto operator: `name` like "aten::addmm", the raw
 * JSON of "Input Dims" and "Input type" (either may be NULL).  0 on success. */
int tp_opcall_from_kineto(const char *name, const char *input_dims, const char *input_types,
                          struct tp_opcall *call);

/* Fill in the values of the scalar arguments from a kineto operator's
 * "Concrete Inputs" (raw JSON, a list of strings, PyTorch 2.x): "[1, 1]"
 * becomes a known int list (TP_ARG_LIST, ivalue 1), "1" a TP_ARG_INT, "0.5"
 * a TP_ARG_FLOAT, "True"/"False" a TP_ARG_BOOL, other text a TP_ARG_STR;
 * "" (a tensor, or an absent optional) changes nothing.  NULL or "" is no
 * change.  0 on success, -1 when the JSON does not parse (call unchanged
 * up to the bad value). */
int tp_opcall_add_concrete(struct tp_opcall *call, const char *concrete_inputs);

/* Tensor Core kernel-name test (substring list, extended for Ampere/Hopper). */
int tp_kernel_uses_tc(const char *kernel_name);

#endif
