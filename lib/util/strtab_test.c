/* strtab_test.c — interning: ids in order of first sight, the same id for the
 * same bytes whatever their length (the hash's four-lane and tail paths),
 * strings that differ in one byte anywhere kept apart, growth. */
#include <stdio.h>
#include <string.h>
#include "strtab.h"
#include "testing.h"

int main(void)
{
    tp_strtab t;
    CHECK("init", tp_strtab_init(&t) == 0);
    CHECK_INT("empty string is id 0", tp_strtab_intern(&t, "", 0), 0);

    /* prefixes of a call stack, every length 1..300: lanes, words, bytes */
    char text[301];
    for (int i = 0; i < 300; i++)
        text[i] = (char)('!' + (i * 7) % 90);
    text[300] = '\0';
    int ok = 1;
    for (size_t len = 1; len <= 300; len++)
        ok &= tp_strtab_intern(&t, text, len) == len;
    CHECK("prefixes get ids in order of first sight", ok);
    ok = 1;
    for (size_t len = 1; len <= 300; len++)
        ok &= tp_strtab_intern(&t, text, len) == len && tp_strtab_find(&t, text, len) == len &&
              tp_strtab_len(&t, (uint32_t)len) == len && memcmp(tp_strtab_get(&t, (uint32_t)len), text, len) == 0;
    CHECK("same bytes, same id; the text kept", ok);

    /* one byte changed at every position of a 200-byte string: all new */
    uint32_t before = t.count;
    char copy[200];
    ok = 1;
    for (int pos = 0; pos < 200; pos++) {
        memcpy(copy, text, 200);
        copy[pos] ^= 1;
        ok &= tp_strtab_find(&t, copy, 200) == UINT32_MAX && tp_strtab_intern(&t, copy, 200) == before + (uint32_t)pos;
    }
    CHECK("a one-byte difference anywhere is another string", ok);

    /* many short names: the slots grow and every id is still found */
    char name[32];
    ok = 1;
    for (int i = 0; i < 50000; i++) {
        int n = snprintf(name, sizeof name, "aten::op_%d", i);
        ok &= tp_strtab_intern(&t, name, (size_t)n) != UINT32_MAX;
    }
    for (int i = 0; i < 50000 && ok; i++) {
        int n = snprintf(name, sizeof name, "aten::op_%d", i);
        uint32_t id = tp_strtab_find(&t, name, (size_t)n);
        ok = id != UINT32_MAX && strcmp(tp_strtab_get(&t, id), name) == 0;
    }
    CHECK("50000 names found after growing", ok);
    CHECK_INT("absent", tp_strtab_find(&t, "aten::op_x", 10), UINT32_MAX);
    tp_strtab_free(&t);
    TEST_EXIT();
}
