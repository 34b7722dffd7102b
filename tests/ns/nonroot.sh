#!/bin/bash
# shellcheck disable=SC2086 # packet arguments are word lists on purpose
# nonroot.sh - srv6d as srv6d.service runs it: a user of its own (srv6d,
# or a throw-away user when that does not exist), with CAP_NET_ADMIN and
# CAP_NET_RAW as its only (ambient) capabilities, the bounding set cut to
# them, no_new_privs, its configuration and HMAC secret group-readable
# (root:GROUP 0640 in a 0750 directory), its control socket in a
# directory of its own (RuntimeDirectory=srv6d), the root file system and
# /proc/sys read-only but that directory and /proc/sys/net/*/conf.  End, End.X and End.DT4
# SIDs (rules, the reinjection device and its sysctls, a packet socket)
# forward, srv6ctl status answers, a reload that adds an End.DT4 SID
# works; without CAP_NET_RAW an End.DT4 SID is refused at start with a
# clear message; a control-group the user is not in fails with what to do,
# one it is a member of works without CAP_CHOWN.  Where it can (x86_64),
# the system calls the unit denies fail with EPERM (seccomp-deny.py).
T=nonroot
# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
ns_init 240
need_srv6d
command -v setpriv >/dev/null || skip_test "setpriv not found"
setpriv --help 2>&1 | grep -q -- --ambient-caps ||
	skip_test "setpriv without --ambient-caps"

# ---- the user: srv6d (make install's sysusers.d) or a throw-away one ----------
USR=srv6d
MADE_USER=
if ! id "$USR" >/dev/null 2>&1; then
	command -v useradd >/dev/null || skip_test "no srv6d user and no useradd"
	USR="srv6dt$$"
	useradd --system --no-create-home --user-group \
		--home-dir / --shell /usr/sbin/nologin "$USR" ||
		skip_test "cannot create user $USR"
	MADE_USER=$USR
fi
GRP=$(id -gn "$USR")
MADE_GROUP=
# shellcheck disable=SC2317 # run by the EXIT trap
nonroot_cleanup() {
	local rc=$?
	if [ -n "$MADE_GROUP" ]; then
		[ -n "$SRV6D_PID" ] && kill -KILL "$SRV6D_PID" 2>/dev/null
		groupdel "$MADE_GROUP" || say "groupdel $MADE_GROUP failed"
	fi
	if [ -n "$MADE_USER" ]; then
		# Its processes end first: userdel refuses a user in use.
		local p
		[ -n "$SRV6D_PID" ] && kill -KILL "$SRV6D_PID" 2>/dev/null
		wait "$SRV6D_PID" 2>/dev/null
		SRV6D_PID=
		for p in $(ps -o pid= -u "$MADE_USER"); do
			kill -KILL "$p"
		done
		sleep 0.2
		userdel "$MADE_USER" || say "userdel $MADE_USER failed"
		getent group "$MADE_USER" >/dev/null && groupdel "$MADE_USER"
	fi
	(exit "$rc")
	ns_cleanup
}
trap nonroot_cleanup EXIT
say "running srv6d as $USR:$GRP${MADE_USER:+ (throw-away user)}"

# ---- files as make install and srv6d.conf(5) lay them out ---------------------
chmod 0711 "$TMPD"
install -d -m 0750 -o root -g "$GRP" "$TMPD/etc"
install -d -m 0755 -o "$USR" -g "$GRP" "$TMPD/run"
SOCK="$TMPD/run/srv6d.sock"
CONF="$TMPD/etc/srv6d.conf"
printf '%s\n' "srv6d-nonroot-secret" >"$TMPD/etc/hmac7.key"
chown "root:$GRP" "$TMPD/etc/hmac7.key"
chmod 0640 "$TMPD/etc/hmac7.key"
# What the user runs, copied where it may read it: a checkout under a
# directory only root may enter (/root, a mktemp -d) is out of its reach.
# (With SRV6D_KERNEL=7.2 the wrapper copied still names the build tree's
# srv6d and shim.)
install -d -m 0755 "$TMPD/bin"
install -m 0755 "$SRV6D" "$TMPD/bin/srv6d"
install -m 0644 "$top_srcdir/tests/ns/seccomp-deny.py" "$TMPD/bin/"
SRV6D_BIN=$TMPD/bin/srv6d
SRV6D="$TMPD/srv6d-as-user"
# /dev/net/tun is 0666 where udev runs (its default rule); a bare devtmpfs
# (a container) has it 0600 root.  Then the daemon gets a node of its own
# bound over /dev/net/tun in its mount namespace (ip netns exec makes one),
# as PrivateDevices=yes with BindPaths=/dev/net/tun does: the rights are
# checked on the node, TUNSETIFF checks CAP_NET_ADMIN.
TUN_BIND=
if [ "$(stat -c %a /dev/net/tun)" != 666 ]; then
	TUN_BIND="mount -t tmpfs -o mode=0755,size=16k srv6d-dev '$TMPD/dev' &&
mknod -m 0600 '$TMPD/dev/tun' c $((0x$(stat -c %t /dev/net/tun))) $((0x$(stat -c %T /dev/net/tun))) &&
chown '$USR' '$TMPD/dev/tun' && mount --bind '$TMPD/dev/tun' /dev/net/tun || exit 1"
	mkdir "$TMPD/dev"
	say "/dev/net/tun is mode $(stat -c %a /dev/net/tun): srv6d gets a node of its own"
fi

# ProtectKernelTunables=yes with ReadWritePaths=/proc/sys/net/ipv4/conf
# /proc/sys/net/ipv6/conf, as srv6d.service has them (in the mount
# namespace of ip netns exec): /proc/sys read-only, the per-device
# sysctls read-write, also those of devices created later.
TUNABLES="mount --bind /proc/sys /proc/sys &&
mount -o remount,bind,ro /proc/sys /proc/sys &&
mount --bind /proc/sys/net/ipv4/conf /proc/sys/net/ipv4/conf &&
mount -o remount,bind,rw /proc/sys/net/ipv4/conf /proc/sys/net/ipv4/conf &&
mount --bind /proc/sys/net/ipv6/conf /proc/sys/net/ipv6/conf &&
mount -o remount,bind,rw /proc/sys/net/ipv6/conf /proc/sys/net/ipv6/conf || exit 1"

# The system calls srv6d.service denies (SystemCallFilter=~@privileged
# @resources), as x86_64 numbers for seccomp-deny.py: DENY, and
# DENY_CHOWN without @chown (the drop-in that control-group needs).
# Elsewhere, or without systemd-analyze, srv6d runs without the filter.
sc_expand() {
	systemd-analyze syscall-filter "$1" | sed -n '2,$p' |
		grep -vE '^[[:space:]]*#' | tr -d ' ' | grep . |
		while read -r n; do
			case $n in @*) sc_expand "$n" ;; *) echo "$n" ;; esac
		done
}
sc_numbers() {	# NAME... on stdin: their numbers, comma-separated
	awk 'NR == FNR { nr["__NR_" $1] = 1; next }
	     $1 == "#define" && ($2 in nr) { printf "%s%s", sep, $3; sep = "," }' \
		- "$UNISTD"
}
UNISTD=/usr/include/x86_64-linux-gnu/asm/unistd_64.h
DENY='' DENY_CHOWN=''
if [ "$(uname -m)" = x86_64 ] && [ -f "$UNISTD" ] &&
	command -v systemd-analyze >/dev/null; then
	DENY=$({ sc_expand @privileged; sc_expand @resources; } | sort -u |
		sc_numbers)
	DENY_CHOWN=$({ sc_expand @privileged; sc_expand @resources; } |
		sort -u | grep -vxF "$(sc_expand @chown)" | sc_numbers)
	say "system calls denied as srv6d.service denies them: $(tr ',' ' ' <<<"$DENY" | wc -w)"
else
	say "no seccomp filter (not x86_64, no $UNISTD or no systemd-analyze)"
fi
FILTER=$DENY

# ProtectSystem=strict with RuntimeDirectory=: the root file system
# (/etc, /tmp, /run here) read-only but the socket's directory.
STRICT="mount -o remount,bind,ro / &&
mount --bind '$TMPD/run' '$TMPD/run' &&
mount -o remount,bind,rw '$TMPD/run' '$TMPD/run' || exit 1"

# as_user CAPS: srv6d (through $SRV6D) runs as the user with the ambient
# capabilities CAPS (setpriv's list: +net_admin,+net_raw), and no others.
# NONROOT_STRACE=FILE: under strace -f -o FILE.PID, to list the system calls
# it makes (what srv6d.service's SystemCallFilter= must allow); FILE on a
# file system of its own (/dev/shm/...): the root one is read-only.
as_user() {
	cat >"$SRV6D" <<EOF
#!/bin/sh
$TUN_BIND
$TUNABLES
$STRICT
# the unit's working directory (the test's may be out of the user's reach)
cd / || exit 1
exec ${NONROOT_STRACE:+strace -f -qq -o "$NONROOT_STRACE.\$\$"} setpriv --reuid="$USR" --regid="$GRP" --init-groups \\
	--bounding-set=-all,$1 --inh-caps=-all,$1 --ambient-caps=-all,$1 \\
	--no-new-privs ${FILTER:+"$PYTHON" "$TMPD/bin/seccomp-deny.py" "$FILTER"} \
	"$SRV6D_BIN" "\$@"
EOF
	chmod 0755 "$SRV6D"
}

# conf TEXT: the configuration file, root:GROUP 0640.
conf() {
	printf '%s\n' "$1" >"$CONF"
	chown "root:$GRP" "$CONF"
	chmod 0640 "$CONF"
}

S="--src fc00:1::1"
IN6="--inner ipv6 --inner-src fc00:1::1 --inner-dst fc00:9::99"
IN4="--inner ipv4 --inner-src 192.0.2.1 --inner-dst 10.9.3.1"
BASE="queue 0
hmac 7 sha256 secret-file $TMPD/etc/hmac7.key
sid fc00:100::1/128 action End
sid fc00:100::3/128 action End.X nh6 fc00:3::2"
DT4="sid fc00:100::8/128 action End.DT4 table 100"
DT4B="sid fc00:100::9/128 action End.DT4 table 100"

ns_setup || { fail "topology setup"; ns_finish; }
ip -n "$GW" route add 10.9.0.0/16 via 203.0.113.2 dev gw2 table 100 ||
	fail "IPv4 route in table 100"
nfq_steer6 fc00:100::/32 || fail "NFQUEUE rule"

# status_field PID FIELD: a line of /proc/PID/status, its value.
status_field() {
	awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ /, ""); print; exit }' \
		"/proc/$1/status"
}

# rx_sysctls: the reinjection device's receiving end (srv6d0), where the
# End.DT4 results come in with their mark: its IPv4 rp_filter and
# accept_local (the daemon sets 0 and 1), and the number of SID veth
# pairs (no srv6dMMMMMMMM pair: every SID shares srv6d0).
rx_sysctls() {
	echo "$(nsx "$GW" cat /proc/sys/net/ipv4/conf/srv6d0/rp_filter)" \
		"$(nsx "$GW" cat /proc/sys/net/ipv4/conf/srv6d0/accept_local)" \
		"$(ip -n "$GW" -br link show | grep -c '^srv6d[0-9a-f]\{8\}')"
}

# ---- 1. the unit's capabilities: everything works -----------------------------
as_user +net_admin,+net_raw
conf "$BASE
$DT4"
if srv6d_start "$CONF"; then
	pass "srv6d started as $USR with CAP_NET_ADMIN + CAP_NET_RAW"
else
	fail "srv6d started as $USR with CAP_NET_ADMIN + CAP_NET_RAW"
	ns_finish
fi
uid=$(id -u "$USR")
expect_eq "its uids (real, effective, saved, fs)" \
	"$(status_field "$SRV6D_PID" Uid | tr -s ' \t' ' ')" "$uid $uid $uid $uid"
# CAP_NET_ADMIN is bit 12, CAP_NET_RAW bit 13.
expect_eq "effective capabilities: CAP_NET_ADMIN and CAP_NET_RAW only" \
	"$(status_field "$SRV6D_PID" CapEff)" 0000000000003000
expect_eq "permitted capabilities: the same" \
	"$(status_field "$SRV6D_PID" CapPrm)" 0000000000003000
expect_eq "ambient set cleared by the daemon" \
	"$(status_field "$SRV6D_PID" CapAmb)" 0000000000000000
expect_eq "no_new_privs" "$(status_field "$SRV6D_PID" NoNewPrivs)" 1
[ -n "$DENY" ] && expect_eq "under the unit's seccomp filter (mode 2)" \
	"$(status_field "$SRV6D_PID" Seccomp)" 2
expect_eq "the control socket is the user's, mode 0660" \
	"$(stat -c '%U %a' "$SOCK")" "$USR 660"
if grep -q 'cannot set' "$LOG"; then
	fail "every sysctl written: $(grep 'cannot set' "$LOG" | head -3)"
else
	pass "every sysctl written (no 'cannot set' in the log)"
fi
expect_eq "srv6d0 (End.DT4's results): rp_filter 0, accept_local 1; no SID veth pair" \
	"$(rx_sysctls)" "0 1 0"
rdev=$(ip -n "$GW" -br link show dev srv6d0 2>/dev/null | awk '{print $2}')
expect_eq "the reinjection device srv6d0 (a veth end) is up" "$rdev" UP
expect_eq "srv6ctl status answers: 3 SIDs" "$(ctl_get "len(s['sids'])")" 3

out=$(pkt_xchg --tag nrend $S --segs fc00:100::1,fc00:9::c1 $IN6)
exp=$(pkt_build --tag nrend $S --segs fc00:100::1,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End: next segment, to sink1" "$out" s1 "$exp"
out=$(pkt_xchg --tag nrx $S --segs fc00:100::3,fc00:9::c1 $IN6)
exp=$(pkt_build --tag nrx $S --segs fc00:100::3,fc00:9::c1 $IN6 --sl 0 --hlim 63)
expect_frame "End.X: to its next hop on sink2 (its ip rule and table)" "$out" s2 "$exp"
out=$(pkt_xchg --tag nrdt4 $S --dst fc00:100::8 $IN4)
exp=$(pkt_build --tag nrdt4 --v4 --src 192.0.2.1 --dst 10.9.3.1 --hlim 63)
expect_frame "End.DT4: inner IPv4 to sink2 by table 100 (srv6d0 with its mark, packet socket)" \
	"$out" s2 "$exp"

# A reload that adds an End.DT4 SID and its rules: done with the reduced
# capabilities.
conf "$BASE
$DT4
$DT4B"
if rout=$(timeout 10 "$SRV6CTL" -s "$SOCK" reload 2>&1); then
	pass "srv6ctl reload (a second End.DT4 SID)"
else
	fail "srv6ctl reload (a second End.DT4 SID): $rout"
fi
expect_eq "srv6ctl status after the reload: 4 SIDs" "$(ctl_get "len(s['sids'])")" 4
expect_eq "after the reload still: rp_filter 0, accept_local 1 on srv6d0; no SID veth pair" \
	"$(rx_sysctls)" "0 1 0"
out=$(pkt_xchg --tag nrdt4b $S --dst fc00:100::9 $IN4)
exp=$(pkt_build --tag nrdt4b --v4 --src 192.0.2.1 --dst 10.9.3.1 --hlim 63)
expect_frame "the reloaded End.DT4: inner IPv4 to sink2" "$out" s2 "$exp"
if grep -q 'cannot set' "$LOG"; then
	fail "every sysctl written on the reload: $(grep 'cannot set' "$LOG" | head -3)"
else
	pass "every sysctl written on the reload"
fi
if srv6d_stop; then
	pass "SIGTERM: exit 0"
else
	fail "SIGTERM: exit 0"
fi
expect_eq "its rules and devices removed at the end" \
	"$(ip -n "$GW" -6 rule show priority 1000; ip -n "$GW" -o link show | grep -c ' srv6d')" 0

# ---- 2. without CAP_NET_RAW ------------------------------------------------------
# With offload yes (the default) End.X's super-packets go whole by a packet
# socket into its veth pair: without CAP_NET_RAW the start is refused, and
# says why.
as_user +net_admin
conf "$BASE"
if srv6d_start "$CONF"; then
	fail "without CAP_NET_RAW, offload yes: an End.X SID is refused at start"
	srv6d_stop
elif grep -q 'End.X fc00:100::3/128: cannot open a packet socket.*(srv6d needs CAP_NET_RAW)' "$LOG"; then
	pass "without CAP_NET_RAW, offload yes: an End.X SID is refused at start: $(grep -o 'End.X fc00:100::3/128: cannot.*' "$LOG" | head -1)"
else
	fail "without CAP_NET_RAW, offload yes: the log says what is missing"
fi
# The rest of this section is the single-packet way (`offload no`), where
# End and End.X need no packet socket.
SINGLE="$BASE
offload no"
conf "$SINGLE
$DT4"
if srv6d_start "$CONF"; then
	fail "without CAP_NET_RAW an End.DT4 SID is refused at start"
	srv6d_stop
elif grep -q 'End.DT4 fc00:100::8/128: cannot open a packet socket.*(srv6d needs CAP_NET_RAW)' "$LOG"; then
	pass "without CAP_NET_RAW an End.DT4 SID is refused at start: $(grep -o 'End.DT4 fc00:100::8/128: cannot.*' "$LOG" | head -1)"
else
	fail "without CAP_NET_RAW: the log says what is missing"
fi
conf "$SINGLE"
if srv6d_start "$CONF"; then
	pass "without CAP_NET_RAW, End and End.X only: started"
	if grep -q 'running without CAP_NET_RAW' "$LOG"; then
		pass "... with a warning: $(grep -o 'running without CAP_NET_RAW.*' "$LOG")"
	else
		fail "... with a warning"
	fi
	out=$(pkt_xchg --tag nrend2 $S --segs fc00:100::1,fc00:9::c1 $IN6)
	exp=$(pkt_build --tag nrend2 $S --segs fc00:100::1,fc00:9::c1 $IN6 --sl 0 --hlim 63)
	expect_frame "... and End forwards" "$out" s1 "$exp"
	srv6d_stop || fail "SIGTERM: exit 0"
else
	fail "without CAP_NET_RAW, End and End.X only: started"
fi

# ---- 3. a control-group the user is not in ---------------------------------------
as_user +net_admin,+net_raw
conf "$BASE
control-group root"
if srv6d_start "$CONF"; then
	fail "control-group root (the user is not a member): refused"
	srv6d_stop
elif grep -q 'cannot give .* group 0: Operation not permitted (control-group: .*SystemCallFilter=@chown' "$LOG"; then
	pass "control-group the user is not in: refused with what to do"
else
	fail "control-group the user is not in: the log says what to do"
fi

# ---- 4. a control-group the user is a member of: no CAP_CHOWN needed -----------
# (srv6d.service then needs SupplementaryGroups= and SystemCallFilter=@chown.)
CGRP="srv6dc$$"
FILTER=$DENY_CHOWN
as_user +net_admin,+net_raw
if groupadd --system "$CGRP" && MADE_GROUP=$CGRP &&
	gpasswd -a "$USR" "$CGRP" >/dev/null; then
	conf "$BASE
control-group $CGRP"
	if srv6d_start "$CONF"; then
		pass "control-group $CGRP, of which the user is a member: started"
		expect_eq "the control socket's group" "$(stat -c '%G %a' "$SOCK")" "$CGRP 660"
		expect_eq "srv6ctl status answers" "$(ctl_get "len(s['sids'])")" 2
		srv6d_stop || fail "SIGTERM: exit 0"
	else
		fail "control-group $CGRP, of which the user is a member: started"
	fi
else
	skip_case "cannot create a group for control-group"
fi

ns_finish
