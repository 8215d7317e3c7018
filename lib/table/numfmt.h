/* numfmt.h — numbers into text without printf (internal to libtprof).
 *
 * The table writers print hundreds of thousands of numeric cells per table
 * (the prof and launches tables of a 1 GB trace have 250K rows each), and
 * snprintf's format parsing and FILE set-up per call was a large part of
 * writing them.  Each function here writes exactly the bytes the printf
 * conversion it names writes (numfmt_test.c compares them), with no NUL,
 * and returns the length. */
#ifndef TPROF_NUMFMT_H
#define TPROF_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Room any of them needs. */
#define TP_NUMFMT_CAP 48
/* The most decimals tp_numfmt_fixed handles itself. */
#define TP_NUMFMT_MAXDEC 9

/* "%llu" and "%lld". */
size_t tp_numfmt_u64(uint64_t v, char *out);
size_t tp_numfmt_i64(int64_t v, char *out);

/* "%0*llu": v in at least `width` digits, zeros in front (width <= 20). */
size_t tp_numfmt_u64_pad(uint64_t v, int width, char *out);

/* "%.*f" of v with `decimals` places (glibc's exact value, ties to even),
 * for a finite v whose rounded value times 10^decimals is below 2^64 and
 * decimals <= TP_NUMFMT_MAXDEC; 0 (nothing written) otherwise, when the
 * caller asks snprintf instead. */
size_t tp_numfmt_fixed(double v, int decimals, char *out);

/* The n bytes of a "%.*f" number with `decimals` places shortened as the
 * time columns print it: with decimals, its trailing zeros and then a bare
 * point dropped; "-0" (a negative that rounded to nothing) becomes "0".
 * Returns the new length. */
size_t tp_numfmt_trim(char *out, size_t n, int decimals);

#endif
