#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# diff-binding.sh - the same packets through the kernel's seg6local
# End.B6.Encaps / End.B6 and through srv6d's must leave the gateway as the
# same bytes (RFC 8986 4.13; Linux's End.B6 insertion), with and without
# an HMAC on the pushed SRH.
#
# Phase 1: `ip -6 route ... encap seg6local action End.B6[.Encaps] srh segs
# ...` on the gateway (tunsrc fc00:1::2, HMAC key 7 for one SID); every
# case is sent and what left by sink1 is kept.  Phase 2: the routes gone,
# the same SIDs in srv6d, the same packets; the captures are compared
# byte for byte.  Where Linux drops silently and srv6d follows RFC 8986
# (Segments Left 0 at the SID), each side is checked on its own.
T=diff-binding
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/ns/difflib.sh
. "$(dirname "$0")/difflib.sh"
ns_init 240
command -v setsid >/dev/null || skip_test "setsid not found"

SECRET=diff-binding-secret
printf '%s\n' "$SECRET" >"$TMPD/hmac7.key"
chmod 600 "$TMPD/hmac7.key"

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"
# def NAME CLASS DESC ARGS...: CLASS same (srv6d gives the kernel's bytes)
# or rfc (the kernel drops, srv6d answers with Parameter Problem code 4);
# each class checks the kernel's output its own way below.
def() {
	local n=$1 c=$2 d=$3
	shift 3
	diff_def "$n" "$c" "$d" "" "" "$@"
}

def enc same "End.B6.Encaps, SL 1->0, UDP, flow label and traffic class" \
	$S --segs fc00:100::c,fc00:9::99 --fl 0x5eed --tc 0x28
def enc21 same "End.B6.Encaps, SL 2->1, inner IPv6" \
	$S --segs fc00:100::c,fc00:9::c3,fc00:9::99 $IN6
def enctlv same "End.B6.Encaps, received SRH with a PadN TLV" \
	$S --segs fc00:100::c,fc00:9::99 --tlv padn:6 $IN6
def enchl same "End.B6.Encaps, hop limit 7" \
	$S --segs fc00:100::c,fc00:9::99 --hlim 7
def enchmac same "End.B6.Encaps with hmac 7: H flag, HMAC TLV over the new SRH" \
	$S --segs fc00:100::7,fc00:9::99 --fl 0x1 $IN6
def ins same "End.B6 (insertion), SL 1, UDP" \
	$S --segs fc00:100::e,fc00:9::99 --fl 0x5eed --tc 0x28
def ins21 same "End.B6 (insertion), SL 2, inner IPv6" \
	$S --segs fc00:100::e,fc00:9::c3,fc00:9::99 $IN6
def encsl0 rfc "End.B6.Encaps with SL 0 (RFC 8986 4.13 S02 + 4.1.1)" \
	$S --segs fc00:9::99,fc00:100::c --sl 0

KROUTES=(
	"-6 route add fc00:100::c/128 encap seg6local action End.B6.Encaps srh segs fc00:9::c1,fc00:9::c2 dev gw0"
	"-6 route add fc00:100::7/128 encap seg6local action End.B6.Encaps srh segs fc00:9::c1,fc00:9::c2 hmac 7 dev gw0"
	"-6 route add fc00:100::e/128 encap seg6local action End.B6 srh segs fc00:9::c1,fc00:9::c2 dev gw0"
)

ns_setup || { fail "topology setup"; ns_finish; }

# ---- phase 1: the kernel ------------------------------------------------------
say "phase 1: the kernel's seg6local End.B6.Encaps and End.B6"
nsx "$GW" ip sr tunsrc set fc00:1::2 || fail "ip sr tunsrc set"
printf '%s\n' "$SECRET" | setsid -w ip netns exec "$GW" ip sr hmac set 7 sha256 \
	>/dev/null 2>&1 || fail "ip sr hmac set 7"
diff_kernel_routes fail
for n in "${ORDER[@]}"; do
	KOUT[$n]=$(pkt_xchg --tag "$n" ${ARGS[$n]})
	case ${CLASS[$n]} in
	same)
		# End.B6 keeps the source; End.B6.Encaps sends from tunsrc
		src=fc00:1::2
		[[ $n == ins* ]] && src=fc00:1::1
		expect_fields "kernel: ${DESC[$n]}" "${KOUT[$n]}" s1 \
			ip6.src=$src ip6.dst=fc00:9::c1
		;;
	rfc) expect_none "kernel: ${DESC[$n]}: dropped" "${KOUT[$n]}" ;;
	esac
done

# ---- phase 2: srv6d -----------------------------------------------------------
diff_srv6d_begin
cat >"$TMPD/srv6d.conf" <<EOF2
queue 0
encap-source fc00:1::2
hmac 7 sha256 secret-file $TMPD/hmac7.key
sid fc00:100::c/128 action End.B6.Encaps srh segs fc00:9::c1,fc00:9::c2
sid fc00:100::7/128 action End.B6.Encaps srh segs fc00:9::c1,fc00:9::c2 hmac 7
sid fc00:100::e/128 action End.B6 srh segs fc00:9::c1,fc00:9::c2
EOF2
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rules"
srv6d_start "$TMPD/srv6d.conf" || { fail "srv6d start"; ns_finish; }
diff_run SOUT

say "comparing"
for n in "${ORDER[@]}"; do
	k=${KOUT[$n]} s=${SOUT[$n]}
	case ${CLASS[$n]} in
	same) diff_same "$n" ;;
	rfc)
		echo "     srv6d follows the RFC here: ${DESC[$n]}: kernel drops, srv6d sends Parameter Problem code 4"
		expect_fields "srv6d: ${DESC[$n]}" "$s" gen icmp6.type=4 icmp6.code=4 ip6.dst=fc00:1::1
		;;
	esac
done
if srv6d_stop; then pass "SIGTERM: srv6d exits 0"; else fail "SIGTERM: srv6d exit status"; fi
ns_finish
