#!/usr/bin/env python3
"""make-bad.py — (re)make the bad-input corpus in this folder from the small
valid inputs of the tree.  Each file breaks one thing; EXPECTED says what
tprof must answer.  Run from anywhere: python3 testdata/bad/make-bad.py"""
import gzip as _gzip, io, os, random, shutil, sqlite3, subprocess, zlib

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))
os.chdir(here)
sample = open(os.path.join(top, "testdata/sample.pt.trace.json"), "rb").read()
nvprof = os.path.join(top, "tests/fuzz/corpus/sqlite/nvprof-small.sql")
qa = open(os.path.join(top, "tests/fuzz/corpus/pydict/qa_data.dict"), "rb").read()
rnd = random.Random(11)

class gzip:   # gzip.compress without a timestamp: the script remakes identical files
    @staticmethod
    def compress(data, level=9):
        return _gzip.compress(data, level, mtime=0)

def put(name, data):
    with open(name, "wb") as f:
        f.write(data)

def ev(**kw):
    body = ",".join('"%s": %s' % (k, v) for k, v in kw.items())
    return ('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, %s}]}' % body).encode()

def zstd(data):
    return subprocess.run(["zstd", "-q", "-c", "-19"], input=data, stdout=subprocess.PIPE, check=True).stdout

# ---- JSON structure
put("empty.json", b"")
put("blank.json", b" \n\t\r\n  ")
put("truncated-10.json", sample[:10])
put("truncated-half.json", sample[:len(sample) // 2])
i = sample.index(b'"name"', 2000)
put("truncated-in-string.json", sample[:i + 12])
put("not-json.txt", b"hello, this is not a trace\n")
put("top-array-empty.json", b"[]")
put("top-object-empty.json", b"{}")
put("traceEvents-number.json", b'{"traceEvents": 5}')
put("traceEvents-string.json", b'{"traceEvents": "abc"}')
put("events-not-objects.json", b'{"traceEvents": [1, "two", null, true]}')
put("missing-comma.json", b'{"traceEvents": [{"ph": "X" "name": "a"}]}')
put("trailing-comma.json", b'{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2,}]}')
put("trailing-garbage.json", sample + b"\ngarbage here")
put("two-documents.json", sample + sample)
put("unterminated-string.json", b'{"traceEvents": [{"ph": "X", "name": "abc')
put("bom-only.json", b"\xef\xbb\xbf")
put("bom-then-trace.json", b"\xef\xbb\xbf" + sample)
put("leading-blanks-5000.json", b" " * 5000 + sample)
put("deep-nesting-1M.json.gz", gzip.compress(b"[" * 1000000, 9))
put("deep-args-nesting.json", ev(ts=1, dur=2, args="[" * 20000 + "]" * 20000))
put("nul-byte-in-name.json", ev(ts=1, dur=2).replace(b'"k"', b'"k\x00x"'))
put("control-chars-in-name.json", ev(ts=1, dur=2).replace(b'"k"', b'"k\x01\x1f"'))
put("duplicate-traceEvents.json", sample[:-2].rstrip(b"}\n ") + b'}\n, "traceEvents": []}' if False else
    b'{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 1, "dur": 2}], '
    b'"traceEvents": [{"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 1, "dur": 2}]}')
put("deviceProperties-number.json", b'{"deviceProperties": 3, "traceEvents": []}')
put("distributedInfo-strings.json", b'{"distributedInfo": {"rank": "x", "world_size": []}, "traceEvents": []}')
# ---- values
put("ts-string.json", ev(ts='"abc"', dur=2))
put("dur-negative.json", ev(ts=1, dur=-5))
put("dur-1e300.json", ev(ts=1, dur="1e300"))
put("ts-1e300.json", ev(ts="1e300", dur=1))
put("dur-nan.json", ev(ts=1, dur="NaN"))
put("ts-infinity.json", ev(ts="Infinity", dur=1))
put("pid-1e30.json", ev(ts=1, dur=1).replace(b'"pid": 0', b'"pid": 1e30'))
put("number-leading-zero.json", ev(ts="0123", dur=1))
put("number-bad-exponent.json", ev(ts="1e", dur=1))
put("number-5000-digits.json", ev(ts="1" + "0" * 5000, dur=1))
put("coll-nelems-string.json", ev(ts=1, dur=2, args='{"Collective name": "allreduce", "In msg nelems": "many"}'))
put("string-bad-escape.json", ev(ts=1, dur=1).replace(b'"k"', b'"k\\q"'))
put("string-lone-surrogate.json", ev(ts=1, dur=1).replace(b'"k"', b'"\\ud800"'))
put("string-invalid-utf8.json", ev(ts=1, dur=1).replace(b'"k"', b'"k\xff\xfe\xc0\xaf"'))
put("string-bad-unicode-escape.json", ev(ts=1, dur=1).replace(b'"k"', b'"\\u12G4"'))
# ---- gzip / zstd
gz = gzip.compress(sample, 9)
put("gzip-truncated.json.gz", gz[:len(gz) // 2])
put("gzip-bad-crc.json.gz", gz[:-8] + bytes([gz[-8] ^ 0xff]) + gz[-7:])
put("gzip-magic-only.gz", b"\x1f\x8b")
put("gzip-garbage.gz", b"\x1f\x8b\x08\x00" + bytes(rnd.randrange(256) for _ in range(3000)))
put("gzip-zero-padding.json.gz", gz + b"\0" * 512)
put("gzip-of-empty.gz", gzip.compress(b""))
put("gzip-two-members.json.gz", gzip.compress(sample[:2000]) + gzip.compress(sample[2000:]))
big = sample[:-3] + b"".join(b',{"ph": "X", "cat": "kernel", "name": "k%d", "pid": 0, "tid": 7, "ts": %d, "dur": 1}' % (n, n) for n in range(400)) + sample[-3:]
zb = zstd(big)
put("zstd-truncated.json.zst", zb[:len(zb) * 3 // 4])
put("zstd-magic-only.zst", b"\x28\xb5\x2f\xfd")
put("zstd-garbage.zst", b"\x28\xb5\x2f\xfd" + bytes(rnd.randrange(256) for _ in range(3000)))
put("sqlite-gzip.sql.gz", gzip.compress(open(nvprof, "rb").read()[:4096]))
# ---- SQLite
db = open(nvprof, "rb").read()
put("sqlite-header-only.sql", db[:100])
put("sqlite-truncated.sql", db[:len(db) // 2])
dbc = bytearray(db)
for k in range(2048, 2048 + 4096):
    dbc[k] = rnd.randrange(256)
put("sqlite-corrupt-pages.sql", bytes(dbc))
def make_db(name, sql):
    if os.path.exists(name):
        os.unlink(name)
    c = sqlite3.connect(name)
    c.execute("pragma page_size=512")
    c.executescript(sql)
    c.commit()
    c.execute("vacuum")
    c.close()
make_db("sqlite-no-tables.sqlite", "")
make_db("sqlite-unrelated-table.sqlite", "create table foo(a, b); insert into foo values (1, 2);")
def edit_nvprof(name, sql):
    shutil.copy(nvprof, name)
    os.chmod(name, 0o644)
    c = sqlite3.connect(name)
    c.executescript(sql)
    c.commit()
    c.close()
edit_nvprof("nvprof-kernel-start-text.sql", "update CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL set start = 'abc';")
edit_nvprof("nvprof-name-id-nowhere.sql", "update CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL set name = 99999;")
edit_nvprof("nvprof-kernel-table-dropped.sql", "drop table CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;")
# ---- PyProf dicts
put("dict-truncated.dict", qa[:len(qa) // 2])
put("dict-not-python.dict", b"{'kShortName': }\n")
put("dict-missing-keys.dict", b"{'x': 1}\n")
put("dict-kduration-1e30.dict", qa.replace(b"'kDuration': ", b"'kDuration': 1e30 + 0*", 1) if False else
    qa.split(b"\n")[0].replace(qa.split(b"\n")[0][qa.split(b"\n")[0].index(b"'kDuration': "):].split(b",")[0], b"'kDuration': 1000000000000000000000000000000") + b"\n")
put("dict-kduration-negative.dict", qa.split(b"\n")[0].replace(qa.split(b"\n")[0][qa.split(b"\n")[0].index(b"'kDuration': "):].split(b",")[0], b"'kDuration': -5") + b"\n")
put("nvprof-text-output.txt", b"==1234== NVPROF is profiling process 1234, command: python x.py\n==1234== Profiling result:\n")
put("random-binary.bin", bytes(rnd.randrange(256) for _ in range(2000)))
# ---- Ascend folders
kd = ("Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n"
      "1,MatMul,MatMul,AI_CORE,1736405443887000.5,12.5,0,8\n")
def folder(name, files):
    if os.path.isdir(name):
        shutil.rmtree(name)
    os.makedirs(name + "/ASCEND_PROFILER_OUTPUT")
    for f, data in files.items():
        put(name + "/ASCEND_PROFILER_OUTPUT/" + f, data.encode() if isinstance(data, str) else data)
folder("ascend-csv-bad-numbers", {"kernel_details.csv": kd.replace("12.5", "abc").replace(",8\n", ",x\n")})
folder("ascend-csv-missing-columns", {"kernel_details.csv": "Step Id,Type\n1,MatMul\n"})
folder("ascend-csv-unterminated-quote", {"kernel_details.csv": kd + '1,"Add,Add,AI_CORE,1736405443887100,3,0,8\n'})
folder("ascend-csv-empty", {"kernel_details.csv": ""})
folder("ascend-csv-duration-overflow", {"kernel_details.csv": kd + "1,MatMul,MatMul,AI_CORE,1736405443887100,9e15,0,8\n" * 3})
folder("ascend-trace-view-truncated", {"kernel_details.csv": kd, "trace_view.json": '[{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": "1736405443887000.0", "dur": 1.5}, {"ph": "X", "na'})
folder("ascend-db-not-sqlite", {"ascend_pytorch_profiler_0.db": "this is not a database\n" * 10})
# a cpu_op in the "Ascend Hardware" process becomes a kernel row; its aux used
# to index st->kernels (SIGSEGV in `tprof gpu`, found by fuzz_ascend)
folder("ascend-hw-cpu-op", {"trace_view.json": '[{"ph": "X", "name": "a", "pid": 7, "tid": 1, "ts": 9, "cat": "cpu_op", "args": {"name": "CANN"}},'
       ' {"ph": "X", "name": "b", "pid": 7, "tid": 1, "ts": 9, "cat": "cpu_op", "args": {"name": "CANN"}},'
       ' {"name": "process_name", "pid": 7, "tid": 0, "ph": "M", "args": {"name": "Ascend Hardware"}}]'})
folder("ascend-db-truncated", {"ascend_pytorch_profiler_0.db": db[:3000]})
# AWS Neuron TensorBoard plugin files (reference/npu/SPEC.md §B): the documented
# envelopes, refused by name instead of read as an empty PyTorch trace
put("neuron_framework_op.json", b'{"ops": [{"name": "aten__addmm_dot", "time": 279}], "total_time": 714}\n')
put("neuron_op_timeline.json", b'{"displayTimeUnit": "ns", "neuronStartTimestampNs": 1700000000000000000, '
    b'"traceEvents": [{"ph": "X", "name": "dot", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]}\n')
