# passinfra developer entry points: thin wrappers over CMakePresets.json.
# Each target first checks/installs the Debian packages (scripts/deps.sh).
#
#   make demo      build and run the main example        (preset dev,   g++)
#   make test      build everything, run all tests       (preset dev,   g++)
#   make clang     same with clang++-16                  (preset clang)
#   make asan      same with ASan + UBSan                (preset asan)
#   make tsan      same with TSan                        (preset tsan)
#   make clang-asan    clang++-16 with ASan + UBSan, one build for both (preset
#                  clang-asan; CI runs it instead of clang and asan)
#   make release   same, optimised                       (preset release)
#   make debug     same at -O0 -g, for a debugger           (preset debug; dev has -g1)
#   make bench     build the benchmarks optimised and run them -> build/release/benchmarks/results.md
#   make bench-anchors       the same with the LLVM 14 / MLIR 14 anchors (installs llvm-14-dev, libmlir-14-dev)
#   make bench-compile-time  compile time and memory of generated pipelines (benchmarks/compile_time.sh)
#   make compile-time-check  fail if core.hpp's or a 200-pass pipeline's compile-time ratio regressed >20%
#   make format    clang-format-16 every C++ file in place (.clang-format)
#   make format-check   fail on any unformatted C++ file (CI)
#   make tidy      clang-tidy-16 (.clang-tidy) over the examples
#                  and one TU per public header
#   make fuzz      build the libFuzzer targets (clang++-16) and run each for
#                  FUZZ_SECONDS (default 60); see scripts/fuzz.sh
#   make clean     remove build/
#
# JOBS=2 by default (the machine has 2 cores); `make test JOBS=4` to change.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
JOBS ?= 2

# cmake --build runs its own make; don't let this make's flags or jobserver
# leak into it (-j$(JOBS) is given explicitly).
CMAKE := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL cmake
CTEST := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ctest
DEPS  := bash scripts/deps.sh

.PHONY: help deps demo test clang clang-asan asan tsan release debug bench bench-anchors bench-compile-time compile-time-check package format format-check tidy fuzz clean

help:
	@echo "passinfra: make <target>"
	@echo "  demo      build and run the main example (g++, preset dev)"
	@echo "  test      build everything and run all tests (g++, preset dev)"
	@echo "  clang     build and test with clang++-16 (preset clang)"
	@echo "  asan      build and test with AddressSanitizer + UBSan (preset asan)"
	@echo "  tsan      build and test with ThreadSanitizer (preset tsan)"
	@echo "  clang-asan  build and test with clang++-16 and ASan + UBSan (preset clang-asan; what CI runs for clang and asan)"
	@echo "  release   build and test optimised (preset release)"
	@echo "  debug     build and test at -O0 -g, for gdb (preset debug; dev's -g1 has line tables only)"
	@echo "  bench     build the benchmarks (preset release) and run them; results in build/release/benchmarks/results.md"
	@echo "  bench-anchors        the same, with LLVM 14's and MLIR 14's pass managers (installs llvm-14-dev, libmlir-14-dev)"
	@echo "  bench-compile-time   compile time and memory of generated pipelines, g++ and clang (benchmarks/compile_time.sh)"
	@echo "  compile-time-check   CI: fail if a compile-time ratio regressed >20% (benchmarks/compile_time_check.sh)"
	@echo "  package   build the Debian package (CPack) and check it (scripts/check_package.sh)"
	@echo "  format    clang-format-16 every C++ file in place; format-check: fail if one is not formatted"
	@echo "  tidy      clang-tidy-16 over the examples and one TU per public header"
	@echo "  fuzz      build the libFuzzer targets and run each for FUZZ_SECONDS=$(FUZZ_SECONDS)"
	@echo "  deps      install/check the Debian packages (scripts/deps.sh)"
	@echo "  clean     remove build/"
	@echo "Build trees: build/<preset>. Parallelism: JOBS=$(JOBS)."

deps:
	@$(DEPS)

demo:
	@$(DEPS)
	$(CMAKE) --preset dev
	$(CMAKE) --build --preset dev -j$(JOBS) --target demo

# test, asan, tsan, release: configure, build everything, run ctest.
test: PRESET := dev
asan: PRESET := asan
tsan: PRESET := tsan
release: PRESET := release
debug: PRESET := debug
test asan tsan release debug:
	@$(DEPS)
	$(CMAKE) --preset $(PRESET)
	$(CMAKE) --build --preset $(PRESET) -j$(JOBS)
	$(CTEST) --preset $(PRESET)

clang:
	@$(DEPS) --clang
	$(CMAKE) --preset clang
	$(CMAKE) --build --preset clang -j$(JOBS)
	$(CTEST) --preset clang

# clang-asan: clang's sanitizer runtimes are in libclang-rt-16-dev.
clang-asan:
	@PASSINFRA_DEPS_EXTRA="libclang-rt-16-dev $${PASSINFRA_DEPS_EXTRA:-}" $(DEPS) --clang
	$(CMAKE) --preset clang-asan
	$(CMAKE) --build --preset clang-asan -j$(JOBS)
	$(CTEST) --preset clang-asan

# bench: build all benchmarks optimised (preset release; the LLVM 14 / MLIR 14
# anchors too when llvm-14-dev / libmlir-14-dev are installed), run every
# Google Benchmark program (listed by CMake in google_benchmarks.txt), then
# benchmarks/report.sh: callgrind instruction counts (valgrind) and wall-clock
# times of every dispatch path, the anchors and the ResNet-18 workload, written
# to build/release/benchmarks/results.md. A few minutes.
# bench-anchors: the same, installing llvm-14-dev and libmlir-14-dev first
# (as root; otherwise deps.sh prints the apt-get line) and requiring the anchors.
# bench-compile-time: benchmarks/compile_time.sh (g++ 12 and clang-16; about
# a quarter of an hour) -> build/bench-compile/compile_time.md, which
# report.sh then includes.
BENCH_REPORT := bash benchmarks/report.sh --build build/release
bench bench-anchors:
	@PASSINFRA_DEPS_EXTRA="valgrind $(if $(filter bench-anchors,$@),llvm-14-dev libmlir-14-dev) $${PASSINFRA_DEPS_EXTRA:-}" $(DEPS)
	$(CMAKE) --preset release
	$(CMAKE) --build --preset release -j$(JOBS) --target passinfra_benchmarks
	@list=build/release/benchmarks/google_benchmarks.txt; found=0; \
	for b in build/release/benchmarks/*; do \
	  if [[ -f "$$b" && -x "$$b" ]] && grep -qxF "$$(realpath "$$b")" "$$list"; then \
	    found=1; echo "==== $$b"; "$$b"; \
	  fi; \
	done; \
	if [[ $$found == 0 ]]; then echo "bench: no Google Benchmark programs in benchmarks/*.cpp"; fi
	@echo "==== benchmarks/report.sh"
	$(BENCH_REPORT) $(if $(filter bench-anchors,$@),--require-anchors)

bench-compile-time:
	@PASSINFRA_DEPS_EXTRA="time $${PASSINFRA_DEPS_EXTRA:-}" $(DEPS) --clang
	bash benchmarks/compile_time.sh

# compile-time-check: CI's compile-time regression check (issue 18): g++,
# N = 200, against benchmarks/compile_time_baseline.txt (about a minute; a
# few more when a time ratio is over its limit and callgrind -- valgrind --
# must confirm it in instructions).
compile-time-check:
	@PASSINFRA_DEPS_EXTRA="time valgrind $${PASSINFRA_DEPS_EXTRA:-}" $(DEPS)
	bash benchmarks/compile_time_check.sh

# package: the Debian packages (CPack, cmake/cpack.cmake): passinfra-dev (the
# headers, architecture all) and, when Python 3 and pybind11 are found,
# python3-passinfra (the Python package, built with Debian's /usr/bin/python3
# and Debian's -O2), checked by unpacking them into a scratch root, building a
# find_package consumer and running a pipeline from Python against them.
package:
	@$(DEPS)
	$(CMAKE) -S . -B build/package -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
	  -DPASSINFRA_BUILD_TESTS=OFF -DPASSINFRA_BUILD_EXAMPLES=OFF -DPASSINFRA_BUILD_BENCHMARKS=OFF \
	  -DPython3_EXECUTABLE=/usr/bin/python3
	$(CMAKE) --build build/package -j$(JOBS)
	cd build/package && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL cpack -G DEB
	bash scripts/check_package.sh build/package

# fuzz: fuzz/*_fuzz.cpp built with clang++-16 -fsanitize=fuzzer,address,undefined
# into build/fuzz/, each run for FUZZ_SECONDS on its corpus (fuzz/corpus/<target>/
# as seeds); a crash fails the target and is left in build/fuzz/artifacts/.
FUZZ_SECONDS ?= 60
fuzz:
	@PASSINFRA_DEPS_EXTRA="libclang-rt-16-dev $${PASSINFRA_DEPS_EXTRA:-}" $(DEPS) --clang
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

format:
	@$(DEPS) --format
	bash scripts/format.sh

format-check:
	@$(DEPS) --format
	bash scripts/format.sh --check

# tidy: needs build/dev/compile_commands.json (configured by `make test`).
tidy:
	@$(DEPS) --tidy
	$(CMAKE) --preset dev
	bash scripts/tidy.sh build/dev

clean:
	rm -rf build
