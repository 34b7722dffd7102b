#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# decap.sh - the decapsulating behaviors through srv6d on a real kernel
# (RFC 8986 4.4-4.9): End.DX6 and End.DX4 leave by their next hop on
# sink2's link although the main table routes the inner destination to
# sink1; End.DT6, End.DT4 and End.DT46 look it up in table 100 (sink2);
# End.DX2's inner Ethernet frame leaves by its oif byte for byte.  Also:
# the RFC's ICMP errors (SL > 0, a wrong inner header), the counters, the
# rules the daemon sets up and removes (no veth pair of a SID's own: every
# result goes into the one reinjection device, a marked one with its SID's
# mark), and the error of a vrftable without its VRF device.  A
# decapsulated IPv4 result comes back on the reinjection device: a
# steering rule and a policy for its
# destination must not take it again (not with lib.sh's rules, which leave
# out srv6d+, nor with a rule that forgets to: srv6d accepts what comes in
# on its own devices unchanged).
T=decap
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"
IN4="--inner ipv4 --inner-src 192.0.2.1 --inner-dst 10.9.3.1"
MB=$MARK_BASE	# 0x5d6f0000, the default

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
mark-base $MB
sid fc00:100::5/128 action End.DX6 nh6 fc00:3::2
sid fc00:100::6/128 action End.DX4 nh4 203.0.113.2
sid fc00:100::7/128 action End.DT6 table 100
sid fc00:100::8/128 action End.DT4 table 100
sid fc00:100::9/128 action End.DT46 table 100
sid fc00:100::b/128 action End.DX2 oif gw2
sid fc00:100::c/128 action End.DX4 nh4 203.0.113.2 oif gw2
sid fc00:100::d/128 action End.X nh6 fc00:3::2 flavors usd
sid fc00:100::e/128 action End.T table 100 flavors usd
# the steered customer prefix, which End.DT4/End.DX4 results go to
route 10.9.0.0/16 encap seg6 mode encap segs fc00:9::c1
EOF

ns_setup || { fail "topology setup"; ns_finish; }
# Table 100 also routes the IPv4 destinations to sink2.
ip -n "$GW" route add 10.9.0.0/16 via 203.0.113.2 dev gw2 table 100 ||
	fail "IPv4 route in table 100"
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"

# ---- what the daemon set up ---------------------------------------------------
# One reinjection device for every SID: no veth pair of a SID's own (only
# a vrftable SID has one), and the IPv4 results routed by IPv4 rules for
# their SID's mark (the frame's SO_MARK), not by an in-interface.
pairs=$(ip -n "$GW" -br link show | grep -c '^srv6d[0-9a-f]\{8\}')
expect_eq "no srv6dMMMMMMMM veth pair while SIDs of every kind run" "$pairs" 0
# A SID's mark N (mark-base + offset, its table) on the packet under the
# default mark-mask 0xffff0000: fwmark (mark-base + (offset << 16))/0xffff0000
# (lib.sh mark_fw), its table still N.
rules4=$(ip -n "$GW" -4 rule show priority 1000)
expect_eq "SID 2's rule: mark-base's offset 2 in the high 16 bits" \
	"$(mark_fw $((MB + 2)))" "0x5d710000/0xffff0000"
for want in "fwmark $(mark_fw $((MB + 2))) lookup 1567555586" \
	"fwmark $(mark_fw $((MB + 4))) lookup 100" \
	"fwmark $(mark_fw $((MB + 5))) lookup 100" \
	"fwmark $(mark_fw $((MB + 7))) lookup 1567555591" \
	"fwmark $(mark_fw $((MB + 8))) lookup 1567555592" \
	"fwmark $(mark_fw $((MB + 9))) lookup 100"; do
	if grep -q "$want" <<<"$rules4"; then
		pass "ip -4 rule $want"
	else
		fail "ip -4 rule $want"
		echo "$rules4"
	fi
done
expect_eq "no IPv4 iif rule at priority 1000" "$(grep -c ' iif ' <<<"$rules4")" 0
rules6=$(ip -n "$GW" -6 rule show priority 1000)
for want in "fwmark $(mark_fw $((MB + 1))) lookup 1567555585" \
	"fwmark $(mark_fw $((MB + 3))) lookup 100" \
	"fwmark $(mark_fw $((MB + 5))) lookup 100"; do
	if grep -q "$want" <<<"$rules6"; then
		pass "ip -6 rule $want"
	else
		fail "ip -6 rule $want"
		echo "$rules6"
	fi
done
expect_eq "End.DX4 table holds default via nh4" \
	"$(ip -n "$GW" -4 route show table 0x5d6f0002 | tr -s ' ' | sed 's/proto srv6d /proto 93 /')" \
	"default via 203.0.113.2 dev gw2 proto 93 "
expect_eq "End.DX6 table holds default via nh6" \
	"$(ip -n "$GW" -6 route show table 0x5d6f0001 | sed 's/ metric.*//; s/proto srv6d/proto 93/' | tr -s ' ')" \
	"default via fc00:3::2 dev gw2 proto 93"

# ---- End.DX6 / End.DT6 / End.DT46 (IPv6 inner) ------------------------------------
for sid in 5 7 9; do
	out=$(pkt_xchg --tag dx6s$sid $S --segs fc00:100::$sid --sl 0 $IN6 --inner-hlim 9)
	exp=$(pkt_build --tag dx6s$sid --src fc00:1::1 --dst fc00:9::99 --hlim 8)
	expect_frame "fc00:100::$sid (SRH, SL 0): inner IPv6 to sink2 (main table says sink1), hop limit 9 -> 8" \
		"$out" s2 "$exp"
	out=$(pkt_xchg --tag dx6n$sid $S --dst fc00:100::$sid $IN6 --inner-fl 0x12345 --inner-tc 0x28)
	exp=$(pkt_build --tag dx6n$sid --src fc00:1::1 --dst fc00:9::99 --hlim 63 --fl 0x12345 --tc 0x28)
	expect_frame "fc00:100::$sid without SRH (reduced encapsulation): inner IPv6 to sink2" \
		"$out" s2 "$exp"
done

# ---- End.DX4 / End.DT4 / End.DT46 (IPv4 inner) ------------------------------------
for sid in 6 8 9 c; do
	out=$(pkt_xchg --tag dx4s$sid $S --segs fc00:100::$sid --sl 0 $IN4 --inner-hlim 9)
	exp=$(pkt_build --tag dx4s$sid --v4 --src 192.0.2.1 --dst 10.9.3.1 --hlim 8)
	expect_frame "fc00:100::$sid (SRH, SL 0): inner IPv4 to sink2 (main table says sink1), TTL 9 -> 8" \
		"$out" s2 "$exp"
	out=$(pkt_xchg --tag dx4n$sid $S --dst fc00:100::$sid $IN4)
	exp=$(pkt_build --tag dx4n$sid --v4 --src 192.0.2.1 --dst 10.9.3.1 --hlim 63)
	expect_frame "fc00:100::$sid without SRH: inner IPv4 to sink2" "$out" s2 "$exp"
done

# ---- USD on End.X and End.T: an inner IPv4 packet by its mark ----------------------
# (RFC 8986 4.16.3) End.X's adjacency (nh6 on sink2's link: an IPv4 route
# via inet6), End.T's table 100 (sink2); the main table says sink1.
for sid in d e; do
	out=$(pkt_xchg --tag usd4$sid $S --segs fc00:9::c1,fc00:100::$sid --sl 0 $IN4)
	exp=$(pkt_build --tag usd4$sid --v4 --src 192.0.2.1 --dst 10.9.3.1 --hlim 63)
	expect_frame "fc00:100::$sid with USD, IPv4 inner: to sink2 by the SID's routing (main table says sink1)" \
		"$out" s2 "$exp"
	out=$(pkt_xchg --tag usd6$sid $S --segs fc00:9::c1,fc00:100::$sid --sl 0 $IN6)
	exp=$(pkt_build --tag usd6$sid --src fc00:1::1 --dst fc00:9::99 --hlim 63)
	expect_frame "fc00:100::$sid with USD, IPv6 inner: to sink2 by the SID's routing" \
		"$out" s2 "$exp"
done
expect_eq "End.X/End.T USD: 2 packets counted each, no error" \
	"$(ctl_get "[sid('fc00:100::d/128')[k] for k in ('packets', 'errors')] + [sid('fc00:100::e/128')[k] for k in ('packets', 'errors')]")" \
	"[2, 0, 2, 0]"
expect_eq "End.X with USD: IPv4 default route via inet6 nh6 in its table" \
	"$(ip -n "$GW" -4 route show table 0x5d6f0008 | tr -s ' ' | sed 's/proto srv6d /proto 93 /')" \
	"default via inet6 fc00:3::2 dev gw2 proto 93 "

# ---- IPv4 results are not steered again ------------------------------------------
# 10.9.0.0/16 is steered to srv6d and has a policy (H.Encaps to sink1 via
# fc00:9::c1): the decapsulated packet entering on srv6d0 must still follow
# the SID's table or next hop (sink2), the policy must see none of it.
unm0=$(ctl_get "s['totals']['unmatched']")
nfq_steer4 10.9.0.0/16 || fail "IPv4 NFQUEUE rule"
for sid in 8 6; do
	out=$(pkt_xchg --tag st4$sid $S --dst fc00:100::$sid $IN4)
	exp=$(pkt_build --tag st4$sid --v4 --src 192.0.2.1 --dst 10.9.3.1 --hlim 63)
	expect_frame "fc00:100::$sid, 10.9.0.0/16 steered (! -i srv6d+): inner IPv4 to sink2, not re-encapsulated" \
		"$out" s2 "$exp"
done
expect_eq "lib.sh's rule left the results out: nothing queued from srv6d0" \
	"$(($(ctl_get "s['totals']['unmatched']") - unm0))" 0
# The same with a rule that forgets srv6d's devices: srv6d itself must
# give the result back unchanged (counted as unmatched).
nsx "$GW" iptables -t raw -F PREROUTING
nsx "$GW" iptables -t raw -A PREROUTING -d 10.9.0.0/16 -j NFQUEUE --queue-num 0 ||
	fail "IPv4 NFQUEUE rule without the exclusion"
for sid in 8 6; do
	out=$(pkt_xchg --tag sx4$sid $S --dst fc00:100::$sid $IN4)
	exp=$(pkt_build --tag sx4$sid --v4 --src 192.0.2.1 --dst 10.9.3.1 --hlim 63)
	expect_frame "fc00:100::$sid, 10.9.0.0/16 steered from every device: inner IPv4 to sink2, accepted unchanged" \
		"$out" s2 "$exp"
done
expect_eq "the results queued from srv6d0 were counted as unmatched" \
	"$(($(ctl_get "s['totals']['unmatched']") - unm0))" 2
expect_eq "the policy for 10.9.0.0/16 took no decapsulated packet" \
	"$(ctl_get "pol('10.9.0.0/16')['packets']") $(ctl_get "pol('10.9.0.0/16')['errors']")" "0 0"
nsx "$GW" iptables -t raw -F PREROUTING

# ---- End.DT*: a miss in the table does not fall back to the main table ----------
out=$(pkt_xchg --tag dt6miss $S --dst fc00:100::7 --inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:2::99)
expect_fields "End.DT6, inner destination only in the main table: Destination Unreachable, not sink1" \
	"$out" gen icmp6.type=1 icmp6.code=0 in1.ip6.dst=fc00:2::99
out=$(pkt_xchg --tag dt4miss $S --dst fc00:100::8 --inner ipv4 --inner-src 192.0.2.1 --inner-dst 198.51.100.99)
expect_fields "End.DT4, inner destination only in the main table: ICMP Destination Unreachable, not sink1" \
	"$out" gen icmp.type=3 in1.ip4.dst=198.51.100.99
if grep -q "unreachable" <<<"$(ip -n "$GW" -4 rule show priority 1000 fwmark "$(mark_fw $((MB + 4)))")"; then
	pass "ip -4 rule fwmark $(mark_fw $((MB + 4))) unreachable after its lookup"
else
	fail "ip -4 rule fwmark $(mark_fw $((MB + 4))) unreachable after its lookup"
fi

# ---- End.DX2: the inner frame out of gw2, unchanged ---------------------------------
# A frame to sink2's MAC with a VLAN-free IPv4 packet and one with an
# EtherType the gateway knows nothing about (0x88b5, local experimental).
dx2() {	# TAG ETHERTYPE [SRH]: prints "sent HEX" and "got HEX" lines
	"$PYTHON" - "$PKTPY" "$GEN" "$S2" "$MAC_GW0" "$MAC_S2" "$@" <<'PY'
import importlib.util, select, sys, time
spec = importlib.util.spec_from_file_location("pkt", sys.argv[1])
pkt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pkt)
from scapy.all import Ether, IP, IPv6, UDP, Raw, IPv6ExtHdrSegmentRouting
gen, s2, gwmac, s2mac, tag, etype = sys.argv[2:8]
srh = len(sys.argv) > 8
inner = Ether(dst=s2mac, src="02:00:00:00:99:01", type=int(etype, 0))
body = b"SRV6T:" + tag.encode() + b":" + bytes(range(64))
if int(etype, 0) == 0x0800:
    inner = inner / IP(src="10.1.1.1", dst="10.2.2.2", ttl=7) / UDP() / body
else:
    inner = inner / Raw(body)
outer = IPv6(src="fc00:1::1", dst="fc00:100::b", hlim=64)
if srh:
    outer = outer / IPv6ExtHdrSegmentRouting(nh=143, segleft=0,
                                             addresses=["fc00:100::b"])
else:
    outer.nh = 143
ip = bytes(outer / Raw(bytes(inner)))
tx = pkt.packet_socket(gen + ":g0")
rx = pkt.packet_socket(s2 + ":s2")
pkt.drain([("s2", rx)])
tx.send(pkt.frame(tx, gwmac, ip))
print("sent", bytes(inner).hex())
deadline = time.monotonic() + 1.0
while time.monotonic() < deadline:
    r, _, _ = select.select([rx], [], [], deadline - time.monotonic())
    if not r:
        break
    buf, addr = rx.recvfrom(65535)
    if addr[2] != pkt.PACKET_OUTGOING and b"SRV6T:" + tag.encode() in buf:
        print("got", buf.hex())
PY
}
for et in 0x0800 0x88b5; do
	for srh in "" srh; do
		res=$(dx2 "dx2$et$srh" $et $srh)
		sent=$(sed -n 's/^sent //p' <<<"$res")
		got=$(sed -n 's/^got //p' <<<"$res")
		if [ -n "$sent" ] && [ "$got" = "$sent" ]; then
			pass "End.DX2 ${srh:-no SRH}: EtherType $et frame arrives at sink2 byte for byte"
		else
			fail "End.DX2 ${srh:-no SRH}: EtherType $et frame arrives at sink2 byte for byte"
			echo "     sent $sent"
			echo "     got  ${got:-(nothing)}"
		fi
	done
done

# ---- errors: RFC 8986, where Linux drops silently ---------------------------
for sid in 5 6 7 8 9 b; do
	out=$(pkt_xchg --tag sl1$sid $S --segs fc00:100::$sid,fc00:9::c1 $IN6)
	expect_fields "fc00:100::$sid with SL 1: Parameter Problem code 0 at Segments Left (RFC 8986 4.4 S03; Linux drops)" \
		"$out" gen icmp6.type=4 icmp6.code=0 icmp6.ptr=43 ip6.src=fc00:100::$sid ip6.dst=fc00:1::1
done
out=$(pkt_xchg --tag wrong4 $S --segs fc00:100::8 --sl 0 $IN6)
expect_fields "End.DT4 with an IPv6 inner: Parameter Problem code 4 at the inner header (4.1.1)" \
	"$out" gen icmp6.type=4 icmp6.code=4 icmp6.ptr=64
out=$(pkt_xchg --tag wrong6 $S --dst fc00:100::5 $IN4)
expect_fields "End.DX6 with an IPv4 inner: Parameter Problem code 4 at offset 40" \
	"$out" gen icmp6.type=4 icmp6.code=4 icmp6.ptr=40
out=$(pkt_xchg --tag ping $S --segs fc00:100::7 --sl 0 --ul echo)
expect_fields "ping to an End.DT6 SID: answered" "$out" gen icmp6.type=129 ip6.src=fc00:100::7

# ---- counters ----------------------------------------------------------------------
expect_eq "End.DX6 SID counted its 2 packets" "$(ctl_get "sid('fc00:100::5/128')['packets']")" 2
expect_eq "End.DT46 SID counted its 4 packets" "$(ctl_get "sid('fc00:100::9/128')['packets']")" 4
expect_eq "End.DX2 SID counted its 4 frames" "$(ctl_get "sid('fc00:100::b/128')['packets']")" 4
expect_eq "End.DT4 SID counted 3 errors (SL 1, IPv6 inner, no route in its table)" "$(ctl_get "sid('fc00:100::8/128')['errors']")" 3
expect_eq "End.DT4 table miss counted as no_route" "$(ctl_get "sid('fc00:100::8/128')['drops'].get('no_route', 0)")" 1
expect_eq "no reinjection drops" "$(ctl_get "s['totals']['drops'].get('reinject', 0)")" 0
# Each packet counted once: the table misses above were handed to the
# kernel's unreachable rule and are drops (no_route), not also forwarded.
expect_eq "worker totals: the drop reasons add up to dropped" \
	"$(ctl_get "sum(s['totals']['drops'].values()) - s['totals']['dropped']")" 0
expect_eq "worker totals: every verdict is one of accepted, forwarded, dropped, reinjected" \
	"$(ctl_get "s['totals']['accepted'] + s['totals']['forwarded'] + s['totals']['dropped'] + s['totals']['injected'] - s['totals']['verdicts']")" 0

# ---- stop: devices and rules go away -------------------------------------------------
srv6d_stop || fail "srv6d stopped cleanly"
left=$(ip -n "$GW" -br link show | grep -c '^srv6d')
expect_eq "srv6d's devices removed on exit" "$left" 0
expect_eq "IPv4 rules removed on exit" "$(ip -n "$GW" -4 rule show priority 1000 | wc -l)" 0
expect_eq "IPv6 rules removed on exit" "$(ip -n "$GW" -6 rule show priority 1000 | wc -l)" 0

# ---- vrftable without a VRF device: a clear start error --------------------------
cat >"$TMPD/vrf.conf" <<EOF
queue 0
sid fc00:100::8/128 action End.DT4 vrftable 200
EOF
if ip -n "$GW" link add "${T}vrf" type vrf table 200 2>/dev/null; then
	skip_case "this kernel has VRF devices: the missing-VRF error is not testable as such"
	ip -n "$GW" link del "${T}vrf"
else
	ip netns exec "$GW" timeout 10 "$SRV6D" -c "$TMPD/vrf.conf" -s "$TMPD/vrf.sock" -d \
		>"$TMPD/vrf.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -q "End.DT4 fc00:100::8/128: vrftable 200: no VRF device has table 200" "$TMPD/vrf.log"; then
		pass "vrftable 200 without a VRF device: srv6d refuses to start ($rc) and says why"
	else
		fail "vrftable 200 without a VRF device: srv6d refuses to start and says why (rc $rc)"
		cat "$TMPD/vrf.log"
	fi
fi

ns_finish
