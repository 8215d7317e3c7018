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
size_t tp_pyprof_short_name(const char *name, char *out, size_t cap, int underscores);

/* Demangle an Itanium C++ name with the C++ runtime's __cxa_demangle when the
 * program is linked with it, else return NULL.  The result is malloc'd. */
char *tp_demangle(const char *mangled);

#endif
