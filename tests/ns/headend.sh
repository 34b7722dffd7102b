#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# headend.sh - SRv6 headend behaviors through srv6d on a real kernel:
# H.Encaps, H.Encaps.Red (1 and 2 segments), H.Insert, H.Insert.Red of IPv6
# and H.Encaps/H.Encaps.Red of IPv4 (through the reinjection device).  Frames are
# captured at sink1 and compared byte for byte with the packet built by
# pkt.py: outer source = encap-source, the SRH, the inner packet untouched,
# and the outer hop limit as Linux's seg6 sets it (inner hop limit, or 64
# for IPv4) less the one decrement of the kernel's forwarding.
T=headend
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 180
need_srv6d

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:1::2
route fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2
route fc00:9:e2::/48 encap seg6 mode encap.red segs fc00:9::c1,fc00:9::c2
route fc00:9:e5::/48 encap seg6 mode encap.red segs fc00:9::c1
route fc00:9:e6::/48 encap seg6 mode encap segs fc00:9::c1
route fc00:9:e3::/48 encap seg6 mode inline segs fc00:9::c1,fc00:9::c2
route fc00:9:e4::/48 encap seg6 mode inline.red segs fc00:9::c1,fc00:9::c2
route 10.9.1.0/24 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2
route 10.9.2.0/24 encap seg6 mode encap.red segs fc00:9::c1,fc00:9::c2
route 10.9.5.0/24 encap seg6 mode encap.red segs fc00:9::c1
EOF

ns_setup || { fail "topology setup"; ns_finish; }
if ! nfq_steer6 fc00:9:e0::/44 || ! nfq_steer4 10.9.0.0/16; then
	fail "NFQUEUE rules"
fi
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"

OUT="--src fc00:1::2 --hlim 63"

# encap6 DESC TAG DST SRH-ARGS...: H.Encaps(.Red) of an IPv6 UDP packet
# with hop limit 64, flow label 0xbeef, traffic class 0x28.
encap6() {
	local desc=$1 tag=$2 dst=$3 out exp
	shift 3
	out=$(pkt_xchg --tag "$tag" --src fc00:1::1 --dst "$dst" --fl 0xbeef --tc 0x28)
	exp=$(pkt_build --tag "$tag" $OUT "$@" --fl 0xbeef --tc 0x28 \
		--inner ipv6 --inner-src fc00:1::1 --inner-dst "$dst" \
		--inner-fl 0xbeef --inner-tc 0x28)
	expect_frame "$desc" "$out" s1 "$exp"
}

encap6 "H.Encaps, 2 segments: SRH (c2,c1) SL 1, outer fl/tc copied, outer HL 64 -> 63, inner HL 64" \
	enc2 fc00:9:e1::1 --segs fc00:9::c1,fc00:9::c2
encap6 "H.Encaps, 1 segment: SRH (c1) SL 0" \
	enc1 fc00:9:e6::1 --segs fc00:9::c1
encap6 "H.Encaps.Red, 2 segments: SRH (c2) LE 0, SL 1" \
	encred2 fc00:9:e2::1 --srh-list fc00:9::c2 --sl 1 --le 0 --dst fc00:9::c1
encap6 "H.Encaps.Red, 1 segment: no SRH at all" \
	encred1 fc00:9:e5::1 --dst fc00:9::c1

out=$(pkt_xchg --tag ins --src fc00:1::1 --dst fc00:9:e3::1 --fl 0x1 --tc 0x4)
exp=$(pkt_build --tag ins --src fc00:1::1 --segs fc00:9::c1,fc00:9::c2,fc00:9:e3::1 --hlim 63 --fl 0x1 --tc 0x4)
expect_frame "H.Insert: SRH (e3::1,c2,c1) SL 2 inserted, IPv6 header kept, UDP checksum unchanged" "$out" s1 "$exp"

out=$(pkt_xchg --tag insred --src fc00:1::1 --dst fc00:9:e4::1)
exp=$(pkt_build --tag insred --src fc00:1::1 --srh-list fc00:9:e4::1,fc00:9::c2 --sl 2 --le 1 --dst fc00:9::c1 --hlim 63)
expect_frame "H.Insert.Red: SRH (e4::1,c2) LE 1, SL 2, DA c1" "$out" s1 "$exp"

# encap4 DESC TAG DST SRH-ARGS...: H.Encaps(.Red) of an IPv4 UDP packet.
encap4() {
	local desc=$1 tag=$2 dst=$3 out exp
	shift 3
	out=$(pkt_xchg --tag "$tag" --v4 --src 192.0.2.1 --dst "$dst" --tc 0x28)
	exp=$(pkt_build --tag "$tag" $OUT "$@" --inner ipv4 \
		--inner-src 192.0.2.1 --inner-dst "$dst" --inner-tc 0x28)
	expect_frame "$desc" "$out" s1 "$exp"
}
tun0=$(ctl_get "s['totals']['injected']")
encap4 "IPv4 H.Encaps, 2 segments: outer HL 64 -> 63, tc/fl 0, inner TTL 64 untouched" \
	enc4 10.9.1.1 --segs fc00:9::c1,fc00:9::c2
encap4 "IPv4 H.Encaps.Red, 2 segments" \
	encred4 10.9.2.1 --srh-list fc00:9::c2 --sl 1 --le 0 --dst fc00:9::c1
encap4 "IPv4 H.Encaps.Red, 1 segment: no SRH, next header 4" \
	encred41 10.9.5.1 --dst fc00:9::c1
tun1=$(ctl_get "s['totals']['injected']")
expect_eq "the three IPv4 results went through the reinjection device" "$((tun1 - tun0))" 3

# ---- counters ---------------------------------------------------------------------
for p in fc00:9:e1::/48 fc00:9:e2::/48 fc00:9:e5::/48 fc00:9:e6::/48 \
	fc00:9:e3::/48 fc00:9:e4::/48 10.9.1.0/24 10.9.2.0/24 10.9.5.0/24; do
	expect_eq "policy $p counted one packet" \
		"$(ctl_get "pol('$p')['packets']")" 1
done

# ---- Packet Too Big (BRIEF: encapsulation past the egress MTU) -------------------
# 1460 bytes + 80 bytes of encapsulation > 1500.
out=$(pkt_xchg --tag ptb --src fc00:1::1 --dst fc00:9:e1::1 --pad 1402)
expect_fields "1460-byte IPv6 packet, H.Encaps past MTU 1500: Packet Too Big (MTU 1420) to the source" \
	"$out" gen icmp6.type=2 icmp6.mtu=1420 ip6.dst=fc00:1::1
# The error comes from gw0's own 192.0.2.2 (RFC 1812 4.3.2.4), sent as
# the gateway's own packet: no accept_local on gw0 (docs/design.md "ICMP
# errors").
out=$(pkt_xchg --tag ptb4 --v4 --src 192.0.2.1 --dst 10.9.1.1 --pad 1421)
expect_fields "1460-byte IPv4 DF packet, H.Encaps past MTU 1500: Fragmentation Needed (MTU 1420)" \
	"$out" gen icmp.type=3 icmp.code=4 icmp.mtu=1420 ip4.dst=192.0.2.1

if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
