/* store_file_cols.c — which fields of a store a .tprof file holds.
 *
 * Table-driven: one line per field.  A field that is added to the store (or
 * to a side table) and not listed here is not saved, and the round-trip
 * golden test (scripts/golden/store.sh: every view on every reference trace,
 * from the trace and from its .tprof, byte for byte) fails; add its line here
 * and bump nothing — a reader skips no section it knows, and refuses
 * sections whose names it does not know only when they are marked required.
 *
 * Each field is one column in the file: `count` values of `width` bytes,
 * little-endian, gathered from an array of records (`stride` bytes apart,
 * `field` bytes into each) so that a struct table is stored column by
 * column, without its padding. */
#include <stddef.h>
#include "npu.h"
#include "store_file_int.h"

#define ROW(arr)  offsetof(tp_store, arr), sizeof(((tp_store *)0)->arr[0]), 0, \
                     sizeof(((tp_store *)0)->arr[0])
#define SIDE(arr, type, f) offsetof(tp_store, arr), sizeof(type), offsetof(type, f), \
                     sizeof(((type *)0)->f)
#define NPU(arr, type, f) offsetof(struct tp_npu_data, arr), sizeof(type), offsetof(type, f), \
                     sizeof(((type *)0)->f)

/* One line per field: the section is named by the table's prefix and the
 * field (KERN(grid, 0) is "kern.grid", struct tp_kernel_info's grid); the
 * last argument is the field's flags.  A field saved under another name
 * is spelled out in full. */
#define EV(f, how) {"ev." #f, TP_SF_EVENTS, ROW(f), how}
#define LINK(f, how) {"link." #f, TP_SF_LINKS, ROW(f), how}
#define KERN(f, how) {"kern." #f, TP_SF_KERNELS, SIDE(kernels, struct tp_kernel_info, f), how}
#define OP(f, how) {"op." #f, TP_SF_OPS, SIDE(ops, struct tp_op_info, f), how}
#define PY(f, how) {"py." #f, TP_SF_PYS, SIDE(pys, struct tp_py_info, f), how}
#define SEQ(f, how) {"seq." #f, TP_SF_SEQS, SIDE(seqs, struct tp_seq_rec, f), how}
#define COLL(f, how) {"opt.coll." #f, TP_SF_COLLS, SIDE(colls, struct tp_coll_info, f), how}
#define MEM(f, how) {"mem." #f, TP_SF_MEMS, SIDE(mems, struct tp_mem_info, f), how}
#define DEV(f, how) {"dev." #f, TP_SF_DEVICES, SIDE(devices, struct tp_device, f), how}
#define ANNOT(f, how) {"annot." #f, TP_SF_ANNOTS, SIDE(annots, struct tp_kernel_annot, f), how}
#define STEP(f, how) {"step." #f, TP_SF_STEPS, SIDE(steps, struct tp_step, f), how}
#define SKIP(f, how) {"skip." #f, TP_SF_SKIPS, SIDE(skips, struct tp_skip, f), how}
#define NPU_TASK(f, how) {"npu.task." #f, TP_SF_NPU_TASKS, NPU(tasks, struct tp_npu_task, f), how}
#define NPU_OP(f, how) {"npu.op." #f, TP_SF_NPU_OPS, NPU(ops, struct tp_npu_op, f), how}
#define NPU_ALLOC(f, how) {"npu.alloc." #f, TP_SF_NPU_ALLOCS, NPU(allocs, struct tp_npu_alloc, f), how}
#define NPU_REC(f, how) {"npu.rec." #f, TP_SF_NPU_RECORDS, NPU(records, struct tp_npu_record, f), how}
#define NPU_MOD(f, how) {"npu.mod." #f, TP_SF_NPU_MODULES, NPU(modules, struct tp_npu_module, f), how}
#define NPU_STEP(f, how) {"npu.step." #f, TP_SF_NPU_STEPS, NPU(steps, struct tp_npu_steptime, f), how}
#define NPU_COMM(f, how) {"npu.comm." #f, TP_SF_NPU_COMMS, NPU(comms, struct tp_npu_comm, f), how}

/* The counts of the arrays, and where they live: a growing table's count
 * and capacity are its root's n<arr> and cap<arr> (IN_STORE, IN_NPU); a
 * table with no capacity (-1) is not grown on its own (it is filled whole,
 * or follows the events). */
#define IN_STORE(name, arr) {name, TP_SF_ROOT_STORE, offsetof(tp_store, n##arr), offsetof(tp_store, cap##arr), 0}
#define IN_NPU(name, arr) {name, TP_SF_ROOT_NPU, offsetof(struct tp_npu_data, n##arr), \
                           offsetof(struct tp_npu_data, cap##arr), 0}
const struct tp_sf_table tp_sf_tables[TP_SF_NTABLES] = {
    [TP_SF_EVENTS]  = {"ev",   TP_SF_ROOT_STORE, offsetof(tp_store, n), offsetof(tp_store, cap), 0},
    [TP_SF_LINKS]   = {"link", TP_SF_ROOT_STORE, offsetof(tp_store, n), (size_t)-1, 0},
    [TP_SF_KERNELS] = IN_STORE("kern", kernels),
    [TP_SF_OPS]     = IN_STORE("op", ops),
    [TP_SF_MEMS]    = IN_STORE("mem", mems),
    [TP_SF_DEVICES] = {"dev",  TP_SF_ROOT_STORE, offsetof(tp_store, ndevices), (size_t)-1, 0},
    [TP_SF_ANNOTS]  = {"annot", TP_SF_ROOT_STORE, offsetof(tp_store, nannots), (size_t)-1, 0},
    [TP_SF_STEPS]   = {"step",  TP_SF_ROOT_STORE, offsetof(tp_store, nsteps), (size_t)-1, 0},
    /* a fixed array in the store: its length is the most it holds */
    [TP_SF_SKIPS]   = {"skip", TP_SF_ROOT_STORE, offsetof(tp_store, nskips), (size_t)-1,
                       sizeof(((tp_store *)0)->skips) / sizeof(((tp_store *)0)->skips[0])},
    [TP_SF_NPU_TASKS]   = IN_NPU("npu.task", tasks),
    [TP_SF_NPU_OPS]     = IN_NPU("npu.op", ops),
    [TP_SF_NPU_ALLOCS]  = IN_NPU("npu.alloc", allocs),
    [TP_SF_NPU_RECORDS] = IN_NPU("npu.rec", records),
    [TP_SF_NPU_MODULES] = IN_NPU("npu.mod", modules),
    [TP_SF_NPU_STEPS]   = IN_NPU("npu.step", steps),
    [TP_SF_NPU_COMMS]   = IN_NPU("npu.comm", comms),
    [TP_SF_NPU_XCOLS]   = IN_NPU("npu.xcol", xcols),
    [TP_SF_NPU_XCELLS]  = IN_NPU("npu.xcell", xcells),
    [TP_SF_COLLS]   = IN_STORE("coll", colls),
    [TP_SF_SEQS]    = IN_STORE("seq", seqs),
    [TP_SF_DLINKS]  = {"dlink", TP_SF_ROOT_STORE, offsetof(tp_store, ndev), (size_t)-1, 0},
    [TP_SF_PYS]     = IN_STORE("py", pys),
};

const struct tp_sf_col tp_sf_cols[] = {
    /* the event columns */
    EV(kind, TP_SF_KIND),
    EV(ph, 0),
    EV(ts, TP_SF_DELTA),
    EV(dur, 0),
    EV(name, TP_SF_STR),
    EV(cat, TP_SF_STR),
    EV(pid, 0),
    EV(tid, 0),
    EV(device, 0),
    EV(stream, 0),
    EV(correlation, 0),
    /* a 32-bit column while every id fits (tp_store_ext): written as 64 bits,
     * read back into the 64-bit one */
    {"ev.external_id", TP_SF_EVENTS, ROW(ext64), TP_SF_EXT},
    EV(aux, 0),
    /* the linker's columns (present when the store was linked) */
    LINK(parent, TP_SF_ROW),
    /* the device rows' (kernel, memcpy, memset, in row order; format 3: link.launcher and
     * link.launch_op of every event before) */
    {"dlink.launcher", TP_SF_DLINKS, ROW(dev_launcher), TP_SF_ROW},
    {"dlink.launch_op", TP_SF_DLINKS, ROW(dev_launch_op), TP_SF_ROW},
    /* kernel launch details */
    KERN(grid, 0),
    KERN(block, 0),
    KERN(regs, 0),
    KERN(smem, 0),
    KERN(blocks_per_sm, 0),
    KERN(occupancy, 0),
    KERN(bytes, 0),
    KERN(sync_record_corr, 0),
    KERN(sync_wait_stream, 0),
    /* operator details */
    OP(input_dims, TP_SF_STR),
    OP(input_types, TP_SF_STR),
    OP(concrete_inputs, TP_SF_STR),
    OP(input_strides, TP_SF_STR),
    OP(call_stack, TP_SF_STR),
    OP(py, 0),
    /* held apart (st->fwds), written as the column of every op record it was */
    {"op.fwd_thread", TP_SF_OPS, offsetof(tp_store, ops), sizeof(struct tp_op_info), 0, 8, TP_SF_FWD},
    /* python functions' ids (format 3: three columns of every op record before) */
    PY(python_id, TP_SF_PY),
    PY(python_parent_id, TP_SF_PY),
    PY(module_id, TP_SF_PY),
    /* operators' sequence numbers, sorted by row (format 3: a column of every event before) */
    SEQ(row, TP_SF_ROW),
    SEQ(seq, 0),
    COLL(row, TP_SF_ROW),
    COLL(name, TP_SF_STR),
    COLL(dtype, TP_SF_STR),
    COLL(pg_name, TP_SF_STR),
    COLL(pg_desc, TP_SF_STR),
    COLL(pg_ranks, TP_SF_STR),
    COLL(in_nelems, 0),
    COLL(out_nelems, 0),
    COLL(group_size, 0),
    COLL(seq, 0),
    /* memory records */
    MEM(addr, 0),
    MEM(bytes, 0),
    MEM(total_allocated, 0),
    MEM(total_reserved, 0),
    MEM(device_type, 0),
    MEM(device_id, 0),
    /* devices (deviceProperties, TARGET_INFO_GPU) */
    DEV(id, 0),
    DEV(name, TP_SF_STR),
    DEV(total_mem, 0),
    DEV(major, 0),
    DEV(minor, 0),
    DEV(num_sms, 0),
    DEV(max_threads_per_sm, 0),
    DEV(max_threads_per_block, 0),
    DEV(regs_per_block, 0),
    DEV(regs_per_sm, 0),
    DEV(warp_size, 0),
    DEV(smem_per_block, 0),
    DEV(smem_per_sm, 0),
    DEV(smem_optin, 0),
    /* "opt.": a tprof that predates it skips it (store_file.c) */
    {"opt.dev.mem_bw", TP_SF_DEVICES, SIDE(devices, struct tp_device, mem_bw), 0},
    /* prof.py rows */
    ANNOT(event, TP_SF_ROW),
    ANNOT(tid, 0),
    ANNOT(seq, TP_SF_STR),
    ANNOT(altseq, TP_SF_STR),
    ANNOT(layer, TP_SF_STR),
    ANNOT(trace, TP_SF_STR),
    ANNOT(trace_last, TP_SF_STR),
    ANNOT(bprop, 0),
    ANNOT(sub, 0),
    ANNOT(mod, TP_SF_STR),
    ANNOT(op, TP_SF_STR),
    ANNOT(marker, TP_SF_STR),
    ANNOT(input_dims, TP_SF_STR),
    ANNOT(input_types, TP_SF_STR),
    ANNOT(concrete_inputs, TP_SF_STR),
    ANNOT(op_event, TP_SF_ROW),
    /* steps */
    STEP(number, 0),
    STEP(ts, 0),
    STEP(end, 0),
    STEP(name, TP_SF_ROW),
    /* events left out, by reason (a fixed array in the store) */
    SKIP(reason, 0),
    SKIP(count, 0),
    SKIP(first_offset, 0),
    SKIP(malformed, 0),
    SKIP(at_row, 0),
    /* Ascend NPU tables */
    NPU_TASK(row, TP_SF_ROW),
    NPU_TASK(step, 0),
    NPU_TASK(device, 0),
    NPU_TASK(name, TP_SF_STR),
    NPU_TASK(type, TP_SF_STR),
    NPU_TASK(core, TP_SF_STR),
    NPU_TASK(state, TP_SF_STR),
    NPU_TASK(start, 0),
    NPU_TASK(dur, 0),
    NPU_TASK(wait, 0),
    NPU_TASK(dur_us, 0),
    NPU_TASK(block_dim, 0),
    NPU_TASK(mix_block_dim, 0),
    NPU_TASK(model_id, 0),
    NPU_TASK(task_id, 0),
    NPU_TASK(stream_id, 0),
    NPU_TASK(in_shapes, TP_SF_STR),
    NPU_TASK(in_types, TP_SF_STR),
    NPU_TASK(in_formats, TP_SF_STR),
    NPU_TASK(out_shapes, TP_SF_STR),
    NPU_TASK(out_types, TP_SF_STR),
    NPU_TASK(out_formats, TP_SF_STR),
    NPU_TASK(op, TP_SF_STR),
    NPU_TASK(op_row, TP_SF_ROW),
    NPU_OP(name, TP_SF_STR),
    NPU_OP(shapes, TP_SF_STR),
    NPU_OP(stack, TP_SF_STR),
    NPU_OP(host_self, 0),
    NPU_OP(host_total, 0),
    NPU_OP(dev_self, 0),
    NPU_OP(dev_total, 0),
    NPU_OP(dev_self_aic, 0),
    NPU_OP(dev_total_aic, 0),
    NPU_OP(us, 0),
    NPU_ALLOC(name, TP_SF_STR),
    NPU_ALLOC(device, TP_SF_STR),
    NPU_ALLOC(size_kb, 0),
    NPU_ALLOC(alloc, 0),
    NPU_ALLOC(release, 0),
    NPU_ALLOC(dur, 0),
    NPU_ALLOC(active_release, 0),
    NPU_ALLOC(active_dur, 0),
    NPU_ALLOC(alloc_allocated_mb, 0),
    NPU_ALLOC(alloc_reserved_mb, 0),
    NPU_ALLOC(release_allocated_mb, 0),
    NPU_ALLOC(release_reserved_mb, 0),
    NPU_REC(component, TP_SF_STR),
    NPU_REC(device, TP_SF_STR),
    NPU_REC(ts, 0),
    NPU_REC(allocated_mb, 0),
    NPU_REC(reserved_mb, 0),
    NPU_REC(active_mb, 0),
    NPU_MOD(component, TP_SF_STR),
    NPU_MOD(device, TP_SF_STR),
    NPU_MOD(ts, 0),
    NPU_MOD(reserved_mb, 0),
    NPU_STEP(step, 0),
    NPU_STEP(device, 0),
    NPU_STEP(computing, 0),
    NPU_STEP(comm_not_overlapped, 0),
    NPU_STEP(overlapped, 0),
    NPU_STEP(comm, 0),
    NPU_STEP(free, 0),
    NPU_STEP(stage, 0),
    NPU_STEP(bubble, 0),
    {"npu.step.cno_excl_recv", TP_SF_NPU_STEPS, NPU(steps, struct tp_npu_steptime, comm_not_overlapped_excl_recv), 0},
    NPU_STEP(preparing, 0),
    NPU_COMM(step, 0),
    NPU_COMM(kind, TP_SF_STR),
    NPU_COMM(name, TP_SF_STR),
    NPU_COMM(total, 0),
    NPU_COMM(start, 0),
    NPU_COMM(elapse_ms, 0),
    NPU_COMM(transit_ms, 0),
    NPU_COMM(wait_ms, 0),
    NPU_COMM(sync_ms, 0),
    NPU_COMM(idle_ms, 0),
    NPU_COMM(wait_ratio, 0),
    NPU_COMM(sync_ratio, 0),
    NPU_COMM(transit_size_mb, 0),
    NPU_COMM(bw_gbps, 0),
    /* kernel_details' extra columns (PMU ...): "opt." so that a tprof that
     * predates them reads the rest of the store (it shows no PMU columns
     * anyway); a store without them (older) reads as a folder without them.
     * check_refs holds the cell count to columns x tasks and each cell's
     * string id to the string table. */
    {"opt.npu.xcol.name", TP_SF_NPU_XCOLS, NPU(xcols, struct tp_npu_xcol, name), TP_SF_STR},
    {"opt.npu.xcell.cell", TP_SF_NPU_XCELLS, offsetof(struct tp_npu_data, xcells), sizeof(tp_npu_xcell), 0,
     sizeof(tp_npu_xcell), 0},
};
const size_t tp_sf_ncols = sizeof tp_sf_cols / sizeof tp_sf_cols[0];

/* Scalars of the store and of the Ascend data: one section each. */
#define SCALAR(f) offsetof(tp_store, f), sizeof(((tp_store *)0)->f)
#define STORE_SCALAR(f) {"s." #f, TP_SF_ROOT_STORE, SCALAR(f)}
#define NPU_SCALAR(f) {"npu." #f, TP_SF_ROOT_NPU, offsetof(struct tp_npu_data, f), \
                       sizeof(((struct tp_npu_data *)0)->f)}
const struct tp_sf_scalar tp_sf_scalars[] = {
    STORE_SCALAR(input_bytes),
    STORE_SCALAR(text_bytes),
    STORE_SCALAR(base_time_ns),
    STORE_SCALAR(rank),
    STORE_SCALAR(world_size),
    STORE_SCALAR(dist_backend),
    STORE_SCALAR(schema_version),
    STORE_SCALAR(truncated),
    STORE_SCALAR(linked),
    {"s.annots_pyprof", TP_SF_ROOT_STORE, SCALAR(annots_from_pyprof)},
    NPU_SCALAR(dir),
    NPU_SCALAR(files),
    NPU_SCALAR(on_disk),
    NPU_SCALAR(read),
    NPU_SCALAR(start_ns),
    NPU_SCALAR(first_ns),
    NPU_SCALAR(level),
    NPU_SCALAR(kernel_header),
    NPU_SCALAR(tasks_from_trace),
};
const size_t tp_sf_nscalars = sizeof tp_sf_scalars / sizeof tp_sf_scalars[0];
