/* ingest.h — the importers.  Each fills the same event store from one input
 * format; none knows about tables or views. */
#ifndef TPROF_INGEST_H
#define TPROF_INGEST_H

#include "i64map.h"
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

/* ---- a store loaded for its kernels alone (launch_scope.c) ---- */

/* The correlation ids of the store's kernels: a bitmap over their span,
 * else (ids far apart) a map. */
struct tp_corr_set {
    int64_t lo;
    size_t nbits;
    uint64_t *bits;
    struct tp_i64map map;
};
int tp_corr_set_build(struct tp_corr_set *cs, const tp_store *st);   /* 0, or -1 out of memory (free it) */
int tp_corr_set_has(const struct tp_corr_set *cs, int64_t id);
void tp_corr_set_free(struct tp_corr_set *cs);

/* The store's runtime and driver calls by thread and start, to tell the
 * NVTX ranges that enclose one (the only ones PyProf's decoding reads). */
struct tp_launch_scope {
    struct scope_launch *v;
    size_t n;
};
int tp_launch_scope_build(struct tp_launch_scope *ls, const tp_store *st);   /* 0, or -1 out of memory */
/* 1 when a call of thread (pid, tid) starts after `start` and ends before `end`. */
int tp_launch_scope_encloses(const struct tp_launch_scope *ls, int64_t pid, int64_t tid, int64_t start,
                             int64_t end);
void tp_launch_scope_free(struct tp_launch_scope *ls);

#endif
