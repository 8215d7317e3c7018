/* capture.h — --capture: read capture traces and charge graph replays to the
 * operators captured in them (tp_store_attach_capture). */
#ifndef TPROF_CLI_CAPTURE_H
#define TPROF_CLI_CAPTURE_H

#include "tprof.h"

/* path: a capture trace, or a directory of them (every *.json[.gz|.zst] but
 * execution_details.json).  0, or 2 after a message on stderr. */
int cli_attach_capture(tp_store *st, const char *path);

#endif
