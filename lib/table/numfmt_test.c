/* numfmt_test.c — the printf-free formatters (numfmt.c) and the cell
 * formats built on them (tp_fmt_time, tp_fmt_time_float, tp_fmt_pyfloat)
 * against snprintf itself: edge values, ties at every decimal, and millions
 * of random integers and doubles (random bit patterns, so every exponent). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "numfmt.h"
#include "table.h"
#include "testing.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)   /* xorshift64* */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717u;
}

static double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* mismatches of tp_numfmt_fixed against snprintf "%.*f"; *handled counts
 * the values it formatted itself (0 is a fallback, never wrong bytes) */
static long fixed_bad(double v, int d, long *handled, char *first, size_t cap)
{
    char want[400], got[TP_NUMFMT_CAP + 1];
    size_t n = tp_numfmt_fixed(v, d, got);
    if (n == 0) {
        /* it may only decline what it must: NaN, inf, or a value too big */
        if (isfinite(v) && fabs(v) * pow(10, d) < 1e18 && d <= TP_NUMFMT_MAXDEC) {
            if (first[0] == 0)
                snprintf(first, cap, "declined %.17g at %d decimals", v, d);
            return 1;
        }
        return 0;
    }
    ++*handled;
    got[n] = 0;
    snprintf(want, sizeof want, "%.*f", d, v);
    if (strcmp(got, want) == 0)
        return 0;
    if (first[0] == 0)
        snprintf(first, cap, "%a at %d decimals: got %s, want %.60s", v, d, got, want);
    return 1;
}

/* tp_fmt_time as it was written with snprintf: the oracle */
static size_t old_fmt_time(int64_t ns, int unit, char *out, size_t cap)
{
    uint64_t div;
    int d = tp_time_unit(&unit, &div);
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns, frac = mag % div;
    int n = snprintf(out, cap, "%s%llu", ns < 0 ? "-" : "", (unsigned long long)(mag / div));
    if (frac) {
        char f[16];
        snprintf(f, sizeof f, "%0*llu", d, (unsigned long long)frac);
        int fl = d;
        while (f[fl - 1] == '0')
            fl--;
        n += snprintf(out + n, cap - (size_t)n, ".%.*s", fl, f);
    }
    return (size_t)n;
}

/* tp_fmt_time_float as it was: "%.*f", zeros and a bare point trimmed, "-0" -> "0" */
static void old_fmt_time_float(double ns, int unit, char *out, size_t cap)
{
    uint64_t div;
    int d = tp_time_unit(&unit, &div);
    int n = snprintf(out, cap, "%.*f", d, ns / (double)div);
    out[tp_numfmt_trim(out, (size_t)n, d)] = 0;
}

/* CHECK that a loop met no difference, and show the first one it met. */
static void check_none(const char *name, long bad, const char *first)
{
    CHECK_INT(name, bad, 0);
    if (bad)
        printf("# %s\n", first);
}

/* CHECK_STR of the n bytes a tp_numfmt_* function wrote into got. */
static void check_text(const char *name, char *got, size_t n, const char *want)
{
    got[n] = 0;
    CHECK_STR(name, got, want);
}

static void check_integers(void)
{
    static const int64_t edge[] = {0, 1, -1, 9, 10, -10, 99, 100, 12345, -12345, INT32_MAX, INT32_MIN,
                                   (int64_t)UINT32_MAX + 1, 999999999999999999, 1000000000000000000,
                                   -1000000000000000000, INT64_MAX, INT64_MIN, INT64_MIN + 1};
    char got[TP_NUMFMT_CAP + 1], want[64], first[160] = "";
    long bad = 0;
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
        got[tp_numfmt_i64(edge[i], got)] = 0;
        snprintf(want, sizeof want, "%" PRId64, edge[i]);
        if (strcmp(got, want) && !bad++)
            snprintf(first, sizeof first, "got %s, want %s", got, want);
    }
    check_none("i64 edge values", bad, first);
    bad = 0;
    for (long i = 0; i < 1000000; i++) {
        uint64_t r = next();
        int64_t v = (int64_t)(r >> (r & 63));   /* every magnitude */
        if (i & 1)
            v = -v;
        got[tp_numfmt_i64(v, got)] = 0;
        snprintf(want, sizeof want, "%" PRId64, v);
        bad += strcmp(got, want) != 0;
        got[tp_numfmt_u64((uint64_t)v, got)] = 0;
        snprintf(want, sizeof want, "%" PRIu64, (uint64_t)v);
        bad += strcmp(got, want) != 0;
        int w = (int)(r >> 59) % 21;
        got[tp_numfmt_u64_pad(r >> (r >> 58), w, got)] = 0;
        snprintf(want, sizeof want, "%0*" PRIu64, w, r >> (r >> 58));
        bad += strcmp(got, want) != 0;
    }
    check_none("i64/u64/padded: 1M random integers as printf", bad, first);
    check_text("u64 max", got, tp_numfmt_u64(UINT64_MAX, got), "18446744073709551615");
    check_text("padded to 20", got, tp_numfmt_u64_pad(7, 20, got), "00000000000000000007");
}

static void check_fixed(void)
{
    char first[200] = "", got[TP_NUMFMT_CAP + 1];
    long bad = 0, handled = 0;
    static const double edge[] = {0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.0625, 0.1875, 1e-300, -1e-300,
                                  DBL_MIN, DBL_TRUE_MIN, -DBL_TRUE_MIN, 0.1, 0.7, 1.005, 2.675, 1e15, 123456.7895,
                                  9.9995, 0.0005, -0.0005, 0.00049999999999999, 1844674407370955.0,
                                  18446744073709549568.0, 18446744073709551616.0, 1e19, -1e19, 1e300, -1e300,
                                  4503599627370495.5, 4503599627370497.0, 9007199254740993.0};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
        for (int d = 0; d <= TP_NUMFMT_MAXDEC; d++)
            bad += fixed_bad(edge[i], d, &handled, first, sizeof first);
    check_none("fixed: edge values as %.*f", bad, first);
    /* exact ties at every decimal: k/2^j has a 5 in its last place */
    bad = 0;
    for (long j = 1; j <= 12; j++)
        for (long k = -5000; k <= 5000; k++)
            for (int d = 0; d <= 6; d++)
                bad += fixed_bad(ldexp((double)k, (int)-j), d, &handled, first, sizeof first);
    check_none("fixed: ties k/2^j to even, as glibc", bad, first);
    /* random bit patterns: every exponent, NaN and inf included */
    bad = 0;
    long before = handled;
    for (long i = 0; i < 1000000; i++) {
        double v = from_bits(next());
        bad += fixed_bad(v, (int)(i % (TP_NUMFMT_MAXDEC + 1)), &handled, first, sizeof first);
    }
    check_none("fixed: 1M random doubles as %.*f", bad, first);
    /* numbers as tables hold them: percentages, ratios, microseconds */
    bad = 0;
    for (long i = 0; i < 1000000; i++) {
        uint64_t r = next();
        double v = (double)(int64_t)(r >> 20) / (double)((r & 0xfffff) + 1) * ((r & 1) ? -1 : 1);
        bad += fixed_bad(v, (int)(i % (TP_NUMFMT_MAXDEC + 1)), &handled, first, sizeof first);
        bad += fixed_bad(v / 1e6, (int)(i % 4), &handled, first, sizeof first);
    }
    check_none("fixed: 2M table-like doubles as %.*f", bad, first);
    CHECK("fixed: formats most values itself (not all by snprintf)", handled - before > 1000000);
    CHECK_INT("fixed: NaN declined", tp_numfmt_fixed(NAN, 3, got), 0);
    CHECK_INT("fixed: inf declined", tp_numfmt_fixed(-INFINITY, 0, got), 0);
    CHECK_INT("fixed: 10 decimals declined", tp_numfmt_fixed(1.0, TP_NUMFMT_MAXDEC + 1, got), 0);
    CHECK_INT("fixed: 2^64 declined", tp_numfmt_fixed(18446744073709551616.0, 0, got), 0);
    check_text("fixed: a negative that rounds to zero keeps its sign", got, tp_numfmt_fixed(-0.0004, 3, got),
               "-0.000");
    check_text("fixed: 2.5 to even", got, tp_numfmt_fixed(2.5, 0, got), "2");
}

static void check_cells(void)
{
    char got[400], want[400], first[400] = "";
    long bad = 0;
    for (long i = 0; i < 1000000; i++) {
        uint64_t r = next();
        int64_t ns = (int64_t)(r >> (r & 63));
        if (i & 1)
            ns = -ns;
        if (i % 1000 == 0)
            ns = i % 3000 == 0 ? INT64_MIN : i % 2000 == 0 ? INT64_MAX : 0;
        for (int unit = TP_UNIT_DEFAULT; unit <= TP_UNIT_S; unit++) {
            size_t n = tp_fmt_time(ns, unit, got, sizeof got);
            size_t m = old_fmt_time(ns, unit, want, sizeof want);
            if ((n != m || strcmp(got, want)) && !bad++)
                snprintf(first, sizeof first, "%" PRId64 " ns unit %d: got %.60s, want %.60s", ns, unit, got, want);
        }
    }
    check_none("tp_fmt_time: 1M nanosecond counts in every unit as the snprintf form", bad, first);
    bad = 0;
    for (long i = 0; i < 1000000; i++) {
        double ns = i & 1 ? from_bits(next()) : (double)(int64_t)(next() >> 24) / 7.0 * (i & 2 ? -1 : 1);
        if (!isfinite(ns))
            continue;
        int unit = TP_UNIT_NS + (int)(i % 4);
        tp_fmt_time_float(ns, unit, got, sizeof got);
        old_fmt_time_float(ns, unit, want, sizeof want);
        if (strcmp(got, want) && !bad++)
            snprintf(first, sizeof first, "%a ns unit %d: got %.60s, want %.60s", ns, unit, got, want);
    }
    check_none("tp_fmt_time_float: 1M doubles as the snprintf form", bad, first);
    bad = 0;
    for (long i = 0; i < 1000000; i++) {
        uint64_t r = next();
        double v = (double)(int64_t)(r >> (r & 63) >> 10) * (i & 1 ? -1 : 1);
        if (!(fabs(v) < 1e16) || v == 0)
            continue;
        tp_fmt_pyfloat(v, got, sizeof got);
        snprintf(want, sizeof want, "%.0f.0", v);
        if (strcmp(got, want) && !bad++)
            snprintf(first, sizeof first, "%a: got %.60s, want %.60s", v, got, want);
    }
    check_none("tp_fmt_pyfloat: 1M integral doubles as %.0f.0", bad, first);
    tp_fmt_pyfloat(-1e15, got, sizeof got);
    CHECK_STR("pyfloat -1e15", got, "-1000000000000000.0");
    tp_fmt_time(-1500, TP_UNIT_US, got, sizeof got);
    CHECK_STR("time -1500 ns", got, "-1.5");
    tp_fmt_time_float(-0.0004, TP_UNIT_US, got, sizeof got);
    CHECK_STR("time float -0.0004 ns is 0", got, "0");
    /* trimming: zeros of a fraction, then its bare point; never an integer's */
    static const struct { const char *in; int decimals; const char *want; } trims[] = {
        {"1.500", 3, "1.5"}, {"2.000", 3, "2"}, {"-0.000", 3, "0"}, {"100", 0, "100"}, {"-0", 0, "0"},
        {"-10.010", 3, "-10.01"}, {"0.000000", 6, "0"}};
    for (size_t i = 0; i < sizeof trims / sizeof *trims; i++) {
        char name[64];
        snprintf(name, sizeof name, "trim %s", trims[i].in);
        snprintf(got, sizeof got, "%s", trims[i].in);
        check_text(name, got, tp_numfmt_trim(got, strlen(got), trims[i].decimals), trims[i].want);
    }
}

int main(void)
{
    check_integers();
    check_fixed();
    check_cells();
    TEST_EXIT();
}
