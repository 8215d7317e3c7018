/* tc.c — kernel-name rules: Tensor Core detection, PyProf's short names, and
 * demangling of nvprof's mangled kernel names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "opcall.h"
#include "pyprof.h"

/* Tensor Core kernels, by substring of the (short or long) kernel name.
 *
 * PyProf 3.x TC_Whitelist (pyprof/prof/tc.py):
 *   h884 s884 h1688 s1688 hmma i8816 16816 dgrad_1x1_stride_2x2
 *   first_layer_wgrad_kernel conv1x1 conv2d_c1_k1 direct_group
 *   xmma_implicit_gemm xmma_sparse_conv xmma_warp_specialized_implicit_gemm
 *   xmma_gemm xmma_sparse_gemm c1688
 * The TensorBoard plugin's list adds (tb_plugin/.../tensor_core.py):
 *   884gemm 1688gemm 16816gemm (covered above) and "wgrad"/"dgrad" variants.
 * Extended here for Ampere/Hopper/Blackwell names that PyProf never learned
 * (PyProf #170):
 *   tensorop        ampere_*_tensorop_*, sm80/sm90 cutlass "*_tensorop_*"
 *   sm80_xmma sm86_xmma sm89_xmma sm90_xmma sm100_xmma   cuBLAS/cuDNN xmma
 *   cutlass_80_tensorop cutlass_90_tensorop (covered by "tensorop")
 *   nvjet           cuBLASLt Hopper/Blackwell GEMMs (nvjet_hsh_..., nvjet_tst_...)
 *   wgmma gmma      Hopper warpgroup MMA kernels
 *   hmma imma       (CUTLASS/cuDNN mma names)
 *   s16816gemm h16816 s1688gemm h1688 (covered by 16816 / 1688)
 *   flash_fwd flash_bwd fmha   FlashAttention / fused MHA kernels
 *   xmma            any other xmma kernel (all xmma kernels use tensor cores)
 *   cudnn_infer_* / cudnn_train_* "sm80" xmma runtime-fusion kernels (xmma)
 *   mma_            cuDNN v8 "*_mma_*" kernels
 * and, for the full names kineto records (below): CUTLASS template
 * arguments, AMD matrix-core (MFMA/XDL) kernels, Blackwell tcgen05 kernels.
 * A kernel whose name has none of these is reported as not using them. */
static const char *const tc_names[] = {
    "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "dgrad_1x1_stride_2x2",
    "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm",
    "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm", "xmma_gemm", "xmma_sparse_gemm", "c1688",
    /* extensions */
    "884gemm", "1688gemm", "tensorop", "xmma", "nvjet", "wgmma", "gmma", "imma", "flash_fwd", "flash_bwd",
    "fmha", "h16816", "s16816", "i16832", "mma_",
    /* full (demangled) names of kineto traces */
    "OpClassTensorOp", "MmaTensorOp",   /* CUTLASS 2.x template arguments */
    "Gmma", "GMMA", /* CUTLASS 3.x Hopper mainloops: MainloopSm90TmaGmmaWarpSpecialized */
    "Umma", "UMMA", "tcgen05",   /* CUTLASS / CuTe Blackwell (sm100) tensor-core MMA */
    "mfma", "MFMA", /* AMD matrix cores: rocWMMA / CK / Triton-AMD "mfma" names */
    "xdlops", "_xdl_", "_xdl<", /* Composable Kernel XDL (MFMA) kernels: kernel_gemm_xdl_cshuffle_v3 */
    "wmma", "WMMA", /* WMMA (CUDA nvcuda::wmma, RDNA) */
    "gtcx",         /* MIOpen implicit GEMM on xdlops: igemm_fwd_gtcx3_nhwc_* */
    NULL
};

/* rocBLAS / hipBLASLt Tensile kernels name their MFMA instruction tile:
 * "Cijk_Alik_Bljk_..._MT64x32x128_MI16x16x1_..." (MI = matrix instruction;
 * a Tensile kernel without MFMA has no MI field) */
static int tensile_mfma(const char *name)
{
    if (strncmp(name, "Cijk_", 5) != 0)
        return 0;
    for (const char *p = strstr(name, "_MI"); p; p = strstr(p + 1, "_MI"))
        if (p[3] >= '1' && p[3] <= '9')
            return 1;
    return 0;
}

/* TensorRT-LLM's generated batched GEMMs, "bmm_<A>_<B>_<acc>_t<tile>..._sm100f",
 * run on Blackwell's tcgen05 tensor cores */
static int trtllm_bmm(const char *name)
{
    return strncmp(name, "bmm_", 4) == 0 && strstr(name, "_sm10") != NULL;
}

int tp_kernel_uses_tc(const char *kernel_name)
{
    if (!kernel_name)
        return 0;
    for (const char *const *p = tc_names; *p; p++)
        if (strstr(kernel_name, *p))
            return 1;
    return tensile_mfma(kernel_name) || trtllm_bmm(kernel_name);
}

/* ---- demangling ---------------------------------------------------------- */

extern char *__cxa_demangle(const char *, char *, size_t *, int *) __attribute__((weak));

char *tp_demangle(const char *mangled)
{
    if (!mangled || strncmp(mangled, "_Z", 2) != 0 || !__cxa_demangle)
        return NULL;
    int status = 0;
    char *r = __cxa_demangle(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(r);
        return NULL;
    }
    return r;
}

/* A small Itanium demangler for what getShortName keeps: the qualified name
 * of the function up to its first template argument list or its parameters
 * ("_ZN2at6native18elementwise_kernelILi128E..." -> "at::native::elementwise_kernel").
 * Local names (Z <encoding> E ...) give the enclosing function's name, as
 * getShortName would.  0 on success. */
struct dm {
    const char *p;
    char *out;
    size_t n, cap;
    size_t subs[64];       /* substitution candidates: lengths of out */
    int nsubs;
};

static int dm_put(struct dm *d, const char *s, size_t len)
{
    if (d->n + len + 1 > d->cap)
        return -1;
    memcpy(d->out + d->n, s, len);
    d->n += len;
    d->out[d->n] = 0;
    return 0;
}

static int dm_sep(struct dm *d)
{
    return d->n ? dm_put(d, "::", 2) : 0;
}

static void dm_push(struct dm *d)
{
    if (d->nsubs < 64)
        d->subs[d->nsubs++] = d->n;
}

/* <source-name> ::= <positive length number> <identifier> */
static int dm_source(struct dm *d)
{
    size_t len = 0;
    if (*d->p < '1' || *d->p > '9')
        return -1;
    while (*d->p >= '0' && *d->p <= '9')
        len = len * 10 + (size_t)(*d->p++ - '0');
    if (strnlen(d->p, len) < len)
        return -1;
    if (dm_sep(d))
        return -1;
    if (len >= 10 && strncmp(d->p, "_GLOBAL__N", 10) == 0) {
        if (dm_put(d, "(anonymous namespace)", 21))
            return -1;
    } else if (dm_put(d, d->p, len)) {
        return -1;
    }
    d->p += len;
    return 0;
}

/* S_ / S<seq-id>_ and the std abbreviations; 0 ok */
static int dm_subst(struct dm *d)
{
    d->p++;   /* S */
    char c = *d->p;
    static const struct { char c; const char *s; } abbr[] = {
        { 't', "std" }, { 'a', "std::allocator" }, { 'b', "std::basic_string" }, { 's', "std::string" },
        { 'i', "std::istream" }, { 'o', "std::ostream" }, { 'd', "std::iostream" },
    };
    for (size_t i = 0; i < sizeof abbr / sizeof abbr[0]; i++)
        if (c == abbr[i].c) {
            d->p++;
            if (dm_sep(d) || dm_put(d, abbr[i].s, strlen(abbr[i].s)))
                return -1;
            return 0;
        }
    size_t idx = 0;
    if (c == '_') {
        idx = 0;
    } else {
        size_t v = 0;
        while ((*d->p >= '0' && *d->p <= '9') || (*d->p >= 'A' && *d->p <= 'Z')) {
            v = v * 36 + (size_t)(*d->p <= '9' ? *d->p - '0' : *d->p - 'A' + 10);
            d->p++;
        }
        if (*d->p != '_')
            return -1;
        idx = v + 1;
    }
    d->p++;   /* _ */
    if ((int)idx >= d->nsubs)
        return -1;
    /* a substitution replaces what was written so far with the candidate */
    size_t len = d->subs[idx];
    if (len > d->n)
        return -1;
    d->n = len;
    d->out[d->n] = 0;
    return 0;
}

static int dm_encoding_name(struct dm *d);

/* returns 1 when a template argument list starts (stop), 0 at the end of
 * the name, -1 on failure */
static int dm_name(struct dm *d)
{
    const char *p = d->p;
    if (*p == 'N') {
        d->p++;
        while (*d->p == 'r' || *d->p == 'V' || *d->p == 'K' || *d->p == 'R' || *d->p == 'O')
            d->p++;
        for (;;) {
            char c = *d->p;
            if (c == 'E')
                return 0;
            if (c == 'I')
                return 1;
            if (c == 'S') {
                if (dm_subst(d))
                    return -1;
                if (d->p[-1] != 't')
                    continue;     /* St is no candidate; a real substitution is not re-added */
                continue;
            }
            if (c >= '1' && c <= '9') {
                if (dm_source(d))
                    return -1;
                dm_push(d);
                continue;
            }
            return -1;            /* ctor/dtor, operators, lambdas...: give up */
        }
    }
    if (*p == 'Z') {              /* local name: the enclosing function */
        d->p++;
        return dm_encoding_name(d) < 0 ? -1 : 0;
    }
    if (*p == 'S') {
        if (dm_subst(d))
            return -1;
        if (*d->p >= '1' && *d->p <= '9' && dm_source(d))
            return -1;
        return *d->p == 'I' ? 1 : 0;
    }
    if (*p >= '1' && *p <= '9') {
        if (dm_source(d))
            return -1;
        return *d->p == 'I' ? 1 : 0;
    }
    return -1;
}

static int dm_encoding_name(struct dm *d)
{
    return dm_name(d);
}

static int mini_demangle(const char *mangled, char *out, size_t cap)
{
    if (strncmp(mangled, "_Z", 2) != 0)
        return -1;
    struct dm d = { .p = mangled + 2, .out = out, .n = 0, .cap = cap };
    out[0] = 0;
    int r = dm_encoding_name(&d);
    return r < 0 || d.n == 0 ? -1 : 0;
}

/* ---- getShortName -------------------------------------------------------- */

static void remove_all(char *s, const char *what)
{
    size_t wl = strlen(what);
    char *r = s, *w = s;
    while (*r) {
        if (strncmp(r, what, wl) == 0) {
            r += wl;
            continue;
        }
        *w++ = *r++;
    }
    *w = 0;
}

size_t tp_pyprof_short_name(const char *name, char *out, size_t cap, int underscores)
{
    if (cap == 0)
        return 0;
    char stackbuf[1024];
    char *buf = stackbuf;
    size_t len = strlen(name);
    size_t bufcap = len + 1 > sizeof stackbuf ? len + 1 : sizeof stackbuf;
    if (bufcap > sizeof stackbuf) {
        buf = malloc(bufcap);
        if (!buf) {
            out[0] = 0;
            return SIZE_MAX;   /* out of memory: the caller says so */
        }
    }
    int mangled = name[0] == '_' && name[1] == 'Z';
    if (!mangled || mini_demangle(name, buf, bufcap) != 0) {
        char *dem = mangled ? tp_demangle(name) : NULL;
        const char *s = dem ? dem : name;
        size_t o = 0;
        while (*s && o + 1 < bufcap) {
            /* nsys writes "<unnamed>" where c++filt writes "(anonymous namespace)" */
            if (strncmp(s, "<unnamed>::", 11) == 0) {
                s += 11;
                continue;
            }
            if (*s == '<')
                break;
            buf[o++] = *s++;
        }
        buf[o] = 0;
        free(dem);
    }
    remove_all(buf, "void ");
    remove_all(buf, "at::");
    remove_all(buf, "cuda::");
    remove_all(buf, "native::");
    remove_all(buf, "(anonymous namespace)::");
    char *paren = strchr(buf, '(');
    if (paren)
        *paren = 0;
    size_t n = strlen(buf);
    if (n >= cap)
        n = cap - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = underscores && buf[i] == ' ' ? '_' : buf[i];
    out[n] = 0;
    if (buf != stackbuf)
        free(buf);
    return n;
}
