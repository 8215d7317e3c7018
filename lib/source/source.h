/* source.h — open a path or stdin, sniff gzip / zstd / SQLite / JSON by magic
 * bytes, and stream the (decompressed) bytes.  Plain files are mapped, never
 * copied; compressed ones are inflated chunk by chunk. */
#ifndef TPROF_SOURCE_H
#define TPROF_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include "tprof.h"

enum tp_compression { TP_COMP_NONE, TP_COMP_GZIP, TP_COMP_ZSTD };

typedef struct tp_source tp_source;

/* Open `path` ("-" = stdin).  Directories are refused here (TP_ERR_IO with
 * "is a directory"); the caller walks them. */
int tp_source_open(tp_source **out, const char *path, tp_error *err);
void tp_source_close(tp_source *src);

const char *tp_source_path(const tp_source *src);
enum tp_compression tp_source_compression(const tp_source *src);
const char *tp_compression_name(enum tp_compression c);
uint64_t tp_source_file_size(const tp_source *src);   /* bytes on disk, 0 for pipes */

/* The first bytes of the decompressed content (up to 4096), for sniffing the
 * format; does not consume them. */
size_t tp_source_peek(tp_source *src, const char **data);

/* Whole content in memory without copying (a mapped plain file): returns the
 * pointer and sets *len; NULL when the source is streamed. */
const char *tp_source_mapped(tp_source *src, size_t *len);

/* Read up to `cap` decompressed bytes into buf.  Returns the count, 0 at the
 * end, -1 on error (err set: corrupt gzip/zstd stream names the offset). */
long tp_source_read(tp_source *src, char *buf, size_t cap, tp_error *err);

#endif
