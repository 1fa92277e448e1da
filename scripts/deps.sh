#!/bin/sh
# Makes sure the Debian packages irt needs are present.
#   deps.sh build   what building ./irt needs
#   deps.sh check   what `make check` needs on top
# As root on Debian it installs what is missing; otherwise it prints the exact apt-get line
# and fails, so `make demo` / `make check` are the only commands a fresh machine needs.
set -eu
what=${1:-build}

# package:file-that-proves-it-is-installed
build="gcc:/usr/bin/gcc make:/usr/bin/make pkg-config:/usr/bin/pkg-config
libjansson-dev:/usr/include/jansson.h libinih-dev:/usr/include/ini.h zlib1g-dev:/usr/include/zlib.h
libtracefs-dev:/usr/include/tracefs/tracefs.h libtraceevent-dev:/usr/include/traceevent/event-parse.h
nettle-dev:/usr/include/nettle/sha2.h"
check="libcmocka-dev:/usr/include/cmocka.h util-linux:/usr/bin/setpriv util-linux:/usr/bin/unshare
bsdutils:/usr/bin/script procps:/usr/bin/pgrep python3:/usr/bin/python3 clang-14:/usr/bin/clang-14
libclang-rt-14-dev:/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a
chromium:/usr/bin/chromium slurm-wlm:/usr/sbin/slurmctld munge:/usr/sbin/munged parallel:/usr/bin/parallel
python3-prometheus-client:/usr/lib/python3/dist-packages/prometheus_client/openmetrics/parser.py"
# Every tool a test skips without: setpriv and unshare (test_unprivileged: nobody, a private
# /var/lib), script (test_probe: the live status line on a terminal), clang's libFuzzer runtime
# (the fuzz targets, make fuzz and the smoke round of make check), chromium (test_report: the
# reports in a real headless browser), slurm-wlm, munge, parallel (test_slurm: a private
# single-node Slurm; test_fleet: GNU parallel), python3-prometheus-client (test_fleet parses
# irt's OpenMetrics with it). So make check as root tests here what CI tests.

case $what in
build) want=$build ;;
check) want="$build $check" ;;
*) echo "usage: deps.sh build|check" >&2; exit 2 ;;
esac

missing=""
for pair in $want; do
	pkg=${pair%%:*} file=${pair#*:}
	# shellcheck disable=SC2086
	set -- $file   # the file may be a glob (a version in the path)
	[ -e "$1" ] || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0

line="apt-get install -y$missing"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "irt: installing missing Debian packages:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || true
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends$missing >&2 && exit 0
	echo "irt: installing failed; run: $line" >&2
	exit 1
fi
echo "irt: missing Debian packages:$missing" >&2
echo "irt: run as root: $line" >&2
exit 1
