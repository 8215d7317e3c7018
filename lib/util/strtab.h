/* strtab.h — interned strings: each distinct string is stored once and named
 * by a 32-bit id.  Id 0 is always the empty string. */
#ifndef TPROF_STRTAB_H
#define TPROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp_strtab {
    char *bytes;            /* all strings, each NUL-terminated */
    size_t nbytes, capbytes;
    uint64_t *offs;         /* offs[id] = offset in bytes; low 32 bits of len kept in lens */
    uint32_t *lens;
    uint32_t count, cap;
    uint32_t *slots;        /* open addressing: id+1, 0 = empty */
    uint32_t *hashes;       /* hash of each id, to skip compares and to rehash */
    size_t nslots;          /* power of two (slots.h) */
} tp_strtab;

int  tp_strtab_init(tp_strtab *t);
void tp_strtab_free(tp_strtab *t);

/* Id of the string s[0..len); adds it on first sight.  UINT32_MAX on out of memory. */
uint32_t tp_strtab_intern(tp_strtab *t, const char *s, size_t len);

/* Id of s if present, else UINT32_MAX. */
uint32_t tp_strtab_find(const tp_strtab *t, const char *s, size_t len);

static inline const char *tp_strtab_get(const tp_strtab *t, uint32_t id)
{
    return t->bytes + t->offs[id];
}

static inline size_t tp_strtab_len(const tp_strtab *t, uint32_t id)
{
    return t->lens[id];
}

#endif
