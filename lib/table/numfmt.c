/* numfmt.c — integers and fixed-point decimals as printf writes them, with
 * integer arithmetic only (see numfmt.h). */
#include <math.h>
#include <string.h>
#include "numfmt.h"

/* "00".."99": two digits a division (a table's cells are mostly numbers). */
static const char PAIRS[201] = "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
                               "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

size_t tp_numfmt_u64(uint64_t v, char *out)
{
    size_t n = 1;
    for (uint64_t x = v; x >= 10; x /= 10)
        n++;
    char *p = out + n;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, PAIRS + 2 * r, 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, PAIRS + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    return n;
}

size_t tp_numfmt_i64(int64_t v, char *out)
{
    if (v >= 0)
        return tp_numfmt_u64((uint64_t)v, out);
    out[0] = '-';
    return 1 + tp_numfmt_u64((uint64_t)0 - (uint64_t)v, out + 1);
}

size_t tp_numfmt_u64_pad(uint64_t v, int width, char *out)
{
    char tmp[20];
    size_t n = tp_numfmt_u64(v, tmp), z = width > (int)n ? (size_t)width - n : 0;
    memset(out, '0', z);
    memcpy(out + z, tmp, n);
    return z + n;
}

/* |v| = m * 2^e exactly, m < 2^53: the parts of an IEEE double. */
static void split(double v, uint64_t *m, int *e)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int be = (int)(bits >> 52 & 0x7ff);
    *m = bits & (((uint64_t)1 << 52) - 1);
    if (be) {
        *m |= (uint64_t)1 << 52;
        *e = be - 1075;
    } else {
        *e = -1074;   /* subnormal */
    }
}

size_t tp_numfmt_fixed(double v, int decimals, char *out)
{
    if (decimals < 0 || decimals > TP_NUMFMT_MAXDEC || !isfinite(v))
        return 0;
    uint64_t m, p10 = 1;
    int e;
    split(v, &m, &e);
    for (int i = 0; i < decimals; i++)
        p10 *= 10;
    /* |v| * 10^d = m * 10^d * 2^e, below 2^83: exact in 128 bits */
    unsigned __int128 n = (unsigned __int128)m * p10, q;
    if (e >= 0) {
        if (e > 40 || (n << e) >> 64)
            return 0;
        q = n << e;
    } else if (e <= -90) {
        q = 0;   /* n * 2^e < 2^-7: rounds to 0, never a tie */
    } else {
        unsigned s = (unsigned)-e;
        q = n >> s;
        unsigned __int128 r = n - (q << s), half = (unsigned __int128)1 << (s - 1);
        if (r > half || (r == half && (q & 1)))   /* to nearest, ties to even, as glibc */
            q++;
        if (q >> 64)
            return 0;
    }
    uint64_t u = (uint64_t)q;
    size_t k = 0;
    if (signbit(v))   /* glibc keeps the sign of -0.0 and of what rounds to 0 */
        out[k++] = '-';
    char digits[24];
    size_t nd = tp_numfmt_u64_pad(u, decimals + 1, digits), ip = nd - (size_t)decimals;
    memcpy(out + k, digits, ip);
    k += ip;
    if (decimals) {
        out[k++] = '.';
        memcpy(out + k, digits + ip, (size_t)decimals);
        k += (size_t)decimals;
    }
    return k;
}

size_t tp_numfmt_trim(char *out, size_t n, int decimals)
{
    if (decimals) {
        while (n > 0 && out[n - 1] == '0')
            n--;
        if (n > 0 && out[n - 1] == '.')
            n--;
    }
    if (n == 2 && out[0] == '-' && out[1] == '0')
        out[0] = '0', n = 1;
    return n;
}
