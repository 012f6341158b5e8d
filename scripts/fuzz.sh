#!/usr/bin/env bash
# The fuzzing campaign (docs/hardening.md, "Fuzzing"). Needs a nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`); CI does not run this: it replays the corpus on stable (crates/hostile/tests/).
#
#   bash scripts/fuzz.sh seed                      # seed fuzz/corpus/TARGET/ from examples/, the golden files and
#                                                  # the generators' value pools
#   bash scripts/fuzz.sh run SECONDS [TARGET...]   # fuzz each target (default: all six) for SECONDS; appends what
#                                                  # it ran to fuzz/runs.tsv
#   bash scripts/fuzz.sh cmin [TARGET...]          # minimise the corpus (keeps the inputs that add coverage)
#   bash scripts/fuzz.sh totals                    # inputs run per target, from fuzz/runs.tsv
#
# Oracles: every oracle of kubeloop_hostile::check (no panic with overflow checks on, bounded messages and
# outputs, all-or-nothing apply, reads that change nothing, caps), and libFuzzer's: an input that takes more than
# FUZZ_TIMEOUT seconds (default 2) or makes the process hold more than FUZZ_RSS_MB (default 2048) is a finding.
# A finding is written to fuzz/artifacts/TARGET/; once fixed, copy it to fuzz/regressions/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."

targets_all=(manifest kubectl scenario quantity selector duration)
timeout=${FUZZ_TIMEOUT:-2}
rss=${FUZZ_RSS_MB:-2048}

gen() { cargo run -q --release -p kubeloop-hostile --bin hostile-gen -- "$@"; }

seed() {
  local c=fuzz/corpus
  mkdir -p "$c"/{manifest,kubectl,scenario,quantity,selector,duration}
  for t in "${targets_all[@]}"; do gen "$t" --seeds "$c/$t"; done
  local i=0 f
  for f in examples/*.yaml crates/wasm-check/scenarios/*.yaml; do
    cp "$f" "$c/scenario/seed-example-$(basename "$f")"
    i=$((i + 1))
  done
  for f in examples/manifests/*.yaml; do cp "$f" "$c/manifest/seed-example-$(basename "$f")"; done
  # The t=0 manifests of the example scenarios, as manifests.
  python3 - "$c/manifest" examples/*.yaml <<'EOF'
import sys, re
out = sys.argv[1]
for path in sys.argv[2:]:
    text = open(path).read()
    m = re.search(r"^manifests: \|\n((?:  .*\n|\n)+)", text, re.M)
    if m:
        body = "".join(l[2:] + "\n" for l in m.group(1).splitlines())
        open(f"{out}/seed-manifests-{path.split('/')[-1]}", "w").write(body)
EOF
  # Every command line of the kubectl golden files, and the kubectl actions of the examples.
  i=0
  { grep -h '^\$ kubectl ' crates/engine/tests/golden/kubectl/*.txt | sed 's/^\$ kubectl //'
    grep -ho 'kubectl: .*}' examples/*.yaml | sed 's/^kubectl: //; s/}$//; s/^"//; s/"$//'
  } | sort -u | while IFS= read -r line; do
    printf '%s' "$line" >"$c/kubectl/seed-line-$i"
    i=$((i + 1))
  done
  # Applies with a manifest on standard input.
  for f in examples/manifests/*.yaml; do
    { printf 'apply -f -\n'; cat "$f"; } >"$c/kubectl/seed-apply-$(basename "$f")"
  done
  for t in "${targets_all[@]}"; do echo "$t: $(ls "$c/$t" | wc -l) inputs"; done
}

build() {
  (cd fuzz && cargo +nightly fuzz build -a)
}

run() {
  local seconds=$1
  shift
  local targets=("$@")
  [ ${#targets[@]} -gt 0 ] || targets=("${targets_all[@]}")
  build
  mkdir -p fuzz/logs
  local t log runs status
  for t in "${targets[@]}"; do
    log=fuzz/logs/$t-$(date -u +%Y%m%dT%H%M%SZ).log
    mkdir -p "fuzz/artifacts/$t"
    status=ok
    (cd fuzz && cargo +nightly fuzz run -a "$t" "corpus/$t" -- \
      -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss" -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="artifacts/$t/") >"$log" 2>&1 || status=finding
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    if [ -z "$runs" ]; then
      # libFuzzer stopped at a finding before its final stats: its last progress line counts the inputs.
      runs=$(grep -o '^#[0-9]*' "$log" | tr -d '#' | tail -1)
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$t" "$seconds" "${runs:-0}" "$status" >>fuzz/runs.tsv
    echo "$t: ${runs:-0} inputs in ${seconds}s: $status (log: $log)"
  done
}

cmin() {
  local targets=("$@")
  [ ${#targets[@]} -gt 0 ] || targets=("${targets_all[@]}")
  build
  local t
  for t in "${targets[@]}"; do
    (cd fuzz && cargo +nightly fuzz cmin -a "$t" "corpus/$t" -- -timeout="$timeout" -rss_limit_mb="$rss")
  done
}

totals() {
  awk -F'\t' '{ n[$2] += $4; s[$2] += $3; if ($5 != "ok") f[$2]++ } END {
    for (t in n) { printf "%-9s %12d inputs %8d s %d run(s) ended at a finding\n", t, n[t], s[t], f[t]; all += n[t] }
    printf "%-9s %12d inputs\n", "all", all }' fuzz/runs.tsv
}

case "${1:-}" in
  seed) seed ;;
  run) shift; [ $# -ge 1 ] || { echo "usage: fuzz.sh run SECONDS [TARGET...]" >&2; exit 2; }; run "$@" ;;
  cmin) shift; cmin "$@" ;;
  totals) totals ;;
  *) sed -n '2,16p' "$0" >&2; exit 2 ;;
esac
