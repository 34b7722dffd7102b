# lib.sh - testbed and measurement helpers for bench/end-rate.sh.
#
# Sourced, not run.  Everything here works on three network namespaces
#
#     gen (trafgen) --veth--> gw (End: kernel, srv6d or naive) --veth--> sink
#
# whose names carry a per-run suffix so that a benchmark never touches a
# namespace that someone else made.

# Addresses and names.  Frames go gen:g0 -> gw:gwa ... gw:gwb -> sink:s0.
BENCH_SID=fc00:100::1
BENCH_FINAL=fc00:300::2
BENCH_GEN_ADDR=fc00:1::1
BENCH_GWA_ADDR=fc00:1::2
BENCH_GWB_ADDR=fc00:2::1
BENCH_SINK_ADDR=fc00:2::2
BENCH_MAC_G0=02:5b:00:00:01:01
BENCH_MAC_GWA=02:5b:00:00:01:02
BENCH_MAC_GWB=02:5b:00:00:02:01
BENCH_MAC_S0=02:5b:00:00:02:02
BENCH_FLOWS=8		# distinct source addresses (for --queue-balance)

: "${BENCH_TAG:=srb$$}"
NS_GEN=${BENCH_TAG}-gen
NS_GW=${BENCH_TAG}-gw
NS_SINK=${BENCH_TAG}-sink

log() { printf '%s\n' "$*" >&2; }
die() { log "end-rate: $*"; exit 1; }

in_gen()  { ip netns exec "$NS_GEN" "$@"; }
in_gw()   { ip netns exec "$NS_GW" "$@"; }
in_sink() { ip netns exec "$NS_SINK" "$@"; }

# testbed_up: make the three namespaces, the two veth pairs, addresses,
# static neighbours (no ND during a probe), forwarding in gw, and netdev
# ingress counters + drop in sink (so the sink costs little and counts only
# our frames): "arrived" counts the frames to the final segment that End
# rewrote right (SL 0) and gw forwarded once (hop limit 63), "malformed"
# any other frame to the final segment.  With $BENCH_RPS_CPUS set (a hex mask), gw's receive
# processing is steered to those CPUs (RPS on gwa).
testbed_up() {
	local ns
	for ns in "$NS_GEN" "$NS_GW" "$NS_SINK"; do
		ip netns add "$ns" || return 1
		ip -n "$ns" link set lo up
	done
	ip link add g0 netns "$NS_GEN" address "$BENCH_MAC_G0" type veth \
		peer name gwa netns "$NS_GW" address "$BENCH_MAC_GWA" || return 1
	ip link add gwb netns "$NS_GW" address "$BENCH_MAC_GWB" type veth \
		peer name s0 netns "$NS_SINK" address "$BENCH_MAC_S0" || return 1

	for ns in "$NS_GEN" "$NS_GW" "$NS_SINK"; do
		in_ns_sysctl "$ns" net.ipv6.conf.all.accept_dad=0
		in_ns_sysctl "$ns" net.ipv6.conf.default.accept_dad=0
		in_ns_sysctl "$ns" net.ipv6.conf.default.router_solicitations=0
		in_ns_sysctl "$ns" net.ipv6.conf.all.router_solicitations=0
	done
	in_ns_sysctl "$NS_GW" net.ipv6.conf.all.forwarding=1

	ip -n "$NS_GEN" addr add "$BENCH_GEN_ADDR/64" dev g0 nodad
	ip -n "$NS_GW" addr add "$BENCH_GWA_ADDR/64" dev gwa nodad
	ip -n "$NS_GW" addr add "$BENCH_GWB_ADDR/64" dev gwb nodad
	ip -n "$NS_SINK" addr add "$BENCH_SINK_ADDR/64" dev s0 nodad
	ip -n "$NS_GEN" link set g0 up
	ip -n "$NS_GW" link set gwa up
	ip -n "$NS_GW" link set gwb up
	ip -n "$NS_SINK" link set s0 up

	ip -n "$NS_GW" -6 neigh replace "$BENCH_SINK_ADDR" dev gwb \
		lladdr "$BENCH_MAC_S0" nud permanent
	ip -n "$NS_GW" -6 neigh replace "$BENCH_GEN_ADDR" dev gwa \
		lladdr "$BENCH_MAC_G0" nud permanent
	ip -n "$NS_GW" -6 route add "${BENCH_FINAL%::*}::/64" \
		via "$BENCH_SINK_ADDR" dev gwb || return 1

	in_sink nft -f - <<-EOF || return 1
	table netdev srbench {
		counter arrived { }
		counter malformed { }
		chain in {
			type filter hook ingress device s0 priority 0;
			ip6 daddr $BENCH_FINAL rt seg-left 0 ip6 hoplimit 63 counter name arrived drop
			ip6 daddr $BENCH_FINAL counter name malformed drop
		}
	}
	EOF

	if [ -n "${BENCH_RPS_CPUS:-}" ]; then
		in_gw sh -c "echo $BENCH_RPS_CPUS > /sys/class/net/gwa/queues/rx-0/rps_cpus" ||
			return 1
	fi
}

in_ns_sysctl() {
	ip netns exec "$1" sysctl -qw "$2" >/dev/null
}

testbed_down() {
	local ns
	for ns in "$NS_GEN" "$NS_GW" "$NS_SINK"; do
		ip netns del "$ns" 2>/dev/null
	done
	return 0
}

# sink_count [COUNTER]: frames counted at the sink (default: arrived).
sink_count() {
	in_sink nft list counter netdev srbench "${1:-arrived}" |
		awk '/packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i+1) }'
}

# gen_tx: frames the generator's veth handed to gw (sent + dropped by veth).
gen_tx() {
	in_gen sh -c 'echo $(( $(cat /sys/class/net/g0/statistics/tx_packets) + $(cat /sys/class/net/g0/statistics/tx_dropped) ))'
}

# trafgen_cfg FILE DST SL: write a trafgen config of $BENCH_FLOWS 94-byte
# frames (Ethernet 14 + IPv6 40 + SRH with two segments 40), IPv6 DA = DST,
# SRH Segments Left = SL, segments [final, SID], next header 59 (no
# payload), hop limit 64.  The frames
# differ only in the last byte of the source address, so --queue-balance
# can spread them; they are static (dynamic trafgen elements are slower).
trafgen_cfg() {
	local file=$1 dst=$2 sl=$3 i
	{
		for i in $(seq 1 "$BENCH_FLOWS"); do
			printf '{\n'
			printf '  %s,\n' "$(mac_bytes "$BENCH_MAC_GWA")"
			printf '  %s,\n' "$(mac_bytes "$BENCH_MAC_G0")"
			printf '  0x86, 0xdd,\n'
			printf '  0x60, 0x00, 0x00, 0x00,  0x00, 40,  43, 64,\n'
			printf '  %s,\n' "$(ip6_bytes "fc00:1::$(printf '%x' $((0x100 + i)))")"
			printf '  %s,\n' "$(ip6_bytes "$dst")"
			printf '  59, 4, 4, %d,  1, 0, 0x00, 0x00,\n' "$sl"
			printf '  %s,\n' "$(ip6_bytes "$BENCH_FINAL")"
			printf '  %s\n' "$(ip6_bytes "$BENCH_SID")"
			printf '}\n'
		done
	} > "$file"
}

mac_bytes() {
	echo "$1" | awk -F: '{ for (i = 1; i <= NF; i++) printf "%s0x%s", (i > 1 ? ", " : ""), $i }'
}

ip6_bytes() {
	python3 -c 'import ipaddress, sys
print(", ".join("0x%02x" % b for b in ipaddress.IPv6Address(sys.argv[1]).packed))' "$1"
}

# median: read numbers, one a line; print their median ("-" when none).
median() {
	sort -g | awk 'NF { v[++n] = $1 } END {
		if (n == 0) { print "-"; exit }
		if (n % 2) print v[(n + 1) / 2]
		else print (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
