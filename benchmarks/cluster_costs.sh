#!/bin/bash
# What cluster mode costs per decision (issue #31; docs/scale-out.md, "Capacity"): 8 random bots
# play a 4-seat tournament (48 games) on two `scout-arena serve --nats` nodes, a and b, on a
# private nats-server (ports 4333, monitoring 8333) and a PostgreSQL database of their own; then
# prints, for an idle window with every bot connected and for the tournament from its start to
# its end: the nodes' CPU (user + system, /proc), NATS's messages in and out (its /varz) and
# PostgreSQL's transactions (pg_stat_database), per game and per decision (a record's actions
# and flips), and the share of seats whose bot is connected to the node that did not referee
# the game. Run from the repository root (it needs nats-server, psql, jq, curl and bc):
#
#   benchmarks/cluster_costs.sh                            # bots split between a and b
#   ALL_ON_A=1 A_GAMES=1 benchmarks/cluster_costs.sh       # every bot on a, which referees one game at a time
#   NODES=0 benchmarks/cluster_costs.sh                    # one arena, no NATS: the baseline
#
# PG (default postgresql://postgres@127.0.0.1:5432) must let it create and drop the database
# scout_cluster_measure; GAMES (6) is the games per table, IDLE (20) the idle window's seconds.
set -eu
PG=${PG:-postgresql://postgres@127.0.0.1:5432}; DB=scout_cluster_measure
NODES=${NODES:-2}; GAMES=${GAMES:-6}; BIN=${BIN:-$PWD/.venv/bin}; REPO=$PWD
WORK=$(mktemp -d); cd "$WORK"; PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; psql -q $PG/postgres -c "DROP DATABASE IF EXISTS $DB"' EXIT
psql -q $PG/postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
URL=${PG/postgresql:/postgresql+psycopg:}/$DB
export SCOUT_ARENA_ADMIN_TOKEN=measure-admin-token-0123456789
if [ "$NODES" -gt 0 ]; then
  nats-server -a 127.0.0.1 -p 4333 -m 8333 2>nats.log & PIDS+=($!)
  NAMES=(a b); CLUSTER=(--nats nats://127.0.0.1:4333 --node)
else NAMES=(one); CLUSTER=(); fi
PORTS=(); for i in "${!NAMES[@]}"; do
  port=$((50061 + i)); PORTS+=($port)
  EXTRA=(); [ "$i" = 0 ] && [ -n "${A_GAMES:-}" ] && EXTRA=(--node-games "$A_GAMES")
  "$BIN/scout-arena" serve --db $URL ${CLUSTER[@]:+"${CLUSTER[@]}" "${NAMES[$i]}"} ${EXTRA[@]:+"${EXTRA[@]}"} --port $port --no-http 2>"${NAMES[$i]}.log" & PIDS+=($!)
  until "$BIN/python" "$REPO/docker/healthcheck.py" 127.0.0.1:$port 2>/dev/null; do sleep 0.2; done
done
NODE_PIDS=("${PIDS[@]: -${#NAMES[@]}}")
arena() { "$BIN/scout-arena" "$@" --server 127.0.0.1:${PORTS[0]}; }
arena tournament create bench --table-size 4 --games-per-table "$GAMES" --concurrency 8 --starts-at +1d >/dev/null
for i in 0 1 2 3 4 5 6 7; do
  mkdir h$i; HOME=$WORK/h$i "$BIN/scout-bot" run random --name r$i --tournament bench \
    --target 127.0.0.1:${PORTS[$(( ${ALL_ON_A:-0} ? 0 : i % ${#PORTS[@]} ))]} --capacity 4 2>bot$i.log & PIDS+=($!)
done
until [ "$(arena tournament show bench --json | jq '.entrants | length')" = 8 ]; do sleep 0.5; done
sample() {  # node CPU seconds, NATS messages in and out, PostgreSQL transactions
  cpu=0; for p in "${NODE_PIDS[@]}"; do cpu=$((cpu + $(awk '{print $14 + $15}' /proc/$p/stat))); done
  nats=$([ "$NODES" -gt 0 ] && curl -s 127.0.0.1:8333/varz | jq -r '"\(.in_msgs) \(.out_msgs) \(.in_bytes)"' || echo "0 0 0")
  echo "$cpu $nats $(psql -Atq $PG/$DB -c "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '$DB'") $(date +%s.%N)"
}
read -r c0 i0 o0 b0 x0 t0 < <(sample)
sleep "${IDLE:-20}"  # a window with every bot connected and no game
read -r c1 i1 o1 b1 x1 t1 < <(sample)
awk -v c=$((c1 - c0)) -v i=$((i1 - i0)) -v x=$((x1 - x0)) -v t=$(echo "$t1 - $t0" | bc) 'BEGIN {
  printf "idle, 8 bots connected: node CPU %.2f%% of a core in all, NATS %.1f messages/s, PostgreSQL %.1f transactions/s\n",
    c / t, i / t, x / t }'
read -r c0 i0 o0 b0 x0 t0 < <(sample)
arena tournament start bench >/dev/null
until arena tournament show bench --json | jq -e '.status == "finished"' >/dev/null; do sleep 0.2; done
read -r c1 i1 o1 b1 x1 t1 < <(sample)
psql -Atq $PG/$DB -F ' ' -c "SELECT count(*), sum(json_array_length(record::json->'actions')
  + (SELECT sum(json_array_length(f)) FROM json_array_elements(record::json->'flips') f)),
  count(DISTINCT lease_owner) FROM games WHERE status = 'finished'" \
  -c "SELECT round(avg((b.name ~ '[02468]$' OR ${ALL_ON_A:-0} = 1)::int # (g.lease_owner = 'a')::int), 2) FROM games g
  JOIN scheduled_tables t ON t.id = g.table_id CROSS JOIN json_array_elements_text(t.seats::json) s
  JOIN bots b ON b.id = s::int WHERE g.status = 'finished'" | {
  read -r games actions owners; read -r remote
  awk -v g=$games -v a=$actions -v c=$((c1 - c0)) -v i=$((i1 - i0)) -v o=$((o1 - o0)) -v b=$((b1 - b0)) \
      -v x=$((x1 - x0)) -v t=$(echo "$t1 - $t0" | bc) -v n=$NODES -v w=$owners -v r=${remote:-0} 'BEGIN {
    printf "nodes %d (%d refereed, %s of the seats on a bot of the other node); %d games, %d decisions (%.0f a game) in %.1f s: %.1f games/s\n", n, w, r, g, a, a / g, t, g / t
    printf "node CPU %.1f s in all: %.0f us a decision, %.1f ms a game\n", c / 100, c * 1e4 / a, c * 10 / g
    printf "NATS: %d messages in, %d out, %d bytes in: %.2f in and %.2f out a decision, %.0f bytes a message\n", i, o, b, i / a, o / a, (i ? b / i : 0)
    printf "PostgreSQL: %d transactions: %.1f a game, %.1f a second\n", x, x / g, x / t }'
}
echo "$(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
