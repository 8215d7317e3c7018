/* json_scalar_test.c — json_test again on the word-at-a-time scans that
 * targets without SSE2 use: this file compiles its own copy of the reader
 * with the vector paths off (its definitions take the place of the
 * library's json.o at link time). */
#define TP_JSON_NO_SIMD 1
#include "json.c"
#include "json_test.c"
