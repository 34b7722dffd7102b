#!/bin/sh
# Install the Debian 12 packages srv6d needs to build, test and demo.
# Safe to run again: apt-get skips what is already there.
set -e
[ "$(id -u)" -eq 0 ] || { echo "install-deps: run as root" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
# Build: autotools and the libraries (see README "Dependencies").
BUILD="build-essential autoconf automake libtool pkg-config
 libnetfilter-queue-dev libnfnetlink-dev libmnl-dev libnftnl-dev liburcu-dev
 libjansson-dev libsystemd-dev nettle-dev libmicrohttpd-dev check"
# Tests, fuzzing, man-page lint, demo and benchmarks.
TEST="iproute2 iptables nftables python3-scapy tcpdump tshark iperf3 netsniff-ng
 clang libclang-rt-dev mandoc valgrind procps kmod iputils-ping ethtool
 prometheus curl"
# The Debian package (.ci/deb.sh; debian/control's Build-Depends are BUILD
# and systemd, whose systemd.pc names the unit directory).
PKG="debhelper dpkg-dev lintian systemd"
missing=""
for p in $BUILD $TEST $PKG; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "install-deps: installing$missing"
	apt-get update -qq
	# tshark asks whether non-root users may capture: answer no.
	echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
	# prometheus: only its promtool is used (tests/promtool.sh); the
	# server its package may have started is not wanted.
	case " $missing " in
	*" prometheus "*)
		if command -v systemctl >/dev/null 2>&1; then
			systemctl disable --now prometheus.service >/dev/null 2>&1 || true
		fi ;;
	esac
fi
