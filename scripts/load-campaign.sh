#!/usr/bin/env bash
# load-campaign.sh — the campaigns of docs/benchmarks.md, on this machine.
#
# Each round: the null server's ceiling (polls a second the load tool and
# net/http alone allow at that moment), then chat at 40 visitors twice and
# poll at 64 visitors, each against a fresh SQLite database, with the
# built-in knowledge-base agent answering. One line per run: the time, the
# ceiling, requests a second, p99, and the CPU per request of the server
# and of the load tool (from /proc, so Linux only).
#
#   scripts/load-campaign.sh [ROUNDS] [SECONDS]    (default 7 rounds of 10 s runs)
#
# Loopback only: the server listens on 127.0.0.1:8090, the null server on
# 127.0.0.1:8097; both must be free.
set -euo pipefail
rounds=${1:-7}
secs=${2:-10}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

(cd "$repo" && go build -o "$work/parley" ./cmd/parley && go build -o "$work/parley-load" ./cmd/parley-load)

cpu() { # user+system clock ticks of a process
	awk '{print $14 + $15}' "/proc/$1/stat"
}

# ceiling prints the null server's polls a second at 64 visitors.
ceiling() {
	"$work/parley-load" null -listen 127.0.0.1:8097 >/dev/null &
	local pid=$!
	sleep 0.3
	"$work/parley-load" -target http://127.0.0.1:8097 -key x -mode poll -visitors 64 \
		-duration "${secs}s" -requests 1000000000 | awk '$2 == "/api/widget/poll" {print $4}'
	kill $pid
	wait $pid 2>/dev/null || true
}

# run MODE VISITORS: one run on a fresh database; prints its line.
run() {
	local mode=$1 visitors=$2 db="$work/db" pid key s1 s2
	rm -rf "$db" && mkdir "$db"
	PARLEY_RATE_LIMIT=0 PARLEY_CONVERSATIONS_PER_IP_PER_HOUR=0 PARLEY_LOG_LEVEL=warn "$work/parley" --addr 127.0.0.1:8090 --db "$db/p.db" >"$db/log" 2>&1 &
	pid=$!
	until curl -s -o /dev/null http://127.0.0.1:8090/; do sleep 0.1; done
	key=$(grep -o 'wk_[a-z0-9]*' "$db/log" | head -1)
	"$work/parley" account limits --db "$db/p.db" --email demo@parley.local --monthly-conversations 100000000 >/dev/null
	s1=$(cpu $pid)
	# bash's time: the load tool's own user and system seconds.
	{ TIMEFORMAT='tool %U %S'; time "$work/parley-load" -target http://127.0.0.1:8090 -key "$key" -mode "$mode" \
		-visitors "$visitors" -duration "${secs}s" -requests 1000000000 >"$db/out" 2>&1; } 2>>"$db/out"
	s2=$(cpu $pid)
	kill $pid
	wait $pid 2>/dev/null || true
	awk -v t="$(date +%T)" -v c="$CEILING" -v mode="$mode" -v v="$visitors" -v srv=$((s2 - s1)) -v hz="$(getconf CLK_TCK)" '
		$2 == "/api/widget/" mode {n = $3; rps = $4; p99 = $7; statuses = $9; for (i = 10; i <= NF; i++) statuses = statuses " " $i}
		$1 == "tool" {tool = $2 + $3}
		END {printf "%s  ceiling %s  %s, %d visitors: %s req/s  p99 %s  CPU a request: server %.1f µs, load tool %.1f µs  (%s)\n",
			t, c, mode, v, rps, p99, srv * 1e6 / hz / n, tool * 1e6 / n, statuses}' "$db/out"
}

for r in $(seq "$rounds"); do
	CEILING=$(ceiling)
	run chat 40
	run chat 40
	run poll 64
done
