#!/bin/sh
# The iptables form of examples/srv6d.nft, for kernels without the nft
# `queue` statement (CONFIG_NFT_QUEUE off).  Queues 0 and 1 (`queue 0-1` in
# srv6d.conf).  --queue-bypass accepts the packets (the main table routes
# them) when srv6d is not running: only on the locator, never on steered
# customer prefixes, which would leave outside their SR policy while srv6d
# is down (README, "Steering traffic"); without it they are dropped.
set -e
Q="-j NFQUEUE --queue-balance 0:1"
QB="$Q --queue-bypass"
# shellcheck disable=SC2086
{
# Never what srv6d reinjects through its own devices (srv6d+: the
# reinjection device srv6d0, a vrftable SID's veth pair srv6dMMMMMMMM).
ip6tables -t raw -A PREROUTING ! -i srv6d+ -d fc00:100::/48 $QB  # local SIDs
ip6tables -t raw -A PREROUTING ! -i srv6d+ -d fc00:9::/32 $Q     # steered IPv6
iptables -t raw -A PREROUTING ! -i srv6d+ -d 10.9.0.0/16 $Q      # steered IPv4
}
