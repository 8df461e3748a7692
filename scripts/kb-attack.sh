#!/usr/bin/env bash
# kb-attack.sh — issue 14, item 7: the knowledge base as a CPU amplifier,
# replayed on loopback (docs/benchmarks.md, "Knowledge-base rebuilds").
#
# A tenant uploads 100 documents of 200,000 characters to one agent, then
# edits an item and chats once, alone and four times at once (half a
# second apart). The script reports
# where the uploads stop, the server's CPU seconds per edit plus chat (until
# the server is idle again, so background work counts), the tenant's chat
# latency, and the latency of another tenant's chats meanwhile.
#
#   scripts/kb-attack.sh [REV]    (default: the work tree; REV: a git revision to build, e.g. HEAD~3)
#
# Loopback only: the server listens on 127.0.0.1:8091, which must be free.
set -euo pipefail
rev=${1:-}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
base=http://127.0.0.1:8091

if [ -n "$rev" ]; then
	mkdir "$work/src" && git -C "$repo" archive "$rev" | tar -x -C "$work/src"
	(cd "$work/src" && go build -o "$work/parley" ./cmd/parley)
else
	(cd "$repo" && go build -o "$work/parley" ./cmd/parley)
fi
# The other tenant's chats are timed by the load tool of the work tree.
(cd "$repo" && go build -o "$work/parley-load" ./cmd/parley-load)

hz=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# idle waits until the server has used no CPU for half a second (a
# background rebuild counts as work), at most 120 s.
idle() {
	local a b
	for _ in $(seq 240); do
		a=$(cpu "$1")
		sleep 0.5
		b=$(cpu "$1")
		[ "$a" = "$b" ] && return 0
	done
	return 0
}

# doc N: 200,000 characters of Markdown-ish text, paragraphs of made-up
# words from a few syllables (a large vocabulary, like product names and
# jargon), deterministic per N.
doc() {
	awk -v seed="$1" 'BEGIN {
		srand(seed); split("ba ker lin mo tor sta ple ver din gal nor pet tri son ex ra com ful an de", s, " ")
		out = "# Handbook " seed "\n\n"; n = length(out)
		while (n < 200000) {
			w = ""; k = 2 + int(rand() * 3)
			for (i = 0; i < k; i++) w = w s[1 + int(rand() * 21)]
			if (rand() < 0.01) { w = w ".\n\n" } else if (rand() < 0.08) { w = w ". " } else { w = w " " }
			if (n + length(w) > 200000) break
			out = out w; n += length(w)
		}
		printf "%s", substr(out, 1, 200000)
	}'
}

db="$work/db"
mkdir "$db"
PARLEY_RATE_LIMIT=0 PARLEY_LOG_LEVEL=warn "$work/parley" --addr 127.0.0.1:8091 --db "$db/p.db" >"$db/out" 2>"$db/log" &
pid=$!
until curl -s -o /dev/null "$base/healthz"; do sleep 0.1; done
victim_key=$(grep -o 'wk_[a-z0-9]*' "$db/out" | head -1)
"$work/parley" account limits --db "$db/p.db" --email demo@parley.local --monthly-conversations 100000000 >/dev/null
token=$("$work/parley" account create --db "$db/p.db" --email tenant@example.test --password 'a long enough secret 42' \
	--name Tenant --monthly-conversations 100000000 | jq -r .api_token)
auth=(-H "Authorization: Bearer $token")
agent=$(curl -s "${auth[@]}" -H 'Content-Type: application/json' -d '{"chatbot_name":"Big"}' "$base/api/v1/agents")
agent_id=$(jq -r .id <<<"$agent")
key=$(jq -r .widget_key <<<"$agent")

# A Q&A entry first: the edits below change it.
item=$(curl -s "${auth[@]}" -H 'Content-Type: application/json' -d '{"question":"How long does shipping take?","answer":"2 to 4 days."}' \
	"$base/api/v1/agents/$agent_id/knowledge" | jq -r .id)
accepted=0
first_refusal=""
for n in $(seq "${DOCS:-100}"); do
	doc "$n" >"$work/doc.md"
	status=$(curl -s -o "$work/resp" -w '%{http_code}' "${auth[@]}" -F "file=@$work/doc.md" -F lang=en "$base/api/v1/agents/$agent_id/knowledge")
	if [ "$status" = 201 ]; then
		accepted=$((accepted + 1))
	elif [ -z "$first_refusal" ]; then
		first_refusal="upload $n: $status $(cat "$work/resp")"
	fi
done
echo "uploads accepted: $accepted of ${DOCS:-100}${first_refusal:+; first refused: $first_refusal}"

conv() { curl -s -H 'Content-Type: application/json' -d '{"key":"'"$1"'"}' "$base/api/widget/init" | jq -r .conversation_id; }
# chat KEY CONV: prints the chat's status and seconds (000: no answer, the
# server closed the connection).
chat() {
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -H 'Content-Type: application/json' \
		-d '{"key":"'"$1"'","conversation_id":"'"$2"'","text":"how long does shipping take?","lang":"en"}' "$base/api/widget/chat" || true
}
victim_conv=$(conv "$victim_key")
tenant_conv=$(conv "$key")

# victim SECONDS: the other tenant chats, one message after another, for
# that long; prints the latencies (the load tool's line for the chat).
victim() {
	"$work/parley-load" -target "$base" -key "$victim_key" -mode chat -visitors 1 -sources 1 -duration "${1}s" \
		-requests 1000000 2>&1 | awk '$2 == "/api/widget/chat" {printf "%s chats, p50 %s, p90 %s, p99 %s, max %s (statuses %s)", $3, $5, $6, $7, $8, $9}'
}
echo "other tenant alone, 10 s: $(victim 10)"

# The first chat builds the index (no index yet on this instance).
idle $pid
c0=$(cpu $pid)
first=$(chat "$key" "$tenant_conv")
idle $pid
echo "first chat (index built): $first s, server CPU $(awk -v a="$c0" -v b="$(cpu $pid)" -v hz="$hz" 'BEGIN {printf "%.2f", (b - a) / hz}') s"

# edit_chat I: edit the Q&A entry (a JSON body is at most 64 KiB, so an
# edit through the API is a small one), then chat once.
edit_chat() {
	curl -s -o /dev/null -X PATCH "${auth[@]}" -H 'Content-Type: application/json' -d '{"answer":"Edit '"$1"': 3 to 5 days."}' \
		"$base/api/v1/agents/$agent_id/knowledge/$item"
	chat "$key" "$(conv "$key")"
}

# Each round twice: alone, for the server's CPU (until it is idle again,
# so a background rebuild counts), then beside the other tenant's chats,
# timed for 10 s from just before the edits.
round=0
for parallel in 1 4; do
	for pass in cpu victim; do
		round=$((round + 1))
		idle $pid
		if [ $pass = victim ]; then
			victim 10 >"$work/victim" &
			vpid=$!
			sleep 1
		fi
		c0=$(cpu $pid)
		t0=$(date +%s.%N)
		pids=()
		for i in $(seq "$parallel"); do
			# Half a second apart, as a tenant's loops would be: each
			# edit lands while the last one's index is being built.
			{ sleep "$(awk -v i="$i" 'BEGIN {print (i - 1) * 0.5}')"; edit_chat "$round.$i"; } >"$work/chat.$i" &
			pids+=($!)
		done
		wait "${pids[@]}"
		t1=$(date +%s.%N)
		if [ $pass = cpu ]; then
			idle $pid
			echo "$parallel edit(s) + chat(s) at once: server CPU $(awk -v a="$c0" -v b="$(cpu $pid)" -v hz="$hz" 'BEGIN {printf "%.2f", (b - a) / hz}') s; all answered after $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}') s; chats (status, seconds): $(cat "$work"/chat.* | tr '\n' ' ')"
		else
			wait $vpid
			echo "  the other tenant meanwhile (10 s from just before the edits): $(cat "$work/victim")"
		fi
		rm -f "$work"/chat.*
	done
done
kill $pid
wait $pid 2>/dev/null || true
