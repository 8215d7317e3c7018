/* suggest.c — "did you mean": the closest known word to a mistyped view or
 * option, by edit distance (Levenshtein: insertions, deletions and
 * substitutions, each costing 1), as git does for its commands. */
#include <stdlib.h>
#include <string.h>
#include "suggest.h"

size_t cli_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64)   /* not a typo of a short word */
        return (size_t)-1;
    size_t row[65];
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[m];
}

const char *cli_suggest(const char *word, const char *const *cands, size_t n)
{
    /* Close enough to be a typo: at most 2 edits, and fewer edits than the
     * word has letters (so "ab" does not suggest every two-letter name). */
    size_t len = strlen(word), best = 3;
    const char *pick = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!cands[i])
            continue;
        size_t d = cli_edit_distance(word, cands[i]);
        if (d < best && d < len) {
            best = d;
            pick = cands[i];
        }
    }
    return pick;
}
