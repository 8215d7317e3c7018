/* window.c — tp_parse_window: "1.2s..1.8s", "1200ms..", "..500000" (µs
 * without a unit), exact: the digits go through tp_decimal_us_to_ns after
 * the unit is folded into the exponent, never through a double; and
 * tp_parse_steps: "N" or "A-B", the other way to name a slice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "tprof.h"

/* One side: "" (open), or a decimal number with an optional unit. */
static int side(const char *s, size_t n, int64_t open_value, int64_t *out, const char *text, tp_error *err)
{
    if (n == 0) {
        *out = open_value;
        return TP_OK;
    }
    static const struct { const char *unit; int exp; } units[] = {   /* as a power of ten of µs */
        {"ns", -3}, {"us", 0}, {"ms", 3}, {"s", 6},
    };
    int exp = 0;
    for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
        size_t k = strlen(units[u].unit);
        if (n > k && memcmp(s + n - k, units[u].unit, k) == 0 && (k == 2 || (s[n - 2] >= '0' && s[n - 2] <= '9') ||
                                                                  s[n - 2] == '.')) {
            exp = units[u].exp;
            n -= k;
            break;
        }
    }
    char buf[64];
    if (n == 0 || n + 8 >= sizeof buf || s[0] == '-' || s[0] == '+')
        return tp_error_set(err, TP_ERR_USAGE, "--window: '%s': expected T0..T1, times such as 1.2s, 1200ms, 1200000us or 1200000 (microseconds)", text);
    int len = snprintf(buf, sizeof buf, "%.*se%d", (int)n, s, exp);
    if (tp_decimal_us_to_ns(buf, (size_t)len, out) != 0)
        return tp_error_set(err, TP_ERR_USAGE, "--window: '%s': '%.*s' is not a time", text, (int)n, s);
    return TP_OK;
}

int tp_parse_steps(const char *text, int64_t *first, int64_t *last, tp_error *err)
{
    char *end = NULL;
    long long x = text ? strtoll(text, &end, 10) : -1, y = x;
    int ok = text && end != text && x >= 0;
    if (ok && *end == '-') {
        const char *t = end + 1;
        y = strtoll(t, &end, 10);
        ok = end != t && y >= x;
    }
    if (!ok || *end)
        return tp_error_set(err, TP_ERR_USAGE, "--step: '%s' is not N or A-B (ProfilerStep numbers)", text ? text : "");
    *first = x;
    *last = y;
    return TP_OK;
}

int tp_parse_window(const char *text, int64_t *from_ns, int64_t *to_ns, tp_error *err)
{
    const char *dots = text ? strstr(text, "..") : NULL;
    if (!dots)
        return tp_error_set(err, TP_ERR_USAGE, "--window: '%s': expected T0..T1 (e.g. 1.2s..1.8s)", text ? text : "");
    if (side(text, (size_t)(dots - text), 0, from_ns, text, err) != TP_OK ||
        side(dots + 2, strlen(dots + 2), INT64_MAX, to_ns, text, err) != TP_OK)
        return TP_ERR_USAGE;
    if (*from_ns > *to_ns)
        return tp_error_set(err, TP_ERR_USAGE, "--window: '%s': the end comes before the start", text);
    return TP_OK;
}
