#!/usr/bin/env bash
# scripts/deps.sh [--clang] [--format] [--tidy]: make sure the Debian
# packages passinfra builds with are installed. Every Makefile target runs it first.
#
#   packages:  g++ cmake make libboost1.81-dev doctest-dev libbenchmark-dev
#              pkg-config (the consumer test builds with its flags)
#              libcli11-dev (CLI11: only passinfra::tool -- opt_main, tinyir-opt --
#              needs it; the project's own builds build and test the tool)
#              libtbb-dev (oneTBB: only tests/parallel/tbb_executor_test.cpp,
#              a task_arena as a nest's executor, needs it; without it that
#              test is left out)
#              python3-dev pybind11-dev python3-pytest python3-numpy (only the
#              Python package, python/: built and tested when found, for
#              Debian's /usr/bin/python3, which the presets name)
#              (+ clang-16 with --clang, clang-format-16 with --format,
#               clang-tidy-16 with --tidy)
#   nothing missing      -> exit 0, silently
#   missing, as root     -> wait for the apt/dpkg lock if another process holds
#                           it, apt-get update, then apt-get install -y
#                           --no-install-recommends --no-remove <missing...>
#                           (never removes a package)
#   missing, not root    -> print the sudo line to run and exit 1
#
# Environment:
#   PASSINFRA_DEPS_EXTRA="pkg ..."   extra packages to require (appended to the
#                                    list; used to test the script, e.g.
#                                    PASSINFRA_DEPS_EXTRA=nonexistent-pkg)
#   PASSINFRA_DEPS_DRY_RUN=1         as root: print the apt-get commands
#                                    instead of running them
#   PASSINFRA_APT_LOCK_TIMEOUT=600   seconds to wait for the apt/dpkg lock
set -euo pipefail

usage() { echo "usage: scripts/deps.sh [--clang] [--format] [--tidy]" >&2; exit 2; }

packages=(g++ cmake make libboost1.81-dev doctest-dev libbenchmark-dev pkg-config libcli11-dev libtbb-dev
          python3-dev pybind11-dev python3-pytest python3-numpy)
for arg in "$@"; do
  case "$arg" in
    --clang) packages+=(clang-16) ;;
    --format) packages+=(clang-format-16) ;;
    --tidy) packages+=(clang-tidy-16) ;;
    -h|--help) usage ;;
    *) echo "deps.sh: unknown argument '$arg'" >&2; usage ;;
  esac
done
if [[ -n "${PASSINFRA_DEPS_EXTRA:-}" ]]; then
  read -r -a extra <<<"${PASSINFRA_DEPS_EXTRA}"
  packages+=("${extra[@]}")
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "deps.sh: not a Debian system (no dpkg-query); make sure these are installed:" >&2
  echo "  ${packages[*]}" >&2
  exit 0
fi

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == *" ok installed" ]] || missing+=("$pkg")
done
((${#missing[@]} == 0)) && exit 0

echo "deps.sh: missing Debian packages: ${missing[*]}" >&2

if [[ "$(id -u)" != 0 ]]; then
  echo "deps.sh: not running as root, so not installing them. Run:" >&2
  echo "sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
  echo "deps.sh: then run make again." >&2
  exit 1
fi

run() {
  if [[ "${PASSINFRA_DEPS_DRY_RUN:-0}" == 1 ]]; then
    echo "deps.sh: [dry run] $*" >&2
  else
    "$@"
  fi
}

# Wait until no process holds the apt/dpkg locks (unattended-upgrades, another
# apt-get, ...). apt-get also gets DPkg::Lock::Timeout for the race between
# this check and its own locking.
timeout=${PASSINFRA_APT_LOCK_TIMEOUT:-600}
locks=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock)
wait_for_apt_lock() {
  command -v fuser >/dev/null 2>&1 || return 0
  local waited=0 lock busy
  while :; do
    busy=""
    for lock in "${locks[@]}"; do
      if [[ -e "$lock" ]] && fuser -s "$lock" 2>/dev/null; then busy=$lock; break; fi
    done
    [[ -z "$busy" ]] && return 0
    if ((waited >= timeout)); then
      echo "deps.sh: $busy is still held after ${timeout}s (another apt/dpkg is running); giving up." >&2
      echo "deps.sh: held by pid(s):$(fuser "$busy" 2>/dev/null || true)" >&2
      exit 1
    fi
    ((waited % 30 == 0)) && echo "deps.sh: waiting for $busy (another apt/dpkg is running; ${waited}s of ${timeout}s)..." >&2
    sleep 5
    waited=$((waited + 5))
  done
}

apt_opts=(-o "DPkg::Lock::Timeout=${timeout}")
wait_for_apt_lock
run apt-get "${apt_opts[@]}" update
wait_for_apt_lock
run env DEBIAN_FRONTEND=noninteractive \
  apt-get "${apt_opts[@]}" install -y --no-install-recommends --no-remove "${missing[@]}"
if [[ "${PASSINFRA_DEPS_DRY_RUN:-0}" == 1 ]]; then
  echo "deps.sh: [dry run] nothing installed" >&2
else
  echo "deps.sh: installed ${missing[*]}" >&2
fi
