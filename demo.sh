#!/bin/bash
# demo.sh - srv6d on a real kernel, in five minutes.  Run as root on a
# Debian 12 machine (nothing outside the network namespaces it creates is
# touched; everything is removed at the end).
#
#   gen ---- gw (srv6d) ---- sink1
#                  \-------- sink2
#
# It installs what it needs (.ci/install-deps.sh), builds srv6d unless it is
# built, starts it in the gateway namespace with End, End.X and H.Encaps of
# IPv6 and IPv4, sends real SRv6 traffic (scapy and ping), shows what left
# the gateway (tcpdump -v) and srv6ctl's status tables.
#
# Environment: top_builddir=DIR to use an existing (out-of-tree) build.
set -u
cd "$(dirname "$0")" || exit 1
top_srcdir=$(pwd)
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
	echo "demo.sh: run me as root (network namespaces, NFQUEUE)" >&2
	exit 1
fi
if [ -x .ci/install-deps.sh ]; then
	step "installing build and test dependencies (.ci/install-deps.sh)"
	./.ci/install-deps.sh || exit 1
fi
if ! command -v ping >/dev/null || ! command -v tcpdump >/dev/null; then
	step "installing ping and tcpdump"
	apt-get install -y -qq iputils-ping tcpdump >/dev/null || exit 1
fi
if [ ! -x "$top_builddir/src/srv6d" ] || [ ! -x "$top_builddir/src/srv6ctl" ]; then
	step "building srv6d"
	[ -x configure ] || autoreconf -fi || exit 1
	[ -f Makefile ] || ./configure || exit 1
	make -j"$(nproc)" src/srv6d src/srv6ctl || exit 1
	top_builddir=$top_srcdir
fi

T=demo
# shellcheck source=tests/ns/lib.sh
. "$top_srcdir/tests/ns/lib.sh"
ns_init 600
need_srv6d

step "creating namespaces $GEN $GW $S1 $S2"
ns_setup || { echo "demo: topology setup failed" >&2; exit 1; }
cat <<EOF
    gen  g0 fc00:1::1 192.0.2.1  ---  gw0 fc00:1::2 192.0.2.2  gateway (srv6d)
                                      gw1 fc00:2::1  ---  s1 fc00:2::2  sink1
                                      gw2 fc00:3::1  ---  s2 fc00:3::2  sink2
    gateway routes: fc00:9::/32 via sink1 (main table), via sink2 (table 100)
EOF

CONF="$TMPD/srv6d.conf"
cat >"$CONF" <<EOF
queue 0
encap-source fc00:1::2
sid fc00:100::1/128 action End
sid fc00:100::3/128 action End.X nh6 fc00:3::2
sid fc00:100::4/128 action End.T table 100
route fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2
route 10.9.1.0/24 encap seg6 mode encap.red segs fc00:9::c1,fc00:9::c2
EOF
step "srv6d config ($CONF)"
cat "$CONF"
"$SRV6D" -t -c "$CONF" && echo "(srv6d -t: config OK)"

step "starting srv6d in $GW"
# srv6d steers its traffic itself (steering auto, the default): no
# firewall rule is written here.
STEERING=auto
srv6d_start "$CONF" || exit 1
echo "srv6d pid $SRV6D_PID, control socket $SOCK"
echo "the rules it installed to queue its SIDs and policies' prefixes to itself:"
nsx "$GW" nft list table ip6 srv6d 2>/dev/null | sed 's/^/    /'
nsx "$GW" nft list table ip srv6d 2>/dev/null | sed 's/^/    /'
echo "its policy routing (End.X, End.T; and, offload being on by default, the kernel's End and seg6 for TCP super-packets):"
nsx "$GW" ip -6 rule | sed 's/^/    /'

# Capture what leaves the gateway toward the sinks and what comes back to gen.
FILTER="not ip6 multicast and not arp"
declare -A CAPS
capture_start() {
	local ns lbl dev
	for lbl in s1 s2 gen; do
		case $lbl in
		s1) ns=$S1 dev=s1 ;;
		s2) ns=$S2 dev=s2 ;;
		gen) ns=$GEN dev=g0 ;;
		esac
		# -Z root: tcpdump would drop to its own user, who cannot
		# write in $TMPD.
		ip netns exec "$ns" tcpdump -Z root --immediate-mode -i "$dev" -n -U -s 0 \
			-w "$TMPD/$lbl.pcap" "$FILTER" 2>>"$TMPD/tcpdump.err" &
		CAPS[$lbl]=$!
	done
	sleep 1
}
capture_show() {
	local lbl
	sleep 0.5
	for lbl in s1 s2 gen; do
		kill -INT "${CAPS[$lbl]}" 2>/dev/null
		wait "${CAPS[$lbl]}" 2>/dev/null
	done
	for lbl in s1 s2 gen; do
		echo "--- captured on $lbl:"
		tcpdump -n -v -r "$TMPD/$lbl.pcap" 2>/dev/null | sed 's/^/    /'
	done
}
send() {
	"$PYTHON" "$PKTPY" xchg --send "$GEN:g0" --dmac "$MAC_GW0" --timeout 0.2 "$@" >/dev/null
}

step "1. End: gen sends to fc00:100::1 with segment list (fc00:100::1, fc00:9::c1)"
echo "    expect at sink1: DA fc00:9::c1, segleft 0, hop limit 63"
capture_start
send --tag demo-end --src fc00:1::1 --segs fc00:100::1,fc00:9::c1 \
	--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99
capture_show

step "2. End.X: segment list (fc00:100::3, fc00:9::c1)"
echo "    the main table routes fc00:9::c1 to sink1, End.X sends it to nh6 fc00:3::2: expect it at sink2"
capture_start
send --tag demo-endx --src fc00:1::1 --segs fc00:100::3,fc00:9::c1 \
	--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99
capture_show

step "3. H.Encaps of IPv6: gen pings fc00:9:e1::1 (ping -6 -c 2)"
echo "    expect at sink1: outer fc00:1::2 > fc00:9::c1 with an SRH (c2, c1), the echo request inside"
capture_start
nsx "$GEN" ping -6 -c 2 -i 0.3 -W 1 fc00:9:e1::1 >/dev/null 2>&1
capture_show

step "4. H.Encaps.Red of IPv4 (through srv6d's reinjection device): gen pings 10.9.1.1"
echo "    expect at sink1: outer fc00:1::2 > fc00:9::c1, reduced SRH (c2), IPv4 inside"
capture_start
nsx "$GEN" ping -4 -c 2 -i 0.3 -W 1 10.9.1.1 >/dev/null 2>&1
capture_show

step "5. ping the SID fc00:100::1 itself: srv6d answers (RFC 8986 4.1.1)"
nsx "$GEN" ping -6 -c 3 -i 0.3 -W 1 fc00:100::1

step "6. hop limit 1 at End: srv6d sends Time Exceeded from the SID"
capture_start
send --tag demo-hl --src fc00:1::1 --segs fc00:100::1,fc00:9::c1 --hlim 1
capture_show

step "srv6ctl status"
"$SRV6CTL" -s "$SOCK" status

step "stopping srv6d (SIGTERM)"
if srv6d_stop; then
	echo "srv6d exited 0; its rules are gone:"
	nsx "$GW" ip -6 rule | sed 's/^/    /'
fi
step "done: namespaces and files are removed on exit"
