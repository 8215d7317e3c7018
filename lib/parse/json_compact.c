/* json_compact.c — a JSON text on one line, for table cells: whitespace
 * outside strings dropped, ", " after commas ("[[4, 197, 768], [], [768]]"),
 * as kineto's pretty-printed Input Dims read in a terminal. */
#include "json.h"

void tp_json_compact(const char *j, char *out, size_t cap)
{
    size_t o = 0;
    int instr = 0;
    if (!cap)
        return;
    for (; j && *j && o + 2 < cap; j++) {
        if (instr) {
            if (*j == '\\' && j[1])
                out[o++] = *j++;
            else if (*j == '"')
                instr = 0;
            out[o++] = *j;
        } else if (*j == '"') {
            instr = 1;
            out[o++] = *j;
        } else if (*j != ' ' && *j != '\n' && *j != '\t' && *j != '\r') {
            out[o++] = *j;
            if (*j == ',')
                out[o++] = ' ';
        }
    }
    out[o] = 0;
}
