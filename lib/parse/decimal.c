/* decimal.c — exact conversion of decimal number text.
 *
 * Kineto writes microseconds with three decimals ("88511388202.765"); going
 * through a double would lose the nanoseconds of a 2^53-scale timestamp, so
 * the digits are accumulated as integers and scaled by powers of ten. */
#include <stdlib.h>
#include <string.h>
#include "json.h"

/* Parse sign, digits, fraction, exponent of s[0..len) into an integer
 * mantissa (up to 19 significant digits kept exactly, the rest rounded) and
 * a decimal exponent.  Returns 0 on success. */
static int split_decimal(const char *s, size_t len, int *neg, uint64_t *mant, int *exp10, int *inexact)
{
    size_t i = 0;
    *neg = 0;
    *mant = 0;
    *exp10 = 0;
    *inexact = 0;
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        *neg = s[i] == '-';
        i++;
    }
    int ndig = 0, any = 0, dropped_first = -1, dropped_rest = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        any = 1;
        if (ndig < 19) {
            if (*mant || s[i] != '0') {
                *mant = *mant * 10 + (uint64_t)(s[i] - '0');
                ndig++;
            }
        } else {
            if (dropped_first < 0) dropped_first = s[i] - '0';
            else if (s[i] != '0') dropped_rest = 1;
            (*exp10)++;
        }
    }
    if (i < len && s[i] == '.') {
        i++;
        if (i == len || s[i] < '0' || s[i] > '9')
            return -1;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            any = 1;
            if (ndig < 19) {
                if (*mant || s[i] != '0') {
                    *mant = *mant * 10 + (uint64_t)(s[i] - '0');
                    ndig++;
                }
                (*exp10)--;
            } else {
                if (dropped_first < 0) dropped_first = s[i] - '0';
                else if (s[i] != '0') dropped_rest = 1;
            }
        }
    }
    if (!any)
        return -1;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0, e = 0, edig = 0;
        if (i < len && (s[i] == '-' || s[i] == '+')) {
            eneg = s[i] == '-';
            i++;
        }
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, edig++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        if (!edig)
            return -1;
        *exp10 += eneg ? -e : e;
    }
    if (i != len)
        return -1;
    if (dropped_first >= 0) {
        *inexact = 1;
        if (dropped_first > 5 || (dropped_first == 5 && (dropped_rest || (*mant & 1))))
            (*mant)++;
    }
    return 0;
}

static const uint64_t pow10u[20] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
    1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
    1000000000000000000ULL, 10000000000000000000ULL,
};

/* mant * 10^e as int64, rounding half to even when e < 0. */
static int scale(int neg, uint64_t mant, int e, int64_t *out)
{
    uint64_t v;
    if (mant == 0) {
        *out = 0;
        return 0;
    }
    if (e >= 0) {
        if (e > 19)
            return -1;
        if (mant > UINT64_MAX / pow10u[e])
            return -1;
        v = mant * pow10u[e];
    } else {
        if (-e > 19) {
            v = 0;
        } else {
            uint64_t d = pow10u[-e];
            v = mant / d;
            uint64_t r = mant % d;
            uint64_t half = d / 2;
            if (r > half || (r == half && (v & 1)))
                v++;
        }
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return -1;
        *out = (int64_t)(0 - v);
    } else {
        if (v > (uint64_t)INT64_MAX)
            return -1;
        *out = (int64_t)v;
    }
    return 0;
}

int tp_decimal_us_to_ns(const char *s, size_t len, int64_t *out)
{
    /* Fast path for what kineto writes: up to 16 integer digits (epoch
     * microseconds have 16), then optionally '.' and 1-3 decimals; the
     * result must fit (16 digits of us can overflow int64 ns). */
    if (len > 0 && len <= 20) {
        size_t i = 0;
        uint64_t v = 0;
        while (i < len && (unsigned)(s[i] - '0') < 10 && i < 16)
            v = v * 10 + (uint64_t)(s[i++] - '0');
        if (i > 0 && i == len && v <= (uint64_t)INT64_MAX / 1000) {
            *out = (int64_t)(v * 1000);
            return 0;
        }
        if (i > 0 && i < len && s[i] == '.' && len - i - 1 >= 1 && len - i - 1 <= 3) {
            size_t d = 0;
            for (i++; i < len && (unsigned)(s[i] - '0') < 10; i++, d++)
                v = v * 10 + (uint64_t)(s[i] - '0');
            if (i == len) {
                for (; d < 3; d++)
                    v *= 10;
                if (v <= (uint64_t)INT64_MAX) {
                    *out = (int64_t)v;
                    return 0;
                }
            }
        }
    }
    int neg, e, inexact;
    uint64_t mant;
    if (split_decimal(s, len, &neg, &mant, &e, &inexact) < 0)
        return -1;
    return scale(neg, mant, e + 3, out);
}

int tp_decimal_to_i64(const char *s, size_t len, int64_t *out)
{
    if (len > 0 && len <= 18) {
        size_t i = s[0] == '-';
        int64_t v = 0;
        size_t start = i;
        while (i < len && (unsigned)(s[i] - '0') < 10)
            v = v * 10 + (s[i++] - '0');
        if (i == len && i > start) {
            *out = s[0] == '-' ? -v : v;
            return 0;
        }
    }
    int neg, e, inexact;
    uint64_t mant;
    if (split_decimal(s, len, &neg, &mant, &e, &inexact) < 0 || inexact)
        return -1;
    if (e < 0) {
        if (-e > 19 || mant % pow10u[-e])
            return -1;   /* a fraction */
    }
    return scale(neg, mant, e, out);
}

int tp_decimal_to_double(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    *out = strtod(buf, &end);
    return end == buf + len ? 0 : -1;
}
