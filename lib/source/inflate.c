/* inflate.c — gzip members through ISA-L's igzip, or zlib without it.
 *
 * Why ISA-L: gzip'd traces are common (kineto writes .pt.trace.json.gz)
 * and zlib's inflate was the largest cost after parsing.  Measured on the
 * 995 MB grown trace (52 MB gzip'd), CPU seconds to decompress to
 * /dev/null, 3 runs each on this 2-core machine: zlib (gzip -dc) 2.64-2.67,
 * igzip -dc 0.20-0.22, zstd -dc 0.35-0.39 for the .zst of the same file.
 * libdeflate decodes about as fast as igzip but only whole buffers: the
 * whole trace would sit in memory twice, so it is not used.  ISA-L streams,
 * and Debian ships it (libisal-dev) on the architectures with its assembly
 * kernels; where the build does not find it, zlib does the same job.
 *
 * ISA-L reads ahead: it loads up to 8 bytes into a bit buffer before it
 * decodes them.  At a member's end it gives the bytes past the trailer back
 * itself (next_in/avail_in point at them: source_test's members-at-chunk-
 * end case checks it); on corrupt data the fault is placed at the first
 * byte not yet decoded, not at the end of what was loaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "inflate.h"

#ifdef TP_HAVE_ISAL
#include <isa-l.h>
#include <isa-l/igzip_lib.h>

struct tp_inflate {
    struct inflate_state st;
    const char *msg;
};

tp_inflate *tp_inflate_new(void)
{
    tp_inflate *z = malloc(sizeof *z);
    if (z)
        tp_inflate_reset(z);
    return z;
}

void tp_inflate_reset(tp_inflate *z)
{
    isal_inflate_init(&z->st);
    z->st.crc_flag = ISAL_GZIP;   /* parse the header, check CRC-32 and length */
    z->msg = NULL;
}

static const char *isal_message(int rc)
{
    switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid block type or lengths";
    case ISAL_INVALID_SYMBOL: return "invalid literal/length or distance code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    case ISAL_NEED_DICT: return "needs a preset dictionary";
    default: return "error";
    }
}

enum tp_inflate_status tp_inflate_step(tp_inflate *z, const unsigned char *in, size_t in_len, size_t *used,
                                       char *out, size_t out_cap, size_t *made)
{
    /* avail_in and avail_out are 32-bit: hand over at most 1 GiB a call */
    uint32_t in_n = in_len > (1u << 30) ? 1u << 30 : (uint32_t)in_len;
    uint32_t out_n = out_cap > (1u << 30) ? 1u << 30 : (uint32_t)out_cap;
    z->st.next_in = (uint8_t *)in;
    z->st.avail_in = in_n;
    z->st.next_out = (uint8_t *)out;
    z->st.avail_out = out_n;
    int rc = isal_inflate(&z->st);
    *used = in_n - z->st.avail_in;
    *made = out_n - z->st.avail_out;
    size_t buffered = z->st.read_in_length > 0 ? (size_t)z->st.read_in_length / 8 : 0;
    if (rc < 0) {
        z->msg = isal_message(rc);
        *used -= buffered < *used ? buffered : *used;
        return TP_INFLATE_CORRUPT;
    }
    if (z->st.block_state == ISAL_BLOCK_FINISH)
        return TP_INFLATE_MEMBER_END;
    return TP_INFLATE_MORE;
}

#define TP_STR_(x) #x
#define TP_STR(x) TP_STR_(x)
const char *tp_inflate_backend(void)
{
    return "ISA-L " TP_STR(ISAL_MAJOR_VERSION) "." TP_STR(ISAL_MINOR_VERSION) "." TP_STR(ISAL_PATCH_VERSION);
}

void tp_inflate_free(tp_inflate *z) { free(z); }

#else /* zlib */
#include <zlib.h>

struct tp_inflate {
    z_stream zs;
    const char *msg;
};

tp_inflate *tp_inflate_new(void)
{
    tp_inflate *z = calloc(1, sizeof *z);
    /* 15 + 16: a gzip wrapper, nothing else */
    if (z && inflateInit2(&z->zs, 15 + 16) != Z_OK) {
        free(z);
        return NULL;
    }
    return z;
}

void tp_inflate_reset(tp_inflate *z)
{
    inflateReset(&z->zs);
    z->msg = NULL;
}

enum tp_inflate_status tp_inflate_step(tp_inflate *z, const unsigned char *in, size_t in_len, size_t *used,
                                       char *out, size_t out_cap, size_t *made)
{
    uInt in_n = in_len > (1u << 30) ? 1u << 30 : (uInt)in_len;
    uInt out_n = out_cap > (1u << 30) ? 1u << 30 : (uInt)out_cap;
    z->zs.next_in = (unsigned char *)in;
    z->zs.avail_in = in_n;
    z->zs.next_out = (unsigned char *)out;
    z->zs.avail_out = out_n;
    int zr = inflate(&z->zs, Z_NO_FLUSH);
    *used = in_n - z->zs.avail_in;
    *made = out_n - z->zs.avail_out;
    if (zr == Z_STREAM_END)
        return TP_INFLATE_MEMBER_END;   /* zlib stops at the trailer's end: nothing to hand back */
    if (zr != Z_OK && zr != Z_BUF_ERROR) {
        z->msg = z->zs.msg ? z->zs.msg : "error";
        return TP_INFLATE_CORRUPT;
    }
    return TP_INFLATE_MORE;
}

const char *tp_inflate_backend(void) { return "zlib " ZLIB_VERSION; }

void tp_inflate_free(tp_inflate *z)
{
    if (z)
        inflateEnd(&z->zs);
    free(z);
}
#endif

const char *tp_inflate_message(const tp_inflate *z) { return z->msg ? z->msg : "error"; }
