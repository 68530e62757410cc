"""The cost of one Python hook call: a Sequential of N InferType passes over an
empty module, run with no instrument and with a Python instrument that has only
run_before_pass; (with - without) / N, median of several repetitions.

    PYTHONPATH=build/<preset>/python python3 python/benchmarks/hook_cost.py
"""
import statistics
import time

from passinfra import instrument, tinyir, transform

N = 2000
REPS = 15


@instrument.pass_instrument
class Before:
    def run_before_pass(self, mod, info):
        pass


def per_pass(instruments):
    seq = transform.Sequential([tinyir.transform.InferType() for _ in range(N)])
    mod = tinyir.IRModule()
    times = []
    with transform.PassContext(instruments=instruments):
        for _ in range(REPS):
            start = time.perf_counter()
            seq(mod)
            times.append((time.perf_counter() - start) / (N + 1))
    return statistics.median(times)


def main():
    base = per_pass([])
    hooked = per_pass([Before()])
    print("per pass, no instrument:            {:8.1f} ns".format(base * 1e9))
    print("per pass, Python run_before_pass:   {:8.1f} ns".format(hooked * 1e9))
    print("one Python hook call (difference):  {:8.1f} ns".format((hooked - base) * 1e9))


if __name__ == "__main__":
    main()
