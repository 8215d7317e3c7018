/* view_npu_kernels.c — `tprof kernels` on an Ascend folder: the Ascend
 * plugin's Kernel statistics (SPEC §A.6.2) from kernel_details.csv.
 *
 * Default: one row per task name — calls, total, min, mean, max — and the
 * share of all device task time, with the time the name spent on each kind
 * of accelerator core (AI CORE, AI VECTOR CORE, MIX AIC, MIX AIV,
 * communication: HCCL before 2025, COMMUNICATION after).  `--group core`:
 * one row per Accelerator Core value (the plugin's "Accelerator Core
 * Utilization" pie as a table); `--group props`: per name, core and block
 * dim.  Sorted by exact total time (the plugin's table sorts by calls);
 * ties keep file order.  Total and Mean per name are the plugin's: a running
 * total rounded to 2 decimals at every task after the first; total_exact is
 * the exact sum.  Per core, the plugin does not round: exact sums.
 * `--group all`: the plugin's kernel details table, one row per task with
 * every column of the file, PMU columns included (view_npu_kernels_all.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "view_npu_kernels.h"
#include "views.h"

const struct tp_coldef tp_npu_kernel_cols[] = {
    {"name", "Name", TP_COL_STR, -1, 0, "task (kernel) name"},
    {"core", "Core", TP_COL_STR, -1, 0, "Accelerator Core (several: joined with |)"},
    {"block_dim", "BlockDim", TP_COL_STR, -1, 0, "block dim (--group props, all)"},
    {"calls", "Calls", TP_COL_INT, -1, 0, "number of tasks"},
    {"total", "Total(us)", TP_COL_US, -1, 0, "total duration"},
    {"min", "Min(us)", TP_COL_US, -1, 0, "shortest"},
    {"mean", "Mean(us)", TP_COL_FIXED, -1, 3, "mean duration"},
    {"max", "Max(us)", TP_COL_US, -1, 0, "longest"},
    {"pct", "Pct", TP_COL_FIXED, -1, 2, "share of all device task time (%)"},
    {"ai_core", "AICore(us)", TP_COL_US, -1, 0, "time on AI_CORE"},
    {"ai_vector_core", "AIVectorCore(us)", TP_COL_US, -1, 0, "time on AI_VECTOR_CORE"},
    {"mix_aic", "MixAIC(us)", TP_COL_US, -1, 0, "time on MIX_AIC"},
    {"mix_aiv", "MixAIV(us)", TP_COL_US, -1, 0, "time on MIX_AIV"},
    {"comm", "Comm(us)", TP_COL_US, -1, 0, "time on HCCL / COMMUNICATION"},
    {"other_core", "OtherCore(us)", TP_COL_US, -1, 0, "time on other cores (AI_CPU, DSA_SQE, N/A ...)"},
    {"total_exact", "TotalExact(us)", TP_COL_US, -1, 0, "total duration, exact sum"},
    /* --group all: one row per task, the columns of kernel_details.csv */
    {"step", "Step", TP_COL_STR, -1, 0, "Step Id (--group all)"},
    {"device", "Device", TP_COL_STR, -1, 0, "Device_id (--group all)"},
    {"model_id", "ModelId", TP_COL_STR, -1, 0, "Model ID (--group all)"},
    {"task_id", "TaskId", TP_COL_STR, -1, 0, "Task ID (--group all)"},
    {"stream_id", "StreamId", TP_COL_STR, -1, 0, "Stream ID (--group all)"},
    {"type", "Type", TP_COL_STR, -1, 0, "op type (--group all)"},
    {"state", "State", TP_COL_STR, -1, 0, "OP State (--group all)"},
    {"start_time", "StartTime(us)", TP_COL_US, -1, 0, "Start Time(us), epoch µs, exact (--group all)"},
    {"duration", "Duration(us)", TP_COL_US, -1, 0, "Duration(us) (--group all)"},
    {"wait", "Wait(us)", TP_COL_US, -1, 0, "Wait Time(us) (--group all)"},
    {"mix_block_dim", "MixBlockDim", TP_COL_STR, -1, 0, "Mix Block Dim (--group all)"},
    {"in_shapes", "InputShapes", TP_COL_STR, -1, 0, "Input Shapes, as written (--group all)"},
    {"in_types", "InputTypes", TP_COL_STR, -1, 0, "Input Data Types (--group all)"},
    {"in_formats", "InputFormats", TP_COL_STR, -1, 0, "Input Formats (--group all)"},
    {"out_shapes", "OutputShapes", TP_COL_STR, -1, 0, "Output Shapes, as written (--group all)"},
    {"out_types", "OutputTypes", TP_COL_STR, -1, 0, "Output Data Types (--group all)"},
    {"out_formats", "OutputFormats", TP_COL_STR, -1, 0, "Output Formats (--group all)"},
    /* the extra columns, each printed as written (--group all, when the
     * input carries it): HF32 Eligible, Context ID, then the PMU columns of
     * every aic_metrics set, AI Core (aic_) and AI Vector Core (aiv_) */
    {"hf32_eligible", "HF32Eligible", TP_COL_STR, -1, 0, "HF32 Eligible: YES/NO (--group all)"},
    {"context_id", "ContextId", TP_COL_STR, -1, 0, "Context ID (--group all)"},
    {"aicore_time", "aicore_time(us)", TP_COL_NUM, -1, 0, "AI Core (cube) time of the task"},
    {"aic_total_cycles", "aic_total_cycles", TP_COL_NUM, -1, 0, "AI Core: cycles"},
    {"aic_mac_time", "aic_mac_time(us)", TP_COL_NUM, -1, 0, "AI Core: cube (MAC) time, PipeUtilization"},
    {"aic_mac_ratio", "aic_mac_ratio", TP_COL_NUM, -1, 0, "AI Core: cube (MAC) share of the time, PipeUtilization"},
    {"aic_scalar_time", "aic_scalar_time(us)", TP_COL_NUM, -1, 0, "AI Core: scalar time, PipeUtilization"},
    {"aic_scalar_ratio", "aic_scalar_ratio", TP_COL_NUM, -1, 0, "AI Core: scalar share, PipeUtilization"},
    {"aic_mte1_time", "aic_mte1_time(us)", TP_COL_NUM, -1, 0, "AI Core: MTE1 (L1->L0) time, PipeUtilization"},
    {"aic_mte1_ratio", "aic_mte1_ratio", TP_COL_NUM, -1, 0, "AI Core: MTE1 share, PipeUtilization"},
    {"aic_mte2_time", "aic_mte2_time(us)", TP_COL_NUM, -1, 0, "AI Core: MTE2 (GM->L1/UB) time, PipeUtilization"},
    {"aic_mte2_ratio", "aic_mte2_ratio", TP_COL_NUM, -1, 0, "AI Core: MTE2 share, PipeUtilization"},
    {"aic_mte3_time", "aic_mte3_time(us)", TP_COL_NUM, -1, 0, "AI Core: MTE3 (UB->GM) time, PipeUtilization"},
    {"aic_mte3_ratio", "aic_mte3_ratio", TP_COL_NUM, -1, 0, "AI Core: MTE3 share, PipeUtilization"},
    {"aic_fixpipe_time", "aic_fixpipe_time(us)", TP_COL_NUM, -1, 0, "AI Core: FixPipe time, PipeUtilization"},
    {"aic_fixpipe_ratio", "aic_fixpipe_ratio", TP_COL_NUM, -1, 0, "AI Core: FixPipe share, PipeUtilization"},
    {"aic_vec_time", "aic_vec_time(us)", TP_COL_NUM, -1, 0, "AI Core: vector time, PipeUtilization"},
    {"aic_vec_ratio", "aic_vec_ratio", TP_COL_NUM, -1, 0, "AI Core: vector share, PipeUtilization"},
    {"aic_icache_miss_rate", "aic_icache_miss_rate", TP_COL_NUM, -1, 0,
     "AI Core: instruction cache miss rate, PipeUtilization"},
    {"aic_mac_fp16_ratio", "aic_mac_fp16_ratio", TP_COL_NUM, -1, 0,
     "AI Core: fp16 cube share, ArithmeticUtilization"},
    {"aic_mac_int8_ratio", "aic_mac_int8_ratio", TP_COL_NUM, -1, 0,
     "AI Core: int8 cube share, ArithmeticUtilization"},
    {"aic_vec_fp32_ratio", "aic_vec_fp32_ratio", TP_COL_NUM, -1, 0,
     "AI Core: fp32 vector share, ArithmeticUtilization"},
    {"aic_vec_fp16_ratio", "aic_vec_fp16_ratio", TP_COL_NUM, -1, 0,
     "AI Core: fp16 vector share, ArithmeticUtilization"},
    {"aic_vec_int32_ratio", "aic_vec_int32_ratio", TP_COL_NUM, -1, 0,
     "AI Core: int32 vector share, ArithmeticUtilization"},
    {"aic_vec_misc_ratio", "aic_vec_misc_ratio", TP_COL_NUM, -1, 0,
     "AI Core: other vector share, ArithmeticUtilization"},
    {"aic_cube_fops", "aic_cube_fops", TP_COL_NUM, -1, 0, "AI Core: cube floating point ops, ArithmeticUtilization"},
    {"aic_vector_fops", "aic_vector_fops", TP_COL_NUM, -1, 0,
     "AI Core: vector floating point ops, ArithmeticUtilization"},
    {"aic_ub_read_bw", "aic_ub_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, Memory"},
    {"aic_ub_write_bw", "aic_ub_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, Memory"},
    {"aic_l1_read_bw", "aic_l1_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, Memory"},
    {"aic_l1_write_bw", "aic_l1_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, Memory"},
    {"aic_l2_read_bw", "aic_l2_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, Memory"},
    {"aic_l2_write_bw", "aic_l2_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, Memory"},
    {"aic_main_mem_read_bw", "aic_main_mem_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, Memory"},
    {"aic_main_mem_write_bw", "aic_main_mem_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, Memory"},
    {"aic_scalar_ld_ratio", "aic_scalar_ld_ratio", TP_COL_NUM, -1, 0, "AI Core: scalar load share, MemoryL0"},
    {"aic_scalar_st_ratio", "aic_scalar_st_ratio", TP_COL_NUM, -1, 0, "AI Core: scalar store share, MemoryL0"},
    {"aic_l0a_read_bw", "aic_l0a_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryL0"},
    {"aic_l0a_write_bw", "aic_l0a_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryL0"},
    {"aic_l0b_read_bw", "aic_l0b_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryL0"},
    {"aic_l0b_write_bw", "aic_l0b_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryL0"},
    {"aic_l0c_read_bw", "aic_l0c_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryL0"},
    {"aic_l0c_write_bw", "aic_l0c_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryL0"},
    {"aic_l0c_read_bw_cube", "aic_l0c_read_bw_cube(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryL0"},
    {"aic_l0c_write_bw_cube", "aic_l0c_write_bw_cube(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryL0"},
    {"aic_vec_bankgroup_cflt_ratio", "aic_vec_bankgroup_cflt_ratio", TP_COL_NUM, -1, 0,
     "AI Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aic_vec_bank_cflt_ratio", "aic_vec_bank_cflt_ratio", TP_COL_NUM, -1, 0,
     "AI Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aic_vec_resc_cflt_ratio", "aic_vec_resc_cflt_ratio", TP_COL_NUM, -1, 0,
     "AI Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aic_mte1_iq_full_ratio", "aic_mte1_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aic_mte2_iq_full_ratio", "aic_mte2_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aic_mte3_iq_full_ratio", "aic_mte3_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aic_cube_iq_full_ratio", "aic_cube_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aic_vec_iq_full_ratio", "aic_vec_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aic_iq_full_ratio", "aic_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aic_ub_read_bw_vector", "aic_ub_read_bw_vector(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryUB"},
    {"aic_ub_write_bw_vector", "aic_ub_write_bw_vector(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryUB"},
    {"aic_ub_read_bw_scalar", "aic_ub_read_bw_scalar(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryUB"},
    {"aic_ub_write_bw_scalar", "aic_ub_write_bw_scalar(GB/s)", TP_COL_NUM, -1, 0, "AI Core: bandwidth, MemoryUB"},
    {"aiv_time", "aiv_time(us)", TP_COL_NUM, -1, 0, "AI Vector Core time of the task"},
    {"aiv_total_cycles", "aiv_total_cycles", TP_COL_NUM, -1, 0, "AI Vector Core: cycles"},
    {"aiv_mac_time", "aiv_mac_time(us)", TP_COL_NUM, -1, 0, "AI Vector Core: cube (MAC) time, PipeUtilization"},
    {"aiv_mac_ratio", "aiv_mac_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: cube (MAC) share of the time, PipeUtilization"},
    {"aiv_scalar_time", "aiv_scalar_time(us)", TP_COL_NUM, -1, 0, "AI Vector Core: scalar time, PipeUtilization"},
    {"aiv_scalar_ratio", "aiv_scalar_ratio", TP_COL_NUM, -1, 0, "AI Vector Core: scalar share, PipeUtilization"},
    {"aiv_mte1_time", "aiv_mte1_time(us)", TP_COL_NUM, -1, 0, "AI Vector Core: MTE1 (L1->L0) time, PipeUtilization"},
    {"aiv_mte1_ratio", "aiv_mte1_ratio", TP_COL_NUM, -1, 0, "AI Vector Core: MTE1 share, PipeUtilization"},
    {"aiv_mte2_time", "aiv_mte2_time(us)", TP_COL_NUM, -1, 0, "AI Vector Core: MTE2 (GM->L1/UB) time, PipeUtilization"},
    {"aiv_mte2_ratio", "aiv_mte2_ratio", TP_COL_NUM, -1, 0, "AI Vector Core: MTE2 share, PipeUtilization"},
    {"aiv_mte3_time", "aiv_mte3_time(us)", TP_COL_NUM, -1, 0, "AI Vector Core: MTE3 (UB->GM) time, PipeUtilization"},
    {"aiv_mte3_ratio", "aiv_mte3_ratio", TP_COL_NUM, -1, 0, "AI Vector Core: MTE3 share, PipeUtilization"},
    {"aiv_fixpipe_time", "aiv_fixpipe_time(us)", TP_COL_NUM, -1, 0, "AI Vector Core: FixPipe time, PipeUtilization"},
    {"aiv_fixpipe_ratio", "aiv_fixpipe_ratio", TP_COL_NUM, -1, 0, "AI Vector Core: FixPipe share, PipeUtilization"},
    {"aiv_vec_time", "aiv_vec_time(us)", TP_COL_NUM, -1, 0, "AI Vector Core: vector time, PipeUtilization"},
    {"aiv_vec_ratio", "aiv_vec_ratio", TP_COL_NUM, -1, 0, "AI Vector Core: vector share, PipeUtilization"},
    {"aiv_icache_miss_rate", "aiv_icache_miss_rate", TP_COL_NUM, -1, 0,
     "AI Vector Core: instruction cache miss rate, PipeUtilization"},
    {"aiv_mac_fp16_ratio", "aiv_mac_fp16_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: fp16 cube share, ArithmeticUtilization"},
    {"aiv_mac_int8_ratio", "aiv_mac_int8_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: int8 cube share, ArithmeticUtilization"},
    {"aiv_vec_fp32_ratio", "aiv_vec_fp32_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: fp32 vector share, ArithmeticUtilization"},
    {"aiv_vec_fp16_ratio", "aiv_vec_fp16_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: fp16 vector share, ArithmeticUtilization"},
    {"aiv_vec_int32_ratio", "aiv_vec_int32_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: int32 vector share, ArithmeticUtilization"},
    {"aiv_vec_misc_ratio", "aiv_vec_misc_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: other vector share, ArithmeticUtilization"},
    {"aiv_cube_fops", "aiv_cube_fops", TP_COL_NUM, -1, 0,
     "AI Vector Core: cube floating point ops, ArithmeticUtilization"},
    {"aiv_vector_fops", "aiv_vector_fops", TP_COL_NUM, -1, 0,
     "AI Vector Core: vector floating point ops, ArithmeticUtilization"},
    {"aiv_ub_read_bw", "aiv_ub_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, Memory"},
    {"aiv_ub_write_bw", "aiv_ub_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, Memory"},
    {"aiv_l1_read_bw", "aiv_l1_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, Memory"},
    {"aiv_l1_write_bw", "aiv_l1_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, Memory"},
    {"aiv_l2_read_bw", "aiv_l2_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, Memory"},
    {"aiv_l2_write_bw", "aiv_l2_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, Memory"},
    {"aiv_main_mem_read_bw", "aiv_main_mem_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, Memory"},
    {"aiv_main_mem_write_bw", "aiv_main_mem_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, Memory"},
    {"aiv_scalar_ld_ratio", "aiv_scalar_ld_ratio", TP_COL_NUM, -1, 0, "AI Vector Core: scalar load share, MemoryL0"},
    {"aiv_scalar_st_ratio", "aiv_scalar_st_ratio", TP_COL_NUM, -1, 0, "AI Vector Core: scalar store share, MemoryL0"},
    {"aiv_l0a_read_bw", "aiv_l0a_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, MemoryL0"},
    {"aiv_l0a_write_bw", "aiv_l0a_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, MemoryL0"},
    {"aiv_l0b_read_bw", "aiv_l0b_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, MemoryL0"},
    {"aiv_l0b_write_bw", "aiv_l0b_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, MemoryL0"},
    {"aiv_l0c_read_bw", "aiv_l0c_read_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, MemoryL0"},
    {"aiv_l0c_write_bw", "aiv_l0c_write_bw(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, MemoryL0"},
    {"aiv_l0c_read_bw_cube", "aiv_l0c_read_bw_cube(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, MemoryL0"},
    {"aiv_l0c_write_bw_cube", "aiv_l0c_write_bw_cube(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, MemoryL0"},
    {"aiv_vec_bankgroup_cflt_ratio", "aiv_vec_bankgroup_cflt_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aiv_vec_bank_cflt_ratio", "aiv_vec_bank_cflt_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aiv_vec_resc_cflt_ratio", "aiv_vec_resc_cflt_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aiv_mte1_iq_full_ratio", "aiv_mte1_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aiv_mte2_iq_full_ratio", "aiv_mte2_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aiv_mte3_iq_full_ratio", "aiv_mte3_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aiv_cube_iq_full_ratio", "aiv_cube_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aiv_vec_iq_full_ratio", "aiv_vec_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aiv_iq_full_ratio", "aiv_iq_full_ratio", TP_COL_NUM, -1, 0,
     "AI Vector Core: pipeline queue / conflict share, ResourceConflictRatio"},
    {"aiv_ub_read_bw_vector", "aiv_ub_read_bw_vector(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, MemoryUB"},
    {"aiv_ub_write_bw_vector", "aiv_ub_write_bw_vector(GB/s)", TP_COL_NUM, -1, 0,
     "AI Vector Core: bandwidth, MemoryUB"},
    {"aiv_ub_read_bw_scalar", "aiv_ub_read_bw_scalar(GB/s)", TP_COL_NUM, -1, 0, "AI Vector Core: bandwidth, MemoryUB"},
    {"aiv_ub_write_bw_scalar", "aiv_ub_write_bw_scalar(GB/s)", TP_COL_NUM, -1, 0,
     "AI Vector Core: bandwidth, MemoryUB"},
    {"cube_utilization", "cube_utilization(%)", TP_COL_NUM, -1, 0, "cube utilization (%), PipeUtilization"},
    {"extra", "Extra", TP_COL_STR, -1, 0, "other extra kernel_details columns, NAME=VALUE; ... (--group all)"},
};
_Static_assert(sizeof tp_npu_kernel_cols / sizeof tp_npu_kernel_cols[0] == NK_N, "the column list and its enum agree");

static int core_slot(const char *c)
{
    if (strcmp(c, "AI_CORE") == 0) return 0;
    if (strcmp(c, "AI_VECTOR_CORE") == 0) return 1;
    if (strcmp(c, "MIX_AIC") == 0) return 2;
    if (strcmp(c, "MIX_AIV") == 0) return 3;
    if (strcmp(c, "HCCL") == 0 || strcmp(c, "COMMUNICATION") == 0) return 4;
    return 5;
}

struct agg {
    uint32_t key, core;
    int64_t bd;
    int mixed;                /* more than one core for this name */
    int64_t calls, total, min, max, per[6];
    double rtotal;            /* the plugin's Total: d, then round(total + d, 2) per task */
    size_t first;
};

static _Thread_local const struct agg *g_a;
static int by_total(const void *x, const void *y)
{
    const struct agg *a = &g_a[*(const size_t *)x], *b = &g_a[*(const size_t *)y];
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* --plot: each row's share of the device task time (write_chart.c) */
static const char *const share_cols[] = {"total"};
static const struct tp_chart npu_kernels_chart = {TP_CHART_SHARE, "name", NULL, share_cols, 1, NULL, NULL, NULL};

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    const struct tp_npu_data *d = st->npu;
    const char *grp = vo && vo->group ? vo->group : "name";
    int by_core = strcmp(grp, "core") == 0, props = strcmp(grp, "props") == 0;
    int group_all = strcmp(grp, "all") == 0;
    if (!by_core && !props && !group_all && strcmp(grp, "name") != 0)
        return tp_error_set(err, TP_ERR_USAGE, "kernels: --group must be name, core, props or all, not %s", grp);
    if (!d || !(d->files & TP_NPU_KERNEL_DETAILS))
        return tp_npu_missing(st, TP_NPU_KERNEL_DETAILS, "kernels", tp_npu_kernel_cols, NK_N, out, err);
    if (group_all)
        return tp_npu_kernels_all(st, out, err);
    size_t ns = st->strings.count + 1, nt = d->ntasks;
    int64_t *head = malloc(ns * sizeof *head);
    int64_t *next = malloc((nt + 1) * sizeof *next);
    struct agg *a = calloc(nt + 1, sizeof *a);
    size_t *perm = malloc((nt + 1) * sizeof *perm);
    tp_table *t = NULL;
    int rc = TP_OK;
    if (!head || !next || !a || !perm) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < ns; i++)
        head[i] = -1;
    size_t na = 0;
    int64_t all = 0;
    for (size_t i = 0; i < nt; i++) {
        const struct tp_npu_task *k = &d->tasks[i];
        uint32_t key = by_core ? k->core : k->name;
        int64_t j = head[key];
        while (j >= 0 && props && (a[j].core != k->core || a[j].bd != k->block_dim))
            j = next[j];
        if (j < 0) {
            j = (int64_t)na++;
            a[j].key = key;
            a[j].core = k->core;
            a[j].bd = k->block_dim;
            a[j].first = i;
            a[j].min = a[j].max = k->dur;
            next[j] = head[key];
            head[key] = j;
        }
        struct agg *g = &a[j];
        if (g->core != k->core)
            g->mixed = 1;
        g->rtotal = g->calls == 0 ? k->dur_us : tp_npu_round2(g->rtotal + k->dur_us);
        g->calls++;
        if (tp_npu_add(&g->total, k->dur) < 0 || tp_npu_add(&g->per[core_slot(tp_store_str(st, k->core))], k->dur) < 0 ||
            tp_npu_add(&all, k->dur) < 0) {
            rc = tp_npu_overflow(st, "kernel durations", err);
            goto done;
        }
        if (k->dur < g->min) g->min = k->dur;
        if (k->dur > g->max) g->max = k->dur;
    }
    for (size_t i = 0; i < na; i++)
        perm[i] = i;
    g_a = a;
    qsort(perm, na, sizeof *perm, by_total);
    t = tp_table_new(tp_npu_kernel_cols, NK_N);
    if (!t) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t q = 0; q < na; q++) {
        const struct agg *g = &a[perm[q]];
        tp_table_add_row(t);
        if (!by_core)
            tp_table_set_str(t, NK_NAME, tp_store_str(st, g->key));
        if (g->mixed) {
            /* every core this name ran on, in first-seen order */
            char buf[256] = "";
            size_t bl = 0;
            uint32_t seen[16];
            size_t nseen = 0;
            for (size_t i = g->first; i < nt && nseen < 16; i++) {
                const struct tp_npu_task *k = &d->tasks[i];
                if (k->name != g->key)
                    continue;
                size_t s = 0;
                while (s < nseen && seen[s] != k->core) s++;
                if (s < nseen)
                    continue;
                seen[nseen++] = k->core;
                bl += (size_t)snprintf(buf + bl, bl < sizeof buf ? sizeof buf - bl : 0, "%s%s", bl ? "|" : "",
                                       tp_store_str(st, k->core));
                if (bl >= sizeof buf)
                    break;
            }
            tp_table_set_str(t, NK_CORE, buf);
        } else {
            tp_table_set_str(t, NK_CORE, tp_store_str(st, g->core));
        }
        if (props) {
            char b[32];
            if (g->bd == TP_NONE)
                snprintf(b, sizeof b, "N/A");
            else
                snprintf(b, sizeof b, "%lld", (long long)g->bd);
            tp_table_set_str(t, NK_BD, b);
        }
        tp_table_set_int(t, NK_CALLS, g->calls);
        if (by_core || props) {
            /* the plugin's core pie sums without rounding; props is tprof's */
            tp_table_set_int(t, NK_TOTAL, g->total);
            tp_table_set_float(t, NK_MEAN, (double)g->total / (double)g->calls / 1000.0);
        } else {
            /* the plugin's Statistic table: Total and Avg from its rounded running sum */
            int64_t rtotal;
            if (tp_npu_ns(g->rtotal, 1000.0, &rtotal) < 0) {
                rc = tp_npu_overflow(st, "kernel durations", err);
                goto done;
            }
            tp_table_set_int(t, NK_TOTAL, rtotal);
            tp_table_set_float(t, NK_MEAN, g->calls == 1 ? g->rtotal : tp_npu_round2(g->rtotal / (double)g->calls));
        }
        tp_table_set_int(t, NK_XTOTAL, g->total);
        tp_table_set_int(t, NK_MIN, g->min);
        tp_table_set_int(t, NK_MAX, g->max);
        tp_table_set_float(t, NK_PCT, all ? 100.0 * (double)g->total / (double)all : 0.0);
        for (int c = 0; c < 6; c++)
            tp_table_set_int(t, (size_t)(NK_AIC + c), g->per[c]);
    }
    if (vo && vo->plot)
        tp_table_set_chart(t, &npu_kernels_chart);
    *out = t;
    t = NULL;
done:
    if (t)
        tp_table_free(t);
    free(head);
    free(next);
    free(a);
    free(perm);
    return rc;
}

static const char *columns_for(const struct tp_view_opts *vo)
{
    if (vo && vo->group && strcmp(vo->group, "core") == 0)
        return "core,calls,total,min,mean,max,pct";
    if (vo && vo->group && strcmp(vo->group, "props") == 0)
        return "name,core,block_dim,calls,total,min,mean,max,pct";
    /* (a kernel_details.csv's own header replaces this: tp_table_default_columns) */
    if (vo && vo->group && strcmp(vo->group, "all") == 0)
        return "step,device,model_id,task_id,stream_id,name,type,state,core,start_time,duration,wait,block_dim,"
               "mix_block_dim,in_shapes,in_types,in_formats,out_shapes,out_types,out_formats";
    return NULL;
}

const tp_view tp_view_npu_kernels = {
    .name = "kernels",
    .summary = "Ascend plugin Kernel statistics: time per task name, per core type (--group core|props|all: every task, PMU columns)",
    .cols = tp_npu_kernel_cols,
    .ncols = NK_N,
    .default_columns = "name,core,calls,total,min,mean,max,pct",
    .build = build,
    .columns_for = columns_for,
};
