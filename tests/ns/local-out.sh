#!/bin/bash
# local-out.sh - EXPERIMENTAL SRV6D_EXP_LOCAL_OUT (srv6d(8)): the unmarked
# IPv6 results leave by a raw IPv6 socket as this node's own packets, not
# through the reinjection device.  tests/ns/reinject-tun.sh's cases with it
# set: the same bytes must arrive, hop limits decremented once.
export SRV6D_EXP_LOCAL_OUT=1
T=local-out exec "$(dirname "$0")/reinject-tun.sh"
