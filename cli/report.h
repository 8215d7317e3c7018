/* report.h — what the command tells the user about its inputs and its
 * terminal, shared by the view commands (tprof.c) and diff (cmd_diff.c). */
#ifndef TPROF_CLI_REPORT_H
#define TPROF_CLI_REPORT_H

#include <stdio.h>
#include "tprof.h"

/* Name, on stderr, what was malformed in an input (file, byte, count);
 * returns 1 if anything was (exit status 2), 0 otherwise. */
int cli_report_skips(const tp_store *st);
/* The same lines into `out`. */
int cli_report_skips_to(const tp_store *st, FILE *out);

/* A run's notes (tp_run_notes: newline-separated), one "tprof: " line each. */
void cli_report_notes(const char *notes);

/* The store's coverage line (how much kernel time the view could attribute
 * to operators, tp_store_coverage) on stderr, when there is one. */
void cli_report_coverage(const tp_store *st);

/* The width of the terminal on stdout, else $COLUMNS, else 80. */
int cli_terminal_width(void);
/* 1 when the locale (LC_ALL, LC_CTYPE, LANG) is UTF-8. */
int cli_locale_utf8(void);

/* How many ranks of a run load at once: $TPROF_THREADS, else 0 (one per core). */
int cli_threads(void);

/* OUTDIR/NAME.EXT for the input `path` (a trace or folder NAME): where
 * import and summarize write a run's ranks. */
void cli_out_name(char *out, size_t cap, const char *outdir, const char *path, const char *ext);

#endif
