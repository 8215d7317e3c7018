/* json.c — the streaming JSON reader (see json.h for why it is hand-written).
 *
 * The window [buf, end) holds the bytes from `base` on.  When a scan reaches
 * `end`, refill() moves the bytes from `mark` on to the front of the window
 * and reads more; every position a scan holds across a refill is kept as an
 * absolute offset, so nothing dangles. */
#include <stdlib.h>
#include <string.h>
#include "json.h"

/* Which vector paths this build has.  SSE2 is the x86-64 baseline, so it is
 * compiled in unconditionally there; AVX2 is compiled into functions of
 * their own (target attribute) and called only when the CPU says it has
 * it, so one binary runs on every x86-64.  Other targets (aarch64) and
 * json_scalar_test (TP_JSON_NO_SIMD) take the word-at-a-time paths only. */
#if defined(__SSE2__) && !defined(TP_JSON_NO_SIMD)
#define TP_JSON_SSE2 1
#include <emmintrin.h>
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define TP_JSON_AVX2 1
#include <immintrin.h>
#endif
#endif

size_t tp_json_window_bytes = 4u << 20;
int tp_json_simd = -1;

int tp_json_simd_max(void)
{
#if defined(TP_JSON_AVX2)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        return TP_SIMD_AVX2;
#endif
#if defined(TP_JSON_SSE2)
    return TP_SIMD_SSE2;
#else
    return TP_SIMD_SCALAR;
#endif
}

const char *tp_json_simd_name(int level)
{
    return level >= TP_SIMD_AVX2 ? "avx2" : level == TP_SIMD_SSE2 ? "sse2" : "scalar";
}

/* The path of a new reader.  Worked out again for each reader rather than
 * cached in a global: readers start on several threads at once (one per
 * rank), and a getenv and a cpuid per file cost nothing. */
static int pick_simd(void)
{
    int max = tp_json_simd_max(), want = tp_json_simd;
    if (want < 0) {
        const char *e = getenv("TPROF_SIMD");
        want = !e ? max : !strcmp(e, "scalar") ? TP_SIMD_SCALAR : !strcmp(e, "sse2") ? TP_SIMD_SSE2
                        : !strcmp(e, "avx2") ? TP_SIMD_AVX2 : max;
    }
    return want < max ? want : max;
}

int tp_json_fail(tp_json *j, enum tp_status st, const char *what)
{
    if (!j->failed) {
        j->failed = 1;
        tp_error_set(j->err, st, "%s: byte %llu: %s", j->path, (unsigned long long)tp_json_offset(j), what);
    }
    return -1;
}

int tp_json_init_mem(tp_json *j, const char *data, size_t len, const char *path, tp_error *err)
{
    memset(j, 0, sizeof *j);
    j->buf = j->p = data;
    j->end = data + len;
    j->eof = 1;
    j->path = path;
    j->err = err;
    j->simd = pick_simd();
    return TP_OK;
}

int tp_json_init_source(tp_json *j, tp_source *src, tp_error *err)
{
    memset(j, 0, sizeof *j);
    j->src = src;
    j->path = tp_source_path(src);
    j->err = err;
    j->simd = pick_simd();
    j->cap = tp_json_window_bytes;
    j->own = malloc(j->cap);
    if (!j->own)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", j->path);
    j->buf = j->p = j->end = j->own;
    /* bytes the caller consumed before (a BOM, leading blanks) count in
     * the offsets that messages name */
    j->base = j->mark = tp_source_offset(src);
    return TP_OK;
}

void tp_json_free(tp_json *j)
{
    free(j->own);
    free(j->scratch);
    j->own = j->scratch = NULL;
}

/* Make more bytes available past `end`.  Returns 1 if some were added, 0 at
 * the end of input, -1 on a read error (recorded). */
static int refill(tp_json *j)
{
    if (j->eof || !j->src)
        return 0;
    size_t keep_from = (size_t)(j->mark - j->base);
    size_t pos = (size_t)(j->p - j->buf);
    if (keep_from > pos)
        keep_from = pos;
    size_t keep = (size_t)(j->end - j->buf) - keep_from;
    if (keep > j->cap / 2) {
        /* One item is bigger than half the window: grow it. */
        size_t cap = j->cap * 2;
        char *n = malloc(cap);
        if (!n)
            return tp_json_fail(j, TP_ERR_NOMEM, "out of memory");
        memcpy(n, j->buf + keep_from, keep);
        free(j->own);
        j->own = n;
        j->cap = cap;
    } else if (keep_from) {
        memmove(j->own, j->buf + keep_from, keep);
    }
    j->base += keep_from;
    j->buf = j->own;
    j->p = j->own + (pos - keep_from);
    j->end = j->own + keep;
    long r = tp_source_read(j->src, j->own + keep, j->cap - keep, j->err);
    if (r < 0) {
        j->failed = 1;   /* the source set the message */
        j->eof = 1;
        return -1;
    }
    if (r == 0) {
        j->eof = 1;
        return 0;
    }
    j->end += r;
    return 1;
}

static inline int is_blank(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* ---- the scans: blanks and the plain run of a string ----
 *
 * Both are written by hand with intrinsics rather than taken from a library
 * (simdjson's stage 1, or a structural-index pass) because the reader pulls
 * one value at a time from a window that refills: a whole-buffer index would
 * need its own pass and memory over a 1 GB input, while these scans only
 * find where the current run ends.  Each path has the same contract and the
 * same answers; json_test runs all of them.
 *
 * Word-at-a-time C: the path of targets without SSE2 and of TPROF_SIMD=scalar. */
/* What a scan stops at: the first non-blank, or the end of a plain run
 * (the closing quote, or the escape, control character or UTF-8 byte the
 * caller must look at). */
enum scan_kind { SCAN_BLANKS, SCAN_PLAIN };

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)
static inline uint64_t has_zero(uint64_t v) { return (v - ONES) & ~v & HIGHS; }

/* Indentation comes in runs of spaces: skip them 8 at a time. */
static inline const char *skip_blanks_words(const char *p, const char *end)
{
    while (p < end) {
        if (p + 8 <= end) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (w == UINT64_C(0x2020202020202020)) {
                p += 8;
                continue;
            }
        }
        if (!is_blank((unsigned char)*p))
            break;
        p++;
    }
    return p;
}

/* The first '"', '\\' or byte >= 0x80 or < 0x20: the plain run of a string
 * is copied to nowhere, we only need where it ends. */
static inline const char *scan_plain_words(const char *p, const char *end)
{
    while (p + 8 <= end) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t special = has_zero(w ^ (ONES * '"')) | has_zero(w ^ (ONES * '\\')) |
                           (w & HIGHS) | has_zero(w & (ONES * 0xe0));
        if (special)
            return p + (__builtin_ctzll(special) >> 3);
        p += 8;
    }
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\' || c >= 0x80 || c < 0x20)
            return p;
        p++;
    }
    return p;
}

#if defined(TP_JSON_SSE2)
/* Bit i set where byte i of v is not a blank. */
static inline unsigned nonblank16(__m128i v)
{
    __m128i blank = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
    return ~(unsigned)_mm_movemask_epi8(blank) & 0xffffu;
}

/* Bit i set where byte i ends a plain run: one signed compare catches both
 * the control characters (< 0x20) and the bytes >= 0x80 (negative as int8). */
static inline unsigned special16(__m128i v)
{
    __m128i sp = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                              _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    return (unsigned)_mm_movemask_epi8(sp);
}

/* The loops past the first 16 bytes are out of line: they run for long
 * strings and long indentation only, where a call costs nothing, and keep
 * the many inlined call sites small. */
static inline const char *scan_sse2(enum scan_kind kind, const char *p, const char *end)
{
    for (; p + 16 <= end; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = kind == SCAN_BLANKS ? nonblank16(v) : special16(v);
        if (m)
            return p + __builtin_ctz(m);
    }
    return kind == SCAN_BLANKS ? skip_blanks_words(p, end) : scan_plain_words(p, end);
}

static __attribute__((noinline)) const char *skip_blanks_sse2(const char *p, const char *end)
{
    return scan_sse2(SCAN_BLANKS, p, end);
}

static __attribute__((noinline)) const char *scan_plain_sse2(const char *p, const char *end)
{
    return scan_sse2(SCAN_PLAIN, p, end);
}
#endif

#if defined(TP_JSON_AVX2)
/* 32 bytes a step: the "Call stack" and kernel-name strings of a kineto
 * trace run to hundreds of bytes.  The tail under 32 goes to the SSE2 loop.
 * Measured on 1 GB of grown ResNet-50 kineto read in importer order, AVX2
 * over SSE2 is about 1% (and SSE2 over scalar 15%): long strings are a
 * small share of the tokens.  Kept: it costs one predictable branch where
 * a run passes 16 bytes. */
__attribute__((target("avx2"), noinline)) static const char *skip_blanks_avx2(const char *p, const char *end)
{
    const __m256i sp = _mm256_set1_epi8(' '), nl = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r'),
                  tab = _mm256_set1_epi8('\t');
    for (; p + 32 <= end; p += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
        __m256i blank = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, sp), _mm256_cmpeq_epi8(v, nl)),
                                        _mm256_or_si256(_mm256_cmpeq_epi8(v, cr), _mm256_cmpeq_epi8(v, tab)));
        uint32_t m = ~(uint32_t)_mm256_movemask_epi8(blank);
        if (m)
            return p + __builtin_ctz(m);
    }
    return skip_blanks_sse2(p, end);
}

__attribute__((target("avx2"), noinline)) static const char *scan_plain_avx2(const char *p, const char *end)
{
    const __m256i quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\'), space = _mm256_set1_epi8(0x20);
    for (; p + 32 <= end; p += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
        __m256i sp = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, bslash)),
                                     _mm256_cmpgt_epi8(space, v));
        uint32_t m = (uint32_t)_mm256_movemask_epi8(sp);
        if (m)
            return p + __builtin_ctz(m);
    }
    return scan_plain_sse2(p, end);
}
#endif

/* One scan on the chosen path, from p to the first stop or end.  `kind` is
 * a constant at every call: each use inlines to one scan. */
static inline const char *scan(int simd, enum scan_kind kind, const char *p, const char *end)
{
#if defined(TP_JSON_SSE2)
    /* Most runs that get here end within 16 bytes (a newline and an
     * indent; keys, phases, categories and most names): one inline step,
     * then the loop of the chosen path. */
    if (simd >= TP_SIMD_SSE2 && p + 16 <= end) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = kind == SCAN_BLANKS ? nonblank16(v) : special16(v);
        if (m)
            return p + __builtin_ctz(m);
#if defined(TP_JSON_AVX2)
        if (simd >= TP_SIMD_AVX2)
            return kind == SCAN_BLANKS ? skip_blanks_avx2(p + 16, end) : scan_plain_avx2(p + 16, end);
#endif
        return kind == SCAN_BLANKS ? skip_blanks_sse2(p + 16, end) : scan_plain_sse2(p + 16, end);
    }
#endif
    (void)simd;
    return kind == SCAN_BLANKS ? skip_blanks_words(p, end) : scan_plain_words(p, end);
}

/* scan() without calls: the stop within the next 32 bytes on the vector
 * paths, else NULL (the caller then takes its general path).  For the
 * member header of obj_next, whose fast path then keeps everything in
 * registers that a call would clobber: with calls in it, its prologue and
 * epilogue (six saved registers) were a fifth of its instructions. */
static inline const char *scan_near(int simd, enum scan_kind kind, const char *p, const char *end)
{
#if defined(TP_JSON_SSE2)
    if (simd >= TP_SIMD_SSE2 && p + 32 <= end) {
        for (int k = 0; k < 2; k++, p += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
            unsigned m = kind == SCAN_BLANKS ? nonblank16(v) : special16(v);
            if (m)
                return p + __builtin_ctz(m);
        }
        return NULL;
    }
#endif
    (void)simd;
    return kind == SCAN_BLANKS ? skip_blanks_words(p, end) : scan_plain_words(p, end);
}

/* The first byte at or after p that is not a JSON blank, or end; with
 * `near`, NULL past 32 blanks (scan_near). */
static inline const char *skip_blanks_to(int simd, int near, const char *p, const char *end)
{
    /* Most runs are empty or the one space after ':' or ','. */
    if (p < end && (unsigned char)*p > ' ')
        return p;
    if (p + 1 < end && *p == ' ' && (unsigned char)p[1] > ' ')
        return p + 1;
    return near ? scan_near(simd, SCAN_BLANKS, p, end) : scan(simd, SCAN_BLANKS, p, end);
}

static inline const char *skip_blanks(int simd, const char *p, const char *end)
{
    return skip_blanks_to(simd, 0, p, end);
}

static inline const char *skip_blanks_near(int simd, const char *p, const char *end)
{
    return skip_blanks_to(simd, 1, p, end);
}

/* The end of the plain run from p, or end. */
static inline const char *scan_plain(int simd, const char *p, const char *end)
{
    return scan(simd, SCAN_PLAIN, p, end);
}

int tp_json_peek_slow(tp_json *j)
{
    for (;;) {
        j->p = skip_blanks(j->simd, j->p, j->end);
        if (j->p < j->end)
            return (unsigned char)*j->p;
        if (refill(j) <= 0)
            return -1;
    }
}

static inline int need_char(tp_json *j, char c, const char *what)
{
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return 0;
    }
    int ch = tp_json_peek(j);
    if (ch != c) {
        if (ch < 0 && !j->failed)
            return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input (truncated JSON?)");
        return tp_json_fail(j, TP_ERR_FORMAT, what);
    }
    j->p++;
    return 0;
}

int tp_json_obj_begin(tp_json *j) { return need_char(j, '{', "expected '{'"); }
int tp_json_arr_begin(tp_json *j) { return need_char(j, '[', "expected '['"); }

/* The general path before a member of an object or of an array: 0 when
 * its closing bracket was consumed, -1 on an error, else 1 with *chp the
 * first character of the member (past the ',' after the first). */
static int before_member(tp_json *j, int n, char close, const char *expected, int *chp)
{
    int ch = tp_json_peek(j);
    if (ch == close) {
        j->p++;
        return 0;
    }
    if (n > 0) {
        if (ch != ',')
            return ch < 0 ? tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input (truncated JSON?)")
                          : tp_json_fail(j, TP_ERR_FORMAT, expected);
        j->p++;
        ch = tp_json_peek(j);
    }
    *chp = ch;
    return 1;
}

static int obj_next_general(tp_json *j, int *n, tp_jspan *key);

int tp_json_obj_next(tp_json *j, int *n, tp_jspan *key)
{
    /* The usual member, `, "key": ` (or the first one, without the comma),
     * read in one go inside the window; anything else, the general path
     * from the same place.  Tried and dropped: the whole header from the
     * blank and quote masks of 32 bytes (bit scans instead of these
     * branches) read 1 GB of kineto 5% slower in importer order — the
     * branches here predict well, the masks cost two loads every time. */
    const char *p = j->p, *end = j->end;
    if (*n > 0) {
        p = skip_blanks_near(j->simd, p, end);
        if (p && p < end && *p == '}') {
            /* the object's end: every object has one (two an event) */
            j->p = p + 1;
            return 0;
        }
        p = p && p < end && *p == ',' ? p + 1 : NULL;
    }
    if (p) {
        p = skip_blanks_near(j->simd, p, end);
        if (p && p < end && *p == '"') {
            const char *q = scan_near(j->simd, SCAN_PLAIN, p + 1, end);
            if (q && q < end && *q == '"') {
                const char *c = skip_blanks_near(j->simd, q + 1, end);
                if (c && c < end && *c == ':') {
                    key->off = j->base + (uint64_t)(p + 1 - j->buf);
                    key->len = (uint32_t)(q - p - 1);
                    j->p = c + 1;
                    (*n)++;
                    return 1;
                }
            }
        }
    }
    return obj_next_general(j, n, key);
}

/* Out of line so that the fast path above needs no saved registers (its
 * prologue and epilogue were a fifth of its instructions). */
static __attribute__((noinline)) int obj_next_general(tp_json *j, int *n, tp_jspan *key)
{
    int ch = -1, r = before_member(j, *n, '}', "expected ',' or '}' in object", &ch);
    if (r <= 0)
        return r;
    if (ch != '"')
        return ch < 0 ? tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input (truncated JSON?)")
                      : tp_json_fail(j, TP_ERR_FORMAT, "expected a string key in object");
    if (tp_json_string(j, key) < 0)
        return -1;
    if (need_char(j, ':', "expected ':' after key") < 0)
        return -1;
    (*n)++;
    return 1;
}

int tp_json_arr_next(tp_json *j, int *n)
{
    /* The usual `, value` inside the window in one go (the events of a
     * trace); a ']' or anything else the general path takes from the start. */
    if (*n > 0) {
        const char *p = skip_blanks_near(j->simd, j->p, j->end);
        if (p && p < j->end && *p == ',') {
            const char *v = skip_blanks_near(j->simd, p + 1, j->end);
            if (v && v < j->end && *v != ']') {
                j->p = v;
                (*n)++;
                return 1;
            }
        }
    }
    int ch = -1, r = before_member(j, *n, ']', "expected ',' or ']' in array", &ch);
    if (r <= 0)
        return r;
    if (ch < 0)
        return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input (truncated JSON?)");
    (*n)++;
    return 1;
}

enum tp_jtype tp_json_type(tp_json *j)
{
    switch (tp_json_peek(j)) {
    case '"': return TP_J_STRING;
    case '{': return TP_J_OBJECT;
    case '[': return TP_J_ARRAY;
    case 't': return TP_J_TRUE;
    case 'f': return TP_J_FALSE;
    case 'n': return TP_J_NULL;
    case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8':
    case '9': case 'N': case 'I':
        return TP_J_NUMBER;
    default: return TP_J_NONE;
    }
}

/* ---- strings ---- */

static int scratch_put(tp_json *j, const char *s, size_t n)
{
    if (n == 0)
        return 0;   /* the NUL that follows every decoded string allocates */
    if (j->scratch_len + n > j->scratch_cap) {
        size_t cap = j->scratch_cap ? j->scratch_cap * 2 : 4096;
        while (cap < j->scratch_len + n)
            cap *= 2;
        char *p = realloc(j->scratch, cap);
        if (!p)
            return tp_json_fail(j, TP_ERR_NOMEM, "out of memory");
        j->scratch = p;
        j->scratch_cap = cap;
    }
    memcpy(j->scratch + j->scratch_len, s, n);
    j->scratch_len += n;
    return 0;
}

static int put_utf8(tp_json *j, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) { b[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { b[0] = (char)(0xc0 | cp >> 6); b[1] = (char)(0x80 | (cp & 0x3f)); n = 2; }
    else if (cp < 0x10000) {
        b[0] = (char)(0xe0 | cp >> 12); b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f)); n = 3;
    } else {
        b[0] = (char)(0xf0 | cp >> 18); b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); b[3] = (char)(0x80 | (cp & 0x3f)); n = 4;
    }
    return scratch_put(j, b, n);
}

/* Validate UTF-8 in s[0..n); returns the index of the first bad byte or n. */
static size_t utf8_check(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) { i++; continue; }
        size_t len;
        uint32_t cp;
        if ((c & 0xe0) == 0xc0) { len = 2; cp = c & 0x1f; }
        else if ((c & 0xf0) == 0xe0) { len = 3; cp = c & 0x0f; }
        else if ((c & 0xf8) == 0xf0) { len = 4; cp = c & 0x07; }
        else return i;
        if (i + len > n)
            return i;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return i;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return i;
        i += len;
    }
    return n;
}

static int hex4(const char *s, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

int tp_json_string(tp_json *j, tp_jspan *out)
{
    /* Most strings are plain and end inside the window: one scan. */
    if (j->p < j->end && *j->p == '"') {
        const char *q = scan_plain(j->simd, j->p + 1, j->end);
        if (q < j->end && *q == '"') {
            out->off = tp_json_offset(j) + 1;
            out->len = (uint32_t)(q - j->p - 1);
            j->p = q + 1;
            return 0;
        }
    }
    if (need_char(j, '"', "expected a string") < 0)
        return -1;
    uint64_t start = tp_json_offset(j);
    int escaped = 0;          /* copying into scratch from the first escape on */
    uint64_t scratch_start = 0;
    uint64_t run = start;     /* start of the not yet copied plain run (escaped mode) */
    for (;;) {
        const char *q = scan_plain(j->simd, j->p, j->end);
        j->p = q;
        if (q == j->end) {
            int r = refill(j);
            if (r < 0)
                return -1;
            if (r == 0)
                return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input inside a string (truncated JSON?)");
            continue;
        }
        unsigned char c = (unsigned char)*q;
        if (c == '"') {
            uint64_t stop = tp_json_offset(j);
            j->p++;
            if (!escaped) {
                out->off = start;
                out->len = (uint32_t)(stop - start);
                return 0;
            }
            if (scratch_put(j, j->buf + (run - j->base), (size_t)(stop - run)) < 0)
                return -1;
            out->off = TP_JSPAN_SCRATCH | scratch_start;
            out->len = (uint32_t)(j->scratch_len - scratch_start);
            if (scratch_put(j, "", 1) < 0)   /* NUL for convenience; not in len */
                return -1;
            return 0;
        }
        if (c < 0x20) {
            /* Python's json with strict=False (the TensorBoard plugin's
             * fallback) accepts raw control characters; so do we, counted. */
            if (!j->control_chars++)
                j->first_control_off = tp_json_offset(j);
            j->p++;
            continue;
        }
        if (c >= 0x80) {
            /* Need the whole sequence in the window to check it. */
            while (j->end - j->p < 4 && !j->eof)
                if (refill(j) < 0)
                    return -1;
            const unsigned char *u = (const unsigned char *)j->p;
            size_t avail = (size_t)(j->end - j->p);
            size_t want = (u[0] & 0xe0) == 0xc0 ? 2 : (u[0] & 0xf0) == 0xe0 ? 3 : (u[0] & 0xf8) == 0xf0 ? 4 : 1;
            if (want > avail || utf8_check(u, want) != want)
                return tp_json_fail(j, TP_ERR_FORMAT, "invalid UTF-8 in a string");
            j->p += want;
            continue;
        }
        /* backslash escape */
        if (!escaped) {
            escaped = 1;
            scratch_start = j->scratch_len;
            run = start;
        }
        uint64_t here = tp_json_offset(j);
        if (scratch_put(j, j->buf + (run - j->base), (size_t)(here - run)) < 0)
            return -1;
        while (j->end - j->p < 12 && !j->eof)
            if (refill(j) < 0)
                return -1;
        if (j->end - j->p < 2)
            return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input inside a string (truncated JSON?)");
        char e = j->p[1];
        char ch;
        size_t adv = 2;
        switch (e) {
        case '"': ch = '"'; break;
        case '\\': ch = '\\'; break;
        case '/': ch = '/'; break;
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'n': ch = '\n'; break;
        case 'r': ch = '\r'; break;
        case 't': ch = '\t'; break;
        case 'u': {
            uint32_t cp, lo;
            if (j->end - j->p < 6 || hex4(j->p + 2, &cp) < 0)
                return tp_json_fail(j, TP_ERR_FORMAT, "bad \\u escape in a string");
            adv = 6;
            if (cp >= 0xd800 && cp <= 0xdbff) {
                if (j->end - j->p >= 12 && j->p[6] == '\\' && j->p[7] == 'u' && hex4(j->p + 8, &lo) == 0 &&
                    lo >= 0xdc00 && lo <= 0xdfff) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    adv = 12;
                } else {
                    cp = 0xfffd;   /* lone surrogate: Python keeps it; UTF-8 cannot */
                }
            } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                cp = 0xfffd;
            }
            if (put_utf8(j, cp) < 0)
                return -1;
            j->p += adv;
            run = tp_json_offset(j);
            continue;
        }
        default:
            return tp_json_fail(j, TP_ERR_FORMAT, "bad escape in a string");
        }
        if (scratch_put(j, &ch, 1) < 0)
            return -1;
        j->p += adv;
        run = tp_json_offset(j);
    }
}

/* ---- numbers and literals ---- */

static inline int is_num_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* The index past the digits of s[i..n), or 0 when there is none. */
static size_t digits_after(const char *s, size_t n, size_t i)
{
    size_t d = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i == d ? 0 : i;
}

static int valid_number(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    if (n - i == 8 && memcmp(s + i, "Infinity", 8) == 0)
        return 1;
    if (i == 0 && n == 3 && memcmp(s, "NaN", 3) == 0)
        return 1;
    if (i >= n)
        return 0;
    if (s[i] == '0') {
        i++;
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    } else {
        return 0;
    }
    if (i < n && s[i] == '.' && (i = digits_after(s, n, i + 1)) == 0)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if ((i = digits_after(s, n, i)) == 0)
            return 0;
    }
    return i == n;
}

/* The common number, -?(0|[1-9][0-9]*)(.[0-9]+)? followed by a blank, ',',
 * '}' or ']' inside the window, checked in one pass; NULL for anything else
 * (exponents, NaN, errors, the window's end), which the general path takes. */
/* Digits a byte at a time: eight at a time (SWAR, c ^ '0' + 0x76 per byte)
 * read kineto 1 GB in importer order 8% slower — most numbers are one to
 * four digits (durations, ids, dims), where the byte loop is a compare or
 * two and the word version a load, three operations and a ctz. */
static inline const char *plain_number_end(const char *p, const char *end)
{
    const char *q = p + (p < end && *p == '-');
    const char *d0 = q;
    while (q < end && (unsigned)(*q - '0') < 10)
        q++;
    if (q == d0 || (*d0 == '0' && q - d0 > 1))
        return NULL;
    if (q < end && *q == '.') {
        const char *f0 = ++q;
        while (q < end && (unsigned)(*q - '0') < 10)
            q++;
        if (q == f0)
            return NULL;
    }
    if (q < end && (*q == ',' || *q == '}' || *q == ']' || is_blank((unsigned char)*q)))
        return q;
    return NULL;
}

int tp_json_number(tp_json *j, tp_jspan *out)
{
    if (j->p < j->end && (unsigned char)*j->p > ' ') {
        const char *q = plain_number_end(j->p, j->end);
        if (q) {
            out->off = tp_json_offset(j);
            out->len = (uint32_t)(q - j->p);
            j->p = q;
            return 0;
        }
    }
    if (tp_json_peek(j) < 0)
        return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input (truncated JSON?)");
    uint64_t start = tp_json_offset(j);
    for (;;) {
        const char *p = j->p, *end = j->end;
        for (;;) {
            while (p < end && (unsigned)(*p - '0') < 10)
                p++;
            if (p < end && (is_num_char((unsigned char)*p) || *p == 'N' || *p == 'a' || *p == 'I' ||
                            *p == 'n' || *p == 'f' || *p == 'i' || *p == 't' || *p == 'y'))
                p++;
            else
                break;
        }
        j->p = p;
        if (p < end)
            break;
        int r = refill(j);
        if (r < 0)
            return -1;
        if (r == 0)
            break;   /* a number can end the input only if the input is a bare number */
    }
    uint64_t stop = tp_json_offset(j);
    out->off = start;
    out->len = (uint32_t)(stop - start);
    if (!valid_number(j->buf + (start - j->base), out->len)) {
        j->p = j->buf + (start - j->base);
        return tp_json_fail(j, TP_ERR_FORMAT, "invalid number");
    }
    if (j->p == j->end && j->eof)
        return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input after a number (truncated JSON?)");
    return 0;
}

/* Eight ASCII digits (the first in the lowest byte) to their value, or -1
 * when a byte is not a digit: the 8-digit step of fast_float.  A kineto
 * timestamp has 16 digits and an id 10, where the byte loop's chain of
 * multiply-adds is the cost; a short number fails the test at once. */
static inline int64_t eight_digits(uint64_t w)
{
    if (((w & UINT64_C(0xf0f0f0f0f0f0f0f0)) | (((w + UINT64_C(0x0606060606060606)) & UINT64_C(0xf0f0f0f0f0f0f0f0)) >> 4)) !=
        UINT64_C(0x3333333333333333))
        return -1;
    w -= UINT64_C(0x3030303030303030);
    w = w * 10 + (w >> 8);
    w = ((w & UINT64_C(0x000000ff000000ff)) * UINT64_C(0x000f424000000064) +
         ((w >> 16) & UINT64_C(0x000000ff000000ff)) * UINT64_C(0x0000271000000001)) >> 32;
    return (int64_t)(uint32_t)w;
}

/* The byte after a number that a value can end with. */
static inline int ends_number(char c)
{
    return c == ',' || c == '}' || c == ']' || is_blank((unsigned char)c);
}

int tp_json_number_int(tp_json *j, tp_jspan *out, int64_t *val, int *is_int)
{
    const char *p = j->p, *end = j->end;
    *is_int = 0;
    if (p < end && (unsigned char)*p > ' ') {
        const char *d0 = p + (*p == '-'), *q = d0;
        uint64_t v = 0;   /* wraps past 19 digits: then unused */
        while (end - q >= 8) {
            uint64_t w;
            memcpy(&w, q, 8);
            int64_t e = eight_digits(w);
            if (e < 0)
                break;
            v = v * 100000000 + (uint64_t)e;
            q += 8;
        }
        while (q < end && (unsigned)(*q - '0') < 10)
            v = v * 10 + (uint64_t)(*q++ - '0');
        size_t nd = (size_t)(q - d0);
        if (nd > 0 && nd <= 18 && !(*d0 == '0' && nd > 1) && q < end && ends_number(*q)) {
            out->off = tp_json_offset(j);
            out->len = (uint32_t)(q - p);
            j->p = q;
            *val = *p == '-' ? -(int64_t)v : (int64_t)v;
            *is_int = 1;
            return 0;
        }
        /* Kineto writes times in microseconds with up to three decimals
         * (ts 2211724343839.162, dur 2.736): read as thousandths here, the
         * caller needs no second pass over the text. */
        if (q < end && *q == '.' && *p != '-' && nd > 0 && nd <= 15 && !(*d0 == '0' && nd > 1)) {
            const char *f = q + 1;
            unsigned fd = 0;
            while (f < end && fd < 4 && (unsigned)(*f - '0') < 10) {
                v = v * 10 + (uint64_t)(*f++ - '0');
                fd++;
            }
            if (fd >= 1 && fd <= 3 && f < end && ends_number(*f)) {
                for (; fd < 3; fd++)
                    v *= 10;
                out->off = tp_json_offset(j);
                out->len = (uint32_t)(f - p);
                j->p = f;
                *val = (int64_t)v;
                *is_int = TP_JSON_MILLI;
                return 0;
            }
        }
    }
    return tp_json_number(j, out);
}

static int match_word(tp_json *j, const char *w, size_t n)
{
    while ((size_t)(j->end - j->p) < n && !j->eof)
        if (refill(j) < 0)
            return -1;
    if ((size_t)(j->end - j->p) < n) {
        if (memcmp(j->p, w, (size_t)(j->end - j->p)) == 0)
            return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input (truncated JSON?)");
        return tp_json_fail(j, TP_ERR_FORMAT, "invalid literal");
    }
    if (memcmp(j->p, w, n) != 0)
        return tp_json_fail(j, TP_ERR_FORMAT, "invalid literal");
    j->p += n;
    return 0;
}

int tp_json_literal(tp_json *j, enum tp_jtype *out)
{
    switch (tp_json_peek(j)) {
    case 't': *out = TP_J_TRUE; return match_word(j, "true", 4);
    case 'f': *out = TP_J_FALSE; return match_word(j, "false", 5);
    case 'n': *out = TP_J_NULL; return match_word(j, "null", 4);
    case -1: return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input (truncated JSON?)");
    default: return tp_json_fail(j, TP_ERR_FORMAT, "unexpected character");
    }
}

/* The fast lane of tp_json_skip (measured: skipping each event of 1 GB of
 * kineto went from 1.7 to 2.0 GB/s of CPU time on the scalar scans, 2.35 on
 * SSE2/AVX2, with it taking objects and coming back after each token it
 * hands over; before, it took arrays only and never came back): containers of plain strings, plain numbers,
 * literals and nested containers, with plain keys, in one byte loop inside
 * the window — no call, refill check or span per token.  It checks the same
 * grammar as the general loop, but anything it does not take in one go (an
 * escape, a UTF-8 byte, an exponent, an error, the window's end) stops it at
 * a point the general loop can go on from: before a member (its ',' or
 * closing bracket), or where a value is due.  So every error, and its byte
 * offset, is the general loop's.  It starts after a value or an opening
 * bracket, `*depthp` containers deep.
 *
 * Chosen over a structural scan that skips without looking inside (quote and
 * bracket masks, as simdjson's stage 1): that would accept malformed values
 * the general loop rejects, and the messages must not change.  Returns 0
 * when the value ended (depth 0), 1 to go on before a member, 2 where a
 * value is due (its container's count already set). */
static int skip_lane(tp_json *j, char *stack, int *counts, int *depthp, int maxdepth)
{
    const char *p = j->p, *end = j->end;
    int depth = *depthp, r = 1;
    for (;;) {
        /* after an opening bracket or a value */
        p = skip_blanks(j->simd, p, end);
        if (p == end)
            break;
        char open = stack[depth - 1];
        if (*p == (open == '[' ? ']' : '}')) {
            p++;
            if (--depth == 0) {
                r = 0;
                break;
            }
            continue;
        }
        const char *v = p;
        if (counts[depth - 1] > 0) {
            if (*p != ',')
                break;
            v = skip_blanks(j->simd, p + 1, end);
        }
        if (open == '{') {
            /* the whole `"key" :` or nothing: the general loop rereads it */
            if (v == end || *v != '"')
                break;
            const char *q = scan_plain(j->simd, v + 1, end);
            if (q == end || *q != '"')
                break;
            q = skip_blanks(j->simd, q + 1, end);
            if (q == end || *q != ':')
                break;
            v = skip_blanks(j->simd, q + 1, end);
        }
        /* a value is due at v */
        counts[depth - 1] = 1;
        p = v;
        r = 2;
        if (v == end)
            break;
        const char *q = NULL;
        switch (*v) {
        case '[': case '{':
            if (depth < maxdepth) {
                stack[depth] = *v;
                counts[depth] = 0;
                depth++;
                q = v + 1;
            }
            break;
        case '"':
            q = scan_plain(j->simd, v + 1, end);
            q = q < end && *q == '"' ? q + 1 : NULL;
            break;
        case 't': case 'n':
            q = end - v >= 4 && (!memcmp(v, "true", 4) || !memcmp(v, "null", 4)) ? v + 4 : NULL;
            break;
        case 'f':
            q = end - v >= 5 && !memcmp(v, "false", 5) ? v + 5 : NULL;
            break;
        default:
            if ((*v >= '0' && *v <= '9') || *v == '-')
                q = plain_number_end(v, end);
        }
        if (!q)
            break;
        p = q;
        r = 1;
    }
    j->p = p;
    *depthp = depth;
    return r;
}

enum { SKIP_MAXDEPTH = 4096 };

/* The containers of a value being skipped, `depth` deep in stack/counts:
 * with `due`, a value comes first; without, the place is right after one
 * (or an opening bracket).  0 when the outermost container closed, -1 on
 * an error. */
static int skip_containers(tp_json *j, char *stack, int *counts, int depth, int due)
{
    for (;;) {
        if (due) {
            /* read one value */
            int ch = tp_json_peek(j);
            tp_jspan tmp;
            enum tp_jtype lit;
            if (ch == '{' || ch == '[') {
                if (depth == SKIP_MAXDEPTH)
                    return tp_json_fail(j, TP_ERR_FORMAT, "nesting too deep");
                j->p++;
                stack[depth] = (char)ch;
                counts[depth] = 0;
                depth++;
            } else if (ch == '"') {
                if (tp_json_string(j, &tmp) < 0)
                    return -1;
            } else if (ch == 't' || ch == 'f' || ch == 'n') {
                if (tp_json_literal(j, &lit) < 0)
                    return -1;
            } else if (ch < 0) {
                return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input (truncated JSON?)");
            } else if (is_num_char((unsigned char)ch) || ch == 'N' || ch == 'I') {
                if (tp_json_number(j, &tmp) < 0)
                    return -1;
            } else {
                return tp_json_fail(j, TP_ERR_FORMAT, "unexpected character");
            }
        }
        due = 1;
        /* the fast lane as far as it goes: back after each token it left
         * to this loop (an escape, a refill), not for the rest of the value */
        if (depth > 0) {
            int r = skip_lane(j, stack, counts, &depth, SKIP_MAXDEPTH);
            if (r == 0)
                break;
            if (r == 2)
                continue;     /* a value is due */
        }
        /* then close containers / move to the next member */
        while (depth > 0) {
            int r;
            tp_jspan key;
            if (stack[depth - 1] == '{') {
                r = tp_json_obj_next(j, &counts[depth - 1], &key);
            } else {
                r = tp_json_arr_next(j, &counts[depth - 1]);
            }
            if (r < 0)
                return -1;
            if (r == 1)
                break;        /* a value follows */
            depth--;          /* container closed */
        }
        if (depth == 0)
            break;
    }
    return 0;
}

/* Skip one value of any type, iteratively (no recursion: a hostile
 * [[[[... cannot blow the stack). */
int tp_json_skip(tp_json *j, tp_jspan *raw)
{
    int first_byte = tp_json_peek(j);
    if (first_byte < 0)
        return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input (truncated JSON?)");
    uint64_t start = tp_json_offset(j);
    if (first_byte == '"' || (first_byte >= '0' && first_byte <= '9') || first_byte == '-') {
        /* A scalar: no container state to keep. */
        tp_jspan tmp;
        if ((first_byte == '"' ? tp_json_string(j, &tmp) : tp_json_number(j, &tmp)) < 0)
            return -1;
    } else {
        char stack[SKIP_MAXDEPTH];
        int counts[SKIP_MAXDEPTH];
        if (skip_containers(j, stack, counts, 0, 1) < 0)
            return -1;
    }
    if (raw) {
        raw->off = start;
        raw->len = (uint32_t)(tp_json_offset(j) - start);
    }
    return 0;
}

int tp_json_skip_rest(tp_json *j, int n)
{
    char stack[SKIP_MAXDEPTH];
    int counts[SKIP_MAXDEPTH];
    stack[0] = '{';
    counts[0] = n;
    return skip_containers(j, stack, counts, 1, 0);
}
