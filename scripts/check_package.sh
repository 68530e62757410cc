#!/usr/bin/env bash
# scripts/check_package.sh <build-dir> — checks the Debian packages `make package` built:
# their control fields, their files, that a find_package consumer builds and
# runs against passinfra-dev unpacked into a scratch root (dpkg -x; nothing is
# installed on the machine), and, when the build made the Python package,
# that python3-passinfra unpacked there runs examples/python/use_pass_instrument.py
# (Debian's /usr/bin/python3) with the output of its golden files.
set -euo pipefail
build=${1:?usage: scripts/check_package.sh <build-dir>}
deb=$(ls "$build"/passinfra-dev_*_all.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || { echo "check_package: no passinfra-dev_*_all.deb in '$build'; expected the output of cpack -G DEB" >&2; exit 1; }
fail() { echo "check_package: $*" >&2; exit 1; }

[ "$(dpkg-deb -f "$deb" Package)" = passinfra-dev ] || fail "Package is '$(dpkg-deb -f "$deb" Package)', expected passinfra-dev"
dpkg-deb -f "$deb" Depends | grep -q 'libboost1.81-dev' || fail "Depends '$(dpkg-deb -f "$deb" Depends)' lacks libboost1.81-dev"
[ "$(dpkg-deb -f "$deb" Architecture)" = all ] || fail "Architecture is not 'all'"
dpkg-deb -f "$deb" Recommends | grep -q 'libcli11-dev' || fail "Recommends '$(dpkg-deb -f "$deb" Recommends)' lacks libcli11-dev (passinfra::tool)"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg -x "$deb" "$root"
for f in usr/include/passinfra/passinfra.hpp usr/include/passinfra/core.hpp \
         usr/share/cmake/passinfra/passinfraConfig.cmake usr/share/cmake/passinfra/passinfraConfigVersion.cmake \
         usr/share/cmake/passinfra/passinfraTargets.cmake usr/share/pkgconfig/passinfra.pc \
         usr/share/passinfra/passinfra.cpp; do
  [ -f "$root/$f" ] || fail "the package has no /$f"
done

# The tool component (opt_main, CMake passinfra::tool) when the package was built with CLI11.
with_tool=OFF
if [ -f "$root/usr/share/cmake/passinfra/passinfraToolTargets.cmake" ]; then
  [ -f "$root/usr/include/passinfra/tool/opt_main.hpp" ] || fail "the package has the tool component but no /usr/include/passinfra/tool/opt_main.hpp"
  with_tool=ON
fi

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cmake -S "$src/tests/consumer/find_package" -B "$root/consumer" -DCMAKE_PREFIX_PATH="$root/usr" \
  -DWITH_TOOL=$with_tool >/dev/null
cmake --build "$root/consumer" >/dev/null
"$root/consumer/consumer"
if [ "$with_tool" = ON ]; then "$root/consumer/consumer_tool"; fi
echo "check_package: $(basename "$deb"): control fields, files and a find_package consumer OK (tool component: $with_tool)"

# python3-passinfra: made when the build configured python/ (the extension target exists).
if [ ! -d "$build/python" ]; then
  echo "check_package: no Python package (the build did not configure python/: Python 3 or pybind11 missing, or PASSINFRA_PYTHON=OFF)"
  exit 0
fi
arch=$(dpkg --print-architecture)
pydeb=$(ls "$build"/python3-passinfra_*_"$arch".deb 2>/dev/null | head -n1)
[ -n "$pydeb" ] || fail "the build configured python/ but made no python3-passinfra_*_$arch.deb in '$build'"
[ "$(dpkg-deb -f "$pydeb" Package)" = python3-passinfra ] || fail "Package is '$(dpkg-deb -f "$pydeb" Package)', expected python3-passinfra"
[ "$(dpkg-deb -f "$pydeb" Architecture)" = "$arch" ] || fail "python3-passinfra: Architecture is '$(dpkg-deb -f "$pydeb" Architecture)', expected $arch"
pydeps=$(dpkg-deb -f "$pydeb" Depends)
for dep in 'python3 (>= 3.' 'python3 (<< 3.' libstdc++6 libc6; do
  [[ "$pydeps" == *"$dep"* ]] || fail "python3-passinfra: Depends '$pydeps' lacks '$dep'"
done
dpkg -x "$pydeb" "$root"
site="$root/usr/lib/python3/dist-packages"
[ -f "$site/passinfra/__init__.py" ] || fail "python3-passinfra has no /usr/lib/python3/dist-packages/passinfra/__init__.py"
ls "$site"/passinfra/_core.cpython-*.so >/dev/null 2>&1 || fail "python3-passinfra has no /usr/lib/python3/dist-packages/passinfra/_core.cpython-*.so"
dpkg-deb -c "$pydeb" | grep -q '/usr/include/' && fail "python3-passinfra holds headers (they belong to passinfra-dev)"
dpkg-deb -c "$deb" | grep -q 'dist-packages' && fail "passinfra-dev holds the Python package (it belongs to python3-passinfra)"
# The package must be what is imported (not a build tree): run from the scratch root, PYTHONPATH only there.
where=$(cd "$root" && env -i PATH=/usr/bin:/bin PYTHONPATH="$site" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c 'import passinfra; print(passinfra.__file__)')
[[ "$where" == "$site/"* ]] || fail "python3 imported passinfra from '$where', expected the unpacked package under $site"
example="$src/examples/python/use_pass_instrument.py"
mask() { sed -E 's/[0-9]+us/<t>us/g; s/[0-9]+\.[0-9]+%/<p>%/g'; }
(cd "$root" && env -i PATH=/usr/bin:/bin PYTHONPATH="$site" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$example" \
   >"$root/py.stdout" 2>"$root/py.stderr") || fail "python3-passinfra: $example failed: $(tail -n 5 "$root/py.stderr")"
for stream in stdout stderr; do
  diff <(mask <"$src/examples/python/golden/use_pass_instrument.$stream") <(mask <"$root/py.$stream") >/dev/null ||
    fail "python3-passinfra: $example's $stream differs from examples/python/golden/use_pass_instrument.$stream"
done
echo "check_package: $(basename "$pydeb"): control fields, files and examples/python/use_pass_instrument.py OK"
