#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# binding.sh - binding SIDs and weighted policies through srv6d on a real
# kernel: End.B6.Encaps, End.B6.Encaps.Red and End.B6 (insertion) turn a
# packet for the SID into the bytes RFC 8986 4.13/4.14 and Linux's End.B6
# give (built independently below with scapy), leaving by the policy's
# first segment; a route with two weighted segment lists (3:1) and a binding
# SID with two lists spread many flows over both in that ratio, every
# packet of a flow on the same list.
T=binding
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d

cat >"$TMPD/srv6d.conf" <<EOF2
queue 0
encap-source fc00:1::2
sid fc00:100::c/128 action End.B6.Encaps srh segs fc00:9::c1,fc00:9::c2
sid fc00:100::d/128 action End.B6.Encaps.Red srh segs fc00:9::c1,fc00:9::c2
sid fc00:100::e/128 action End.B6 srh segs fc00:9::c1,fc00:9::c2
sid fc00:100::f/128 action End.B6.Encaps srh segs fc00:9::a1 weight 1 segs fc00:9::b1,fc00:9::b2 weight 1
route fc00:9:f0::/48 encap seg6 mode encap segs fc00:9::a1 weight 3 segs fc00:9::b1 weight 1
EOF2

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 fc00:9:f0::/48 || fail "NFQUEUE rules"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"

# The packet sent to binding SID $1: UDP from fc00:1::1, SRH (fc00:9::99,
# SID), SL 1, flow label 0x5eed, traffic class 0x28, hop limit 64.
sent() {
	pkt_build --tag "$2" --src fc00:1::1 --segs "$1",fc00:9::99 \
		--fl 0x5eed --tc 0x28
}

# wrap MODE HEX: what srv6d must give for HEX (the packet as sent) under
# policy fc00:9::c1,fc00:9::c2, after the kernel's forwarding: written
# here with scapy from RFC 8986 4.13/4.14 and Linux's End.B6.
wrap() {
	"$PYTHON" - "$1" "$2" <<'PY'
import sys, logging
logging.getLogger("scapy").setLevel(logging.ERROR)
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting as SRH
from scapy.packet import Raw
from scapy.compat import raw
mode, pkt = sys.argv[1], IPv6(bytes.fromhex(sys.argv[2]))
C1, C2 = "fc00:9::c1", "fc00:9::c2"
if mode == "insert":
    # Linux End.B6: the policy's SRH (DA, c2, c1) after the IPv6 header,
    # SL 2; the received SRH untouched; DA c1; one hop limit less.
    rest = raw(pkt.payload)
    out = IPv6(src=pkt.src, dst=C1, tc=pkt.tc, fl=pkt.fl, hlim=pkt.hlim - 1,
               nh=43) / SRH(addresses=[pkt.dst, C2, C1], segleft=2,
                             lastentry=2, nh=43) / Raw(rest)
else:
    # S13-S14 on the received SRH, then H.Encaps(.Red): outer tc, fl and
    # hop limit from the inner packet, one less after forwarding.
    pkt[SRH].segleft -= 1
    pkt.dst = pkt[SRH].addresses[pkt[SRH].segleft]
    inner = raw(pkt)
    if mode == "encaps":
        srh = SRH(addresses=[C2, C1], segleft=1, lastentry=1, nh=41)
    else:
        srh = SRH(addresses=[C2], segleft=1, lastentry=0, nh=41)
    out = IPv6(src="fc00:1::2", dst=C1, tc=pkt.tc, fl=pkt.fl,
               hlim=pkt.hlim - 1, nh=43) / srh / Raw(inner)
print(raw(out).hex())
PY
}

case_b6() {	# DESC SID MODE TAG
	local in exp out
	in=$(sent "$2" "$4")
	exp=$(wrap "$3" "$in")
	out=$(pkt_xchg --tag "$4" --hex "$in")
	expect_frame "$1" "$out" s1 "$exp"
}

case_b6 "End.B6.Encaps: received SRH advanced (SL 0, DA fc00:9::99), outer SRH (c2,c1) SL 1 from encap-source, tc/fl copied, outer HL 64 -> 63, inner HL 64" \
	fc00:100::c encaps b6enc
case_b6 "End.B6.Encaps.Red: outer SRH (c2) LE 0 SL 1, DA c1" \
	fc00:100::d red b6red
case_b6 "End.B6 (Linux insertion): SRH (SID,c2,c1) SL 2 in front of the received SRH, DA c1" \
	fc00:100::e insert b6ins

# Segments Left 0 at a binding SID: RFC 8986 4.1.1 (Linux drops).
out=$(pkt_xchg --tag b6sl0 --src fc00:1::1 --segs fc00:9::99,fc00:100::c --sl 0)
expect_fields "End.B6.Encaps with SL 0 and UDP: Parameter Problem code 4 to the source (RFC 8986 4.1.1)" \
	"$out" gen icmp6.type=4 icmp6.code=4 ip6.src=fc00:100::c ip6.dst=fc00:1::1
out=$(pkt_xchg --tag b6hl --src fc00:1::1 --segs fc00:100::e,fc00:9::99 --hlim 1)
expect_fields "End.B6 with hop limit 1: Time Exceeded" \
	"$out" gen icmp6.type=3 icmp6.code=0 ip6.dst=fc00:1::1

for s in fc00:100::c fc00:100::d fc00:100::e; do
	expect_eq "SID $s counted one packet" \
		"$(ctl_get "sid('$s/128')['packets']")" 1
done

# ---- weighted lists: many flows ---------------------------------------------
# flows.py DST N: send N UDP flows (source ports 20000..) twice each from
# gen to DST, capture at sink1, print "n_list_a n_list_b n_split_flows
# n_missing" where list a is the one whose first segment is fc00:9::a1.
flows() {
	timeout 120 "$PYTHON" - "$GEN:g0" "$MAC_GW0" "$S1:s1" "$1" "$2" "$PKTPY" <<'PY'
import sys, time, select, importlib.util, logging
logging.getLogger("scapy").setLevel(logging.ERROR)
spec = importlib.util.spec_from_file_location("pkt", sys.argv[6])
pkt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pkt)
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting as SRH
from scapy.layers.inet import UDP
from scapy.packet import Raw
from scapy.compat import raw
send, dmac, cap, dst, n = sys.argv[1], sys.argv[2], sys.argv[3], \
    sys.argv[4], int(sys.argv[5])
rx = pkt.packet_socket(cap)
tx = pkt.packet_socket(send)
frames = []
for f in range(n):
    tag = b"SRV6T:w%d;" % f
    if dst.startswith("fc00:100:"):	# a binding SID: packet with an SRH
        p = IPv6(src="fc00:1::1", dst=dst) / SRH(
            addresses=["fc00:9::99", dst], segleft=1) / UDP(
            sport=20000 + f, dport=5000) / Raw(tag)
    else:
        p = IPv6(src="fc00:1::1", dst=dst) / UDP(sport=20000 + f,
                                                dport=5000) / Raw(tag)
    frames.append((tag, pkt.frame(tx, dmac, raw(p))))
seen = {}
def drain(deadline):
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        r, _, _ = select.select([rx], [], [], left)
        if not r:
            return
        buf, addr = rx.recvfrom(65535)
        if addr[2] == pkt.PACKET_OUTGOING or buf[12:14] != b"\x86\xdd":
            continue
        ip = buf[14:]
        i = ip.find(b"SRV6T:w")
        if i < 0:
            continue
        tag = ip[i:ip.index(b";", i) + 1]
        seen.setdefault(tag, []).append(ip[24:40])
for rep in range(2):
    for k, (tag, fr) in enumerate(frames):
        tx.send(fr)
        if k % 50 == 49:
            drain(time.monotonic() + 0.002)
drain(time.monotonic() + 1.0)
import socket
a1 = socket.inet_pton(socket.AF_INET6, "fc00:9::a1")
na = nb = split = missing = 0
for tag, _ in frames:
    das = seen.get(tag, [])
    if len(das) != 2:
        missing += 1
        continue
    if das[0] != das[1]:
        split += 1
    if das[0] == a1:
        na += 1
    else:
        nb += 1
print(na, nb, split, missing)
PY
}

# ratio_ok NA NB WANT_A_PERCENT TOLERANCE
ratio_ok() {
	"$PYTHON" -c "import sys; a,b,w,t=map(float,sys.argv[1:]); \
sys.exit(0 if a+b>0 and abs(100*a/(a+b)-w)<=t else 1)" "$@"
}

N=2000
read -r na nb split missing <<<"$(flows fc00:9:f0::1 $N)"
say "route 3:1: $na flows on fc00:9::a1, $nb on fc00:9::b1, $split split, $missing not seen twice"
expect_eq "weighted route: every packet of every flow arrived" "${missing:-x}" 0
expect_eq "weighted route: no flow split over two lists" "${split:-x}" 0
if ratio_ok "${na:-0}" "${nb:-0}" 75 4; then
	pass "weighted route 3:1: $na / $((na + nb)) flows on the weight-3 list (75% +- 4)"
else
	fail "weighted route 3:1: $na / $((na + nb)) flows on the weight-3 list, want 75% +- 4"
fi

read -r na nb split missing <<<"$(flows fc00:100::f $N)"
say "binding 1:1: $na flows on fc00:9::a1, $nb on fc00:9::b1, $split split, $missing not seen twice"
expect_eq "weighted binding SID: every packet of every flow arrived" "${missing:-x}" 0
expect_eq "weighted binding SID: no flow split over two lists" "${split:-x}" 0
if ratio_ok "${na:-0}" "${nb:-0}" 50 4; then
	pass "weighted binding SID 1:1: $na / $((na + nb)) flows on the first list (50% +- 4)"
else
	fail "weighted binding SID 1:1: $na / $((na + nb)) flows on the first list, want 50% +- 4"
fi
expect_eq "route fc00:9:f0::/48 counted every packet" \
	"$(ctl_get "pol('fc00:9:f0::/48')['packets']")" $((2 * N))

if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
