/* json.h — a streaming JSON reader with no DOM.
 *
 * Hand-written rather than taken from a library (yajl, jansson, cJSON) because
 * the importer's speed is the floor of every question tprof answers, and a
 * pull reader that returns spans into the input buffer — no allocation per
 * value, numbers left as text until the caller wants them exactly — measured
 * several times faster than callback or DOM parsers (see scripts/bench).
 *
 * Recursive-descent style: the caller asks for the value it expects.  Values
 * are returned as spans (absolute byte offsets into the stream), valid until
 * the caller moves the mark past them; tp_json_ptr() turns a span into a
 * pointer.  Strings with escapes are decoded into a scratch area.
 *
 * A pointer from tp_json_ptr() is valid only until the next read call (any
 * tp_json_* that consumes input): a read can refill the window (moving or
 * freeing it) or grow the scratch area (realloc).  Keep the span, not the
 * pointer, across reads; compare keys before reading their value. */
#ifndef TPROF_JSON_H
#define TPROF_JSON_H

#include <stddef.h>
#include <stdint.h>
#include "source.h"

#define TP_JSPAN_SCRATCH (UINT64_C(1) << 63)

typedef struct tp_jspan {
    uint64_t off;     /* absolute stream offset, or TP_JSPAN_SCRATCH | scratch offset */
    uint32_t len;
} tp_jspan;

typedef struct tp_json {
    const char *buf;          /* window of the stream: buf[0] is at offset `base` */
    const char *p, *end;      /* read position, end of the valid bytes */
    uint64_t base;
    uint64_t mark;            /* bytes before this offset may be dropped on refill */
    tp_source *src;           /* NULL when reading from memory */
    char *own;                /* the window's storage when streaming */
    size_t cap;
    int eof;
    char *scratch;            /* decoded strings with escapes */
    size_t scratch_len, scratch_cap;
    const char *path;
    tp_error *err;
    int failed;               /* an error has been recorded */
    uint64_t control_chars;   /* raw control characters seen inside strings (accepted) */
    uint64_t first_control_off;
    int simd;                 /* the scan path this reader uses (enum tp_json_simd), fixed at init */
} tp_json;

/* The scans that find a string's end and skip blanks come in three paths:
 * word-at-a-time C (every target), SSE2 16 bytes at a time (the x86-64
 * baseline) and AVX2 32 at a time where the CPU has it.  The best one the
 * CPU supports is chosen at run time; TPROF_SIMD=scalar|sse2|avx2 forces
 * one (clamped to what the CPU and the build support), so that the tests
 * run every path on any machine.  Every path gives the same results. */
enum tp_json_simd { TP_SIMD_SCALAR, TP_SIMD_SSE2, TP_SIMD_AVX2 };
/* The path new readers take: -1 (the default) picks it from TPROF_SIMD and
 * the CPU on the first init; tests set it directly. */
extern int tp_json_simd;
/* The best path this build and CPU support, and a path's name. */
int tp_json_simd_max(void);
const char *tp_json_simd_name(int level);

/* Initial window size when streaming (tests shrink it to force refills). */
extern size_t tp_json_window_bytes;

int  tp_json_init_mem(tp_json *j, const char *data, size_t len, const char *path, tp_error *err);
int  tp_json_init_source(tp_json *j, tp_source *src, tp_error *err);
void tp_json_free(tp_json *j);

static inline uint64_t tp_json_offset(const tp_json *j)
{
    return j->base + (uint64_t)(j->p - j->buf);
}

static inline const char *tp_json_ptr(const tp_json *j, tp_jspan s)
{
    if (s.off & TP_JSPAN_SCRATCH)
        return j->scratch + (s.off & ~TP_JSPAN_SCRATCH);
    return j->buf + (s.off - j->base);
}

/* Everything before the current position may be dropped; also resets the
 * scratch area.  Call between top-level items (e.g. between events). */
static inline void tp_json_set_mark(tp_json *j)
{
    j->mark = tp_json_offset(j);
    j->scratch_len = 0;
}

/* The next non-blank character without consuming it; -1 at the end of input.
 * Inline fast path: most of the time the next byte is not blank, or is the
 * one space after a ':' (every value of a pretty-printed trace). */
int tp_json_peek_slow(tp_json *j);
static inline int tp_json_peek(tp_json *j)
{
    const char *p = j->p;
    if (p < j->end && (unsigned char)*p > ' ')
        return (unsigned char)*p;
    if (p + 1 < j->end && *p == ' ' && (unsigned char)p[1] > ' ') {
        j->p = p + 1;
        return (unsigned char)p[1];
    }
    return tp_json_peek_slow(j);
}

/* Objects: tp_json_obj_begin consumes '{'.  tp_json_obj_next returns 1 with
 * the key read and ':' consumed, 0 when '}' was consumed, -1 on error; `*n`
 * counts the members so far (start it at 0).  Arrays likewise: 1 when a value
 * follows, 0 at ']'. */
int tp_json_obj_begin(tp_json *j);
int tp_json_obj_next(tp_json *j, int *n, tp_jspan *key);
int tp_json_arr_begin(tp_json *j);
int tp_json_arr_next(tp_json *j, int *n);

enum tp_jtype { TP_J_NONE, TP_J_STRING, TP_J_NUMBER, TP_J_OBJECT, TP_J_ARRAY, TP_J_TRUE, TP_J_FALSE,
                TP_J_NULL };

/* The type of the next value (does not consume); TP_J_NONE at the end/error. */
enum tp_jtype tp_json_type(tp_json *j);

/* Read a string (decoded, UTF-8), a number (its text, validated; NaN and
 * Infinity accepted as Python does), or skip any value and return its raw text. */
int tp_json_string(tp_json *j, tp_jspan *out);
int tp_json_number(tp_json *j, tp_jspan *out);
/* tp_json_number, and when the number is a plain integer of at most 18
 * digits (-?(0|[1-9][0-9]*), inside the window), its value in *val and 1
 * in *is_int; when it is a non-negative decimal of at most 15 integer
 * digits and 1 to 3 decimals without exponent ((0|[1-9][0-9]*)\.[0-9]{1,3}),
 * its value times 1000 in *val and TP_JSON_MILLI in *is_int (what
 * tp_decimal_us_to_ns makes of the text); else 0: the digits are read once. */
enum { TP_JSON_MILLI = 2 };
int tp_json_number_int(tp_json *j, tp_jspan *out, int64_t *val, int *is_int);
int tp_json_skip(tp_json *j, tp_jspan *raw);
/* Inside an object, after its n-th member's value (n >= 1): skip the rest
 * of it, its closing '}' included, with tp_json_skip's checks and errors. */
int tp_json_skip_rest(tp_json *j, int n);
/* true/false/null */
int tp_json_literal(tp_json *j, enum tp_jtype *out);

/* Record an error at the current offset (first error wins). Returns -1. */
int tp_json_fail(tp_json *j, enum tp_status st, const char *what);

static inline int tp_jspan_eq(const tp_json *j, tp_jspan s, const char *lit, size_t litlen)
{
    return s.len == litlen && __builtin_memcmp(tp_json_ptr(j, s), lit, litlen) == 0;
}
#define TP_JEQ(j, s, lit) tp_jspan_eq((j), (s), lit, sizeof(lit) - 1)

/* ---- exact number conversion (decimal.c) ---- */

/* A decimal number of microseconds ("1623142623460111", "88511388202.765",
 * "1.5e3") to int64 nanoseconds exactly; digits past the ns are rounded half
 * to even.  0 on success, -1 if not a number or out of range. */
int tp_decimal_us_to_ns(const char *s, size_t len, int64_t *out);
/* Decimal text to int64 exactly (fraction must be zero), 0 on success. */
int tp_decimal_to_i64(const char *s, size_t len, int64_t *out);
/* Decimal text to double (correctly rounded, via strtod). */
int tp_decimal_to_double(const char *s, size_t len, double *out);

/* JSON text on one line (json_compact.c): whitespace outside strings
 * dropped, ", " after commas; cut to cap - 1 bytes. */
void tp_json_compact(const char *json, char *out, size_t cap);

#endif
