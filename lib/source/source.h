/* source.h — open a path or stdin, sniff gzip / zstd / SQLite / JSON by magic
 * bytes, and stream the (decompressed) bytes chunk by chunk.  Files are read,
 * not mapped (source.c says why). */
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

/* The next bytes of the decompressed content (up to 4096), for sniffing the
 * format; does not consume them.  Returns 0 at the end or on an error: then
 * tp_source_error tells which. */
size_t tp_source_peek(tp_source *src, const char **data);

/* Consume blanks (space, tab, CR, LF) at the read position, however many;
 * returns how many.  The next peek starts at the first other byte. */
size_t tp_source_skip_blanks(tp_source *src);

/* Consume n bytes of what the last peek showed (at most that many). */
void tp_source_skip(tp_source *src, size_t n);

/* Decompressed bytes consumed so far (the offset of the next byte). */
uint64_t tp_source_offset(const tp_source *src);

/* The error that stopped reading (corrupt or truncated compressed data, a
 * read error, a file that shrank), or NULL.  Errors come after the data
 * before them: tp_source_read returns those bytes first, then -1. */
const tp_error *tp_source_error(const tp_source *src);

/* Read up to `cap` decompressed bytes into buf.  Returns the count, 0 at the
 * end, -1 on error (err, when not NULL, set: "FILE: byte N: file shrank while
 * reading", "corrupt gzip data at compressed byte N", ...). */
long tp_source_read(tp_source *src, char *buf, size_t cap, tp_error *err);

/* A compressed regular file of at least 1/8 this many bytes is read and
 * decompressed ahead by a thread of its own, when there are two threads per
 * such source open (TPROF_THREADS, else the cores the process may run on);
 * never a plain file, never with TPROF_THREADS=1 (source.c says why).
 * Tests lower it to run the thread on small inputs. */
extern size_t tp_source_readahead_min;

/* 1 when a reader thread serves this source. */
int tp_source_threaded(const tp_source *src);

#endif
