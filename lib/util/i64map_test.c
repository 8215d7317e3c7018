/* i64map_test.c — the int64 hash map: growth, lookups, the zeroed map. */
#include "i64map.h"
#include "testing.h"

int main(void)
{
    struct tp_i64map m = {0};
    CHECK_INT("zeroed map: absent", tp_i64map_get(&m, 7), -1);
    int ok = 1;
    for (int64_t k = 0; k < 100000 && ok; k++) {   /* sequential ids, many growths from 0 */
        int64_t *v = tp_i64map_slot(&m, k * 3 - 50000);
        ok = v && *v == -1;
        if (v)
            *v = k;
    }
    CHECK("100000 inserts, each new slot starts at -1", ok);
    CHECK_INT("count", m.n, 100000);
    ok = 1;
    for (int64_t k = 0; k < 100000; k++)
        ok &= tp_i64map_get(&m, k * 3 - 50000) == k;
    CHECK("every key found after growing", ok);
    CHECK_INT("absent key between stored ones", tp_i64map_get(&m, 1 - 50000), -1);
    int64_t *v = tp_i64map_slot(&m, -50000);
    CHECK("existing key: same slot, no insert", v && *v == 0 && m.n == 100000);
    CHECK_INT("INT64_MAX is a key like any other", (*tp_i64map_slot(&m, INT64_MAX) = 5, tp_i64map_get(&m, INT64_MAX)), 5);
    tp_i64map_free(&m);
    CHECK_INT("freed map: absent", tp_i64map_get(&m, 0), -1);

    struct tp_i64map s;
    CHECK("init for 10 keys", tp_i64map_init(&s, 10) == 0 && s.cap >= 20 && s.n == 0);
    CHECK_INT("init: absent", tp_i64map_get(&s, 0), -1);
    tp_i64map_free(&s);
    TEST_EXIT();
}
