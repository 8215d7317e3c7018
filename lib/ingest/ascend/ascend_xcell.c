/* ascend_xcell.c — the cells of kernel_details.csv's extra columns (PMU
 * ...): a plain decimal as an exact integer and its count of decimals, any
 * other text as a string id (npu.h, tp_npu_xcell).  Most PMU cells are
 * numbers that hardly repeat ("0.519", "2910056"): interning each would cost
 * the string table ~30 bytes a cell and a hash lookup; as numbers they cost
 * 8 bytes and print back to the same text. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "json.h"
#include "npu.h"

static const double pow10d[TP_NPU_XDIGITS + 1] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                                   1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* s as a plain decimal: -?(0|[1-9][0-9]*)(\.[0-9]+)?, at most
 * TP_NPU_XDIGITS digits, not a negative zero; 0 and *m, *dec, or -1. */
static int plain_decimal(const char *s, size_t n, int64_t *m, unsigned *dec)
{
    size_t i = 0, digits = 0;
    int neg = n && s[0] == '-';
    i = (size_t)neg;
    if (i == n || s[i] < '0' || s[i] > '9' || (s[i] == '0' && i + 1 < n && s[i + 1] != '.'))
        return -1;
    int64_t v = 0;
    unsigned d = 0;
    int point = 0;
    for (; i < n; i++) {
        if (s[i] == '.' && !point && i + 1 < n) {
            point = 1;
            continue;
        }
        if (s[i] < '0' || s[i] > '9' || ++digits > TP_NPU_XDIGITS)
            return -1;
        v = v * 10 + (s[i] - '0');
        d += (unsigned)point;
    }
    if (neg && v == 0)
        return -1;                 /* "-0.0" would print as "0.0" */
    *m = neg ? -v : v;
    *dec = d;
    return 0;
}

int tp_npu_xcell_encode(tp_store *st, const char *s, size_t n, tp_npu_xcell *out)
{
    int64_t m;
    unsigned dec;
    if (plain_decimal(s, n, &m, &dec) == 0) {
        *out = m * 256 + (int64_t)dec;
        return 0;
    }
    uint32_t id = tp_store_intern(st, s, n);
    if (id == UINT32_MAX)
        return -1;
    *out = (int64_t)id * 256 + TP_NPU_XTEXT;
    return 0;
}

const char *tp_npu_xcell_str(const tp_store *st, tp_npu_xcell x, char *buf, size_t cap)
{
    unsigned dec = (unsigned)((uint64_t)x & 0xff);
    if (dec == TP_NPU_XTEXT)
        return tp_store_str(st, (uint32_t)(x >> 8));
    int64_t m = (x - (int64_t)dec) / 256;
    uint64_t a = m < 0 ? (uint64_t)-m : (uint64_t)m, p = 1;
    for (unsigned i = 0; i < dec; i++)
        p *= 10;
    if (dec)
        snprintf(buf, cap, "%s%llu.%0*llu", m < 0 ? "-" : "", (unsigned long long)(a / p), (int)dec,
                 (unsigned long long)(a % p));
    else
        snprintf(buf, cap, "%lld", (long long)m);
    return buf;
}

double tp_npu_xcell_value(const tp_store *st, tp_npu_xcell x)
{
    unsigned dec = (unsigned)((uint64_t)x & 0xff);
    if (dec == TP_NPU_XTEXT) {
        /* text that is still a number ("1e-3", "007"): the plugin's float() */
        const char *s = tp_store_str(st, (uint32_t)(x >> 8));
        size_t n = strlen(s);
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))   /* a quoted "1.5\t" */
            n--;
        double v;
        return n && tp_decimal_to_double(s, n, &v) == 0 ? v : NAN;
    }
    /* both exact (|m| < 10^15 < 2^53): the quotient is correctly rounded, as strtod's */
    return (double)((x - (int64_t)dec) / 256) / pow10d[dec];
}
