# netns.sh: a lab of hosts on one machine, for the peers' tests (issue 25). Source it after
# tests/lib.sh. Each "host" is a network namespace on a bridge of the test's own, with an address
# 10.231.K.(10+i)/24 (the bridge, in the root namespace, is 10.231.K.1; K is picked from the pid
# among the /24s nothing on the machine uses), and may run its own slicelabd in a time namespace
# whose CLOCK_MONOTONIC is offset by a given number of seconds, with its own state dir, cgroup
# root and port. A trap removes all of it: daemons, namespaces, veths, bridge.
#
# The daemon enters the namespace with nsenter --net, not `ip netns exec`: that remounts /sys
# for the namespace and so hides /sys/fs/cgroup, where the daemon makes its slices.

NETNS_HOSTS=0
NETNS_K=
NETNS_BR=
NETNS_PORT=7878
declare -a PEER_NL_PID=() PEER_PID=() PEER_STATE=() PEER_URL=() PEER_TOKEN=() PEER_EVENTS=()

netns_name() { echo "sl$$-h$1"; }
netns_addr() { echo "10.231.$NETNS_K.$((10 + $1))"; }
netns_gateway() { echo "10.231.$NETNS_K.1"; }

# A /24 of 10.231.0.0/16 no interface or route of the root namespace uses, starting from the pid.
netns_pick_k() {
        local used i k
        used=$(ip -o addr show; ip route show)
        for ((i = 0; i < 200; i++)); do
                k=$((20 + ($$ + i) % 200))
                if ! grep -q "10\.231\.$k\." <<<"$used"; then
                        NETNS_K=$k
                        return 0
                fi
        done
        return 1
}

# netns_setup N: the bridge and N hosts, numbered 1..N.
netns_setup() {
        local n=$1 i ns veth
        netns_pick_k || { echo "# no free 10.231.K.0/24"; return 1; }
        NETNS_BR=slbr$$
        trap netns_teardown EXIT
        trap 'netns_teardown; exit 1' INT TERM
        ip link add "$NETNS_BR" type bridge || return 1
        ip addr add "$(netns_gateway)/24" dev "$NETNS_BR" || return 1
        ip link set "$NETNS_BR" up || return 1
        for ((i = 1; i <= n; i++)); do
                ns=$(netns_name "$i")
                veth=sv$$h$i
                ip netns add "$ns" || return 1
                NETNS_HOSTS=$i
                ip link add "$veth" type veth peer name eth0 netns "$ns" || return 1
                ip link set "$veth" master "$NETNS_BR" up || return 1
                ip -n "$ns" addr add "$(netns_addr "$i")/24" dev eth0 || return 1
                ip -n "$ns" link set lo up || return 1
                ip -n "$ns" link set eth0 up || return 1
                ip -n "$ns" route add default via "$(netns_gateway)" || return 1
        done
}

# netns_run I CMD...: CMD in host I's network namespace (mounts untouched).
netns_run() {
        local i=$1
        shift
        nsenter --net="/run/netns/$(netns_name "$i")" "$@"
}

# peer_start I OFFSET_S [slicelabd args...]: host I's daemon, its CLOCK_MONOTONIC OFFSET_S ahead
# of ours, on $(netns_addr I):7878, its state dir kept across restarts (PEER_STATE[I]); returns
# once it is ready (its READY=1). Sets PEER_PID[I] (slicelabd's pid), PEER_URL[I], PEER_TOKEN[I].
peer_start() {
        local i=$1 offset=$2 events
        shift 2
        PEER_STATE[$i]=${PEER_STATE[$i]:-$TEST_TMP/peer$i}
        events=$TEST_TMP/peer$i.events
        : >"$events"
        PEER_EVENTS[$i]=$events
        "$NOTIFY_LISTEN" "$TEST_TMP/peer$i.notify" -- nsenter --net="/run/netns/$(netns_name "$i")" \
                unshare --time --monotonic "$offset" "$SLICELABD" --listen "$(netns_addr "$i"):$NETNS_PORT" \
                --state-dir "${PEER_STATE[$i]}" --cgroup-root "slicelab-test$$-h$i" "$@" \
                >"$events" 2>>"$TEST_TMP/peer$i.log" &
        PEER_NL_PID[$i]=$!
        if ! wait_for 60 grep -q 'READY=1' "$events"; then
                echo "# host $i's daemon never became ready; its log ends:"
                tail -n 20 "$TEST_TMP/peer$i.log" | sed 's/^/#   /'
                return 1
        fi
        PEER_PID[$i]=$(sed -n 's/^PID //p' "$events" | head -1)
        PEER_URL[$i]="http://$(netns_addr "$i"):$NETNS_PORT"
        PEER_TOKEN[$i]=$(cat "${PEER_STATE[$i]}/token")
}

# peers_share_token N: one token for the lab, as a lab gives every daemon the same one: sets TOKEN,
# writes it to $TEST_TMP/peer.token (for a coordinator's --peer-token-file) and into the state
# dirs of hosts 1..N, before peer_start, so each peer takes it as its API token.
peers_share_token() {
        local i
        TOKEN=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
        printf '%s\n' "$TOKEN" >"$TEST_TMP/peer.token"
        chmod 600 "$TEST_TMP/peer.token"
        for ((i = 1; i <= $1; i++)); do
                mkdir -p "$TEST_TMP/peer$i"
                install -m 600 "$TEST_TMP/peer.token" "$TEST_TMP/peer$i/token"
        done
}

# peer_kill9 I: SIGKILL host I's daemon (its children stay, as after a crash).
peer_kill9() {
        local i=$1
        kill -KILL "${PEER_PID[$i]}" 2>/dev/null
        wait "${PEER_NL_PID[$i]}" 2>/dev/null
        PEER_NL_PID[$i]=
        PEER_PID[$i]=
}

# peer_stop I: SIGTERM through notify-listen, and its exit.
peer_stop() {
        local i=$1
        [ -n "${PEER_NL_PID[$i]:-}" ] || return 0
        kill -TERM "${PEER_NL_PID[$i]}" 2>/dev/null
        wait "${PEER_NL_PID[$i]}" 2>/dev/null
        PEER_NL_PID[$i]=
        PEER_PID[$i]=
}

netns_teardown() {
        local i
        for i in "${!PEER_NL_PID[@]}"; do
                peer_stop "$i"
        done
        for ((i = 1; i <= NETNS_HOSTS; i++)); do
                ip netns del "$(netns_name "$i")" 2>/dev/null
        done
        NETNS_HOSTS=0
        [ -n "$NETNS_BR" ] && ip link del "$NETNS_BR" 2>/dev/null
        NETNS_BR=
        [ -n "${NETNS_AFTER_TEARDOWN:-}" ] && $NETNS_AFTER_TEARDOWN
        return 0
}

# netns_two_host_lab: the coordinator's lab of tests/peers/multi-host.sh and capacity-hosts.sh: two
# hosts whose daemons' clocks are 500 s and 2000 s ahead, sharing one token, and the coordinator
# (tests/lib.sh's daemon_start) in the root namespace allowing them; stopped with the teardown. Sets
# ME (the coordinator's address on the bridge), ALLOW, H1 and H2. Bails out when it cannot.
netns_two_host_lab() {
        cleanup_coordinator() { daemon_stop; }
        export NETNS_AFTER_TEARDOWN=cleanup_coordinator # netns_teardown calls it
        netns_setup 2 || { echo "Bail out! cannot make the namespaces"; exit 1; }
        ME=$(netns_gateway)
        ALLOW="10.231.$NETNS_K.*"
        H1=$(netns_addr 1)
        H2=$(netns_addr 2)
        peers_share_token 2
        peer_start 1 500 --peer-allow "$ALLOW" || { netns_teardown; echo "Bail out! no peer daemon 1"; exit 1; }
        peer_start 2 2000 --peer-allow "$ALLOW" || { netns_teardown; echo "Bail out! no peer daemon 2"; exit 1; }
        daemon_start --peer-url-template 'http://{host}:7878' --peer-allow "$ALLOW" --peer-token-file "$TEST_TMP/peer.token" ||
                { not_ok "the coordinator starts"; netns_teardown; finish; exit 1; }
}
