/* occupancy.c — kineto's kernel occupancy estimate (libkineto
 * DeviceProperties.cpp: blocksPerSm, kernelOccupancy), for Nsight Systems
 * exports, whose TARGET_INFO_GPU holds the properties it needs.
 *
 * kineto asks CUDA's occupancy calculator (cuda_occupancy.h) for the active
 * blocks per SM with the kernel's registers per thread, its static shared
 * memory, its dynamic shared memory, the default cache/carveout state (the
 * full shared memory of the SM) and the default shared memory limit per
 * block (sharedMemPerBlock: a kernel that opted in to more than 48 KB gets 0,
 * as in kineto's own traces).  The calculator takes the least of four
 * limits: warps, registers, shared memory and blocks per SM.  Static and
 * dynamic shared memory enter only as their sum here, as traces record them. */
#include <limits.h>
#include "occupancy.h"

static int64_t round_up(int64_t x, int64_t g) { return (x + g - 1) / g * g; }
static int64_t div_up(int64_t x, int64_t g) { return (x + g - 1) / g; }

/* cudaOccMaxBlocksPerMultiprocessor, unless the export says */
static int64_t max_blocks_per_sm(const struct tp_device *d)
{
    if (d->max_blocks_per_sm > 0)
        return d->max_blocks_per_sm;
    switch (d->major) {
    case 3: return 16;
    case 5: case 6: return 32;
    case 7: return d->minor == 5 ? 16 : 32;
    case 8: return d->minor == 0 ? 32 : d->minor == 9 ? 24 : 16;
    default: return 32;
    }
}

int tp_occ_active_blocks(const struct tp_device *d, int64_t block_size, int64_t regs, int64_t smem)
{
    int64_t warp = d->warp_size > 0 ? d->warp_size : 32;
    if (block_size <= 0 || regs < 0 || smem < 0 || d->max_threads_per_sm <= 0 || d->regs_per_sm <= 0 ||
        d->regs_per_block <= 0 || d->smem_per_sm <= 0 || d->smem_per_block <= 0 || d->major < 3)
        return -1;
    int64_t warps_per_cta = div_up(block_size, warp);

    /* warps */
    int64_t lim_warps = 0;
    if (d->max_threads_per_block <= 0 || block_size <= d->max_threads_per_block)
        lim_warps = (d->max_threads_per_sm / warp) / warps_per_cta;

    /* registers: allocated per warp in units of 256, in sub-partitions */
    int64_t lim_regs = INT_MAX;
    int64_t parts = d->major == 6 && d->minor == 0 ? 2 : 4;
    int64_t per_warp = round_up(regs * warp, 256);
    if (per_warp > 0) {
        if (d->regs_per_block < per_warp * round_up(warps_per_cta, parts) ||
            d->regs_per_block < per_warp * warps_per_cta || regs > 255)
            lim_regs = 0;
        else
            lim_regs = (d->regs_per_sm / parts / per_warp) * parts / warps_per_cta;
    }

    /* shared memory: from sm_80 on, 1 KB reserved per block (counted in the
     * block's use and added to its limit), allocated in units of 128 B (256 B
     * before); at most sharedMemPerBlock (+ the reserve) */
    int64_t reserved = d->major >= 8 ? 1024 : 0;
    int64_t alloc = round_up(smem + reserved, d->major >= 8 ? 128 : 256);
    int64_t lim_smem;
    if (alloc > d->smem_per_block + reserved)
        lim_smem = 0;
    else
        lim_smem = alloc > 0 ? d->smem_per_sm / alloc : INT_MAX;

    int64_t lim = max_blocks_per_sm(d);
    if (lim_warps < lim) lim = lim_warps;
    if (lim_regs < lim) lim = lim_regs;
    if (lim_smem < lim) lim = lim_smem;
    return (int)lim;
}

void tp_occ_fill(const struct tp_device *d, struct tp_kernel_info *k)
{
    if (!d || d->num_sms <= 0)
        return;
    int64_t grid = 1, block = 1;
    for (int i = 0; i < 3; i++) {
        if (k->grid[i] < 0 || k->block[i] < 0)
            return;
        grid *= k->grid[i];
        block *= k->block[i];
    }
    /* kineto's arithmetic, float included: (int)(0.5 + occupancy * 100.0)
     * of a float occupancy gives 22 where exact arithmetic rounds 22.5 to 23
     * (grid 576, block 64 on 80 SMs) */
    float bps = (float)grid / (float)d->num_sms;
    k->blocks_per_sm = bps;
    int active = tp_occ_active_blocks(d, block, k->regs, k->smem);
    if (active < 0)
        return;
    float blocks = (float)active < bps ? (float)active : bps;
    float occ = blocks * (float)block / (float)d->max_threads_per_sm;
    k->occupancy = (double)(int)(0.5 + (double)occ * 100.0);
}

void tp_occ_fill_store(tp_store *st)
{
    for (size_t r = 0; r < st->n; r++) {
        if (st->kind[r] != TP_K_KERNEL || st->aux[r] == TP_NO_AUX)
            continue;
        for (size_t i = 0; i < st->ndevices; i++)
            if (st->devices[i].id == st->device[r]) {
                tp_occ_fill(&st->devices[i], &st->kernels[st->aux[r]]);
                break;
            }
    }
}
