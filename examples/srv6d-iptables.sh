#!/bin/sh
# The iptables form of examples/srv6d.nft, for kernels without the nft
# `queue` statement (CONFIG_NFT_QUEUE off).  Queues 0 and 1 (`queue 0-1` in
# srv6d.conf); --queue-bypass accepts the packets when srv6d is not running.
set -e
Q="-j NFQUEUE --queue-balance 0:1 --queue-bypass"
# shellcheck disable=SC2086
{
# Never what srv6d reinjects through its own devices (srv6d+: the TUN
# device srv6d0, the SIDs' veth pairs srv6dMMMMMMMM).
ip6tables -t raw -A PREROUTING ! -i srv6d+ -d fc00:100::/48 $Q   # local SIDs
ip6tables -t raw -A PREROUTING ! -i srv6d+ -d fc00:9::/32 $Q     # steered IPv6
iptables -t raw -A PREROUTING ! -i srv6d+ -d 10.9.0.0/16 $Q      # steered IPv4
}
