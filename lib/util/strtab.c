/* strtab.c — string interning with an open-addressing hash table.
 *
 * Kernel and operator names repeat millions of times in a big trace but have
 * only thousands of distinct values, so the importer interns every name on
 * first sight and the store keeps 32-bit ids. */
#include <stdlib.h>
#include <string.h>
#include "slots.h"
#include "strtab.h"

static uint32_t hash_bytes(const char *s, size_t len)
{
    /* Multiply-xorshift on 8-byte words.  Long strings (call stacks run to
     * hundreds of bytes) go through four independent lanes: with one, every
     * word waits for the multiply before it (two thirds of the interning
     * time on a 1 GB trace, by perf).  Only the slots depend on the hash:
     * ids are given in order of first sight. */
    const uint64_t k = 0x9e3779b97f4a7c15ULL;
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)len;
    size_t i = 0;
    if (len >= 32) {
        uint64_t a = h, b = h ^ k, c = h + k, d = h - k;
        for (; i + 32 <= len; i += 32) {
            uint64_t w[4];
            memcpy(w, s + i, 32);
            a = (a ^ w[0]) * k;
            b = (b ^ w[1]) * k;
            c = (c ^ w[2]) * k;
            d = (d ^ w[3]) * k;
            a ^= a >> 29;
            b ^= b >> 29;
            c ^= c >> 29;
            d ^= d >> 29;
        }
        h = ((a * 31 + b) * 31 + c) * 31 + d;
    }
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h ^= w;
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    if (i < len) {
        /* The last 1-7 bytes as one word: the 8 bytes that end the string
         * when it has them (some hashed twice, which is no matter), else
         * byte by byte into a word (no multiply per byte: the chain of
         * seven of them was a fifth of hashing a 60-byte name). */
        uint64_t w = 0;
        if (len >= 8) {
            memcpy(&w, s + len - 8, 8);
        } else {
            for (size_t b = i; b < len; b++)
                w |= (uint64_t)(unsigned char)s[b] << (8 * (b - i));
        }
        h ^= w;
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    h *= k;
    h ^= h >> 32;
    return (uint32_t)h;
}

int tp_strtab_init(tp_strtab *t)
{
    memset(t, 0, sizeof *t);
    t->nslots = 1024;
    t->slots = calloc(t->nslots, sizeof *t->slots);
    if (!t->slots)
        return -1;
    return tp_strtab_intern(t, "", 0) == 0 ? 0 : -1;
}

void tp_strtab_free(tp_strtab *t)
{
    free(t->bytes);
    free(t->offs);
    free(t->lens);
    free(t->slots);
    free(t->hashes);
    memset(t, 0, sizeof *t);
}

static uint64_t id_hash(const void *t, size_t id)
{
    return ((const tp_strtab *)t)->hashes[id];
}

uint32_t tp_strtab_find(const tp_strtab *t, const char *s, size_t len)
{
    uint32_t h = hash_bytes(s, len);
    uint32_t i = h & (t->nslots - 1);
    for (;;) {
        uint32_t slot = t->slots[i];
        if (!slot)
            return UINT32_MAX;
        uint32_t id = slot - 1;
        if (t->hashes[id] == h && t->lens[id] == len && memcmp(t->bytes + t->offs[id], s, len) == 0)
            return id;
        i = (i + 1) & (t->nslots - 1);
    }
}

uint32_t tp_strtab_intern(tp_strtab *t, const char *s, size_t len)
{
    uint32_t h = hash_bytes(s, len);
    uint32_t i = h & (t->nslots - 1);
    for (;;) {
        uint32_t slot = t->slots[i];
        if (!slot)
            break;
        uint32_t id = slot - 1;
        if (t->hashes[id] == h && t->lens[id] == len && memcmp(t->bytes + t->offs[id], s, len) == 0)
            return id;
        i = (i + 1) & (t->nslots - 1);
    }
    if (t->count == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 256;
        uint64_t *offs = realloc(t->offs, cap * sizeof *offs);
        if (!offs)
            return UINT32_MAX;
        t->offs = offs;
        uint32_t *lens = realloc(t->lens, cap * sizeof *lens);
        if (!lens)
            return UINT32_MAX;
        t->lens = lens;
        uint32_t *hashes = realloc(t->hashes, cap * sizeof *hashes);
        if (!hashes)
            return UINT32_MAX;
        t->hashes = hashes;
        t->cap = cap;
    }
    if (t->nbytes + len + 1 > t->capbytes) {
        size_t cap = t->capbytes ? t->capbytes * 2 : 65536;
        while (cap < t->nbytes + len + 1)
            cap *= 2;
        char *b = realloc(t->bytes, cap);
        if (!b)
            return UINT32_MAX;
        t->bytes = b;
        t->capbytes = cap;
    }
    uint32_t id = t->count++;
    t->offs[id] = t->nbytes;
    t->lens[id] = (uint32_t)len;
    t->hashes[id] = h;
    memcpy(t->bytes + t->nbytes, s, len);
    t->bytes[t->nbytes + len] = '\0';
    t->nbytes += len + 1;
    t->slots[i] = id + 1;
    if (t->count * 2 > t->nslots && tp_slots_grow(&t->slots, &t->nslots, t->count, id_hash, t) != 0)
        return UINT32_MAX;
    return id;
}
