#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# reinject-tun.sh - `reinject no-payload` (once `reinject tun`): no verdict
# carries a payload.  Unmarked
# results (End, H.Encaps of IPv6 and IPv4) go through the reinjection device;
# marked ones too, with their SID's mark as the frame's SO_MARK, which the
# SID's fwmark rules act on: End.X and End.DX6 leave by nh6 (sink2)
# although the main table says sink1, End.T looks up its table; the IPv4
# results of End.DX4 (nh4), End.DT4/End.DT46 (table 100) and End.X/End.T
# with usd go to sink2 by their IPv4 fwmark rules.  No SID has a veth pair
# of its own, no rule is by in-interface.  Every result is counted in
# injected, none in forwarded.
T=reinject-tun
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 180
need_srv6d

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"
IN4="--inner ipv4 --inner-src 192.0.2.1 --inner-dst 10.9.3.1"

cat >"$TMPD/srv6d.conf" <<EOF2
queue 0
reinject no-payload
encap-source fc00:1::2
sid fc00:100::1/128 action End
sid fc00:100::3/128 action End.X nh6 fc00:3::2
sid fc00:100::4/128 action End.T table 100
sid fc00:100::5/128 action End.DX6 nh6 fc00:3::2
sid fc00:100::6/128 action End.DX4 nh4 203.0.113.2
sid fc00:100::8/128 action End.DT4 table 100
sid fc00:100::9/128 action End.DT46 table 100
sid fc00:100::d/128 action End.X nh6 fc00:3::2 flavors usd
sid fc00:100::e/128 action End.T table 100 flavors usd
route fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1
route 10.9.1.0/24 encap seg6 mode encap segs fc00:9::c1
EOF2

ns_setup || { fail "topology setup"; ns_finish; }
# Table 100 also routes the IPv4 destinations to sink2.
ip -n "$GW" route add 10.9.0.0/16 via 203.0.113.2 dev gw2 table 100 ||
	fail "IPv4 route in table 100"
if ! nfq_steer6 fc00:100::/32 fc00:9:e0::/44 || ! nfq_steer4 10.9.0.0/16; then
	fail "NFQUEUE rules"
fi
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"

# ---- the rules: by fwmark only; one device ------------------------------------------
# mark-base + N on the packet under the default mark-mask 0xffff0000:
# fwmark (mark-base + (N << 16))/0xffff0000 (lib.sh mark_fw), table N.
rules6=$(ip -n "$GW" -6 rule show priority 1000)
rules4=$(ip -n "$GW" -4 rule show priority 1000)
for want in "fwmark $(mark_fw $((MARK_BASE + 2))) lookup 1567555586" \
	"fwmark $(mark_fw $((MARK_BASE + 3))) lookup 100" \
	"fwmark $(mark_fw $((MARK_BASE + 4))) lookup 1567555588"; do
	if grep -q "$want" <<<"$rules6"; then
		pass "ip -6 rule $want"
	else
		fail "ip -6 rule $want"
		echo "$rules6"
	fi
done
for want in "fwmark $(mark_fw $((MARK_BASE + 5))) lookup 1567555589" \
	"fwmark $(mark_fw $((MARK_BASE + 6))) lookup 100" \
	"fwmark $(mark_fw $((MARK_BASE + 7))) lookup 100" \
	"fwmark $(mark_fw $((MARK_BASE + 8))) lookup 1567555592" \
	"fwmark $(mark_fw $((MARK_BASE + 9))) lookup 100"; do
	if grep -q "$want" <<<"$rules4"; then
		pass "ip -4 rule $want"
	else
		fail "ip -4 rule $want"
		echo "$rules4"
	fi
done
expect_eq "no rule by in-interface at priority 1000" \
	"$(grep -c ' iif ' <<<"$rules6$rules4")" 0
expect_eq "no srv6dMMMMMMMM veth pair: one reinjection device" \
	"$(ip -n "$GW" -br link show | grep -c '^srv6d[0-9a-f]\{8\}')" 0

# ---- End: the reinjection device --------------------------------------------------------------------
out=$(pkt_xchg --tag end $S --segs fc00:100::1,fc00:9::c1 $IN6)
exp=$(pkt_build --tag end $S --segs fc00:100::1,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End through the reinjection device: to sink1, hop limit 64 -> 63" "$out" s1 "$exp"

out=$(pkt_xchg --tag endhl2 $S --segs fc00:100::1,fc00:9::c1 --hlim 2)
exp=$(pkt_build --tag endhl2 $S --segs fc00:100::1,fc00:9::c1 --hlim 1 --sl 0)
expect_frame "End with hop limit 2 leaves with 1 (decremented once)" "$out" s1 "$exp"

# ---- End.X / End.T / End.DX6: the reinjection device with the SID's mark -----------
out=$(pkt_xchg --tag endx $S --segs fc00:100::3,fc00:9::c1 $IN6)
exp=$(pkt_build --tag endx $S --segs fc00:100::3,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End.X through the reinjection device with its mark: toward nh6 (sink2; main table says sink1)" "$out" s2 "$exp"

out=$(pkt_xchg --tag endt $S --segs fc00:100::4,fc00:9::c1 $IN6)
exp=$(pkt_build --tag endt $S --segs fc00:100::4,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End.T through the reinjection device with its mark: table 100 (sink2)" "$out" s2 "$exp"

out=$(pkt_xchg --tag dx6 $S --segs fc00:100::5 --sl 0 $IN6 --inner-hlim 9)
exp=$(pkt_build --tag dx6 --src fc00:1::1 --dst fc00:9::99 --hlim 8)
expect_frame "End.DX6 through the reinjection device with its mark: inner IPv6 toward nh6 (sink2), hop limit 9 -> 8" \
	"$out" s2 "$exp"

# ---- IPv4 results: the reinjection device with the SID's mark -------------------------
for sid in 6 8 9; do
	out=$(pkt_xchg --tag dx4s$sid $S --segs fc00:100::$sid --sl 0 $IN4 --inner-hlim 9)
	exp=$(pkt_build --tag dx4s$sid --v4 --src 192.0.2.1 --dst 10.9.3.1 --hlim 8)
	expect_frame "fc00:100::$sid: inner IPv4 to sink2 by its mark (main table says sink1), TTL 9 -> 8" \
		"$out" s2 "$exp"
done
for sid in d e; do
	out=$(pkt_xchg --tag usd4$sid $S --segs fc00:9::c1,fc00:100::$sid --sl 0 $IN4)
	exp=$(pkt_build --tag usd4$sid --v4 --src 192.0.2.1 --dst 10.9.3.1 --hlim 63)
	expect_frame "fc00:100::$sid with USD, IPv4 inner: to sink2 by its mark (main table says sink1)" \
		"$out" s2 "$exp"
done

# ---- H.Encaps of IPv6 and IPv4: the reinjection device --------------------------------------------------
out=$(pkt_xchg --tag enc6 --src fc00:1::1 --dst fc00:9:e1::1)
expect_fields "H.Encaps of IPv6 through the reinjection device: to sink1" \
	"$out" s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::c1
out=$(pkt_xchg --tag enc4 --v4 --src 192.0.2.1 --dst 10.9.1.1)
expect_fields "H.Encaps of IPv4 through the reinjection device: to sink1" \
	"$out" s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::c1

# ---- counters --------------------------------------------------------------------------
expect_eq "no verdict carried a payload (forwarded 0)" \
	"$(ctl_get "s['totals']['forwarded']")" 0
expect_eq "all 12 results re-entered by the reinjection device (injected 12)" \
	"$(ctl_get "s['totals']['injected']")" 12
expect_eq "nothing dropped" "$(ctl_get "s['totals']['dropped']")" 0

if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
