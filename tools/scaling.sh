#!/usr/bin/env bash
# How the generator and the solver scale with threads: the machine in one line, then one Markdown
# table per workload (threads, seconds, speed-up and work against the first thread count, a
# solve's idle thread time); exit 1 if a value differs between thread counts.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: tools/scaling.sh [--kalah BIN] [--threads "1 2 4 8 16"] [--dir DIR] [--pits m]
                        [--gen-stones N] [--gen-memory-limit MiB] [--etude k:N] [--kec k:N]
                        [--only gen|etude|kec]

Workloads, each run once per thread count (--threads, the first the reference):
  gen    kalah bench gen --rules kalah-empty-capture --max-stones N (default 22): levels
         0..N solved in memory; seconds and entries/s, the signature compared; with
         --gen-memory-limit, its levels packed as gen keeps them within that memory
  etude  kalah solve --stones k (wetherell, default 4:26) with the levels 0..N of a table
         built once in DIR on all cores; search seconds, nodes, the threads' idle time
         (idle_thread_seconds), margin compared
  kec    the same for kalah-empty-capture (default 5:24)
Tables are kept in DIR (default scaling-dbs) and reused. Prints the machine (CPU, cores,
NUMA nodes, memory, transparent huge pages) and the tables on stdout, each run's command on
stderr, and there too each solve's progress lines (--progress: its phases, about once a
second, separated by carriage returns: tr '\r' '\n' to read them).
EOF
}

kalah=build/tools/kalah threads="1 2 4 8 16" dir=scaling-dbs pits=6 gen_stones=22
etude=4:26 kec=5:24 only="" gen_limit=""
while (($# > 0)); do
  if [[ $1 == -h || $1 == --help ]]; then usage; exit 0; fi
  (($# >= 2)) || { echo "scaling.sh: $1 needs a value" >&2; exit 2; }
  case "$1" in
    --kalah) kalah=$2 ;;
    --threads) threads=$2 ;;
    --dir) dir=$2 ;;
    --pits) pits=$2 ;;
    --gen-stones) gen_stones=$2 ;;
    --gen-memory-limit) gen_limit=$2 ;;
    --etude) etude=$2 ;;
    --kec) kec=$2 ;;
    --only) only=$2 ;;
    *) echo "scaling.sh: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
  shift 2
done
[[ -x $kalah ]] || { echo "scaling.sh: no kalah binary at '$kalah' (--kalah BIN)" >&2; exit 2; }
for w in $only; do
  [[ $w =~ ^(gen|etude|kec)$ ]] || { echo "scaling.sh: unknown workload '$w'" >&2; exit 2; }
done
wanted() { [[ -z $only || " $only " == *" $1 "* ]]; }
mkdir -p "$dir"
status=0

# run CMD...: CMD, its command line shown on stderr first.
run() {
  echo "+ $*" >&2
  "$@"
}

# row THREADS SECONDS WORK VALUE [IDLE]: one table row against the first row's figures (IDLE, the
# solve's idle thread-seconds, as a column of its own before the value).
first_s="" first_work="" first_value=""
row() {
  if [[ -z $first_s ]]; then first_s=$2 first_work=$3 first_value=$4; fi
  awk -v t="$1" -v s="$2" -v n="$3" -v s0="$first_s" -v n0="$first_work" -v v="$4" -v idle="${5-}" \
    'BEGIN { printf "| %s | %.2f | %.2fx | %s | %.2fx |%s %s |\n", t, s, s0 / s, n, n / n0,
             idle == "" ? "" : sprintf(" %.2f |", idle), v }'
  if [[ $4 != "$first_value" ]]; then
    echo "scaling.sh: $4 at $1 threads, $first_value at the first count" >&2
    status=1
  fi
}
# header TITLE WORK VALUE [EXTRA]: a table's title and columns (EXTRA: row's IDLE column).
header() {
  first_s="" first_work="" first_value=""
  local extra="" rule=""
  if (($# > 3)); then extra=" $4 |" rule="---|"; fi
  printf '\n%s\n\n| threads | seconds | speed-up | %s | %s vs first |%s %s |\n|---|---|---|---|---|%s---|\n' \
    "$1" "$2" "$2" "$extra" "$3" "$rule"
}

# The machine the figures are from: CPU model, cores, NUMA nodes, memory, transparent huge pages.
machine() {
  local model numa mem thp
  model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
  numa=$(lscpu 2>/dev/null | sed -n 's/^NUMA node(s): *//p' | head -1)
  mem=$(awk '/^MemTotal:/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
  thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
  echo "Machine: ${model:-unknown CPU}, $(nproc) cores, ${numa:-?} NUMA node(s), ${mem:-?} GiB" \
    "memory, transparent huge pages: ${thp:-?}"
}
machine

if wanted gen; then
  limit=() title=""
  if [[ -n $gen_limit ]]; then limit=(--memory-limit "$gen_limit") title=" --memory-limit $gen_limit"; fi
  header "Generator: kalah bench gen --rules kalah-empty-capture --pits $pits --max-stones $gen_stones$title" \
    entries signature
  for t in $threads; do
    line=$(run "$kalah" bench gen --rules kalah-empty-capture --pits "$pits" \
      --max-stones "$gen_stones" "${limit[@]}" --threads "$t" | tail -1)
    # "... levels 0..N: E entries in S s, R M entries/s, signature X"
    [[ $line =~ :\ ([0-9]+)\ entries\ in\ ([0-9.]+)\ s,.*signature\ ([0-9a-f]+) ]] ||
      { echo "scaling.sh: unexpected bench gen output: $line" >&2; exit 1; }
    row "$t" "${BASH_REMATCH[2]}" "${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}"
  done
fi

# field NAME: the number `"NAME":` holds in $json (kalah solve --json's one object).
field() {
  [[ $json =~ \"$1\":\ *(-?[0-9][0-9.e+-]*) ]] ||
    { echo "scaling.sh: no $1 in kalah solve's answer: $json" >&2; exit 1; }
  echo "${BASH_REMATCH[1]}"
}

# solve_scaling RULES k:N: the start with k stones a pit solved at each thread count with levels
# 0..N of a table in DIR.
solve_scaling() {
  local rules=$1 stones=${2%%:*} levels=${2##*:}
  local db="$dir/$rules-$pits-$levels.db"
  run "$kalah" gen --rules "$rules" --pits "$pits" --max-stones "$levels" --db "$db" --threads 0 \
    --quiet >&2
  header "Solver: kalah solve --rules $rules --pits $pits --stones $stones --db-max-stones $levels" \
    nodes margin "idle thread-s"
  for t in $threads; do
    json=$(run "$kalah" solve --rules "$rules" --pits "$pits" --stones "$stones" --db "$db" \
      --db-max-stones "$levels" --threads "$t" --json --progress)
    seconds=$(field seconds)
    nodes=$(field nodes)
    margin=$(field margin)
    idle=$(field idle_thread_seconds)
    row "$t" "$seconds" "$nodes" "$margin" "$idle"
  done
}
if wanted etude; then solve_scaling wetherell "$etude"; fi
if wanted kec; then solve_scaling kalah-empty-capture "$kec"; fi
exit "$status"
