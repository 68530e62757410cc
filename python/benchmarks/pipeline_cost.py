"""Per-pass cost of a C++ pipeline with a C++ instrument, started from Python
and from C++ (issue 22: "a C++ pipeline started from Python with C++
instruments at the same per-pass cost as from C++ (<= 1.05x, excluding the one
call)").

The pipeline: passinfra.transform.Sequential of N registry passes (default
InferType, a cheap C++ pass) over a small module (default: the empty module,
so that the pass infrastructure's share is as large as it gets), under a
PassContext whose only instrument is the C++ PassTimingInstrument. Each run
is timed alone; the instrument's records are cleared between runs, outside
the timed region. For two lengths N1 < N2 the per-pass cost is

    (t(N2) - t(N1)) / (N2 - N1)        t = median over REPS runs

so the one call (Python -> C++ and back, the module's conversion) cancels.
The C++ figure comes from python/benchmarks/pipeline_cost_driver.cpp: the same
pipeline built in C++ (DynamicSequential of registry passes, AnyInstrument of
a PassTimingInstrument) and timed the same way with no Python in the process,
compiled here with g++ -O2 -DNDEBUG (the extension's RelWithDebInfo flags,
less -g) against the same headers: as an executable (--link exe, the
default: what a C++ user builds), or as a shared library compiled as the
extension is, -fPIC -fvisibility=hidden -g (and -mtls-dialect=gnu2 on x86-64),
run by a stub (--link shared),
which separates what Python costs from what a shared object's code costs. Python and C++ measurements alternate in
ROUNDS rounds; the figures printed are the medians over rounds.

    PYTHONPATH=build/<preset>/python python3 python/benchmarks/pipeline_cost.py
        [--pass InferType] [--module empty|example] [--n1 200] [--n2 2000]
        [--reps 51] [--rounds 7] [--link exe|shared] [--cxx g++] [--driver PATH]
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

from passinfra import _core, instrument, tinyir, transform

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DRIVER_SOURCE = os.path.join(HERE, "pipeline_cost_driver.cpp")


def build_driver(cxx, out, link):
    """Compile pipeline_cost_driver.cpp to `out` (and, for link "shared", `out`.so)
    unless it is newer than the sources it depends on."""
    newest = max(
        os.path.getmtime(os.path.join(d, f))
        for top in (os.path.join(ROOT, "include"), os.path.join(ROOT, "examples", "tinyir"))
        for d, _, files in os.walk(top)
        for f in files
    )
    newest = max(newest, os.path.getmtime(DRIVER_SOURCE))
    if os.path.exists(out) and os.path.getmtime(out) > newest:
        return
    os.makedirs(os.path.dirname(out), exist_ok=True)
    common = [
        "nice", "-n", "10", cxx, "-std=c++20", "-O2", "-DNDEBUG", "-pthread", "-Wall", "-Wextra", "-Wpedantic",
        "-I", os.path.join(ROOT, "include"), "-I", os.path.join(ROOT, "examples"),
    ]
    if link == "exe":
        commands = [common + [DRIVER_SOURCE, "-o", out]]
    else:
        lib = out + ".so"
        # python/CMakeLists.txt builds the extension with TLS descriptors on x86-64.
        tls = ["-mtls-dialect=gnu2"] if platform.machine() in ("x86_64", "AMD64") else []
        commands = [
            common + tls + ["-g", "-fPIC", "-fvisibility=hidden", "-shared", "-DPIPELINE_COST_SHARED", DRIVER_SOURCE,
                      "-o", lib],
            common + ["-DPIPELINE_COST_STUB", DRIVER_SOURCE, lib, "-Wl,-rpath," + os.path.dirname(lib), "-o", out],
        ]
    for cmd in commands:
        print("building the C++ driver: " + " ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, check=True)


def make_module(kind):
    if kind == "empty":
        return tinyir.IRModule()
    if kind == "example":
        return tinyir.testing.example()
    raise ValueError("--module expected 'empty' or 'example'; got {!r}".format(kind))


def python_medians(pass_name, mod, reps, lengths):
    """t(N) for each N: median ns of one seq(mod) call from Python."""
    timing = instrument.PassTimingInstrument()
    out = {}
    with transform.PassContext(instruments=[timing]):
        for n in lengths:
            # The registry's pass, as tinyir.transform.InferType() makes it.
            seq = transform.Sequential([transform.ModulePass(_core.create_pass(pass_name)) for _ in range(n)])
            times = []
            for _ in range(reps):
                timing.clear()
                start = time.perf_counter_ns()
                result = seq(mod)
                times.append(time.perf_counter_ns() - start)
                if len(result) != len(mod):
                    raise RuntimeError("the pipeline changed the module's function count")
            out[n] = statistics.median(times)
        timing.clear()
    return out


def cpp_medians(driver, pass_name, module, reps, lengths):
    """t(N) for each N, from the C++ driver."""
    proc = subprocess.run(
        [driver, pass_name, module, str(reps)] + [str(n) for n in lengths],
        check=True, capture_output=True, text=True,
    )
    out = {}
    for line in proc.stdout.splitlines():
        _, n, _, t = line.split()
        out[int(n)] = float(t)
    return out


def per_pass(t, n1, n2):
    return (t[n2] - t[n1]) / (n2 - n1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pass", dest="pass_name", default="InferType")
    parser.add_argument("--module", default="empty", choices=["empty", "example"])
    parser.add_argument("--n1", type=int, default=200)
    parser.add_argument("--n2", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=51)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cxx", default="g++")
    parser.add_argument("--link", default="exe", choices=["exe", "shared"],
                        help="the C++ driver as an executable, or as a shared library compiled as the "
                        "extension is (-fPIC -fvisibility=hidden -g)")
    parser.add_argument("--driver", default=None,
                        help="where the C++ driver is built (rebuilt when older than the headers); default "
                        "build/bench-python/pipeline_cost_driver[_shared]")
    args = parser.parse_args()
    if args.driver is None:
        args.driver = os.path.join(ROOT, "build", "bench-python",
                                   "pipeline_cost_driver" + ("_shared" if args.link == "shared" else ""))
    if not 0 < args.n1 < args.n2:
        parser.error("expected 0 < --n1 < --n2; got --n1 {} --n2 {}".format(args.n1, args.n2))
    if args.reps < 1 or args.rounds < 1:
        parser.error("--reps and --rounds expect positive counts")

    build_driver(args.cxx, args.driver, args.link)
    mod = make_module(args.module)
    lengths = [args.n1, args.n2]
    py_pass, cpp_pass, py_t, cpp_t = [], [], [], []
    for _ in range(args.rounds):
        tp = python_medians(args.pass_name, mod, args.reps, lengths)
        tc = cpp_medians(args.driver, args.pass_name, args.module, args.reps, lengths)
        py_pass.append(per_pass(tp, args.n1, args.n2))
        cpp_pass.append(per_pass(tc, args.n1, args.n2))
        py_t.append(tp)
        cpp_t.append(tc)

    py_med, cpp_med = statistics.median(py_pass), statistics.median(cpp_pass)
    print("pipeline: Sequential of N x {} over the {} module, PassTimingInstrument; N = {}, {}; "
          "median of {} runs, median of {} rounds; C++ driver: {}".format(args.pass_name, args.module, args.n1,
                                                                         args.n2, args.reps, args.rounds, args.link))
    print("per pass, started from Python:  {:8.1f} ns   (rounds: {})".format(
        py_med, ", ".join("{:.1f}".format(x) for x in py_pass)))
    print("per pass, started from C++:     {:8.1f} ns   (rounds: {})".format(
        cpp_med, ", ".join("{:.1f}".format(x) for x in cpp_pass)))
    print("ratio Python / C++:             {:8.3f}    (target <= 1.05)".format(py_med / cpp_med))
    for n in lengths:
        print("t(N={}), median of rounds: from Python {:.1f} us, from C++ {:.1f} us".format(
            n, statistics.median(t[n] for t in py_t) / 1e3, statistics.median(t[n] for t in cpp_t) / 1e3))


if __name__ == "__main__":
    main()
