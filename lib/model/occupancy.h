/* occupancy.h — kineto's per-kernel "blocks per SM" and "est. achieved
 * occupancy %" (SPEC kineto §13), computed for inputs that do not carry them
 * (Nsight Systems exports) from the device's properties and the kernel's
 * launch shape.  Internal to libtprof. */
#ifndef TPROF_OCCUPANCY_H
#define TPROF_OCCUPANCY_H

#include "store.h"

/* CUDA's cudaOccMaxActiveBlocksPerMultiprocessor (cuda_occupancy.h) as
 * kineto calls it: the blocks of block_size threads, regs registers per
 * thread and smem bytes of shared memory (static + dynamic) that fit on one
 * SM at once; -1 when the device lacks a property it needs or the input is
 * invalid (block_size <= 0). */
int tp_occ_active_blocks(const struct tp_device *d, int64_t block_size, int64_t regs, int64_t smem);

/* Fill k->blocks_per_sm (grid / SMs) and k->occupancy (100 * min(active
 * blocks, blocks per SM) * block size / max threads per SM, rounded to an
 * integer percent as kineto writes it) from device d; both stay NAN when d
 * or the launch shape lacks what they need. */
void tp_occ_fill(const struct tp_device *d, struct tp_kernel_info *k);

/* tp_occ_fill for every kernel of st whose device is one of st->devices. */
void tp_occ_fill_store(tp_store *st);

#endif
