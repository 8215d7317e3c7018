/* ingest.h — the importers.  Each fills the same event store from one input
 * format; none knows about tables or views. */
#ifndef TPROF_INGEST_H
#define TPROF_INGEST_H

#include "source.h"
#include "store.h"

/* PyTorch profiler / kineto Chrome-trace JSON (plain, gzip or zstd). */
int tp_ingest_kineto(tp_store *st, tp_source *src, tp_error *err);

/* nvprof or Nsight Systems SQLite export (told apart by their tables),
 * opened read-only. */
int tp_ingest_sqlite(tp_store *st, const char *path, tp_error *err);

/* PyProf parse.py output: one Python dict per line (a "net.dict"). */
int tp_ingest_pydict(tp_store *st, tp_source *src, tp_error *err);

/* Ascend NPU profiler output folder (<worker>_<span>_ascend_pt, or its
 * ASCEND_PROFILER_OUTPUT): recognised by its contents. */
int tp_ascend_probe(const char *dir);
int tp_ingest_ascend(tp_store *st, const char *dir, tp_error *err);

/* Derived structure for nvprof/nsys/dict inputs: PyProf's NVTX decoding into
 * st->annots (called by tp_store_link). */
int tp_link_pyprof(tp_store *st, tp_error *err);

#endif
