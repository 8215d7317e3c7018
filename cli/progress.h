/* progress.h — one updating line on stderr while a long load runs. */
#ifndef TPROF_CLI_PROGRESS_H
#define TPROF_CLI_PROGRESS_H

#include "tprof.h"

/* Start showing progress for reading `what` (a file or run directory) of
 * `total` bytes (0: unknown), or of run r's ranks when r is not NULL.  Only
 * when stderr is a terminal and not `quiet`; the line appears after about a
 * second (TPROF_PROGRESS_DELAY_MS), never on stdout. */
void cli_progress_begin(const char *what, uint64_t total, const tp_run *r, int quiet);

/* Stop, and clear the line if one was drawn: call before anything else is
 * written to the terminal. */
void cli_progress_end(void);

/* The size on disk of a file, or of the trace files of a run (0 unknown). */
uint64_t cli_input_size(const char *path, const tp_run *r);

#endif
