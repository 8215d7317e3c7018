/* views.h — every view of libtprof, declared from the command table
 * views.def (views.c builds the tp_view of each entry). */
#ifndef TPROF_VIEWS_H
#define TPROF_VIEWS_H

#include "tprof.h"

/* The functions a view may give its entry, named after its id (the
 * entry's first word): tp_ID_build always, the others when the entry names
 * them.  Declared here for every view, so that each view's file is checked
 * against the types tp_view expects. */
#define TP_VIEW_FNS(id)                                                                                   \
    int tp_##id##_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err); \
    const char *tp_##id##_columns_for(const struct tp_view_opts *vo);                                      \
    int tp_##id##_build_run(const tp_store *const *stores, size_t nstores, const struct tp_view_opts *vo,  \
                            tp_table **out, tp_error *err);                                                \
    int tp_##id##_build_summaries(void *const *summaries, const int64_t *ranks, size_t n,                  \
                                  const struct tp_view_opts *vo, tp_table **out, tp_error *err);           \
    enum tp_severity tp_##id##_severity(const tp_table *t);                                                \
    size_t tp_##id##_group_keys(char *buf, size_t cap);                                                    \
    int tp_##id##_lean_serves(const tp_store *st, const struct tp_view_opts *vo);                          \
    extern const tp_view tp_view_##id;

/* tp_view_prof, tp_view_kernels ... and the Ascend NPU twins
 * tp_view_npu_prof ...: built instead of the view of the same name on an
 * Ascend profiler folder. */
#define TP_VIEW(id, ...) TP_VIEW_FNS(id)
#define TP_VIEW_SHARED_COLS(id, ...) TP_VIEW_FNS(id)
#define TP_SUMM_VIEW(id, ...) TP_VIEW_FNS(id)
#define TP_NPU_VIEW(id, ...) TP_VIEW_FNS(id)
#include "views.def"
#undef TP_VIEW
#undef TP_VIEW_SHARED_COLS
#undef TP_SUMM_VIEW
#undef TP_NPU_VIEW

#endif
