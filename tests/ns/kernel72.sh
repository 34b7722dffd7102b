#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# kernel72.sh - the emulation of Linux 7.2's verdict payload rule on this
# 6.18 kernel (tests/kernel72/nfq72.c) does what 7.2 does: srv6d runs under
# it (SRV6D_KERNEL=7.2), and a result that changes an extension header or
# the first next header is lost without a trace at the real kernel, while
# one that changes only the destination (a C-SID shift) goes through.
# What it stands for: 7.2's nfqnl_mangle() (mainline 54f34607d184), which
# this machine's kernel does not have.  The other namespace tests run under
# the same emulation with SRV6D_KERNEL=7.2.
T=kernel72
SRV6D_KERNEL=7.2
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 120
need_srv6d
[ -x "$SRV6D" ] && [ -f "$top_builddir/tests/kernel72/nfq72.so" ] ||
	skip_test "the 7.2 shim is not built ($SRV6D)"

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"

cat >"$TMPD/srv6d.conf" <<EOF
queue 0
encap-source fc00:1::2
sid fc00:100::1/128 action End
sid fc00:100:a::/48 action End flavors next-csid lblen 32 nflen 16
EOF

stat_get() {	# stat_get NAME: the shim's count NAME
	awk -v k="$1" '$1 == k { print $2 }' "$NFQ72_STATS" 2>/dev/null
}

ns_setup || { fail "topology setup"; ns_finish; }
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"
rm -f "$NFQ72_STATS"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
say "srv6d pid $SRV6D_PID under Linux 7.2's verdict rule ($SRV6D)"
# The shim's uname() says 7.2: the default `reinject auto` decides that
# only payloads that keep the header chain may go (srv6ctl status).
expect_eq "reinject auto on 7.2: keep-chain payloads, with the reason" \
	"$(ctl_get "s['reinject']['mode'] + ' ' + s['reinject']['payload'] + ' ' + str('>= 7.2' in s['reinject']['why'])")" \
	"auto keep-chain True"

# A C-SID shift changes the destination only: 7.2 accepts the payload.
out=$(pkt_xchg --tag csid $S --dst fc00:100:a:b:c:: --ul none)
exp=$(pkt_build --tag csid $S --dst fc00:100:b:c:: --ul none --hlim 63)
if expect_frame "C-SID shift (destination only) passes 7.2's rule" "$out" s1 "$exp"; then
	expect_eq "the shim judged it and refused nothing" \
		"$(stat_get judged)/$(stat_get refused)" "1/0"
fi

out=$(pkt_xchg --tag csidsrh $S --srh-list fc00:9::c1,fc00:100:a:b:: --sl 1 $IN6)
exp=$(pkt_build --tag csidsrh $S --srh-list fc00:9::c1,fc00:100:a:b:: --sl 1 --dst fc00:100:b:: --hlim 63 $IN6)
expect_frame "C-SID shift with an SRH left as it is passes 7.2's rule" "$out" s1 "$exp"

# What srv6d sends today for End (Segments Left changed in the SRH) is
# refused: if srv6d still sends it as a payload, it is lost; if it takes
# another way back (the payload-free path), it arrives and the shim
# judged nothing more.
before=$(stat_get refused)
out=$(pkt_xchg --tag end $S --segs fc00:100::1,fc00:9::c1 $IN6)
exp=$(pkt_build --tag end $S --segs fc00:100::1,fc00:9::c1 $IN6 --sl 0 --hlim 63)
after=$(stat_get refused)
if [ "$after" -gt "$before" ]; then
	expect_none "End's payload (SL changed inside the SRH) is refused as by 7.2: lost" "$out"
	expect_eq "the shim counted it as ext_changed" "$(stat_get ext_changed)" 1
	grep -q "kernel72: payload of packet .* refused (ext_changed)" "$LOG" &&
		pass "the refusal is told in srv6d's log (stderr)" ||
		fail "no refusal line in $LOG"
else
	expect_frame "End's result took a way back 7.2 accepts" "$out" s1 "$exp"
fi

srv6d_stop || fail "srv6d exit status"
grep -q "kernel72: .* payload verdicts judged" "$LOG" &&
	pass "the shim's summary at exit" || fail "no kernel72 summary in $LOG"
rm -f "$NFQ72_STATS"
ns_finish
