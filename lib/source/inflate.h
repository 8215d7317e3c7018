/* inflate.h — one gzip member at a time, streaming, behind one interface.
 *
 * Two decoders implement it: Intel's ISA-L (igzip) where the build found
 * it, zlib otherwise.  inflate.c says why ISA-L is preferred.  The source
 * (source.c) owns the raw input and the multi-member logic; this only
 * turns compressed bytes into plain ones and says where a member ended or
 * why the data is corrupt. */
#ifndef TPROF_INFLATE_H
#define TPROF_INFLATE_H

#include <stddef.h>

typedef struct tp_inflate tp_inflate;

enum tp_inflate_status {
    TP_INFLATE_MORE,        /* needs more input or more output room */
    TP_INFLATE_MEMBER_END,  /* a member and its trailer were decoded */
    TP_INFLATE_CORRUPT,     /* the data is not valid gzip: see the message */
};

/* NULL when out of memory. */
tp_inflate *tp_inflate_new(void);
void tp_inflate_free(tp_inflate *z);

/* Forget the member just finished; the next byte given starts a new one. */
void tp_inflate_reset(tp_inflate *z);

/* Decode from in[0..in_len) into out[0..out_cap).  *used is how many input
 * bytes were taken: at a member end the trailer's last byte is the last one
 * taken, so in + *used is where the next member (or padding) starts; on
 * corrupt data, it is where the decoder found the fault.  *made is how many
 * output bytes were written. */
enum tp_inflate_status tp_inflate_step(tp_inflate *z, const unsigned char *in, size_t in_len, size_t *used,
                                       char *out, size_t out_cap, size_t *made);

/* What was wrong, after TP_INFLATE_CORRUPT, in zlib's words where the
 * fault is one zlib names ("incorrect data check", "invalid block type"). */
const char *tp_inflate_message(const tp_inflate *z);

/* "ISA-L 2.30.0" or "zlib 1.2.13" (the headers built against), for tprof --version. */
const char *tp_inflate_backend(void);

#endif
