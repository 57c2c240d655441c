#!/usr/bin/env bash
# DATABASE_URL=postgres://…/etl_bench bash scripts/traces-throughput.sh [modes…]
#   env: ROUNDS (3), DURATION seconds per route (15), PORT (4100)
#
# What traces cost in throughput: one production API process (cache off) on
# the catalogue at DATABASE_URL, wrk with 10 connections on the product page by
# POST, then on REST styles, for each traces mode in turn within every round:
# off, 0 (always_off: every span left out), 5 (the default 5%), 100
# (always_on); spans go to the quiet OTLP receiver (test/support/otlp-receiver,
# built by the tests). Prints, per round, mode and route, requests/s and the
# API process's CPU per request (from /proc: the figure the host's other work
# disturbs least). Needs wrk and curl; a few minutes per round.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${DATABASE_URL:?DATABASE_URL names the catalogue to measure}"
export PATH="$PWD/node_modules/.bin:$PATH"
ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-15}; PORT=${PORT:-4100}
MODES=("${@:-off 5 100}"); read -r -a MODES <<< "${MODES[*]}"
RECEIVER="$HOME/.cache/catalogue-api/bin/otlp-receiver"
[ -x "$RECEIVER" ] || { echo "no $RECEIVER: run test/observability/otlp-export.test.ts once to build it" >&2; exit 1; }
QUERY='query ProductPageWithRelatedIds($id: ID!) { product(id: $id) { id name slogan description category defaultPrice features { feature value } styles { id name originalPrice salePrice isDefault photos { thumbnailUrl url } skus { id size quantity } } relatedIds } }'
QUERY_JSON=$(node -e 'console.log(JSON.stringify(process.argv[1]))' "$QUERY")
ID_MAX=$(psql "$DATABASE_URL" -Atc 'SELECT max(id) FROM products')
export QUERY_JSON OPERATION_NAME=ProductPageWithRelatedIds ID_MAX

"$RECEIVER" --port 4395 --quiet > /dev/null &
receiver=$!
trap 'kill $receiver 2>/dev/null' EXIT
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# One route under wrk: requests/s and the API's CPU per request.
measure() { # pid wrk-script route mode round
  local before out after requests
  before=$(cpu_ticks "$1")
  out=$(wrk -t1 -c10 -d"${DURATION}s" -s "bench/wrk/$2" "http://127.0.0.1:$PORT")
  after=$(cpu_ticks "$1")
  requests=$(awk '/requests in/ {print $1}' <<< "$out")
  echo "round $5  traces $4  $3  $(awk '/Requests\/sec/ {print $2}' <<< "$out")/s  $(( (after - before) * 1000000 / $(getconf CLK_TCK) / requests )) µs CPU a request  load $(cut -d' ' -f1 /proc/loadavg)"
}

for round in $(seq 1 "$ROUNDS"); do
  for mode in "${MODES[@]}"; do
    traces=()
    case $mode in
      off) ;;
      0) traces=(OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4395 OTEL_TRACES_SAMPLER=always_off) ;;
      100) traces=(OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4395 OTEL_TRACES_SAMPLER=always_on) ;;
      *) traces=(OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4395 OTEL_TRACES_SAMPLER_ARG="$(awk "BEGIN {print $mode / 100}")") ;;
    esac
    env NODE_ENV=production CACHE=off PORT="$PORT" ${traces[@]+"${traces[@]}"} node src/main.ts > /dev/null 2>&1 &
    api=$!
    for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$PORT/readyz" > /dev/null && break; sleep 1; done
    # Warm both routes past the first export (5 s after the first sampled span), which loads the exporter once.
    wrk -t1 -c10 -d6s -s bench/wrk/graphql-post.lua "http://127.0.0.1:$PORT" > /dev/null
    wrk -t1 -c10 -d6s -s bench/wrk/rest-styles.lua "http://127.0.0.1:$PORT" > /dev/null
    measure "$api" graphql-post.lua "product page" "$mode" "$round"
    measure "$api" rest-styles.lua "REST styles " "$mode" "$round"
    kill -TERM "$api"; wait "$api" || true
  done
done
