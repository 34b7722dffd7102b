#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# reinject-tun.sh - `reinject no-payload` (once `reinject tun`): no verdict
# carries a payload.  Unmarked
# results (End, H.Encaps of IPv6 and IPv4) go through the reinjection device;
# marked ones (End.X, End.T, End.DX6) through their SID's veth pair, whose
# IPv6 iif rules route them as the fwmark rules would: End.X and End.DX6
# leave by nh6 (sink2) although the main table says sink1, End.T looks up
# its table.  Every result is counted in injected, none in forwarded.
T=reinject-tun
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 180
need_srv6d

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"

cat >"$TMPD/srv6d.conf" <<EOF2
queue 0
reinject no-payload
encap-source fc00:1::2
sid fc00:100::1/128 action End
sid fc00:100::3/128 action End.X nh6 fc00:3::2
sid fc00:100::4/128 action End.T table 100
sid fc00:100::5/128 action End.DX6 nh6 fc00:3::2
route fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1
route 10.9.1.0/24 encap seg6 mode encap segs fc00:9::c1
EOF2

ns_setup || { fail "topology setup"; ns_finish; }
if ! nfq_steer6 fc00:100::/32 fc00:9:e0::/44 || ! nfq_steer4 10.9.0.0/16; then
	fail "NFQUEUE rules"
fi
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID, config:"
sed 's/^/    /' "$TMPD/srv6d.conf"

# ---- the rules: fwmark and iif, the same tables ------------------------------------
rules6=$(ip -n "$GW" -6 rule show priority 1000)
for want in "fwmark 0x5d6f0002 lookup 1567555586" \
	"iif srv6d5d6f0002 lookup 1567555586" \
	"iif srv6d5d6f0003 lookup 100" \
	"iif srv6d5d6f0004 lookup 1567555588"; do
	if grep -q "$want" <<<"$rules6"; then
		pass "ip -6 rule $want"
	else
		fail "ip -6 rule $want"
		echo "$rules6"
	fi
done

# ---- End: the reinjection device --------------------------------------------------------------------
out=$(pkt_xchg --tag end $S --segs fc00:100::1,fc00:9::c1 $IN6)
exp=$(pkt_build --tag end $S --segs fc00:100::1,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End through the reinjection device: to sink1, hop limit 64 -> 63" "$out" s1 "$exp"

out=$(pkt_xchg --tag endhl2 $S --segs fc00:100::1,fc00:9::c1 --hlim 2)
exp=$(pkt_build --tag endhl2 $S --segs fc00:100::1,fc00:9::c1 --hlim 1 --sl 0)
expect_frame "End with hop limit 2 leaves with 1 (decremented once)" "$out" s1 "$exp"

# ---- End.X / End.T / End.DX6: the SID's veth pair -------------------------------
out=$(pkt_xchg --tag endx $S --segs fc00:100::3,fc00:9::c1 $IN6)
exp=$(pkt_build --tag endx $S --segs fc00:100::3,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End.X through its veth pair: toward nh6 (sink2; main table says sink1)" "$out" s2 "$exp"

out=$(pkt_xchg --tag endt $S --segs fc00:100::4,fc00:9::c1 $IN6)
exp=$(pkt_build --tag endt $S --segs fc00:100::4,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End.T through its veth pair: table 100 (sink2)" "$out" s2 "$exp"

out=$(pkt_xchg --tag dx6 $S --segs fc00:100::5 --sl 0 $IN6 --inner-hlim 9)
exp=$(pkt_build --tag dx6 --src fc00:1::1 --dst fc00:9::99 --hlim 8)
expect_frame "End.DX6 through its veth pair: inner IPv6 toward nh6 (sink2), hop limit 9 -> 8" \
	"$out" s2 "$exp"

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
expect_eq "all 7 results re-entered by the reinjection device or a SID veth pair (injected 7)" \
	"$(ctl_get "s['totals']['injected']")" 7
expect_eq "nothing dropped" "$(ctl_get "s['totals']['dropped']")" 0

if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
