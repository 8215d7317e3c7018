/* pyprof.h — PyProf helpers shared by the nvprof/nsys/dict importers, the
 * PyProf linker, the FLOP module and the prof view (internal to libtprof). */
#ifndef TPROF_PYPROF_H
#define TPROF_PYPROF_H

#include <stddef.h>
#include <stdint.h>
#include "opcall.h"

/* tp_flops_eval with the kernel's grid (gx,gy,gz; NULL unknown): RNNCell's
 * bprop GEMM shape comes from the CTA tile × grid. */
void tp_flops_eval_grid(const struct tp_opcall *call, const char *kernel, int bprop, int sub,
                        const int32_t *grid, enum tp_pyprof_dialect dialect, struct tp_flops_result *out);

/* PyProf's getShortName(): name.split("<")[0] minus "void ", "at::",
 * "cuda::", "native::", "(anonymous namespace)::", then .split("(")[0].
 * Extension: nsys's "<unnamed>::" (GNU c++filt's "(anonymous namespace)::")
 * is removed first, so nsys names do not shorten to "".  Spaces become "_"
 * when `underscores` (prof.py's Data.name).  Returns the length written. */
/* SIZE_MAX (out empty) when an allocation failed. */
size_t tp_pyprof_short_name(const char *name, char *out, size_t cap, int underscores);

/* Demangle an Itanium C++ name with the C++ runtime's __cxa_demangle when the
 * program is linked with it, else return NULL.  The result is malloc'd. */
char *tp_demangle(const char *mangled);

/* ---- parse.py's per-kernel dict, and prof.py's bprop lookup ------------ */

struct tp_store;

/* One kernel as parse.py prints it (the fields prof.py reads). */
struct tp_pp_kernel {
    uint32_t event;              /* the kernel's row */
    int64_t tid;
    const int64_t *seq; int nseq;        /* seqId */
    const int64_t *alt; int nalt;        /* altSeqId */
    uint32_t layer;              /* strtab: ":".join(layer) */
    uint32_t trace, trace_last;  /* ",".join(trace); basename of trace[-1] */
    uint32_t marker;             /* marker[0] (PyProf argument marker), 0 none */
    int nseqmarker;              /* len(seqMarker) */
    int bprop, sub;
    uint32_t mod, op;            /* mod[0], op[0]; "" for an empty list */
};

typedef struct tp_pp_state tp_pp_state;

/* prof.py's main loop: append one st->annots entry per kernel, in order,
 * applying the bprop forward lookup (findFpropKernel) of SPEC §4 step 3. */
tp_pp_state *tp_pp_begin(struct tp_store *st);
int tp_pp_add(tp_pp_state *s, const struct tp_pp_kernel *k);
/* frees the state; sets st->annots_from_pyprof */
void tp_pp_end(tp_pp_state *s);

/* ",".join(ints) interned ("" for none) */
uint32_t tp_pp_join_ints(struct tp_store *st, const int64_t *v, int n);

#endif
