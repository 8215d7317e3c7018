/* json_test.c — the streaming JSON reader, exact decimals, and the kineto
 * importer on good and bad input (truncation at every byte, bad UTF-8, wrong
 * types, huge numbers, compression, tiny windows that force refills). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "ingest.h"
#include "json.h"
#include "testing.h"

static const char *tmpdir(void)
{
    static char dir[64];
    if (!dir[0]) {
        if (tt_tmpdir(dir, sizeof dir, "json") < 0)
            abort();
    }
    return dir;
}

static const char *write_tmp(const char *name, const void *data, size_t len)
{
    static char path[8][256];
    static int k;
    char *p = path[k++ % 8];
    snprintf(p, 256, "%s/%s", tmpdir(), name);
    FILE *f = fopen(p, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
    return p;
}

static void test_strings(void)
{
    const char *doc = "[\"plain\", \"a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\", \"\\u0041\\u00e9\\u20ac\", "
                      "\"\\ud83d\\ude00\", \"\\ud800x\", \"caf\xc3\xa9\"]";
    tp_error err = {0};
    tp_json j;
    tp_json_init_mem(&j, doc, strlen(doc), "mem", &err);
    const char *want[] = {"plain", "a\"b\\c/\b\f\n\r\t", "A\xc3\xa9\xe2\x82\xac", "\xf0\x9f\x98\x80",
                          "\xef\xbf\xbdx", "caf\xc3\xa9"};
    int n = 0, i = 0;
    CHECK("json.array_begin", tp_json_arr_begin(&j) == 0);
    while (tp_json_arr_next(&j, &n) == 1 && i < 6) {
        tp_jspan s;
        char name[64];
        snprintf(name, sizeof name, "json.string.%d", i);
        if (tp_json_string(&j, &s) < 0) {
            CHECK(name, 0);
            break;
        }
        char got[64] = "";
        memcpy(got, tp_json_ptr(&j, s), s.len < 63 ? s.len : 63);
        CHECK_STR(name, got, want[i]);
        i++;
    }
    CHECK_INT("json.string.count", i, 6);
    tp_json_free(&j);

    const char *bad[] = {"\"abc", "\"a\\x\"", "\"\\u12G4\"", "\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\""};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        tp_json_init_mem(&j, bad[b], strlen(bad[b]), "mem", &err);
        tp_jspan s;
        char name[64];
        snprintf(name, sizeof name, "json.string.bad.%zu", b);
        CHECK(name, tp_json_string(&j, &s) < 0 && strstr(err.msg, "mem: byte ") == err.msg);
        tp_json_free(&j);
    }
}

/* The vector and word-at-a-time scans step 16 or 8 bytes at a time: put the
 * byte that ends a plain run (quote, escape, control character, UTF-8 lead)
 * and the first non-blank at every offset across two steps, in a window that
 * ends right after the value, so that the scalar tails run too. */
static void test_scan_offsets(void)
{
    static const char *specials[] = {"\"", "\\n", "\x01", "\xc3\xa9", "\\u20ac", "\x1f", "\xf0\x9f\x98\x80",
                                     "\\\"", "\\\\"};
    static const char *decoded[] = {"", "\n", "\x01", "\xc3\xa9", "\xe2\x82\xac", "\x1f", "\xf0\x9f\x98\x80", "\"", "\\"};
    static const char fill[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
        for (int pos = 0; pos < 72; pos++) {   /* across the inline 16-byte step and two 32-byte ones */
            char doc[128], want[128];
            int n = snprintf(doc, sizeof doc, "\"%.*s%s%s\"", pos, fill, specials[k], k ? "tail" : "");
            snprintf(want, sizeof want, "%.*s%s%s", pos, fill, decoded[k], k ? "tail" : "");
            tp_error err = {0};
            tp_json j;
            tp_json_init_mem(&j, doc, (size_t)n, "mem", &err);
            tp_jspan s = {0, 0};
            int r = tp_json_string(&j, &s);
            char got[128] = "";
            if (r == 0)
                memcpy(got, tp_json_ptr(&j, s), s.len);
            char name[64];
            snprintf(name, sizeof name, "json.scan.string.%zu.%d", k, pos);
            CHECK_STR(name, got, want);
            tp_json_free(&j);
        }
    }
    for (int pos = 0; pos < 72; pos++) {
        const char *blanks[] = {" ", "\n", "\r", "\t"};
        char doc[128] = "";
        for (int i = 0; i < pos; i++)
            strcat(doc, blanks[i % 4]);
        strcat(doc, "7");
        tp_error err = {0};
        tp_json j;
        tp_json_init_mem(&j, doc, strlen(doc), "mem", &err);
        char name[64];
        snprintf(name, sizeof name, "json.scan.blanks.%d", pos);
        CHECK_INT(name, tp_json_peek(&j), '7');
        tp_json_free(&j);
        /* a control character that is not a blank stops the skip */
        doc[pos] = '\x01';
        tp_json_init_mem(&j, doc, (size_t)pos + 1, "mem", &err);
        snprintf(name, sizeof name, "json.scan.blanks.ctl.%d", pos);
        CHECK_INT(name, tp_json_peek(&j), 1);
        tp_json_free(&j);
    }
}

/* Whether text[0..len) is what tp_json_number_int reads as thousandths:
 * (0|[1-9][0-9]{0,14})\.[0-9]{1,3}. */
static int milli_text(const char *t, size_t len)
{
    size_t i = 0;
    while (i < len && t[i] >= '0' && t[i] <= '9')
        i++;
    if (i == 0 || i > 15 || (t[0] == '0' && i > 1) || i >= len || t[i] != '.')
        return 0;
    size_t d = 0;
    for (i++; i < len && t[i] >= '0' && t[i] <= '9'; i++)
        d++;
    return i == len && d >= 1 && d <= 3;
}

/* The kind and value tp_json_number_int must give for the number s (read
 * whole, inside the window): 1 and the integer, TP_JSON_MILLI and the
 * thousandths, else 0. */
static int number_kind(const char *s, size_t len, int plain, int64_t *want)
{
    if (plain)
        return 1;
    if (milli_text(s, len) && tp_decimal_us_to_ns(s, len, want) == 0)
        return TP_JSON_MILLI;
    return 0;
}

/* Numbers, through the one-pass path and the general one: each in an array
 * (the value then a terminator inside the window) and bare at the end. */
static void test_numbers(void)
{
    struct { const char *text; int ok; } nums[] = {
        {"0", 1}, {"-0", 1}, {"7", 1}, {"-12", 1}, {"1623142623460111", 1}, {"88511388202.765", 1},
        {"0.5", 1}, {"-0.25", 1}, {"1e3", 1}, {"1.5E-7", 1}, {"-1.5e+2", 1}, {"NaN", 1}, {"Infinity", 1},
        {"-Infinity", 1}, {"01", 0}, {"-", 0}, {"1.", 0}, {".5", 0}, {"-.5", 0}, {"1e", 0}, {"1.5e+", 0},
        {"00", 0}, {"-01.5", 0}, {"1.2.3", 0}, {"--1", 0}, {"1ee", 0},
    };
    const char *frames[] = {"[%s]", "[%s ,1]", "[%s\n]", "[%s,2]", "[%s}"};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        for (size_t f = 0; f < sizeof frames / sizeof frames[0]; f++) {
            char doc[64];
            snprintf(doc, sizeof doc, frames[f], nums[i].text);
            tp_error err = {0};
            tp_json j;
            tp_json_init_mem(&j, doc, strlen(doc), "mem", &err);
            int n = 0;
            tp_jspan s = {0, 0};
            int r = tp_json_arr_begin(&j) == 0 && tp_json_arr_next(&j, &n) == 1 ? tp_json_number(&j, &s) : -2;
            char name[80];
            snprintf(name, sizeof name, "json.number.%s.%zu", nums[i].text, f);
            if (nums[i].ok)
                CHECK(name, r == 0 && s.len == strlen(nums[i].text) &&
                                memcmp(tp_json_ptr(&j, s), nums[i].text, s.len) == 0);
            else
                CHECK(name, r == -1 && strstr(err.msg, "invalid number") != NULL);
            tp_json_free(&j);
        }
    }
    /* tp_json_number_int: the same span and error as tp_json_number, and
     * the value of a plain integer as tp_decimal_to_i64 reads it */
    const char *more[] = {"123456789012345678", "-123456789012345678", "1234567890123456789", "9223372036854775807",
                          "0.5", "2.736", "5.74", "2211724343839.162", "999999999999999.999", "1234567890123456.5",
                          "2.7361", "-2.5", "2.5e3", "0.000", "10.0",
                          "12e3", "5"};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0] + sizeof more / sizeof more[0]; i++) {
        const char *text = i < sizeof nums / sizeof nums[0] ? nums[i].text : more[i - sizeof nums / sizeof nums[0]];
        for (size_t f = 0; f < sizeof frames / sizeof frames[0]; f++) {
            char doc[64];
            snprintf(doc, sizeof doc, frames[f], text);
            tp_error e1 = {0}, e2 = {0};
            tp_json j1, j2;
            tp_json_init_mem(&j1, doc, strlen(doc), "mem", &e1);
            tp_json_init_mem(&j2, doc, f == 4 ? strlen(doc) - 1 : strlen(doc), "mem", &e2);   /* and at the end */
            int n1 = 0, n2 = 0, is_int = -1;
            int64_t v = 0, want = 0;
            tp_jspan s1 = {0, 0}, s2 = {0, 0};
            int r1 = tp_json_arr_begin(&j1) == 0 && tp_json_arr_next(&j1, &n1) == 1 ? tp_json_number(&j1, &s1) : -2;
            int r2 = tp_json_arr_begin(&j2) == 0 && tp_json_arr_next(&j2, &n2) == 1
                         ? tp_json_number_int(&j2, &s2, &v, &is_int) : -2;
            if (f == 4) {   /* the window ends with the number: the general path */
                tp_json_free(&j1);
                tp_json_init_mem(&j1, doc, strlen(doc) - 1, "mem", &e1);
                n1 = 0;
                r1 = tp_json_arr_begin(&j1) == 0 && tp_json_arr_next(&j1, &n1) == 1 ? tp_json_number(&j1, &s1) : -2;
            }
            int plain = r2 == 0 && tp_decimal_to_i64(tp_json_ptr(&j2, s2), s2.len, &want) == 0 &&
                        strchr(text, 'e') == NULL && strchr(text, '.') == NULL && s2.len <= 18 + (text[0] == '-');
            char name[96];
            snprintf(name, sizeof name, "json.number_int.%s.%zu", text, f);
            int kind = r2 == 0 && f != 4 ? number_kind(tp_json_ptr(&j2, s2), s2.len, plain, &want) : 0;
            CHECK(name, r1 == r2 && s1.off == s2.off && s1.len == s2.len && strcmp(e1.msg, e2.msg) == 0 &&
                            (r2 != 0 || is_int == kind) && (!is_int || v == want));
            tp_json_free(&j1);
            tp_json_free(&j2);
        }
    }
}

/* A reader of doc[0..len): from memory (window 0), or from a file named
 * `name` streamed through a window of `window` bytes. */
static int open_reader(tp_json *j, tp_source **src, const char *name, const char *doc, size_t len, size_t window,
                       tp_error *err)
{
    *src = NULL;
    if (!window)
        return tp_json_init_mem(j, doc, len, name, err);
    if (tp_source_open(src, write_tmp(name, doc, len), err) != TP_OK)
        return err->status;
    size_t saved = tp_json_window_bytes;
    tp_json_window_bytes = window;
    int rc = tp_json_init_source(j, *src, err);
    tp_json_window_bytes = saved;
    return rc;
}

/* tp_json_number_int reads eight digits at a time: integers of every length
 * to 20 digits, with a byte next to the digits in ASCII (':', '/'), a UTF-8
 * byte whose low half is a digit, a fraction or an exponent at every
 * position, in a window that ends right after the number or a byte later:
 * the span and error tp_json_number gives, the value tp_decimal_to_i64
 * reads, and is_int exactly for a plain integer of up to 18 digits. */
static void test_number_runs(void)
{
    static const char digits[] = "98765432109876543210";
    static const char *breaks[] = {"", ":", "/", "\xb5", ".5", ".25", ".125", ".1250", "e3", "x"};
    int ok = 1;
    for (size_t b = 0; b < sizeof breaks / sizeof breaks[0] && ok; b++) {
        for (int len = 1; len <= 20 && ok; len++) {
            for (int at = 0; at <= len && ok; at++) {
                if (!breaks[b][0] && at != len)
                    continue;
                for (int neg = 0; neg < 2 && ok; neg++) {
                    char doc[64];
                    int n = snprintf(doc, sizeof doc, "[%s%.*s%s%.*s,", neg ? "-" : "", at, digits, breaks[b],
                                     len - at, digits + at);
                    for (int cut = 0; cut < 2 && ok; cut++) {
                        size_t dlen = (size_t)n - (size_t)cut;   /* with the ',' or ending with the number */
                        tp_error e1 = {0}, e2 = {0};
                        tp_json j1, j2;
                        tp_json_init_mem(&j1, doc, dlen, "mem", &e1);
                        tp_json_init_mem(&j2, doc, dlen, "mem", &e2);
                        int n1 = 0, n2 = 0, is_int = -1;
                        int64_t v = 0, want = 0;
                        tp_jspan s1 = {0, 0}, s2 = {0, 0};
                        int r1 = tp_json_arr_begin(&j1) == 0 && tp_json_arr_next(&j1, &n1) == 1
                                     ? tp_json_number(&j1, &s1) : -2;
                        int r2 = tp_json_arr_begin(&j2) == 0 && tp_json_arr_next(&j2, &n2) == 1
                                     ? tp_json_number_int(&j2, &s2, &v, &is_int) : -2;
                        int plain = !breaks[b][0] && len <= 18 && !cut && !(digits[0] == '0' && len > 1);
                        if (plain)
                            tp_decimal_to_i64(doc + 1, (size_t)(len + neg), &want);
                        int kind = r2 == 0 && !cut ? number_kind(tp_json_ptr(&j2, s2), s2.len, plain, &want) : 0;
                        if (!(r1 == r2 && s1.off == s2.off && s1.len == s2.len && strcmp(e1.msg, e2.msg) == 0 &&
                              (r2 != 0 || is_int == kind) && (!is_int || v == want))) {
                            fprintf(stderr, "  %.*s: r %d/%d len %u/%u is_int %d value %lld want %lld\n", (int)dlen,
                                    doc, r1, r2, s1.len, s2.len, is_int, (long long)v, (long long)want);
                            ok = 0;
                        }
                        tp_json_free(&j1);
                        tp_json_free(&j2);
                    }
                }
            }
        }
    }
    CHECK("json.number_int.runs", ok);
}

/* An object of string members read key by key, from memory (window 0) or
 * streamed through a window of `window` bytes; the result as text: each
 * key and value decoded (the key copied before the value is read: reading
 * can move the window, reliability D1), the control characters and where
 * the first was, or the error message. */
static void stream_strings_result(const char *doc, size_t len, size_t window, char *out, size_t cap)
{
    tp_error err = {0};
    tp_json j;
    tp_source *src = NULL;
    if (open_reader(&j, &src, "strings.json", doc, len, window, &err) != TP_OK) {
        snprintf(out, cap, "open failed");
        return;
    }
    size_t o = 0;
    int n = 0, r = tp_json_obj_begin(&j);
    tp_jspan key, val;
    while (r == 0 && (r = tp_json_obj_next(&j, &n, &key)) == 1) {
        char k[64];
        snprintf(k, sizeof k, "%.*s", (int)key.len, tp_json_ptr(&j, key));
        if ((r = tp_json_string(&j, &val)) < 0)
            break;
        const unsigned char *v = (const unsigned char *)tp_json_ptr(&j, val);
        o += (size_t)snprintf(out + o, cap - o, "%s=", k);
        for (uint32_t i = 0; i < val.len && o + 8 < cap; i++)
            o += (size_t)snprintf(out + o, cap - o, v[i] >= 0x20 && v[i] < 0x7f ? "%c" : "\\x%02x", v[i]);
        o += (size_t)snprintf(out + o, cap - o, ";");
        tp_json_set_mark(&j);
        r = 0;
    }
    if (r < 0)
        snprintf(out + o, cap - o, " error %.200s", strstr(err.msg, "byte") ? strstr(err.msg, "byte") : err.msg);
    else
        snprintf(out + o, cap - o, " ctl %llu@%llu", (unsigned long long)j.control_chars,
                 (unsigned long long)j.first_control_off);
    tp_json_free(&j);
    tp_source_close(src);
}

/* Strings that cross the window's end at every byte: escapes, runs of one
 * to nine backslashes before a quote (an odd run escapes it), \u escapes
 * and surrogate pairs, raw UTF-8 of two to four bytes, control characters,
 * long plain runs that cross 16- and 32-byte steps; whole and truncated.
 * Every window from 4 to 96 bytes gives what reading from memory gives. */
static void test_stream_strings(void)
{
    static const char *values[] = {
        "plain", "a\\\"b", "\\\\", "x\\\\\\\\", "\\\\\\\"\\\\", "\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\", "\\\\\\\\\\\\\\\\\\\"q",
        "\\u00e9\\u20ac", "\\ud83d\\ude00!", "\\ud800", "caf\xc3\xa9", "\xe2\x82\xac\xf0\x9f\x98\x80", "t\x01" "ab\x1f",
        "0123456789abcdef0123456789abcdef0123456789", "0123456789abcde\\n0123456789abcdef0123456789abcd\\t",
        "\\/\\b\\f\\n\\r\\t", "",
    };
    /* each makes the doc fail: a cut UTF-8 sequence, a cut \u escape, a
     * backslash that escapes the closing quote, a bad escape */
    static const char *bad[] = {"\xc3", "\\u12", "\\", "\\x"};
    enum { NGOOD = sizeof values / sizeof values[0], NBAD = sizeof bad / sizeof bad[0] };
    char mem[4096], streamed[4096];
    int ok = 1;
    for (int b = -1; b < NBAD && ok; b++) {
        /* the good members, then (b >= 0) one bad one */
        char doc[2048];
        size_t len = (size_t)snprintf(doc, sizeof doc, "{");
        for (int i = 0; i < NGOOD + (b >= 0); i++)
            len += (size_t)snprintf(doc + len, sizeof doc - len, "%s\"k%d\": \"%s\"", i ? ",\n  " : "", i,
                                    i < NGOOD ? values[i] : bad[b]);
        len += (size_t)snprintf(doc + len, sizeof doc - len, "}");
        stream_strings_result(doc, len, 0, mem, sizeof mem);
        if (b < 0)   /* what the good members decode to */
            CHECK("json.stream.strings.decoded",
                  strstr(mem, "k1=a\"b;k2=\\;k3=x\\\\;k4=\\\"\\;k5=\\\\\\\\\\\\\\\\\\;k6=\\\\\\\\\"q;"
                              "k7=\\xc3\\xa9\\xe2\\x82\\xac;k8=\\xf0\\x9f\\x98\\x80!;k9=\\xef\\xbf\\xbd;") != NULL &&
                      strstr(mem, "k12=t\\x01ab\\x1f;") != NULL && strstr(mem, "k16=; ctl 2@") != NULL);
        else
            ok = strstr(mem, " error byte ") != NULL;
        for (size_t w = 4; w <= 96 && ok; w++) {
            stream_strings_result(doc, len, w, streamed, sizeof streamed);
            if (strcmp(streamed, mem) != 0) {
                fprintf(stderr, "  window %zu:\n    %s\n  from memory:\n    %s\n", w, streamed, mem);
                ok = 0;
            }
        }
        /* truncated at every byte, through a 16-byte window */
        for (size_t cut = 1; cut < len && ok && b < 0; cut++) {
            stream_strings_result(doc, cut, 0, mem, sizeof mem);
            stream_strings_result(doc, cut, 16, streamed, sizeof streamed);
            if (strcmp(streamed, mem) != 0 || !strstr(mem, " error byte ")) {
                fprintf(stderr, "  cut at %zu, window 16:\n    %s\n  from memory:\n    %s\n", cut, streamed, mem);
                ok = 0;
            }
        }
    }
    CHECK("json.stream.strings", ok);
}

/* tp_json_skip on `doc` (followed by " ,9" so the value never ends the
 * input), from memory (window 0) or streamed through a window of `window`
 * bytes; the result as text: "ok LEN" or the error message. */
static void skip_result(const char *doc, size_t window, char *out, size_t cap)
{
    char text[256];
    int n = snprintf(text, sizeof text, "%s ,9", doc);
    tp_error err = {0};
    tp_json j;
    tp_source *src = NULL;
    if (open_reader(&j, &src, "skip.json", text, (size_t)n, window, &err) != TP_OK) {
        snprintf(out, cap, "open failed");
        return;
    }
    tp_jspan raw = {0, 0};
    if (tp_json_skip(&j, &raw) == 0)
        snprintf(out, cap, "ok %u", raw.len);
    else
        snprintf(out, cap, "%.200s", err.msg + (strstr(err.msg, "skip.json") ? strstr(err.msg, "skip.json") - err.msg : 0));
    tp_json_free(&j);
    tp_source_close(src);
}

/* The fast lane of tp_json_skip hands over to the general loop at escapes,
 * UTF-8, exponents, errors and the window's end, and takes over again
 * after: every doc gives the same answer from memory and through windows
 * that end at each byte. */
static void test_skip(void)
{
    struct { const char *doc; const char *want; } cases[] = {
        {"[[1, 3], [], [\"a\", \"b\"]]", "ok 24"},
        {"[ ]", "ok 3"},
        {"[1,\n 2 ,\t3 ]", "ok 12"},
        {"[1, {\"a\": [true, null]}, \"x\\ny\", -0.5e3, [[[]]], NaN]", "ok 53"},
        {"[\"a\x01" "b\", [0.25]]", "ok 15"},
        {"[\"caf\xc3\xa9\", -7]", "ok 13"},
        {"[1 2]", "expected ',' or ']' in array"},
        {"[1,]", "unexpected character"},
        {"[01]", "invalid number"},
        {"[[1], x]", "unexpected character"},
        {"[1, tru]", "invalid literal"},
        {"[\"a\\q\"]", "bad escape in a string"},
        {"{\"a\": \"]}[{\", \"b\": [\"\\\"]\", \"x\\\\\"], \"c\": {\"d\": [1, {\"e\": \"}\"}]}, \"f\": false}", "ok 75"},
        {"{\"a\": {\"b\": null}, \"c\": tru}", "invalid literal"},
        {"{\"a\" 1}", "expected ':' after key"},
        {"{\"a\": 1,}", "expected a string key in object"},
        {"{\"a\": [1, 2} ", "expected ',' or ']' in array"},
        {"{\"k\\u0061\": [\"\xc3\xa9\", 1e5, -0]}", "ok 28"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char mem[256], name[64];
        skip_result(cases[i].doc, 0, mem, sizeof mem);
        snprintf(name, sizeof name, "json.skip.%zu", i);
        CHECK(name, strstr(mem, cases[i].want) != NULL);
        if (!strstr(mem, cases[i].want))
            fprintf(stderr, "  got: %s\n", mem);
        int same = 1;
        for (size_t w = 4; w < 64; w++) {
            char streamed[256];
            skip_result(cases[i].doc, w, streamed, sizeof streamed);
            if (strcmp(streamed, mem) != 0) {
                fprintf(stderr, "  window %zu: %s, from memory: %s\n", w, streamed, mem);
                same = 0;
                break;
            }
        }
        snprintf(name, sizeof name, "json.skip.%zu.windows", i);
        CHECK(name, same);
    }
    /* truncated inside the fast lane: the general loop names the end */
    const char *cut[] = {"[[", "[1, 2", "[\"abc", "[1,"};
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        tp_error err = {0};
        tp_json j;
        tp_json_init_mem(&j, cut[i], strlen(cut[i]), "mem", &err);
        char name[64];
        snprintf(name, sizeof name, "json.skip.truncated.%zu", i);
        CHECK(name, tp_json_skip(&j, NULL) < 0 && err.status == TP_ERR_TRUNCATED);
        tp_json_free(&j);
    }
}

/* doc[0..len) read as one value from a buffer of exactly len bytes (so
 * that ASan sees any read past it): a string decoded, anything else
 * skipped; the result as text — the value's bytes, the control characters
 * counted and where the first was, or the error message with its offset. */
static void mem_result(const char *doc, size_t len, char *out, size_t cap)
{
    char *buf = malloc(len ? len : 1);
    memcpy(buf, doc, len);
    tp_error err = {0};
    tp_json j;
    tp_json_init_mem(&j, buf, len, "mem", &err);
    tp_jspan s = {0, 0};
    int r = len && doc[0] == '"' ? tp_json_string(&j, &s) : tp_json_skip(&j, &s);
    if (r == 0) {
        size_t o = (size_t)snprintf(out, cap, "ok %u ctl %llu@%llu end %llu: ", s.len, (unsigned long long)j.control_chars,
                                    (unsigned long long)j.first_control_off, (unsigned long long)tp_json_offset(&j));
        const unsigned char *v = (const unsigned char *)tp_json_ptr(&j, s);
        for (uint32_t i = 0; i < s.len && o + 5 < cap; i++)
            o += (size_t)snprintf(out + o, cap - o, v[i] >= 0x20 && v[i] < 0x7f ? "%c" : "\\x%02x", v[i]);
    } else {
        snprintf(out, cap, "%s", err.msg);
    }
    tp_json_free(&j);
    free(buf);
}

/* Every scan path gives the scalar path's answer for doc and for each of
 * its prefixes (truncated input at every position). */
static int paths_agree(const char *doc, size_t len)
{
    int saved = tp_json_simd, ok = 1;
    char want[1024], got[1024];
    for (size_t cut = 0; cut <= len && ok; cut++) {
        tp_json_simd = TP_SIMD_SCALAR;
        mem_result(doc, cut, want, sizeof want);
        for (int level = TP_SIMD_SSE2; level <= tp_json_simd_max() && ok; level++) {
            tp_json_simd = level;
            mem_result(doc, cut, got, sizeof got);
            if (strcmp(got, want) != 0) {
                fprintf(stderr, "  %s at %zu of %zu bytes: %s; scalar: %s\n", tp_json_simd_name(level), cut, len, got, want);
                ok = 0;
            }
        }
    }
    tp_json_simd = saved;
    return ok;
}

/* Strings with an escape, a control character, UTF-8 (good and bad) at
 * every offset modulo 32 and past, and values to skip whose strings hold
 * brackets, quotes and backslashes: each path agrees with the scalar one,
 * whole and cut at every byte.  Runs once: it switches paths itself. */
static void test_paths_agree(void)
{
    static const char *specials[] = {"\\\"", "\\\\", "\\/", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\x01", "\x1f",
                                     "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xff", "\xc3(",
                                     "\xed\xa0\x80", "\\q", "\\u12G4", "]}[{,:"};
    static const char fill[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
        int ok = 1;
        for (int pos = 0; pos < 70 && ok; pos++) {
            char doc[160];
            int n = snprintf(doc, sizeof doc, "\"%.*s%s%.*s\"", pos, fill, specials[k], 40, fill);
            ok = paths_agree(doc, (size_t)n);
            /* the same string as a member of an object to skip */
            n = snprintf(doc, sizeof doc, "{\"k%.*s\": [\"%.*s%s\", {}], \"x\": 1}", pos % 33, fill, pos, fill, specials[k]);
            ok = ok && paths_agree(doc, (size_t)n);
        }
        char name[64];
        snprintf(name, sizeof name, "json.paths.string.%zu", k);
        CHECK(name, ok);
    }
    static const char *docs[] = {
        "{\"a\": \"]}[{\", \"b\": [\"\\\"]\", \"x\\\\\\\\\", \"\\u005d\"], \"c\": {\"d\": [1, {\"e\": \"}\"}], \"g\": {}}, "
        "\"f\": true, \"h\": null, \"i\": false, \"j\": -1.5e3, \"k\": \"caf\xc3\xa9 and a string over thirty-two bytes\"}",
        "[[[[[[[[[[\"deep\"]]]]]]]]]]",
        "{\n  \"args\": {\n    \"Input Dims\": [[1, 3, 224, 224], []],\n    \"x\": {\"y\": [true, false, null]}\n  }\n}",
        "{\"a\": [1, }", "{\"a\" \"b\"}", "{,}", "{\"a\":1,}", "[1,]", "{\"a\": [}]}", "{\"a\": tru}", "{\"a\": nul",
        "{\"a\": \"x\x01y\", \"b\": \"\x02\"}", "[01]", "[1.]", "[-]", "[NaN, -Infinity, 1e5]", "{\"\\u0061\": 1}",
        "{\"\xc3\xa9\": [\"\xe2\x82\xac\"]}", "[\"\\ud800\\udc00\", \"\\udc00\"]", "{\"a\": {\"b\": {\"c\": []}}} ",
        "{\"a\":\t1 ,\r\n\"b\" : 2 }", "[ , 1]", "{\"a\": 1 \"b\": 2}", "{\"a\": [1 2]}", "{} x", "[\"a\" : 1]",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "json.paths.skip.%zu", i);
        CHECK(name, paths_agree(docs[i], strlen(docs[i])));
    }
}

static void test_decimals(void)
{
    struct { const char *s; int ok; int64_t ns; } us[] = {
        {"1623142623460111", 1, INT64_C(1623142623460111000)},
        {"88511388202.765", 1, INT64_C(88511388202765)},
        {"0.5", 1, 500}, {"1.5e3", 1, 1500000}, {"-2.5", 1, -2500},
        {"0.0005", 1, 0}, {"0.0015", 1, 2}, {"0.0025", 1, 2}, {"12.3456", 1, 12346},
        {"1e30", 0, 0}, {"abc", 0, 0}, {"", 0, 0}, {"1.", 0, 0}, {"9223372036854775.807", 1, INT64_MAX},
        {"9223372036854775.808", 0, 0},
        /* the fast path's edges: 16 integer digits, in range and past it */
        {"9223372036854775", 1, INT64_C(9223372036854775000)}, {"9223372036854776", 0, 0},
        {"9999999999999999", 0, 0}, {"9999999999999999.9", 0, 0}, {"12345678901234567", 0, 0},
        {"1623142623460111.5", 1, INT64_C(1623142623460111500)}, {"1.", 0, 0}, {"7.", 0, 0},
    };
    for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
        int64_t v = 0;
        int r = tp_decimal_us_to_ns(us[i].s, strlen(us[i].s), &v);
        char name[80];
        snprintf(name, sizeof name, "decimal.us_to_ns.%s", us[i].s);
        CHECK(name, us[i].ok ? (r == 0 && v == us[i].ns) : r != 0);
    }
    int64_t v;
    CHECK("decimal.i64.plain", tp_decimal_to_i64("-42", 3, &v) == 0 && v == -42);
    CHECK("decimal.i64.exp", tp_decimal_to_i64("1e3", 3, &v) == 0 && v == 1000);
    CHECK("decimal.i64.fraction", tp_decimal_to_i64("1.5", 3, &v) != 0);
    CHECK("decimal.i64.big", tp_decimal_to_i64("18446744073709551616", 20, &v) != 0);
}

static size_t count_kind(const tp_store *st, enum tp_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++)
        n += st->kind[i] == k;
    return n;
}

static int load(const char *path, tp_store **out, tp_error *err)
{
    *out = tp_store_new();
    memset(err, 0, sizeof *err);
    return tp_store_load(*out, path, err);
}

static void test_sample(const char *sample)
{
    tp_store *st;
    tp_error err;
    CHECK_INT("kineto.sample.load", load(sample, &st, &err), TP_OK);
    CHECK_INT("kineto.sample.kernels", count_kind(st, TP_K_KERNEL), 3);
    CHECK_INT("kineto.sample.runtime", count_kind(st, TP_K_RUNTIME), 4);
    CHECK_INT("kineto.sample.memcpy", count_kind(st, TP_K_MEMCPY), 1);
    CHECK_INT("kineto.sample.memory", count_kind(st, TP_K_MEMORY), 1);
    CHECK_INT("kineto.sample.flows", count_kind(st, TP_K_FLOW), 2);
    CHECK_INT("kineto.sample.devices", st->ndevices, 1);
    CHECK_INT("kineto.sample.rank", st->rank, 0);
    CHECK_INT("kineto.sample.malformed", st->nskips, 0);
    /* 1060.000 us and 42.375 us exactly, in ns */
    int found = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_KERNEL && st->ts[i] == 1060000 && st->dur[i] == 42375)
            found = 1;
    CHECK("kineto.sample.exact_ns", found);
    CHECK_INT("kineto.sample.link", tp_store_link(st, &err), TP_OK);
    CHECK_INT("kineto.sample.steps", st->nsteps, 1);
    CHECK_INT("kineto.sample.annots", st->nannots, 3);
    if (st->nannots == 3) {
        const struct tp_kernel_annot *a = st->annots;
        CHECK_STR("link.launch_op.gemm", tp_store_str(st, a[0].op), "addmm");
        CHECK_STR("link.mod.gemm", tp_store_str(st, a[0].mod), "aten");
        CHECK_STR("link.layer", tp_store_str(st, a[0].layer), "nn.Module: Linear_0");
        CHECK_STR("link.trace", tp_store_str(st, a[0].trace), "train.py:12,model.py:40");
        CHECK_STR("link.trace_last", tp_store_str(st, a[0].trace_last), "model.py:40");
        CHECK_STR("link.seq", tp_store_str(st, a[0].seq), "12");
        CHECK_INT("link.fprop", a[0].bprop, 0);
        CHECK_STR("link.relu", tp_store_str(st, a[1].op), "relu");
        CHECK_INT("link.bprop", a[2].bprop, 1);
        CHECK_STR("link.bprop.seq", tp_store_str(st, a[2].seq), "12");
        CHECK_STR("link.bprop.op", tp_store_str(st, a[2].op), "mm");
    }
    /* the memcpy is launched by its runtime call */
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_MEMCPY)
            CHECK("link.memcpy.launcher", tp_store_launcher(st, i) >= 0 && st->correlation[tp_store_launcher(st, i)] == 504);
    tp_store_free(st);
}

/* Cut the sample at every byte: never a crash, an error for every proper
 * prefix, and never more events than the whole file. */
static void test_truncation(const char *sample, const char *doc, size_t len)
{
    tp_store *full;
    tp_error err;
    load(sample, &full, &err);
    size_t nfull = full->n;
    tp_store_free(full);
    int all_fail = 1, none_more = 1, msg_ok = 1;
    size_t last_n = 0, monotonic = 1;
    for (size_t cut = 0; cut < len - 2; cut++) {
        const char *p = write_tmp("cut.json", doc, cut);
        tp_store *st;
        int rc = load(p, &st, &err);
        if (rc == TP_OK)
            all_fail = 0;
        if (st->n > nfull)
            none_more = 0;
        if (st->n < last_n)
            monotonic = 0;
        last_n = st->n;
        if (cut > 0 && !strstr(err.msg, "cut.json"))
            msg_ok = 0;
        tp_store_free(st);
    }
    CHECK("kineto.truncated.every_byte_fails", all_fail);
    CHECK("kineto.truncated.no_extra_events", none_more);
    CHECK("kineto.truncated.keeps_prefix_events", monotonic);
    CHECK("kineto.truncated.message_names_file", msg_ok);
}

/* The sample (doc, len bytes) gzip- and zstd-compressed. */
static void test_compressed(const char *sample, const char *doc, size_t len)
{
    /* gzip */
    char gzpath[256];
    snprintf(gzpath, sizeof gzpath, "%s/s.json.gz", tmpdir());
    gzFile gz = gzopen(gzpath, "wb");
    gzwrite(gz, doc, (unsigned)len);
    gzclose(gz);
    /* zstd */
    size_t cap = ZSTD_compressBound(len);
    char *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, doc, len, 3);
    const char *zpath = write_tmp("s.json.zst", z, zn);
    tp_store *a, *b, *c;
    tp_error err;
    load(sample, &a, &err);
    CHECK_INT("source.gzip.load", load(gzpath, &b, &err), TP_OK);
    CHECK_INT("source.gzip.events", b->n, a->n);
    CHECK_STR("source.gzip.sniffed", b->compression, "gzip");
    CHECK_INT("source.zstd.load", load(zpath, &c, &err), TP_OK);
    CHECK_INT("source.zstd.events", c->n, a->n);
    CHECK_STR("source.zstd.sniffed", c->compression, "zstd");
    tp_store_free(b);
    tp_store_free(c);
    /* A window far smaller than one event: every span crosses a refill. */
    size_t saved = tp_json_window_bytes;
    tp_json_window_bytes = 64;
    CHECK_INT("json.tiny_window.load", load(gzpath, &b, &err), TP_OK);
    CHECK_INT("json.tiny_window.events", b->n, a->n);
    int same = b->n == a->n;
    for (size_t i = 0; same && i < a->n; i++)
        same = a->ts[i] == b->ts[i] && a->dur[i] == b->dur[i] &&
               strcmp(tp_store_str(a, a->name[i]), tp_store_str(b, b->name[i])) == 0;
    CHECK("json.tiny_window.same_events", same);
    tp_store_free(b);
    /* truncated gzip */
    FILE *f = fopen(gzpath, "rb");
    char gzb[65536];
    size_t gzn = fread(gzb, 1, sizeof gzb, f);
    fclose(f);
    const char *tg = write_tmp("t.json.gz", gzb, gzn / 2);
    CHECK("source.gzip.truncated", load(tg, &b, &err) != TP_OK && strstr(err.msg, "t.json.gz"));
    tp_store_free(b);
    const char *tz = write_tmp("t.json.zst", z, zn / 2);
    CHECK("source.zstd.truncated", load(tz, &b, &err) != TP_OK && strstr(err.msg, "t.json.zst"));
    tp_store_free(b);
    tp_json_window_bytes = saved;
    tp_store_free(a);
    free(z);
}

static void expect_error(const char *name, const char *content, size_t len, enum tp_status st_want,
                         const char *msg_part)
{
    const char *p = write_tmp("bad.json", content, len);
    tp_store *st;
    tp_error err;
    int rc = load(p, &st, &err);
    char n1[96];
    snprintf(n1, sizeof n1, "bad.%s", name);
    if (rc == (int)st_want && strstr(err.msg, msg_part) && strstr(err.msg, "bad.json"))
        printf("ok %s\n", n1);
    else {
        printf("FAIL %s: rc %d msg '%s'\n", n1, rc, err.msg);
        tt_failed++;
    }
    tp_store_free(st);
}

static void expect_malformed(const char *name, const char *content, size_t events_left)
{
    const char *p = write_tmp("mal.json", content, strlen(content));
    tp_store *st;
    tp_error err;
    int rc = load(p, &st, &err);
    char n1[96];
    snprintf(n1, sizeof n1, "malformed.%s", name);
    int ok = rc == TP_OK && st->n == events_left && st->nskips == 1 && st->skips[0].malformed;
    if (ok)
        printf("ok %s\n", n1);
    else {
        printf("FAIL %s: rc %d events %zu skips %zu (%s)\n", n1, rc, st->n, st->nskips,
               st->nskips ? st->skips[0].reason : "");
        tt_failed++;
    }
    tp_store_free(st);
}

static void test_bad_inputs(void)
{
    expect_error("empty", "", 0, TP_ERR_FORMAT, "empty");
    expect_error("blank", "  \n ", 4, TP_ERR_FORMAT, "empty");
    expect_error("not_trace", "{\"a\": 1}", 8, TP_ERR_FORMAT, "traceEvents");
    expect_error("text", "hello world", 11, TP_ERR_FORMAT, "not a trace");
    expect_error("garbage_after", "{\"traceEvents\": []} x", 21, TP_ERR_FORMAT, "after the end");
    expect_error("bad_utf8", "{\"traceEvents\": [{\"ph\":\"X\",\"name\":\"\xff\"}]}", 40, TP_ERR_FORMAT, "UTF-8");
    expect_error("truncated", "{\"traceEvents\": [{\"ph\":\"X\"", 26, TP_ERR_TRUNCATED, "truncated");
    expect_error("missing_comma", "{\"traceEvents\": [{\"ph\":\"X\"} {}]}", 32, TP_ERR_FORMAT, "expected ','");
    expect_error("deep", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", 54, TP_ERR_TRUNCATED, "byte");
    tp_store *st;
    tp_error err;
    CHECK("bad.missing_file", load("/nonexistent/x.json", &st, &err) == TP_ERR_IO &&
                                 strstr(err.msg, "/nonexistent/x.json: No such file"));
    tp_store_free(st);
    CHECK("bad.directory", load("/tmp", &st, &err) == TP_ERR_IO && strstr(err.msg, "directory"));
    tp_store_free(st);

    const char *ok_ev = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2}";
    char doc[512];
    snprintf(doc, sizeof doc, "{\"traceEvents\":[%s,{\"ph\":\"X\",\"name\":\"k\",\"ts\":[1],\"dur\":2}]}", ok_ev);
    expect_malformed("ts_array", doc, 1);
    snprintf(doc, sizeof doc, "{\"traceEvents\":[%s,{\"ph\":\"X\",\"name\":\"k\",\"ts\":1e300,\"dur\":2}]}", ok_ev);
    expect_malformed("ts_huge", doc, 1);
    snprintf(doc, sizeof doc, "{\"traceEvents\":[%s,{\"ph\":\"X\",\"name\":\"k\",\"ts\":1,\"dur\":-5}]}", ok_ev);
    expect_malformed("dur_negative", doc, 1);
    snprintf(doc, sizeof doc, "{\"traceEvents\":[%s,{\"ph\":\"X\",\"name\":7,\"ts\":1}]}", ok_ev);
    expect_malformed("name_number", doc, 1);
    snprintf(doc, sizeof doc, "{\"traceEvents\":[%s,{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,"
                              "\"args\":{\"correlation\":\"x\"}}]}", ok_ev);
    expect_malformed("correlation_string", doc, 1);
    snprintf(doc, sizeof doc, "{\"traceEvents\":[%s,42]}", ok_ev);
    expect_malformed("event_number", doc, 1);
    snprintf(doc, sizeof doc, "{\"traceEvents\":[%s,{\"ph\":\"X\",\"name\":\"a\x01\x1b[31m\",\"ts\":1}]}", ok_ev);
    expect_malformed("control_chars_kept", doc, 2);
    /* bare array and string timestamps (Ascend-style) */
    const char *arr = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":\"0\",\"tid\":\"stream 7\","
                      "\"ts\":\"1623142623460111.250\",\"dur\":\"2.5\"}]";
    const char *p = write_tmp("arr.json", arr, strlen(arr));
    CHECK_INT("kineto.bare_array", load(p, &st, &err), TP_OK);
    CHECK("kineto.string_ts", st->n == 1 && st->ts[0] == INT64_C(1623142623460111250) && st->dur[0] == 2500);
    char buf[32];
    CHECK_STR("kineto.string_tid", tp_store_tid_str(st, st->tid[0], buf), "stream 7");
    CHECK_INT("kineto.string_pid", st->pid[0], 0);
    tp_store_free(st);
    /* NaN/Infinity in args are accepted as Python does */
    const char *nan = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":1,"
                      "\"args\":{\"blocks per SM\":NaN,\"x\":-Infinity}}]}";
    p = write_tmp("nan.json", nan, strlen(nan));
    CHECK_INT("kineto.nan_args", load(p, &st, &err), TP_OK);
    tp_store_free(st);
}

/* deviceProperties of many objects, in two arrays (a repeated key adds to
 * the devices read before): every one read, in order, with its fields. */
static void test_many_devices(void)
{
    enum { N1 = 700, N2 = 333 };
    size_t cap = (N1 + N2) * 64 + 256, o = 0;
    char *doc = malloc(cap);
    o += (size_t)snprintf(doc + o, cap - o, "{\"traceEvents\": [], \"deviceProperties\": [");
    for (int i = 0; i < N1 + N2; i++) {
        if (i == N1)
            o += (size_t)snprintf(doc + o, cap - o, "], \"deviceProperties\": [");
        o += (size_t)snprintf(doc + o, cap - o, "%s{\"numSms\": %d, \"warpSize\": 32}", i == 0 || i == N1 ? "" : ", ", i);
    }
    o += (size_t)snprintf(doc + o, cap - o, "]}");
    tp_store *st = NULL;
    tp_error err = {0};
    CHECK_INT("kineto.many_devices.load", load(write_tmp("devices.json", doc, o), &st, &err), TP_OK);
    int ok = st && st->ndevices == N1 + N2;
    for (size_t i = 0; ok && i < st->ndevices; i++)
        ok = st->devices[i].num_sms == (int32_t)i && st->devices[i].id == (int32_t)i && st->devices[i].warp_size == 32;
    CHECK("kineto.many_devices", ok);
    tp_store_free(st);
    free(doc);
}

int main(void)
{
    const char *sample = "testdata/sample.pt.trace.json";
    if (access(sample, R_OK) != 0)
        sample = "../testdata/sample.pt.trace.json";
    size_t len;
    char *doc = tt_read_needed(sample, &len, "json.read_sample");
    /* the reader and the importer on each scan path this build and CPU
     * have, the names prefixed with the path but for the best one */
    char prefix[32];
    for (int level = TP_SIMD_SCALAR; level <= tp_json_simd_max(); level++) {
        tp_json_simd = level;
        snprintf(prefix, sizeof prefix, "%s:", tp_json_simd_name(level));
        tt_prefix = level == tp_json_simd_max() ? "" : prefix;
        test_strings();
        test_scan_offsets();
        test_numbers();
        test_number_runs();
        test_stream_strings();
        test_skip();
        test_sample(sample);
        if (doc) {
            test_truncation(sample, doc, len);
            test_compressed(sample, doc, len);
        }
        test_bad_inputs();
    }
    free(doc);
    tt_prefix = "";
    tp_json_simd = -1;
    test_paths_agree();
    test_many_devices();
    test_decimals();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir());
    if (system(cmd) != 0)
        printf("FAIL cleanup\n");
    TEST_EXIT();
}
