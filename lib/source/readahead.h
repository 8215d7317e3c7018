/* readahead.h — a producer thread that fills a small ring of buffers ahead
 * of the one consumer, so that reading and decompressing a big input runs
 * on the second core while the parser runs on the first.
 *
 * The producer is a callback: fill(ctx, buf, cap) writes up to cap bytes
 * and returns how many, 0 at the end or after an error (which ctx keeps:
 * the ring knows nothing about errors).  It runs on the thread only; once
 * tp_readahead_take has returned 0 the thread has been joined, so whatever
 * fill wrote into ctx (an error, counters) is the consumer's to read. */
#ifndef TPROF_READAHEAD_H
#define TPROF_READAHEAD_H

#include <stddef.h>

typedef struct tp_readahead tp_readahead;
typedef size_t (*tp_readahead_fill)(void *ctx, char *buf, size_t cap);

/* Start the thread with `slots` buffers of `slot_bytes` each.  NULL when
 * that cannot be done (no memory, no thread): the caller reads itself. */
tp_readahead *tp_readahead_start(tp_readahead_fill fill, void *ctx, int slots, size_t slot_bytes);

/* Copy up to cap bytes the producer made, in order.  Waits only when none
 * is ready; returns what is ready rather than wait to fill cap.  0: the
 * producer ended (its fill returned 0) and every byte was taken. */
size_t tp_readahead_take(tp_readahead *ra, char *buf, size_t cap);

/* 1 once take has returned 0 (the thread is joined). */
int tp_readahead_finished(const tp_readahead *ra);

/* Stop the producer (after the buffer it is filling), join it, free. */
void tp_readahead_stop(tp_readahead *ra);

#endif
