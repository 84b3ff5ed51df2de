#!/bin/sh
# Installs the system tools perflab's tests, demo and agent collectors run for real.
# As root on Debian/Ubuntu it apt-get installs what is missing; otherwise it says what to install.
set -eu

need=""
check() { command -v "$1" >/dev/null 2>&1 || need="$need $2"; }
check chromium chromium
check nginx nginx
check wrk wrk
check pidstat sysstat
check strace strace
check perf linux-perf
check vmstat procps
check psql postgresql-client
check stdbuf coreutils
# `scripts/system-deps.sh bench` also brings what the benchmarks compare against.
if [ "${1:-}" = bench ]; then
  check prometheus-node-exporter prometheus-node-exporter
  check perl perl
fi

if [ -z "$need" ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "perflab: installing system packages:$need"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $need >/dev/null
  # Debian starts nginx from the package; perflab runs its own instances on other ports.
  if command -v service >/dev/null 2>&1; then
    service nginx stop >/dev/null 2>&1 || true
    service prometheus-node-exporter stop >/dev/null 2>&1 || true
  fi
else
  echo "perflab: missing system packages:$need" >&2
  echo "install them with: sudo apt-get install$need" >&2
  exit 1
fi
