#!/bin/sh
# The iptables form of examples/srv6d.nft, for kernels without the nft
# `queue` statement (CONFIG_NFT_QUEUE off).  Only with `steering no` in
# srv6d.conf: by default (`steering auto`) srv6d installs its own rules
# (srv6d -p prints them), and these as well would queue packets twice.
# Queues 0 and 1 (`queue 0-1` in srv6d.conf).
#
# --queue-cpu-fanout: spread the packets over the queues by CPU (without
# it --queue-balance hashes the addresses only, and every packet from one
# remote PE to one SID lands on one worker).
# No --queue-bypass: while srv6d is not running the packets are dropped
# (fail closed): no tenant packet leaves natively, unencapsulated, and no
# SID packet is routed by its outer destination (README, "Steering
# traffic").
set -e
Q="-j NFQUEUE --queue-balance 0:1 --queue-cpu-fanout"
# shellcheck disable=SC2086
{
# Never what srv6d reinjects through its own devices (srv6d+: the
# reinjection device srv6d0, a vrftable SID's veth pair srv6dMMMMMMMM).
ip6tables -t raw -A PREROUTING ! -i srv6d+ -d fc00:100::/48 $Q  # local SIDs
ip6tables -t raw -A PREROUTING ! -i srv6d+ -d fc00:9::/32 $Q    # steered IPv6
iptables -t raw -A PREROUTING ! -i srv6d+ -d 10.9.0.0/16 $Q     # steered IPv4
}
