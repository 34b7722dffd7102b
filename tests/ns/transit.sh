#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# transit.sh - SRv6 endpoint behaviors through srv6d on a real kernel:
# End (and PSP, USP, USD, NEXT-C-SID), End.X, End.T, the ICMP errors
# RFC 8986/8754 ask for, non-SID traffic, malformed SRHs and their counters.
# Packets go gen -> gw (srv6d via NFQUEUE) -> sink1/sink2; frames are
# captured on the sinks and back at gen and compared byte for byte where
# the result is fully determined.
T=transit
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"
IN4="--inner ipv4 --inner-src 192.0.2.1 --inner-dst 10.9.3.1"

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:1::2
sid fc00:100::1/128 action End
sid fc00:100::2/128 action End flavors psp
sid fc00:100::5/128 action End flavors usp
sid fc00:100::6/128 action End flavors usd
sid fc00:100:a::/48 action End flavors next-csid lblen 32 nflen 16
sid fc00:100::3/128 action End.X nh6 fc00:3::2
sid fc00:100::4/128 action End.T table 100
sid fc00:100::8/128 action End.X nh6 fc00:3::2 flavors psp
sid fc00:100::9/128 action End.T table 100 flavors psp
EOF

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"

# ---- End, exact bytes ----------------------------------------------------------
out=$(pkt_xchg --tag end21 $S --segs fc00:100::1,fc00:9::c1,fc00:9::c2 $IN6)
exp=$(pkt_build --tag end21 $S --segs fc00:100::1,fc00:9::c1,fc00:9::c2 $IN6 --sl 1 --hlim 63)
expect_frame "End SL 2->1: DA = next segment, SL 1, hop limit 64 -> 63 (once)" "$out" s1 "$exp"

out=$(pkt_xchg --tag end10 $S --segs fc00:100::1,fc00:9::c1 $IN6 --fl 0xabcde --tc 0xb8)
exp=$(pkt_build --tag end10 $S --segs fc00:100::1,fc00:9::c1 $IN6 --fl 0xabcde --tc 0xb8 --sl 0 --hlim 63)
expect_frame "End SL 1->0, flow label and traffic class kept" "$out" s1 "$exp"

out=$(pkt_xchg --tag endhl2 $S --segs fc00:100::1,fc00:9::c1 --hlim 2)
exp=$(pkt_build --tag endhl2 $S --segs fc00:100::1,fc00:9::c1 --hlim 1 --sl 0)
expect_frame "End with hop limit 2 leaves with 1" "$out" s1 "$exp"

out=$(pkt_xchg --tag endtlv $S --segs fc00:100::1,fc00:9::c1 --tlv pad1 --tlv padn:5 $IN6)
exp=$(pkt_build --tag endtlv $S --segs fc00:100::1,fc00:9::c1 --tlv pad1 --tlv padn:5 $IN6 --sl 0 --hlim 63)
expect_frame "End with Pad1 + PadN TLVs" "$out" s1 "$exp"

# ---- flavors -----------------------------------------------------------------------
out=$(pkt_xchg --tag psp $S --segs fc00:100::2,fc00:9::c1 $IN6)
exp=$(pkt_build --tag psp $S --dst fc00:9::c1 --hlim 63 $IN6)
expect_frame "PSP: SRH removed at the penultimate SID" "$out" s1 "$exp"

out=$(pkt_xchg --tag psp21 $S --segs fc00:100::2,fc00:9::c1,fc00:9::c2 $IN6)
exp=$(pkt_build --tag psp21 $S --segs fc00:100::2,fc00:9::c1,fc00:9::c2 $IN6 --sl 1 --hlim 63)
expect_frame "PSP: SRH kept when SL 2->1" "$out" s1 "$exp"

out=$(pkt_xchg --tag uspecho $S --segs fc00:9::c1,fc00:100::5 --sl 0 --ul echo)
expect_fields "USP at SL 0: SRH removed, the echo request answered" "$out" gen \
	icmp6.type=129 ip6.src=fc00:100::5 ip6.dst=fc00:1::1 icmp6.id=0x5336 tag=uspecho

out=$(pkt_xchg --tag uspudp $S --segs fc00:9::c1,fc00:100::5 --sl 0)
expect_fields "USP at SL 0 with UDP: Parameter Problem code 4 at the UDP header (SRH removed first)" \
	"$out" gen icmp6.type=4 icmp6.code=4 icmp6.ptr=40 in1.ip6.nh=17

out=$(pkt_xchg --tag usd6 $S --segs fc00:9::c1,fc00:100::6 --sl 0 $IN6)
exp=$(pkt_build --tag usd6 --src fc00:1::1 --dst fc00:9::99 --hlim 63)
expect_frame "USD at SL 0: inner IPv6 forwarded (its hop limit 64 -> 63)" "$out" s1 "$exp"

out=$(pkt_xchg --tag usd6nosrh $S --dst fc00:100::6 $IN6)
exp=$(pkt_build --tag usd6nosrh --src fc00:1::1 --dst fc00:9::99 --hlim 63)
expect_frame "USD without SRH: inner IPv6 forwarded" "$out" s1 "$exp"

tun0=$(ctl_get "s['totals']['injected']" 2>/dev/null)
out=$(pkt_xchg --tag usd4 $S --segs fc00:9::c1,fc00:100::6 --sl 0 $IN4)
exp=$(pkt_build --tag usd4 --v4 --src 192.0.2.1 --dst 10.9.3.1 --hlim 63)
expect_frame "USD at SL 0: inner IPv4 forwarded through the reinjection device (TTL 64 -> 63)" "$out" s1 "$exp"
tun1=$(ctl_get "s['totals']['injected']" 2>/dev/null)
expect_eq "injected counted the IPv4 result" "$((tun1 - tun0))" 1

out=$(pkt_xchg --tag usdsl1 $S --segs fc00:100::6,fc00:9::c1 $IN6)
exp=$(pkt_build --tag usdsl1 $S --segs fc00:100::6,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "USD SID with SL 1: plain End" "$out" s1 "$exp"

out=$(pkt_xchg --tag csid $S --dst fc00:100:a:b:c:: --ul none)
exp=$(pkt_build --tag csid $S --dst fc00:100:b:c:: --ul none --hlim 63)
expect_frame "NEXT-C-SID: DA fc00:100:a:b:c:: shifted to fc00:100:b:c::" "$out" s1 "$exp"

out=$(pkt_xchg --tag csidsrh $S --srh-list fc00:9::c1,fc00:100:a:b:: --sl 1 $IN6)
exp=$(pkt_build --tag csidsrh $S --srh-list fc00:9::c1,fc00:100:a:b:: --sl 1 --dst fc00:100:b:: --hlim 63 $IN6)
expect_frame "NEXT-C-SID with an SRH: DA shifted, SL unchanged" "$out" s1 "$exp"

out=$(pkt_xchg --tag csidend $S --srh-list fc00:9::c1,fc00:100:a:: --sl 1 $IN6)
exp=$(pkt_build --tag csidend $S --srh-list fc00:9::c1,fc00:100:a:: --sl 0 --hlim 63 $IN6)
expect_frame "NEXT-C-SID, last C-SID: End (SL 1->0, DA from the SRH)" "$out" s1 "$exp"

# ---- End.X and End.T -------------------------------------------------------------
out=$(pkt_xchg --tag endx $S --segs fc00:100::3,fc00:9::c1 $IN6)
exp=$(pkt_build --tag endx $S --segs fc00:100::3,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End.X leaves toward nh6 fc00:3::2 on sink2's link (main table says sink1)" "$out" s2 "$exp"

out=$(pkt_xchg --tag endt $S --segs fc00:100::4,fc00:9::c1 $IN6)
exp=$(pkt_build --tag endt $S --segs fc00:100::4,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End.T looks the new DA up in table 100 (sink2)" "$out" s2 "$exp"

out=$(pkt_xchg --tag endxpsp $S --segs fc00:100::8,fc00:9::c1 $IN6)
exp=$(pkt_build --tag endxpsp $S --dst fc00:9::c1 --hlim 63 $IN6)
expect_frame "End.X with PSP: SRH removed, leaves toward nh6 (sink2)" "$out" s2 "$exp"

out=$(pkt_xchg --tag endtpsp $S --segs fc00:100::9,fc00:9::c1 $IN6)
exp=$(pkt_build --tag endtpsp $S --dst fc00:9::c1 --hlim 63 $IN6)
expect_frame "End.T with PSP: SRH removed, table 100 (sink2)" "$out" s2 "$exp"

# RFC 8986 4.1 S15: the new DA is looked up in the FIB; when it is another
# SID of this node, that SID's behavior runs here too (as Linux does).
out=$(pkt_xchg --tag chain $S --segs fc00:100::1,fc00:100::3,fc00:9::c1 $IN6)
exp=$(pkt_build --tag chain $S --segs fc00:100::1,fc00:100::3,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End then End.X of this node in a row: both run here, leaves toward nh6 (sink2)" "$out" s2 "$exp"

if nsx "$GW" ip -6 rule | grep -q '^1000:'; then
	pass "the daemon's ip rules (priority 1000) are installed"
else
	fail "no ip -6 rule with priority 1000"
fi

# ---- ICMP: RFC 8986 / 8754 ----------------------------------------------------------
sent=$(pkt_build --tag hl1 $S --segs fc00:100::1,fc00:9::c1 --hlim 1 $IN6)
out=$(pkt_xchg --tag hl1 $S --segs fc00:100::1,fc00:9::c1 --hlim 1 $IN6)
if expect_fields "End with hop limit 1: Time Exceeded back at the sender, from the SID" "$out" gen \
	icmp6.type=3 icmp6.code=0 ip6.src=fc00:100::1 ip6.dst=fc00:1::1; then
	expect_eq "Time Exceeded quotes the packet as received (RFC 8986 4.1 S05-S06)" \
		"${FRAME:96}" "$sent"
fi

out=$(pkt_xchg --tag hl0 $S --segs fc00:100::1,fc00:9::c1 --hlim 0 $IN6)
expect_fields "End with hop limit 0: Time Exceeded" "$out" gen icmp6.type=3 icmp6.code=0

out=$(pkt_xchg --tag slgtle $S --srh-list fc00:9::c1,fc00:100::1 --sl 3 --dst fc00:100::1 $IN6)
expect_fields "SL 3 > LE+1 = 2: Parameter Problem code 0 pointing at SL (offset 43)" "$out" gen \
	icmp6.type=4 icmp6.code=0 icmp6.ptr=43 ip6.src=fc00:100::1

out=$(pkt_xchg --tag lebig $S --srh-list fc00:9::c1,fc00:100::1 --le 5 --sl 1 $IN6)
expect_fields "LE 5 > max_LE 1: Parameter Problem code 0 pointing at SL" "$out" gen \
	icmp6.type=4 icmp6.code=0 icmp6.ptr=43

out=$(pkt_xchg --tag sl0echo $S --segs fc00:9::c1,fc00:100::1 --sl 0 --ul echo)
expect_fields "SL 0 + echo request: echo reply from the SID" "$out" gen \
	icmp6.type=129 icmp6.code=0 ip6.src=fc00:100::1 ip6.dst=fc00:1::1 icmp6.id=0x5336 icmp6.seq=1 tag=sl0echo

out=$(pkt_xchg --tag nosrhecho $S --dst fc00:100::1 --ul echo --echo-seq 7)
expect_fields "no SRH + echo request (ping the SID): echo reply" "$out" gen \
	icmp6.type=129 ip6.src=fc00:100::1 icmp6.seq=7 tag=nosrhecho

out=$(pkt_xchg --tag sl0udp $S --segs fc00:9::c1,fc00:100::1 --sl 0)
expect_fields "SL 0 + UDP: Parameter Problem code 4 pointing at the UDP header (80)" "$out" gen \
	icmp6.type=4 icmp6.code=4 icmp6.ptr=80 ip6.src=fc00:100::1

out=$(pkt_xchg --tag nosrhudp $S --dst fc00:100::1)
expect_fields "no SRH + UDP: Parameter Problem code 4 at offset 40" "$out" gen \
	icmp6.type=4 icmp6.code=4 icmp6.ptr=40

out=$(pkt_xchg --tag rh0 $S --segs fc00:100::1,fc00:9::c1 --srh-type 0 $IN6)
expect_fields "routing type 0 with SL 1: Parameter Problem code 0 at the routing type (42)" \
	"$out" gen icmp6.type=4 icmp6.code=0 icmp6.ptr=42

# ---- non-SID traffic --------------------------------------------------------------------
un0=$(ctl_get "s['totals']['unmatched']")
out=$(pkt_xchg --tag nonsid $S --dst fc00:100::99 --segs fc00:100::99,fc00:9::c1 $IN6)
exp=$(pkt_build --tag nonsid $S --dst fc00:100::99 --segs fc00:100::99,fc00:9::c1 $IN6 --hlim 63)
expect_frame "a packet to a non-SID address: accepted unchanged (the kernel forwards it)" "$out" s1 "$exp"
un1=$(ctl_get "s['totals']['unmatched']")
expect_eq "unmatched counted it" "$((un1 - un0))" 1

# ---- malformed SRHs: dropped and counted -----------------------------------------------
# malformed DESC REASON ARGS...: nothing leaves toward the sinks, the SID
# counts one error with REASON.
malformed() {
	local desc=$1 reason=$2 tag=$3
	shift 3
	local e0 e1 d0 d1 out
	e0=$(ctl_get "sid('fc00:100::1/128')['errors']")
	d0=$(ctl_get "drop(sid('fc00:100::1/128'), '$reason')")
	out=$(pkt_xchg --tag "$tag" "$@")
	out=$(grep -v '^gen ' <<<"$out")
	expect_none "$desc: nothing forwarded" "$out"
	e1=$(ctl_get "sid('fc00:100::1/128')['errors']")
	d1=$(ctl_get "drop(sid('fc00:100::1/128'), '$reason')")
	expect_eq "$desc: SID errors +1" "$((e1 - e0))" 1
	expect_eq "$desc: drop reason $reason +1" "$((d1 - d0))" 1
}
malformed "SRH longer than the packet" truncated mtrunc \
	$S --segs fc00:100::1,fc00:9::c1 --srh-len 10 --ul none
malformed "PadN TLV running past the SRH" bad_tlv mtlv \
	$S --segs fc00:100::1,fc00:9::c1 --tlv padn:6 --poke 81:c8 $IN6
malformed "LE beyond Hdr Ext Len" bad_srh mle \
	$S --srh-list fc00:9::c1,fc00:100::1 --le 5 --sl 1 $IN6
malformed "hop limit 1" hop_limit mhl \
	$S --segs fc00:100::1,fc00:9::c1 --hlim 1 $IN6

# ---- totals --------------------------------------------------------------------------------
rx=$(ctl_get "s['totals']['rx_packets']")
vd=$(ctl_get "s['totals']['verdicts']")
expect_eq "every received packet got a verdict (rx_packets == verdicts)" "$vd" "$rx"
say "status totals: $(ctl_get "{k: v for k, v in s['totals'].items() if k != 'drops'}")"

if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
