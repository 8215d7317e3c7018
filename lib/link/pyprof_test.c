/* pyprof_test.c — unit tests of the PyProf pieces: the Python-literal
 * parser, marker and kineto op calls, short names and demangling, the TC
 * list, and the nvprof/nsys/dict decoding on the real josiah profile
 * (SPEC §6.2 facts) when ../shared is there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingest.h"
#include "opcall.h"
#include "pylit.h"
#include "pyprof.h"
#include "store.h"
#include "testing.h"

#define REF "../shared/reference/pyprof/data/"

static void test_pylit(void)
{
    pylit_arena *a = pylit_arena_new();
    const char *t = "{'a': 1, \"b\": [1, -2, 3.5, 1e-05], 'c': (35, 20), 'd': (600,), 'e': (), "
                    "'f': True, 'g': None, 'h': 'it\\'s \\x41\\u00e9\\n', 'i': 123456789012345678901234567890, "
                    "'j': {'k': [[], {}]}}";
    py_val *v = pylit_parse(a, t, strlen(t), NULL, NULL);
    CHECK("pylit_dict", v && v->type == PY_DICT && v->n == 10);
    CHECK("pylit_int", pylit_get(v, "a") && pylit_get(v, "a")->i == 1);
    py_val *b = pylit_get(v, "b");
    CHECK("pylit_list", b && b->type == PY_LIST && b->n == 4 && pylit_item(b, 1)->i == -2 &&
          pylit_item(b, 2)->type == PY_FLOAT && pylit_item(b, 3)->f == 1e-05);
    CHECK("pylit_tuple", pylit_get(v, "c")->type == PY_TUPLE && pylit_get(v, "c")->n == 2);
    CHECK("pylit_tuple1", pylit_get(v, "d")->type == PY_TUPLE && pylit_get(v, "d")->n == 1);
    CHECK("pylit_tuple0", pylit_get(v, "e")->type == PY_TUPLE && pylit_get(v, "e")->n == 0);
    CHECK("pylit_bool_none", pylit_get(v, "f")->type == PY_BOOL && pylit_get(v, "f")->i == 1 &&
          pylit_get(v, "g")->type == PY_NONE);
    CHECK_STR("pylit_escapes", pylit_str(pylit_get(v, "h")), "it's A\xc3\xa9\n");
    CHECK("pylit_bigint", pylit_get(v, "i")->big && pylit_get(v, "i")->f > 1e29);
    CHECK("pylit_nested", pylit_get(pylit_get(v, "j"), "k")->n == 2);
    py_val *p = pylit_parse(a, "(5)", 3, NULL, NULL);
    CHECK("pylit_paren_is_not_tuple", p && p->type == PY_INT && p->i == 5);
    size_t pos = 0;
    const char *msg = NULL;
    CHECK("pylit_error_unterminated", !pylit_parse(a, "{'a': 'x", 8, &pos, &msg) && msg);
    CHECK("pylit_error_trailing", !pylit_parse(a, "[1] 2", 5, &pos, &msg) && pos == 4);
    CHECK("pylit_error_missing_comma", !pylit_parse(a, "[1 2]", 5, &pos, &msg));
    CHECK("pylit_error_empty", !pylit_parse(a, "", 0, &pos, &msg));
    py_val *x = pylit_parse(a, "(1, 2)", 6, NULL, NULL), *y = pylit_parse(a, "(1,2)", 5, NULL, NULL),
           *z = pylit_parse(a, "[1, 2]", 6, NULL, NULL);
    CHECK("pylit_equal", pylit_equal(x, y) && !pylit_equal(x, z));
    py_val *w = pylit_parse(a, "'''tri\"ple'''", 13, NULL, NULL);
    CHECK_STR("pylit_triple_quote", pylit_str(w), "tri\"ple");
    /* deep nesting is refused, not a stack overflow */
    char deep[1000];
    memset(deep, '[', sizeof deep);
    CHECK("pylit_deep", !pylit_parse(a, deep, sizeof deep, &pos, &msg));
    pylit_arena_free(a);
}

static void test_marker(void)
{
    struct tp_opcall c;
    const char *m = "{'mod': 'torch.nn.functional', 'op': 'softmax', 'args': [{'name': '', 'type': 'tensor', "
                    "'shape': (20, 35, 35), 'dtype': 'float32'}, {'name': 'dim', 'type': 'int', 'value': -1}, "
                    "{'name': 'x', 'type': 'float', 'value': 'inf'}, {'name': 'p', 'type': 'tuple', "
                    "'value': (1, 2)}, {'name': 'r', 'type': 'str', 'value': 'mean'}, "
                    "{'name': 'n', 'type': 'NoneType', 'value': None}]}";
    CHECK_INT("marker_parse", tp_opcall_from_marker(m, &c), 0);
    CHECK_STR("marker_mod", c.mod, "torch.nn.functional");
    CHECK_STR("marker_op", c.op, "softmax");
    CHECK_INT("marker_nargs", c.nargs, 6);
    CHECK("marker_tensor", c.args[0].type == TP_ARG_TENSOR && c.args[0].ndim == 3 && c.args[0].shape[2] == 35 &&
          strcmp(c.args[0].dtype, "float32") == 0);
    CHECK("marker_int", c.args[1].type == TP_ARG_INT && c.args[1].ivalue == -1 && strcmp(c.args[1].name, "dim") == 0);
    CHECK("marker_inf", c.args[2].type == TP_ARG_FLOAT && isinf(c.args[2].fvalue));
    CHECK("marker_tuple", c.args[3].type == TP_ARG_LIST && c.args[3].ndim == 2 && c.args[3].ivalue == 1 &&
          strcmp(c.args[3].svalue, "tuple") == 0);
    CHECK("marker_str", c.args[4].type == TP_ARG_STR && strcmp(c.args[4].svalue, "mean") == 0);
    CHECK("marker_none", c.args[5].type == TP_ARG_NONE);
    CHECK_INT("marker_not_dict", tp_opcall_from_marker("{'traceMarker': ['a.py:1']}", &c), -1);
    CHECK_INT("marker_garbage", tp_opcall_from_marker("mul, seq = 3", &c), -1);
}

static void test_kineto(void)
{
    struct tp_opcall c;
    CHECK_INT("kineto_parse", tp_opcall_from_kineto("aten::addmm", "[[512],[32,1024],[1024,512],[],[]]",
                                                    "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", &c), 0);
    CHECK_STR("kineto_mod", c.mod, "aten");
    CHECK_STR("kineto_op", c.op, "addmm");
    CHECK("kineto_args", c.nargs == 5 && c.args[1].type == TP_ARG_TENSOR && c.args[1].shape[1] == 1024 &&
          strcmp(c.args[1].dtype, "float32") == 0 && c.args[3].type == TP_ARG_FLOAT);
    CHECK_INT("kineto_dtypes", tp_opcall_from_kineto("aten::to", "[[2,3],[],[],[]]",
                                                     "[\"c10::BFloat16\",\"ScalarType\",\"\",\"Bool\"]", &c), 0);
    CHECK("kineto_dtype_bf16", strcmp(c.args[0].dtype, "bfloat16") == 0 && c.args[1].type == TP_ARG_OTHER &&
          c.args[2].type == TP_ARG_NONE && c.args[3].type == TP_ARG_BOOL);
    CHECK_INT("kineto_list", tp_opcall_from_kineto("aten::_foreach_add_", "[[[2,3],[4]],[[2,3],[4]]]",
                                                   "[\"TensorList\",\"TensorList\"]", &c), 0);
    CHECK("kineto_tensorlist", c.args[0].type == TP_ARG_LIST && c.args[0].ndim == 2 && c.args[0].ivalue == 10);
    CHECK_INT("kineto_half", tp_opcall_from_kineto("aten::mm", "[[2,3],[3,4]]",
                                                   "[\"c10::Half\",\"c10::Half\"]", &c), 0);
    CHECK_STR("kineto_half_dtype", c.args[0].dtype, "float16");
    CHECK_INT("kineto_bad_json", tp_opcall_from_kineto("aten::mm", "[[2,3", "[]", &c), -1);
    CHECK_INT("kineto_no_inputs", tp_opcall_from_kineto("aten::relu", NULL, NULL, &c), 0);

    /* "Concrete Inputs": the value's text decides the type */
    tp_opcall_from_kineto("aten::convolution", "[[4,3,8,8],[2,3,3,3],[],[],[],[],[],[],[],[]]",
                          "[\"float\",\"float\",\"\",\"ScalarList\",\"ScalarList\",\"Scalar\","
                          "\"Scalar\",\"Scalar\",\"Scalar\",\"str\"]", &c);
    CHECK_INT("concrete_parse", tp_opcall_add_concrete(&c, "[\"\", \"\", \"\", \"[16, 16]\", \"[]\", "
                                                          "\"False\", \"-3\", \"0.125\", \"None\", \"same\"]"), 0);
    CHECK("concrete_tensor_kept", c.args[0].type == TP_ARG_TENSOR && c.args[0].shape[3] == 8);
    CHECK("concrete_list", c.args[3].type == TP_ARG_LIST && c.args[3].ivalue == 1 && c.args[3].ndim == 2 &&
          c.args[3].shape[0] == 16 && c.args[3].shape[1] == 16);
    CHECK("concrete_empty_list", c.args[4].type == TP_ARG_LIST && c.args[4].ivalue == 1 && c.args[4].ndim == 0);
    CHECK("concrete_bool", c.args[5].type == TP_ARG_BOOL && c.args[5].ivalue == 0);
    CHECK("concrete_int", c.args[6].type == TP_ARG_INT && c.args[6].ivalue == -3 && !c.args[6].svalue[0]);
    CHECK("concrete_float", c.args[7].type == TP_ARG_FLOAT && c.args[7].fvalue == 0.125);
    CHECK("concrete_none", c.args[8].type == TP_ARG_NONE);
    CHECK("concrete_str", c.args[9].type == TP_ARG_STR && strcmp(c.args[9].svalue, "same") == 0);
    CHECK_INT("concrete_absent", tp_opcall_add_concrete(&c, NULL), 0);
    CHECK_INT("concrete_bad_json", tp_opcall_add_concrete(&c, "[\"1\""), -1);
    tp_opcall_from_kineto("aten::softmax", "[[4,10],[],[]]", "[\"float\",\"Int\",\"Bool\"]", &c);
    tp_opcall_add_concrete(&c, "[\"\", \"\", \"\"]");
    CHECK("concrete_blank_keeps_unknown", c.args[1].type == TP_ARG_INT && strcmp(c.args[1].svalue, "unknown") == 0);
    tp_opcall_add_concrete(&c, "[\"\", \"[1.5, 2]\", \"1\", \"extra\"]");
    CHECK("concrete_float_list_unknown", c.args[1].type == TP_ARG_LIST && c.args[1].ivalue == 0 && c.nargs == 3);
}

static void test_names(void)
{
    char b[256];
    struct { const char *in, *want; } cases[] = {
        { "_Z21indexSelectLargeIndexIfjLi2ELi2ELin2ELb1EEv10TensorInfoIT_T0_ES3_S0_IlS2_EiiS2_S2_l",
          "indexSelectLargeIndex" },
        { "_ZN2at6native18elementwise_kernelILi512ELi1EZNS0_15gpu_kernel_implIZNS0_23gpu_kernel_with_scalars",
          "elementwise_kernel" },
        { "_ZN2at6native78_GLOBAL__N__54_tmpxft_0000849d_00000000_11_Dropout_compute_75_cpp1_ii_275f3a0520fused_"
          "dropout_kernelIffjLi1EEEvNS_4cuda6detail10TensorI", "fused_dropout_kernel" },
        { "_ZN2at4cuda78_GLOBAL__N__54_tmpxft_0000849d_00000000_11_Dropout_compute_75_cpp1_ii_275f3a0521kernelPoint"
          "wiseApply3IZNS_6native78", "kernelPointwiseApply3" },
        { "_Z42cunn_ClassNLLCriterion_updateOutput_kernelIffEvPT_S1_S1_PlS1_iiiil",
          "cunn_ClassNLLCriterion_updateOutput_kernel" },
        { "volta_sgemm_128x64_tn", "volta_sgemm_128x64_tn" },
        { "void at::native::(anonymous namespace)::fused_dropout_kernel<float, float, unsigned int, 1>(int)",
          "fused_dropout_kernel" },
        { "cudnn::gemm::computeOffsetsKernel(cudnn::gemm::ComputeOffsetsParams)", "cudnn::gemm::computeOffsetsKernel" },
        { "void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, (int)4>(int)",
          "distribution_elementwise_grid_stride_kernel" },
        { "<unnamed>::nvfuser_none_f0_c0_r0_g0(<unnamed>::Tensor<float, 3>)", "nvfuser_none_f0_c0_r0_g0" },
        { "ampere fp16 kernel", "ampere_fp16_kernel" },
        { "_Z10add_kernelPfS_", "add_kernel" },
        { "_ZN3cub11EmptyKernelIvEEvv", "cub::EmptyKernel" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "short_name_%zu", i);
        tp_pyprof_short_name(cases[i].in, b, sizeof b, 1);
        CHECK_STR(name, b, cases[i].want);
    }
    tp_pyprof_short_name("abcdef", b, 4, 0);
    CHECK_STR("short_name_truncated", b, "abc");
}

static void test_tc(void)
{
    CHECK("tc_volta_h884", tp_kernel_uses_tc("volta_h884gemm_64x64_ldg8_nn"));
    CHECK("tc_turing_1688", tp_kernel_uses_tc("turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn"));
    CHECK("tc_ampere", tp_kernel_uses_tc("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn"));
    CHECK("tc_sm80_xmma", tp_kernel_uses_tc("sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32"));
    CHECK("tc_hopper_nvjet", tp_kernel_uses_tc("nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NTT"));
    CHECK("tc_cutlass", tp_kernel_uses_tc("cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_nt_align8"));
    CHECK("tc_hopper_wgmma", tp_kernel_uses_tc("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"));
    CHECK("tc_flash", tp_kernel_uses_tc("flash_fwd_kernel"));
    CHECK("tc_not_sgemm", !tp_kernel_uses_tc("volta_sgemm_128x64_tn"));
    CHECK("tc_not_elementwise", !tp_kernel_uses_tc("elementwise_kernel"));
    CHECK("tc_null", !tp_kernel_uses_tc(NULL));
    /* full kernel names (kineto): what the short name hides */
    CHECK("tc_cutlass_kernel2", tp_kernel_uses_tc("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_"
                                                  "bf16_64x64_64x4_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_"
                                                  "relu_bf16_64x64_64x4_tn_align8::Params)"));
    CHECK("tc_cutlass3_sm90", tp_kernel_uses_tc("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<"
                                                "cute::tuple<int, int, int>, cutlass::gemm::collective::CollectiveMma<"
                                                "cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4, cute::tuple<"
                                                "cute::C<2>, cute::C<1>, cute::C<1> > > > > >"));
    CHECK("tc_cutlass2_opclass", tp_kernel_uses_tc("void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::"
                                                   "threadblock::MmaMultistage<cutlass::arch::OpClassTensorOp> > >"));
    CHECK("tc_tensile_mfma", tp_kernel_uses_tc("Cijk_Alik_Bljk_BBS_BH_MT64x32x128_MI16x16x1_SN_LDSB1_AFC1"));
    CHECK("tc_tensile_no_mfma", !tp_kernel_uses_tc("Cijk_Alik_Bljk_SB_MT64x32x8_SN_1LDSB0_APM1_GRVW4"));
    CHECK("tc_miopen_xdlops", tp_kernel_uses_tc("igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt64x64x16_wt16x16x4"));
    CHECK("tc_ck_xdl", tp_kernel_uses_tc("void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<"
                                         "ck::tensor_layout::gemm::RowMajor> >"));
    CHECK("tc_blackwell_trtllm", tp_kernel_uses_tc("bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_"
                                                   "m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_sm100f"));
    CHECK("tc_blackwell_fmha", tp_kernel_uses_tc("fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16"));
    CHECK("tc_not_miopen_subtensor", !tp_kernel_uses_tc("SubTensorOpWithScalar1d"));
    CHECK("tc_not_gemv", !tp_kernel_uses_tc("void gemmSN_TN_kernel<float, 128, 16, 2, 4, 10, 11, false, "
                                            "cublasGemvTensorStridedBatched<float const> >"));
    CHECK("tc_not_batched_transpose", !tp_kernel_uses_tc("batched_transpose_32x16_half"));
}

static tp_store *load(const char *path)
{
    tp_store *st = tp_store_new();
    tp_error err = {0};
    if (tp_store_load(st, path, &err) != TP_OK || tp_store_link(st, &err) != TP_OK) {
        printf("# %s: %s\n", path, err.msg);
        tp_store_free(st);
        return NULL;
    }
    return st;
}

static const char *S(const tp_store *st, uint32_t id) { return tp_store_str(st, id); }

static void test_real(void)
{
    if (access(REF "josiahdavis_profiling-lm/17ed9e2/net.sql", R_OK) != 0) {
        SKIP("pyprof_real", "../shared/reference/pyprof is absent");
        return;
    }
    tp_store *sq = load(REF "josiahdavis_profiling-lm/17ed9e2/net.sql");
    tp_store *dc = load(REF "josiahdavis_profiling-lm/17ed9e2/net.dict");
    tp_store *ns = load(REF "synthetic_nsys_from_17ed9e2/synthetic_nsys_from_nvprof_17ed9e2.sqlite");
    CHECK("real_loaded", sq && dc && ns);
    if (!sq || !dc || !ns)
        goto out;
    CHECK_INT("real_sql_kernels", sq->nannots, 160);
    CHECK_INT("real_dict_kernels", dc->nannots, 160);
    CHECK_INT("real_nsys_kernels", ns->nannots, 160);
    CHECK("real_formats", sq->format == TP_SRC_NVPROF_SQLITE && dc->format == TP_SRC_PYPROF_DICT &&
          ns->format == TP_SRC_NSYS_SQLITE && sq->annots_from_pyprof && dc->annots_from_pyprof);
    size_t nvtx = 0;
    for (size_t i = 0; i < sq->n; i++)
        nvtx += sq->kind[i] == TP_K_NVTX && sq->ph[i] == 'X';
    CHECK_INT("real_nvtx_ranges", nvtx, 683);
    int alt = 0, noseq = 0, subpos = 0, fprop = 0, same = 1, same_nsys = 1, tids = 1;
    for (size_t k = 0; k < 160; k++) {
        const struct tp_kernel_annot *a = &sq->annots[k], *b = &dc->annots[k], *c = &ns->annots[k];
        alt += a->altseq != 0;
        noseq += a->seq == 0;
        subpos += a->sub > 0;
        fprop += !a->bprop;
        if (strcmp(S(sq, a->seq), S(dc, b->seq)) || strcmp(S(sq, a->altseq), S(dc, b->altseq)) ||
            strcmp(S(sq, a->layer), S(dc, b->layer)) || strcmp(S(sq, a->trace), S(dc, b->trace)) ||
            strcmp(S(sq, a->trace_last), S(dc, b->trace_last)) || a->bprop != b->bprop || a->sub != b->sub ||
            strcmp(S(sq, a->mod), S(dc, b->mod)) || strcmp(S(sq, a->op), S(dc, b->op)) ||
            strcmp(S(sq, a->marker), S(dc, b->marker)) || a->tid != b->tid ||
            sq->dur[a->event] != dc->dur[b->event]) {
            if (same)
                printf("# kernel %zu differs between net.sql and net.dict\n", k + 1);
            same = 0;
        }
        if (strcmp(S(sq, a->seq), S(ns, c->seq)) || strcmp(S(sq, a->op), S(ns, c->op)) || a->sub != c->sub ||
            strcmp(S(sq, a->marker), S(ns, c->marker)) || a->bprop != c->bprop)
            same_nsys = 0;
        if (a->tid != (a->bprop ? 452974336 : 3940300608) && a->tid != 452974336)
            tids = 0;
    }
    CHECK_INT("real_altseq_nonempty", alt, 29);
    CHECK_INT("real_seq_empty", noseq, 25);
    CHECK_INT("real_sub_positive", subpos, 72);
    CHECK_INT("real_fprop", fprop, 118);
    CHECK("real_sql_equals_dict", same);
    CHECK("real_nsys_equals_nvprof", same_nsys);
    CHECK("real_tids", tids);
    CHECK_INT("real_nsys_tid", ns->annots[0].tid, 14432064);
    /* kernel 50: "sum, seq = 0" after seq 125: seqId [] and altSeqId [0] */
    CHECK_STR("real_k50_seq", S(sq, sq->annots[49].seq), "");
    CHECK_STR("real_k50_altseq", S(sq, sq->annots[49].altseq), "0");
    CHECK_STR("real_k50_op", S(sq, sq->annots[49].op), "sum");
    CHECK_STR("real_k50_mod", S(sq, sq->annots[49].mod), "na");
    CHECK_INT("real_devices", sq->ndevices, 1);
out:
    tp_store_free(sq);
    tp_store_free(dc);
    tp_store_free(ns);
}

/* a hand-made nvprof-like store: NVTX nesting, the deletion quirk, driver fallback */
/* Two kernels (at 500 and 600) with correlation ids kcorr[0], kcorr[1]:
 * id 1 launched at 170-180 on thread 1 (runtime) inside a PyProf marker
 * and a seq marker, id 2 at 420-430 on thread 2 (driver only) inside a
 * backward seq marker. */
static tp_store *synthetic(const int64_t kcorr[2], uint32_t *mk_out)
{
    tp_store *st = tp_store_new();
    st->format = TP_SRC_NVPROF_SQLITE;
    uint32_t outer = tp_store_intern(st, "layer:Block1", 12);
    const char *pm = "{'mod': 'torch', 'op': 'mm', 'args': [{'name': '', 'type': 'tensor', 'shape': (2, 3), "
                     "'dtype': 'float32'}, {'name': '', 'type': 'tensor', 'shape': (3, 4), 'dtype': 'float32'}]}";
    uint32_t mk = tp_store_intern(st, pm, strlen(pm));
    uint32_t sq = tp_store_intern(st, "mm, seq = 7", 11);
    uint32_t bw = tp_store_intern(st, "MmBackward, seq = 7", 19);
    struct { int64_t ts, dur, tid; uint32_t name; } nv[] = {
        { 100, 1000, 1, outer }, { 150, 100, 1, mk }, { 160, 50, 1, sq }, { 400, 100, 2, bw },
    };
    for (size_t i = 0; i < 4; i++) {
        int64_t r = tp_store_add(st);
        st->kind[r] = TP_K_NVTX;
        st->ts[r] = nv[i].ts;
        st->dur[r] = nv[i].dur;
        st->pid[r] = 9;
        st->tid[r] = nv[i].tid;
        st->name[r] = nv[i].name;
    }
    /* kernel 1 launched at 170-180 on thread 1 (runtime); kernel 2 at 420-430 on thread 2 (driver only) */
    struct { int64_t ts, dur, tid, corr; int driver; } api[] = { { 170, 10, 1, 1, 0 }, { 420, 10, 2, 2, 1 } };
    for (size_t i = 0; i < 2; i++) {
        int64_t r = tp_store_add(st);
        st->kind[r] = api[i].driver ? TP_K_DRIVER : TP_K_RUNTIME;
        st->ts[r] = api[i].ts;
        st->dur[r] = api[i].dur;
        st->pid[r] = 9;
        st->tid[r] = api[i].tid;
        st->correlation[r] = api[i].corr;
    }
    uint32_t kn = tp_store_intern(st, "volta_sgemm_32x32_sliced1x4_nn", 30);
    for (int i = 0; i < 2; i++) {
        int64_t r = tp_store_add(st);
        st->kind[r] = TP_K_KERNEL;
        st->ts[r] = 500 + i * 100;
        st->dur[r] = 50;
        st->correlation[r] = kcorr[i];
        st->name[r] = kn;
        tp_store_add_kernel_info(st, (size_t)r);
    }
    *mk_out = mk;
    return st;
}

static void test_link_synthetic(void)
{
    static const int64_t rising[2] = { 1, 2 };
    uint32_t mk;
    tp_store *st = synthetic(rising, &mk);
    tp_error err = {0};
    CHECK_INT("link_synth_rc", tp_store_link(st, &err), TP_OK);
    CHECK_INT("link_synth_n", st->nannots, 2);
    if (st->nannots == 2) {
        const struct tp_kernel_annot *a = &st->annots[0], *b = &st->annots[1];
        CHECK_STR("link_synth_layer", S(st, a->layer), "Block1");
        CHECK_STR("link_synth_op", S(st, a->op), "mm");
        CHECK_STR("link_synth_mod", S(st, a->mod), "torch");
        CHECK_STR("link_synth_seq", S(st, a->seq), "7");
        CHECK("link_synth_marker", a->marker == mk && !a->bprop);
        CHECK("link_synth_bprop", b->bprop && b->tid == 2);
        CHECK("link_synth_lookup", b->marker == mk && strcmp(S(st, b->op), "mm") == 0 &&
              strcmp(S(st, b->layer), "Block1") == 0);
    }
    tp_store_free(st);
}

/* Kernel ids that do not rise (the hash map, not the sorted array): each
 * kernel still finds its own launch; two kernels of one id both find it. */
static void test_link_unordered(void)
{
    static const int64_t falling[2] = { 2, 1 }, same[2] = { 1, 1 };
    uint32_t mk;
    tp_store *st = synthetic(falling, &mk);
    tp_error err = {0};
    CHECK_INT("link_falling_rc", tp_store_link(st, &err), TP_OK);
    CHECK_INT("link_falling_n", st->nannots, 2);
    if (st->nannots == 2) {
        const struct tp_kernel_annot *a = &st->annots[0], *b = &st->annots[1];
        CHECK("link_falling_first_driver", a->bprop && a->tid == 2);
        CHECK("link_falling_second_runtime", !b->bprop && b->tid == 1 && b->marker == mk &&
              strcmp(S(st, b->op), "mm") == 0 && strcmp(S(st, b->layer), "Block1") == 0);
    }
    tp_store_free(st);
    st = synthetic(same, &mk);
    CHECK_INT("link_shared_id_rc", tp_store_link(st, &err), TP_OK);
    CHECK_INT("link_shared_id_n", st->nannots, 2);
    if (st->nannots == 2)
        CHECK("link_shared_id_both", st->annots[0].tid == 1 && st->annots[1].tid == 1 && !st->annots[0].bprop &&
              st->annots[0].marker == mk && st->annots[1].marker == mk);
    tp_store_free(st);
}

int main(void)
{
    test_pylit();
    test_marker();
    test_kineto();
    test_names();
    test_tc();
    test_real();
    test_link_synthetic();
    test_link_unordered();
    TEST_EXIT();
}
