/* autograd_name_test.c — tp_is_autograd_name finds "Backward" anywhere in
 * a name (its own scan, not memmem: link_annot.c) and names that begin
 * "autograd::engine::"; checked against memmem at every position and length
 * of a name, and with the bytes after the name unreadable to the scan (a
 * name is a span of the trace's text, not a C string). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "link.h"
#include "testing.h"

static int reference(const char *s, size_t len)
{
    return memmem(s, len, "Backward", 8) != NULL || (len >= 18 && memcmp(s, "autograd::engine::", 18) == 0);
}

int main(void)
{
    CHECK("plain frame", !tp_is_autograd_name("torch/nn/modules/module.py(1501): _call_impl", 44));
    CHECK("autograd node", tp_is_autograd_name("torch/autograd: MulBackward0", 28));
    CHECK("at the start", tp_is_autograd_name("Backward", 8));
    CHECK("at the end", tp_is_autograd_name("x.py(1): runBackward", 20));
    CHECK("one byte short", !tp_is_autograd_name("Backward", 7));
    CHECK("cut by the span", !tp_is_autograd_name("MulBackward0", 10));
    CHECK("B without the rest", !tp_is_autograd_name("BBBBackwarBackwar", 17));
    CHECK("overlapping Bs", tp_is_autograd_name("BBBackward", 10));
    CHECK("engine", tp_is_autograd_name("autograd::engine::evaluate_function: X", 38));
    CHECK("engine, short", !tp_is_autograd_name("autograd::engine:", 17));
    /* every placement of the word and of stray 'B's in a 40-byte name, every
     * prefix length: the same answer as memmem */
    char name[41];
    int agree = 1, found = 0;
    for (size_t at = 0; at <= 32 && agree; at++)
        for (size_t stray = 0; stray < 40 && agree; stray++) {
            memset(name, 'a', 40);
            name[40] = 0;
            memcpy(name + at, "Backward", 8);
            name[stray] = 'B';
            for (size_t len = 0; len <= 40; len++) {
                /* the name alone in an allocation: a read past it is an error under ASan/valgrind */
                char *copy = malloc(len ? len : 1);
                if (!copy)
                    return 1;
                memcpy(copy, name, len);
                int want = reference(copy, len);
                found += want;
                if (tp_is_autograd_name(copy, len) != want) {
                    fprintf(stderr, "differs: at %zu stray %zu len %zu\n", at, stray, len);
                    agree = 0;
                }
                free(copy);
            }
        }
    CHECK("same as memmem everywhere", agree && found > 0);
    TEST_EXIT();
}
