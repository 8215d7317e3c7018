/* store_file.h — the persistent form of a loaded and linked store (.tprof).
 *
 * A .tprof file holds everything tp_store_load and tp_store_link produced
 * for one input: the event columns, the string table, the side tables, the
 * link results and the Ascend tables, each as one zstd-compressed column, so
 * that a second look at a trace costs decompression instead of parsing.
 * The layout is documented in tprof(1), FILES, so other tools can read it. */
#ifndef TPROF_STORE_FILE_H
#define TPROF_STORE_FILE_H

#include "store.h"

/* "TPROFST" and a newline: a text-mode transfer that changes line ends is
 * caught by the magic itself. */
#define TP_STORE_MAGIC "TPROFST\n"
#define TP_STORE_MAGIC_LEN 8
/* The format this tprof writes.  Readers refuse newer versions by name. */
#define TP_STORE_FORMAT 3

/* Read a .tprof file into an empty store.  The load status that the original
 * import saw (a truncated trace: TP_ERR_TRUNCATED and its message) is
 * returned again, so every view says what it said for the trace. */
struct tp_source;
int tp_store_read_file(tp_store *st, struct tp_source *src, tp_error *err);

/* The operator tree and the step breakdown a .tprof store holds, read
 * from its model sections (store_file_model.c) when a view first asks for
 * them; NULL when the store has none of this tprof's version, they do not
 * fit the store, or out of memory: the caller builds them then. */
struct tb_model;
struct tp_tb_breakdown;
struct tb_model *tp_store_file_tree(const tp_store *st);
struct tp_tb_breakdown *tp_store_file_breakdown(const tp_store *st);

#endif
