#!/usr/bin/env bash
# scripts/check_package.sh <build-dir> — checks the Debian package `make package` built:
# its control fields, its files, and that a find_package consumer builds and
# runs against its contents unpacked into a scratch root (dpkg -x; nothing is
# installed on the machine).
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
         usr/share/cmake/passinfra/passinfraTargets.cmake usr/share/pkgconfig/passinfra.pc; do
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
