/* view_options.h — declaring the options a view honours (internal to
 * libtprof; struct tp_view_option and the functions are in tprof.h).
 *
 * A view lists its options in its entry of the command table views.def,
 * TP_VIEW_OPTS(...) or a shared table with TP_VIEW_OPTIONS(table); the
 * command line, the usage text and the checks all come from that list, so
 * a new option is a field of struct tp_view_opts and one line here or in
 * the view's entry.  Each
 * macro checks at compile time that the field has the type its kind sets. */
#ifndef TPROF_VIEW_OPTIONS_H
#define TPROF_VIEW_OPTIONS_H

#include <stddef.h>
#include "tprof.h"

/* offsetof the field, a compile error unless it has type `type`. */
#define TP_VOPT_FIELD(field, type) \
    (offsetof(struct tp_view_opts, field) + 0 * sizeof(_Generic(((struct tp_view_opts *)0)->field, type: 1)))

#define TP_VOPT_FLAG(name, field, help) {name, NULL, help, TP_OPT_FLAG, TP_VOPT_FIELD(field, int), -1}
#define TP_VOPT_STRING(name, arg, field, help) \
    {name, arg, help, TP_OPT_STRING, TP_VOPT_FIELD(field, const char *), -1}
/* arg as usage shows it: "[INTERVAL]" */
#define TP_VOPT_OPTIONAL(name, arg, field, help) \
    {name, arg, help, TP_OPT_OPTIONAL, TP_VOPT_FIELD(field, const char *), -1}
/* kind: TP_OPT_COUNT (>= 0) or TP_OPT_POSITIVE (> 0) */
#define TP_VOPT_INT(name, arg, kind, field, help) {name, arg, help, kind, TP_VOPT_FIELD(field, int64_t), -1}
#define TP_VOPT_MICROSECONDS(name, arg, field, help) \
    {name, arg, help, TP_OPT_MICROSECONDS, TP_VOPT_FIELD(field, double), -1}

/* In a tp_view initializer: .options and .noptions from a static array. */
#define TP_VIEW_OPTIONS(table) .options = (table), .noptions = sizeof(table) / sizeof *(table)
/* In an entry of views.def: .options and .noptions from the options
 * themselves, an array of static storage (a compound literal at file
 * scope) counted by the sizeof of the same list. */
#define TP_VIEW_OPTS(...)                                      \
    .options = (const struct tp_view_option[]){__VA_ARGS__}, \
    .noptions = sizeof((const struct tp_view_option[]){__VA_ARGS__}) / sizeof(struct tp_view_option)

/* Options several views share (the HTA views all read tp_hta_init's). */
/* --step and --window: the views that read a slice of the trace as they
 * read the whole (the CLI filters the store, tp_store_filter). */
#define TP_VOPT_FILTERS \
    TP_VOPT_STRING("step", "N|A-B", filter_steps, "only ProfilerStep#N (or #A to #B): its host events and the GPU work they launched"), \
    TP_VOPT_STRING("window", "T0..T1", filter_window, "only what overlaps T0..T1 after the trace's first event (1.2s..1.8s, 1200ms.., us without a unit)")
/* modules and lightning: the module tree drawn (modtree_table.c) */
#define TP_VOPT_MODTREE \
    TP_VOPT_FLAG("tree", tree, "the module tree drawn: ├─ branches, host/device total, a bar of the share of its top-level module"), \
    TP_VOPT_FLAG("ascii", ascii, "draw with ASCII characters only (the default where LC_ALL/LC_CTYPE/LANG is not UTF-8)")
#define TP_VOPT_HTA_QUIRKS \
    TP_VOPT_FLAG("hta-quirks", hta_quirks, "HTA's own numbers (µs rounding, its bugs; also TPROF_HTA_QUIRKS=1)")
/* The views whose only options are --step and --window share one table
 * (view_options.c): .options = tp_vopt_filters in their tp_view. */
extern const struct tp_view_option tp_vopt_filters[2];
#define TP_VIEW_FILTER_OPTIONS TP_VIEW_OPTIONS(tp_vopt_filters)
#define TP_VOPT_ALL_STEPS \
    TP_VOPT_FLAG("all-steps", all_steps, "keep the last ProfilerStep (HTA leaves it out)")
/* The HTA timeline views with no option of their own (temporal, overlap,
 * idle) share one table (view_options.c): --step, --window, --hta-quirks,
 * --all-steps. */
extern const struct tp_view_option tp_vopt_hta[4];
#define TP_VIEW_HTA_OPTIONS TP_VIEW_OPTIONS(tp_vopt_hta)

#endif
