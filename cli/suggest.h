/* suggest.h — "did you mean" for mistyped views and options. */
#ifndef TPROF_CLI_SUGGEST_H
#define TPROF_CLI_SUGGEST_H

#include <stddef.h>

/* Levenshtein distance of a and b; (size_t)-1 for words over 64 bytes. */
size_t cli_edit_distance(const char *a, const char *b);

/* The candidate closest to `word` if it is within 2 edits (and fewer edits
 * than `word` has characters), else NULL.  NULL candidates are skipped. */
const char *cli_suggest(const char *word, const char *const *cands, size_t n);

#endif
