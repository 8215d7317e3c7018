/* occupancy_test.c — kineto's occupancy estimate (occupancy.c) against the
 * values kineto itself wrote into real traces: every kernel of a trace with
 * deviceProperties is recomputed from its grid, block, registers and shared
 * memory and compared with its "blocks per SM" and "est. achieved
 * occupancy %"; and the nsys path fills them from TARGET_INFO_GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "occupancy.h"
#include "store.h"
#include "testing.h"

#define REF "../shared/reference/"

static const struct tp_device *device_of(const tp_store *st, int32_t id)
{
    for (size_t i = 0; i < st->ndevices; i++)
        if (st->devices[i].id == id)
            return &st->devices[i];
    return NULL;
}

/* Recompute every kernel of a kineto trace; the counts of kernels checked
 * and of mismatches (printed, the first few). */
static void against_kineto(const char *name, const char *path)
{
    if (access(path, R_OK) != 0) {
        SKIP(name, "reference trace absent");
        return;
    }
    tp_store *st = tp_store_new();
    tp_error err = {0};
    if (!st || tp_store_load(st, path, &err) != TP_OK) {
        CHECK(name, 0);
        tp_store_free(st);
        return;
    }
    size_t checked = 0, bad = 0;
    for (size_t r = 0; r < st->n; r++) {
        if (st->kind[r] != TP_K_KERNEL || st->aux[r] == TP_NO_AUX)
            continue;
        const struct tp_kernel_info *k = &st->kernels[st->aux[r]];
        const struct tp_device *d = device_of(st, st->device[r]);
        if (!d || isnan(k->occupancy) || isnan(k->blocks_per_sm) || k->regs < 0 || k->smem < 0)
            continue;
        struct tp_kernel_info c = *k;
        c.blocks_per_sm = c.occupancy = NAN;
        tp_occ_fill(d, &c);
        checked++;
        /* kineto computes blocks per SM in float and prints its shortest form */
        if (!(fabs(c.blocks_per_sm - k->blocks_per_sm) <= 1e-6 * (1 + k->blocks_per_sm)) ||
            c.occupancy != k->occupancy) {
            if (bad++ < 5)
                printf("# %s: %s grid %d,%d,%d block %d,%d,%d regs %d smem %lld: bps %g/%g occ %g/%g\n", name,
                       tp_store_str(st, st->name[r]), k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
                       k->block[2], k->regs, (long long)k->smem, c.blocks_per_sm, k->blocks_per_sm, c.occupancy,
                       k->occupancy);
        }
    }
    printf("# %s: %zu kernels checked, %zu differ\n", name, checked, bad);
    CHECK(name, checked > 0 && bad == 0);
    tp_store_free(st);
}

int main(void)
{
    /* SPEC's check: V100 (80 SMs, 2048 threads/SM), grid 50, block 256 */
    struct tp_device v100 = {.major = 7, .minor = 0, .num_sms = 80, .max_threads_per_sm = 2048,
                             .max_threads_per_block = 1024, .regs_per_block = 65536, .regs_per_sm = 65536,
                             .warp_size = 32, .smem_per_block = 49152, .smem_per_sm = 98304};
    struct tp_kernel_info k = {.grid = {50, 1, 1}, .block = {256, 1, 1}, .regs = 32, .smem = 0,
                               .blocks_per_sm = NAN, .occupancy = NAN};
    tp_occ_fill(&v100, &k);
    CHECK("occ.v100.blocks_per_sm", k.blocks_per_sm == 0.625);
    CHECK("occ.v100.occupancy", k.occupancy == 8);
    /* limits: 255 registers/thread x 1024 threads do not fit; 48 KB + 1 B of
     * shared memory is over sharedMemPerBlock (0, as kineto reports) */
    CHECK_INT("occ.regs_limit", tp_occ_active_blocks(&v100, 1024, 255, 0), 0);
    CHECK_INT("occ.smem_limit", tp_occ_active_blocks(&v100, 128, 32, 49153), 0);
    CHECK_INT("occ.warps_limit", tp_occ_active_blocks(&v100, 1024, 0, 0), 2);
    CHECK_INT("occ.smem_per_sm", tp_occ_active_blocks(&v100, 32, 0, 24576), 4);
    CHECK_INT("occ.no_props", tp_occ_active_blocks(&(struct tp_device){.major = 7}, 128, 32, 0), -1);
    struct tp_kernel_info nogrid = {.grid = {-1, 1, 1}, .block = {256, 1, 1}, .blocks_per_sm = NAN,
                                    .occupancy = NAN};
    tp_occ_fill(&v100, &nogrid);
    CHECK("occ.no_grid", isnan(nogrid.blocks_per_sm) && isnan(nogrid.occupancy));

    against_kineto("occ.kineto.resnet50_v100",
                   REF "kineto/data/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
    against_kineto("occ.kineto.hta_a100",
                   REF "peers/hta_data/tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz");
    against_kineto("occ.kineto.hta_a100_sxm4", REF "peers/hta_data/tests/data/negative_queue_length_values_check/rank0.json.gz");
    against_kineto("occ.kineto.param_rtx", REF "peers/other_data/facebookresearch-param/et_replay/tests/inputs/linear_kineto.json.gz");
    against_kineto("occ.kineto.tracelens_b200",
                   REF "peers/other_data/AMD-AGI-TraceLens/tests/traces/b200/eager_trace.json.gz");
    TEST_EXIT();
}
