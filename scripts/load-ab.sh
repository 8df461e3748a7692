#!/usr/bin/env bash
# load-ab.sh — two builds of the server under the same load, interleaved.
#
#   scripts/load-ab.sh BEFORE AFTER [PAIRS] [SECONDS] [MODE] [VISITORS]
#
# BEFORE and AFTER are parley binaries (e.g. built from two commits); the
# load tool is this tree's. Runs go A B A B …, PAIRS pairs (default 4) of
# SECONDS each (default 10), MODE (default chat) at VISITORS (default 40),
# every run against a fresh SQLite database, as scripts/load-campaign.sh
# does: on a shared machine the two builds then meet the same weather. One
# line per run: the build, the time, the load average, requests a second,
# p99, the server's and the load tool's CPU per request (from /proc, so
# Linux only). Loopback only: the server listens on 127.0.0.1:8090.
set -euo pipefail
before=$(realpath "$1")
after=$(realpath "$2")
pairs=${3:-4}
secs=${4:-10}
mode=${5:-chat}
visitors=${6:-40}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

(cd "$repo" && go build -o "$work/parley-load" ./cmd/parley-load)

cpu() { # user+system clock ticks of a process
	awk '{print $14 + $15}' "/proc/$1/stat"
}

# run LABEL BINARY: one run on a fresh database; prints its line.
run() {
	local label=$1 bin=$2 db="$work/db" pid key s1 s2 load
	rm -rf "$db" && mkdir "$db"
	PARLEY_RATE_LIMIT=0 PARLEY_CONVERSATIONS_PER_IP_PER_HOUR=0 PARLEY_LOG_LEVEL=warn "$bin" --addr 127.0.0.1:8090 --db "$db/p.db" >"$db/log" 2>&1 &
	pid=$!
	until curl -s -o /dev/null http://127.0.0.1:8090/; do sleep 0.1; done
	key=$(grep -o 'wk_[a-z0-9]*' "$db/log" | head -1)
	"$bin" account limits --db "$db/p.db" --email demo@parley.local --monthly-conversations 100000000 >/dev/null
	load=$(cut -d' ' -f1 /proc/loadavg)
	s1=$(cpu $pid)
	{ TIMEFORMAT='tool %U %S'; time "$work/parley-load" -target http://127.0.0.1:8090 -key "$key" -mode "$mode" \
		-visitors "$visitors" -duration "${secs}s" -requests 1000000000 >"$db/out" 2>&1; } 2>>"$db/out"
	s2=$(cpu $pid)
	kill $pid
	wait $pid 2>/dev/null || true
	awk -v label="$label" -v t="$(date +%T)" -v la="$load" -v mode="$mode" -v v="$visitors" -v srv=$((s2 - s1)) -v hz="$(getconf CLK_TCK)" '
		$2 == "/api/widget/" mode {n = $3; rps = $4; p99 = $7; statuses = $9; for (i = 10; i <= NF; i++) statuses = statuses " " $i}
		$1 == "tool" {tool = $2 + $3}
		END {printf "%-6s %s  load %s  %s, %d visitors: %s req/s  p99 %s  CPU a request: server %.1f µs, load tool %.1f µs  (%s)\n",
			label, t, la, mode, v, rps, p99, srv * 1e6 / hz / n, tool * 1e6 / n, statuses}' "$db/out"
}

for _ in $(seq "$pairs"); do
	run before "$before"
	run after "$after"
done
