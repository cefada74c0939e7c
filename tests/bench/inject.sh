#!/bin/bash
# inject.sh: benchmark of slicelab-inject (issue 6) against wrk, both driving the same nginx.
#
# nginx (Debian's nginx-light) serves a 100-byte file with one worker pinned to CPU 0; the load
# generators run pinned to CPU 1, one at a time, over 128 keep-alive connections each. An open
# loop near the server's capacity needs connections for the rate times its worst stall (at 40000/s
# a 3 ms stall of this VM holds 120 requests; with 32 connections the rest wait, which is lag);
# wrk's maximum is the same with 32 or 128 here (47.2k vs 48.1k, alternating runs). Printed:
#   - wrk's closed-loop maximum and our --mode max, alternating BENCH_PAIRS times (5), each pair
#     with its ratio, then the medians (goal: ours/wrk >= 1);
#   - the server's own capacity per 50 ms window (p5, p25, p50), from our closed loop's timeline:
#     an open loop at a rate above the p5 finds the server slower than its schedule now and then;
#   - open loops at 30, 40, ... 100% of wrk's maximum measured beside each probe (a ladder, not a
#     bisection: one probe at a bad moment of the machine would steer a bisection down for good),
#     and the highest share that was accurate: achieved 99% of the target with lag p99 <= 1 ms
#     (our "saturated": false; goal >= 80%, 90% wanted), and the highest that kept pace: achieved
#     99% with at most 1% of the requests late through the injector's own pace (the machine's
#     stalls and the server set aside: what the injector can do); each probe with its late
#     requests split by whose fault
#     they were (the summary's "late": server, stalled or injector), the machine's silences (1 ms
#     or more in which nothing was sent and no answer arrived: the VM paused), the host's steal
#     on both CPUs (/proc/stat, 10 ms ticks), and the share of wrk an ideal open loop could keep
#     accurately through those silences: a silence of D ms at rate r makes the requests due in
#     its last D - 1 ms late, and as many again while a backlog of r x D drains at the spare
#     capacity C - r, so late = r (D - 1 ms) C / (C - r); summed over the silences S it stays
#     under 1% of r T while r / C < 1 - 100 S / T, where S = sum of (D - 1 ms), T the run; and
#     the late requests that model predicts for the probe's rate, beside ours;
#   - CPU microseconds per request (user + system, from GNU time) of both tools;
#   - peak RSS per million requests of both tools;
#   - --threads scaling: at the same total rate (half the best rate that kept pace, at least 24000/s so
#     both tick, beside a wrk run),
#     1 and 2 threads on the load's one CPU: CPU per request and lag p99 per thread (from the
#     timeline: thread i owns connections i, i + 2, ...). The server needs the other CPU, so what
#     can be shown here is that sharing nothing costs nothing (flat CPU/req and lag); on a machine
#     with N free CPUs for the load, N threads would each keep this lag at N times the rate.
# Figures, not assertions: run it on a quiet machine and read them. Needs root (apt-get).
# Environment: SLICELAB_BUILD (default ./build), BENCH_SECONDS (default 10), BENCH_PAIRS (5), BENCH_PORT (18480),
# BENCH_CONNECTIONS (128), BENCH_RT=1 to run nginx and both load generators as SCHED_FIFO tasks,
# which shields the figures from other work on a machine that cannot be made quiet.
set -euo pipefail

build=${SLICELAB_BUILD:-$(pwd)/build}
inject=$build/injector/slicelab-inject
seconds=${BENCH_SECONDS:-10}
port=${BENCH_PORT:-18480}
conns=${BENCH_CONNECTIONS:-128}
rt=()
[ "${BENCH_RT:-0}" = 1 ] && rt=(chrt -f 50)
[ -x "$inject" ] || { echo "inject.sh: $inject not built (set SLICELAB_BUILD)" >&2; exit 1; }

# What the script uses, installed only when missing.
. "$(dirname "$0")/bench-lib.sh"
bench_need nginx-light wrk time jq bc util-linux curl

ncpu=$(nproc)
if [ "$ncpu" -lt 2 ]; then
        echo "inject.sh: needs 2 CPUs (server on CPU 0, load on CPU 1)" >&2
        exit 1
fi

bench_setup slicelab-bench-inject

mkdir -p "$dir/www" "$dir/tmp"
head -c 100 /dev/zero | tr '\0' 'x' > "$dir/www/index.html"
cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
master_process off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000000;
    keepalive_timeout 300s;
    client_body_temp_path $dir/tmp;
    proxy_temp_path $dir/tmp;
    fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp;
    scgi_temp_path $dir/tmp;
    server {
        listen 127.0.0.1:$port;
        root $dir/www;
    }
}
CONF
taskset -c 0 "${rt[@]}" nginx -c "$dir/nginx.conf" -p "$dir" &
server_pid=$!
url=http://127.0.0.1:$port/index.html
for _ in $(seq 100); do
        curl -sf -o /dev/null "$url" && break
        sleep 0.1
done
curl -sf -o /dev/null "$url" || { echo "inject.sh: nginx did not start" >&2; cat "$dir/error.log" >&2; exit 1; }

# Run a command on CPU 1 under GNU time; sets cpu_s and rss_kb.
timed() {
        taskset -c 1 "${rt[@]}" /usr/bin/time -f "%U %S %M" -o "$dir/time.out" "$@" > "$dir/cmd.out" 2>&1
        read -r user sys rss_kb < "$dir/time.out"
        cpu_s=$(echo "$user + $sys" | bc -l)
}

ticks_per_s=$(getconf CLK_TCK)
steal_ms() { # cpu -> the host's steal on that CPU since boot, ms (/proc/stat's 8th figure)
        awk -v c="cpu$1" -v hz="$ticks_per_s" '$1 == c { print $9 * 1000 / hz }' /proc/stat
}

per_request() { # cpu_s requests -> us per request
        echo "scale=2; $1 * 1000000 / $2" | bc -l
}
per_million() { # rss_kb requests -> MiB per million requests
        echo "scale=2; $1 / 1024 * 1000000 / $2" | bc -l
}

echo "slicelab-inject benchmark: nginx on CPU 0, load on CPU 1, $conns connections, ${seconds}s runs"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
echo "machine: $ncpu CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)${rt:+, SCHED_FIFO (BENCH_RT=1)}"
echo

csv=$build/tests/hlog/timeline-csv
[ -x "$csv" ] || { echo "inject.sh: $csv not built (set SLICELAB_BUILD)" >&2; exit 1; }

median() { # numbers... -> their median
        printf "%s\n" "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Of a timeline: the server's closed-loop capacity per 50 ms window of answers (p5, p25, p50
# req/s), or the machine's silences: stretches of 1 ms and more in which nothing was sent and no
# answer arrived in the measure phase (count, total ms), which at these rates only a paused machine
# explains.
capacity_windows() { # timeline.bin -> "p5 p25 p50"
        "$csv" "$1" "$dir/cap.csv" >/dev/null
        tail -n +2 "$dir/cap.csv" | awk -F, '$4 != 0 { print int($3 / 50000000) }' | uniq -c |
                awk 'NR > 1 { print $1 * 20 }' | sed '$d' | sort -n |
                awk '{ v[NR] = $1 } END { printf "%.0f %.0f %.0f\n", v[int(NR * 0.05) + 1], v[int(NR * 0.25) + 1], v[int(NR * 0.5) + 1] }'
}
silences() { # timeline.bin -> "count total_ms"
        "$csv" "$1" "$dir/sil.csv" >/dev/null
        tail -n +2 "$dir/sil.csv" | awk -F, '$5 != 6 && $8 % 2 == 0 { print $2; print $3 }' | sort -n |
                awk 'NR > 1 && $1 - p >= 1000000 { n++; t += $1 - p } { p = $1 } END { printf "%d %.1f\n", n, t / 1e6 }'
}

# 1. The closed loops, wrk and ours alternating, BENCH_PAIRS times: the server's speed drifts by
# tens of percent within minutes, so each pair is compared at the same moment.
pairs=${BENCH_PAIRS:-5}
ratios=() wrk_cpus=() max_cpus=() wrk_rpss=() max_rpss=()
echo "closed loops, alternating ($pairs pairs):"
run_wrk() {
        timed wrk -t1 -c"$conns" -d"${seconds}s" "$url"
        wrk_rps=$(awk '/^Requests\/sec:/ {print $2}' "$dir/cmd.out")
        wrk_n=$(awk '/requests in/ {print $1}' "$dir/cmd.out")
        wrk_cpu=$(per_request "$cpu_s" "$wrk_n")
        wrk_rss=$(per_million "$rss_kb" "$wrk_n")
}
run_max() {
        timed "$inject" --url "$url" --mode max --connections "$conns" --duration "${seconds}s" \
                --timeline "$dir/max.bin" --summary "$dir/max.json"
        max_n=$(jq .records "$dir/max.json")
        max_rps=$(jq .throughput_rps "$dir/max.json")
        max_cpu=$(per_request "$cpu_s" "$max_n")
        max_rss=$(per_million "$rss_kb" "$max_n")
}
for i in $(seq "$pairs"); do
        # Which goes first alternates too, so a drift within a pair favours neither.
        if [ $(( i % 2 )) = 1 ]; then run_wrk; run_max; else run_max; run_wrk; fi
        ratio=$(echo "scale=3; $max_rps / $wrk_rps" | bc -l)
        printf "    pair %d: wrk %8.0f req/s %6s us CPU/req %6s MiB RSS/Mreq | ours --mode max %8.0f req/s %6s us CPU/req %6s MiB RSS/Mreq | ours/wrk %s\n" \
                "$i" "$wrk_rps" "$wrk_cpu" "$wrk_rss" "$max_rps" "$max_cpu" "$max_rss" "$ratio"
        ratios+=("$ratio") wrk_cpus+=("$wrk_cpu") max_cpus+=("$max_cpu") wrk_rpss+=("$wrk_rps") max_rpss+=("$max_rps")
done
wrk_cpu=$(median "${wrk_cpus[@]}") max_cpu=$(median "${max_cpus[@]}")
printf "%-44s %10.0f req/s  %7s us CPU/req (medians)\n" "wrk closed loop (max)" "$(median "${wrk_rpss[@]}")" "$wrk_cpu"
printf "%-44s %10.0f req/s  %7s us CPU/req (medians)\n" "slicelab-inject --mode max" "$(median "${max_rpss[@]}")" "$max_cpu"
echo "--mode max / wrk, median of the pairs: $(median "${ratios[@]}") (goal >= 1)"
read -r cap5 cap25 cap50 < <(capacity_windows "$dir/max.bin")
echo "the server's capacity per 50 ms window (our last closed loop): p5 $cap5, p25 $cap25, p50 $cap50 req/s"
echo

# 3. ours, open loop: the highest share of wrk's maximum at which we are not "saturated"
# (achieved >= 99%, lag p99 <= 1 ms), and at which we kept pace. The speed of a shared machine drifts by tens of percent
# within minutes, so every probe is paired with a wrk run just before it and its rate is a share
# of that run's figure: the share compares the two tools at the same moment.
wrk_now() { # -> wrk's closed-loop req/s now, in wrk_now_rps
        taskset -c 1 "${rt[@]}" wrk -t1 -c"$conns" -d"$(( seconds / 2 + 1 ))s" "$url" > "$dir/wrk-now.out" 2>&1
        wrk_now_rps=$(awk '/^Requests\/sec:/ {print $2}' "$dir/wrk-now.out")
}
probe() { # share (per mille of wrk now); leaves figures in probe_*, probe_accurate and probe_paced (true/false)
        wrk_now
        probe_rate=$(printf "%.0f" "$(echo "$wrk_now_rps * $1 / 1000" | bc -l)")
        local steal0_before steal1_before
        steal0_before=$(steal_ms 0) steal1_before=$(steal_ms 1)
        timed "$inject" --url "$url" --rate "$probe_rate" --connections "$conns" --warmup 1s --duration "${seconds}s" \
                --timeline "$dir/rate.bin" --summary "$dir/rate.json"
        probe_n=$(jq .records "$dir/rate.json")
        probe_achieved=$(jq .achieved_rps "$dir/rate.json")
        probe_lag=$(jq .latency_us.lag.p99 "$dir/rate.json")
        probe_cpu=$(per_request "$cpu_s" "$probe_n")
        probe_rss=$(per_million "$rss_kb" "$probe_n")
        local steal0=$(( $(steal_ms 0) - steal0_before )) steal1=$(( $(steal_ms 1) - steal1_before ))
        read -r sil_n sil_ms < <(silences "$dir/rate.bin")
        probe_ideal=$(echo "s = 1 - 100 * ($sil_ms - $sil_n) / ($seconds * 1000); if (s < 0) s = 0; scale = 1; s * 100 / 1" | bc -l)
        local ideal_late=-
        [ "$1" -lt 1000 ] && ideal_late=$(printf %.0f "$(echo "$probe_rate * ($sil_ms - $sil_n) / 1000 * 1000 / (1000 - $1)" | bc -l)")
        ideals+=("$probe_ideal")
        printf "    probe %5.1f%% of wrk %8.0f = %8.0f req/s: achieved %8.0f, lag p99 %8.1f us, %6s us CPU/req; late %s (server %s, stalled %s, injector %s); machine silent %s x, %s ms; host steal CPU 0 %s ms, CPU 1 %s ms; an ideal open loop: %s%%, %s late here\n" \
                "$(echo "$1 / 10" | bc -l)" "$wrk_now_rps" "$probe_rate" "$probe_achieved" "$probe_lag" "$probe_cpu" \
                "$(jq .late.requests "$dir/rate.json")" "$(jq .late.server "$dir/rate.json")" "$(jq .late.stalled "$dir/rate.json")" \
                "$(jq .late.injector "$dir/rate.json")" "$sil_n" "$sil_ms" "$steal0" "$steal1" "$probe_ideal" "$ideal_late"
        probe_accurate=$(jq .saturated "$dir/rate.json" | sed 's/false/yes/; s/true/no/')
        probe_paced=$(jq '(.achieved_rps >= 0.99 * .rate and .late.injector <= 0.01 * .requests) | if . then "yes" else "no" end' -r "$dir/rate.json")
        echo "        accurate: $probe_accurate; kept pace: $probe_paced"
}
accurate_share=0 paced_share=0 paced_rate=0 best_rate=0 best_cpu=- best_rss=- best_lag=- ideals=()
echo "open loop ladder (each probe beside a wrk run):"
for share in 300 400 500 600 700 800 900 1000; do
        probe "$share"
        if [ "$probe_accurate" = yes ]; then
                accurate_share=$share best_rate=$probe_rate best_cpu=$probe_cpu best_rss=$probe_rss best_lag=$probe_lag
        fi
        [ "$probe_paced" = yes ] && paced_share=$share paced_rate=$probe_rate
done
printf "%-44s %10.0f req/s  %7s us CPU/req  %7s MiB RSS/Mreq  (lag p99 %s us)\n" \
        "slicelab-inject open loop, accurate (best)" "$best_rate" "$best_cpu" "$best_rss" "$best_lag"
echo
echo "open loop accurate rate = $(echo "scale=1; $accurate_share / 10" | bc -l)% of wrk's closed-loop maximum (goal >= 80%, 90% wanted; 0 = not at 30%)"
echo "open loop kept pace (its own late requests <= 1%) up to $(echo "scale=1; $paced_share / 10" | bc -l)% of wrk"
echo "an ideal open loop through the probes' silences: $(median "${ideals[@]}")% of wrk (median over the probes; the machine's ceiling for any injector)"
echo "CPU per request: ours open loop ${best_cpu} us, ours max ${max_cpu} us, wrk ${wrk_cpu} us (goal: no worse than wrk)"

# 4. --threads: the same total rate with 1 and 2 loops, both on CPU 1.
lag_p99_of() { # CSV thread-or-all -> lag p99 us of the sent requests (nearest rank)
        tail -n +2 "$1" | awk -F, -v t="$2" '$5 != 6 && (t == "all" || $7 % 2 == t) { print $2 - $1 }' | sort -n |
                awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } r = int(NR * 0.99); if (r < NR * 0.99) r++; if (r < 1) r = 1; printf "%.1f", v[r] / 1000 }'
}
wrk_now
# Half the best rate that kept pace, but at least 12000/s per thread: there every loop ticks (--batch),
# so neither spends CPU on a spin the other does not (below it a loop sleeps between requests and
# spins before each, as calibration and the warmup choose, and the CPU per request would compare
# spins, not loops).
rate=$(( paced_rate / 2 > 24000 ? paced_rate / 2 : 24000 ))
echo
echo "--threads at $rate req/s in total (wrk beside it: $(printf %.0f "$wrk_now_rps") req/s), load on CPU 1 only:"
for threads in 1 2; do
        timed "$inject" --url "$url" --rate "$rate" --connections "$conns" --threads "$threads" --warmup 1s \
                --duration "${seconds}s" --timeline "$dir/t$threads.bin" --summary "$dir/t$threads.json"
        n=$(jq .records "$dir/t$threads.json")
        "$csv" "$dir/t$threads.bin" "$dir/t$threads.csv" >/dev/null
        per_thread="all $(lag_p99_of "$dir/t$threads.csv" all) us"
        [ "$threads" = 2 ] && per_thread="thread 0 $(lag_p99_of "$dir/t2.csv" 0) us, thread 1 $(lag_p99_of "$dir/t2.csv" 1) us"
        printf "    %d thread(s): achieved %8.0f req/s, %6s us CPU/req, lag p99 %s\n" "$threads" \
                "$(jq .achieved_rps "$dir/t$threads.json")" "$(per_request "$cpu_s" "$n")" "$per_thread"
done
echo "(flat from 1 to 2 threads = sharing nothing costs nothing; with N free CPUs, N threads give N times the rate)"
echo "(2-CPU machine shared with other work: figures are noisy; compare runs on a quiet machine)"
