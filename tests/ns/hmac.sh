#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# hmac.sh - the SRH HMAC TLV (RFC 8754 2.1.2) between srv6d and the kernel,
# both ways.
#
#   1. The kernel's own headend (`encap seg6 ... hmac 7`) on the gateway
#      gives the reference bytes; srv6d's headend (`route ... hmac 7`) must
#      give the same bytes, and the kernel's seg6local End in sink1, with
#      seg6_require_hmac 1 and the same key (`ip sr hmac set 7 sha256`),
#      must accept them and forward the packet on to sink2.  A key sink1
#      does not have: the kernel drops it.
#   2. The kernel's headend in gen (`encap seg6 ... hmac 7` on its output)
#      -> srv6d's End with `hmac-require yes`: accepted.  A wrong secret,
#      a key srv6d does not have, no HMAC at all: dropped, and counted as
#      hmac_wrong, hmac_unknown, hmac_missing.
T=hmac
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d
command -v setsid >/dev/null || skip_test "setsid not found"
command -v ping >/dev/null || skip_test "ping not found"

SECRET=srv6d-hmac-secret
printf '%s\n' "$SECRET" >"$TMPD/hmac7.key"
printf '%s\n' "another-secret" >"$TMPD/hmac8.key"
chmod 600 "$TMPD/hmac7.key" "$TMPD/hmac8.key"

# ip sr hmac set reads the secret with getpass(): no controlling terminal
# (setsid), so it reads standard input.  An empty secret deletes the key.
sr_hmac() {	# NS KEYID SECRET
	printf '%s\n' "$3" | setsid -w ip netns exec "$1" ip sr hmac set "$2" sha256 \
		>/dev/null 2>"$TMPD/sr.err"
}

ns_setup || { fail "topology setup"; ns_finish; }

# sink1 verifies HMACs (seg6_require_hmac 1, key 7) at its End SID
# fc00:9::c1 and forwards the result (DA fc00:3::2, sink2) back through
# the gateway.  seg6local rewrites the SRH in place, under the capture
# socket's feet: the bytes that left the gateway are captured with sink1's
# End off (s1_end off: not forwarding, no SID), then it is turned on.
_sysctls "$S1" net.ipv6.conf.all.seg6_enabled=1 \
	net.ipv6.conf.s1.seg6_enabled=1 \
	net.ipv6.conf.s1.seg6_require_hmac=1 || fail "sink1 sysctls"
sr_hmac "$S1" 7 "$SECRET" || fail "sink1: ip sr hmac set 7: $(cat "$TMPD/sr.err")"
s1_end() {	# on | off
	if [ "$1" = on ]; then
		_sysctls "$S1" net.ipv6.conf.all.forwarding=1 &&
		ip -n "$S1" -6 route add fc00:9::c1/128 encap seg6local \
			action End dev s1
	else
		_sysctls "$S1" net.ipv6.conf.all.forwarding=0
		ip -n "$S1" -6 route del fc00:9::c1/128 2>/dev/null
		return 0
	fi
}

# ---- 1. headend -> kernel End ----------------------------------------------------
say "phase 1: the kernel's headend with hmac 7 (reference bytes)"
nsx "$GW" ip sr tunsrc set fc00:1::2 || fail "ip sr tunsrc set"
sr_hmac "$GW" 7 "$SECRET" || fail "gateway: ip sr hmac set 7"
ip -n "$GW" -6 route add fc00:9:a0::/48 encap seg6 mode encap \
	segs fc00:9::c1,fc00:3::2 hmac 7 dev gw1 || fail "kernel hmac route"
PKT="--src fc00:1::1 --dst fc00:9:a0::1 --fl 0x1234 --tc 0x20"
s1_end off
kout=$(pkt_xchg --tag kh $PKT)
kframe=${kout#s1 }
expect_fields "kernel headend: SRH with the H flag and a 40-byte HMAC TLV" \
	"$kout" s1 ip6.src=fc00:1::2 ip6.dst=fc00:9::c1 srh.sl=1 srh.len=9
s1_end on || fail "sink1 End SID"
out=$(pkt_xchg --tag kh $PKT)
expect_fields "kernel End with seg6_require_hmac 1 accepted the kernel's HMAC" \
	"$(grep '^s2 ' <<<"$out")" s2 ip6.dst=fc00:3::2 srh.sl=0
ip -n "$GW" -6 route del fc00:9:a0::/48
sr_hmac "$GW" 7 ""
nsx "$GW" ip sr tunsrc set ::

say "phase 1: srv6d's headend with hmac 7"
cat >"$TMPD/srv6d.conf" <<EOF2
queue 0
encap-source fc00:1::2
hmac 7 sha256 secret-file $TMPD/hmac7.key
hmac 8 sha256 secret-file $TMPD/hmac8.key
hmac-require yes
sid fc00:100::1/128 action End
route fc00:9:a0::/48 encap seg6 mode encap segs fc00:9::c1,fc00:3::2 hmac 7
route fc00:9:a8::/48 encap seg6 mode encap segs fc00:9::c1,fc00:3::2 hmac 8
EOF2
nfq_steer6 fc00:100::/32 fc00:9:a0::/44 || fail "NFQUEUE rules"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }

s1_end off
sout=$(pkt_xchg --tag kh $PKT)
expect_frame "srv6d's headend gives the kernel's bytes (H flag, TLV last, same HMAC)" \
	"$sout" s1 "$kframe"
s1_end on || fail "sink1 End SID"
out=$(pkt_xchg --tag kh $PKT)
expect_fields "the kernel's End (seg6_require_hmac 1, key 7) accepted srv6d's HMAC" \
	"$(grep '^s2 ' <<<"$out")" s2 ip6.dst=fc00:3::2 srh.sl=0
out=$(pkt_xchg --tag k8 --src fc00:1::1 --dst fc00:9:a8::1)
expect_fields "srv6d's headend with key 8 (unknown to sink1): leaves the gateway" \
	"$(grep '^s1 ' <<<"$out")" s1 ip6.dst=fc00:9::c1 srh.len=9
expect_none "... and the kernel's End drops it" "$(grep '^s2 ' <<<"$out")"

# ---- 2. kernel headend -> srv6d End ------------------------------------------------
say "phase 2: the kernel's headend in gen -> srv6d's End with hmac-require yes"
nsx "$GEN" ip sr tunsrc set fc00:1::1 || fail "gen: ip sr tunsrc set"
sr_hmac "$GEN" 7 "$SECRET" || fail "gen: ip sr hmac set 7"
sr_hmac "$GEN" 9 "$SECRET" || fail "gen: ip sr hmac set 9"
ip -n "$GEN" -6 route add fc00:9:b0::/48 encap seg6 mode encap \
	segs fc00:100::1,fc00:9::c2 hmac 7 dev g0 || fail "gen hmac route 7"
ip -n "$GEN" -6 route add fc00:9:b9::/48 encap seg6 mode encap \
	segs fc00:100::1,fc00:9::c2 hmac 9 dev g0 || fail "gen hmac route 9"
ip -n "$GEN" -6 route add fc00:9:bd::/48 encap seg6 mode encap.red \
	segs fc00:100::1,fc00:9::c2 hmac 7 dev g0 || fail "gen hmac route encap.red"

pings() {	# DST: three echo requests from gen (no reply expected)
	nsx "$GEN" ping -6 -n -q -c 3 -i 0.2 -W 1 "$1" >/dev/null 2>&1
	sleep 0.2
}
counter() {	# EXPR on sid fc00:100::1/128
	ctl_get "$1"
}
S="sid('fc00:100::1/128')"

pings fc00:9:b0::1
expect_eq "kernel HMAC (key 7) accepted by srv6d's End: 3 packets" \
	"$(counter "$S['packets']")" 3
expect_eq "... and none dropped" "$(counter "$S['errors']")" 0
pings fc00:9:bd::1
expect_eq "kernel encap.red with HMAC (reduced list, H flag, no D bit) accepted: 3 more" \
	"$(counter "$S['packets']")" 6

sr_hmac "$GEN" 7 "" && sr_hmac "$GEN" 7 "a-wrong-secret" || fail "gen: key 7 reset"
pings fc00:9:b0::1
expect_eq "wrong secret: 3 drops counted hmac_wrong" \
	"$(counter "drop($S, 'hmac_wrong')")" 3
pings fc00:9:b9::1
expect_eq "key 9 (srv6d has none): 3 drops counted hmac_unknown" \
	"$(counter "drop($S, 'hmac_unknown')")" 3
out=$(pkt_xchg --tag nohmac --src fc00:1::1 --segs fc00:100::1,fc00:9::c2)
expect_none "SRH without HMAC TLV: dropped (hmac-require yes)" "$out"
expect_eq "... counted hmac_missing" "$(counter "drop($S, 'hmac_missing')")" 1
expect_eq "the End SID still counts only the 6 good packets" \
	"$(counter "$S['packets']")" 6
expect_eq "worker totals: 3 hmac_wrong, 3 hmac_unknown, 1 hmac_missing" \
	"$(ctl_get "[s['totals']['drops'][r] for r in ('hmac_wrong', 'hmac_unknown', 'hmac_missing')]")" \
	"[3, 3, 1]"

if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
