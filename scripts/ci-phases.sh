# Phase timing for scripts/run-tests.sh (sourced, not run). Each phase's wall seconds and result are
# kept; the table is printed when the script exits, also when a phase failed, and compared with the
# budget so that a slow CI is seen long before it reaches CI's hard limit.
#   phase NAME CMD...        runs CMD in the foreground as phase NAME
#   phase_bg NAME CMD...     starts CMD in the background (its output to a log printed when it ends)
#   phase_wait NAME          waits for a background phase; fails the script if it failed
#   ctest_slowest LOG [N]    the N slowest tests of a ctest log
#   ninja_slowest DIR [N]    the N slowest build steps of a ninja build directory

_phase_names=()
_phase_secs=()
_phase_rcs=()
_phase_t0=$(date +%s)
declare -A _phase_pid _phase_log _phase_start

_phase_record() {  # NAME SECONDS RC
  _phase_names+=("$1")
  _phase_secs+=("$2")
  _phase_rcs+=("$3")
}

phase() {
  local name=$1
  shift
  echo "== [$name] $*"
  local t0 rc=0
  t0=$(date +%s)
  "$@" || rc=$?
  _phase_record "$name" "$(($(date +%s) - t0))" "$rc"
  if [ "$rc" -ne 0 ]; then
    echo "== [$name] failed (exit $rc)"
    exit "$rc"
  fi
}

phase_bg() {
  local name=$1
  shift
  local log
  log=$(mktemp)
  echo "== [$name] (in the background) $*"
  _phase_start[$name]=$(date +%s)
  _phase_log[$name]=$log
  # The phase's own duration is written when it ends, not when phase_wait looks.
  ( rc=0; "$@" || rc=$?; echo "$(($(date +%s) - _phase_start[$name]))" >"$log.secs"; exit "$rc" ) >"$log" 2>&1 &
  _phase_pid[$name]=$!
}

phase_wait() {
  local name=$1 rc=0
  wait "${_phase_pid[$name]}" || rc=$?
  echo "== [$name] output:"
  cat "${_phase_log[$name]}"
  local secs
  secs=$(cat "${_phase_log[$name]}.secs" 2>/dev/null || echo "$(($(date +%s) - _phase_start[$name]))")
  rm -f "${_phase_log[$name]}" "${_phase_log[$name]}.secs"
  _phase_record "$name &" "$secs" "$rc"
  unset "_phase_pid[$name]"
  if [ "$rc" -ne 0 ]; then
    echo "== [$name] failed (exit $rc)"
    exit "$rc"
  fi
}

# The N slowest tests of a ctest log (lines "  n/N Test #k: name ....   Passed   1.23 sec").
ctest_slowest() {
  local log=$1 n=${2:-10}
  grep -E 'Test +#[0-9]+: ' "$log" | awk '{for (i = 1; i <= NF; ++i) if ($i == "sec") printf "%9.2f s  %s\n", $(i - 1), $4}' |
    sort -rn | awk -v n="$n" 'NR <= n'  # awk reads to the end: no SIGPIPE under pipefail
}

# The N slowest steps of a ninja build (from its .ninja_log: start and end in ms, then the output).
ninja_slowest() {
  local dir=$1 n=${2:-10}
  [ -f "$dir/.ninja_log" ] || return 0
  awk 'NR > 1 {printf "%9.2f s  %s\n", ($2 - $1) / 1000, $4}' "$dir/.ninja_log" | sort -rn | awk -v n="$n" 'NR <= n'
}

_phase_report() {
  local rc=$?
  local name
  for name in "${!_phase_pid[@]}"; do  # a background phase still running when a foreground one failed
    kill "${_phase_pid[$name]}" 2>/dev/null || true
    _phase_record "$name (stopped)" "$(($(date +%s) - _phase_start[$name]))" "-"
  done
  local total=$(($(date +%s) - _phase_t0))
  echo
  echo "== CI phases (wall seconds; a phase marked & ran in the background beside the next ones)"
  printf '  %-44s %7s  %s\n' phase seconds result
  local i
  for i in "${!_phase_names[@]}"; do
    local res=ok
    [ "${_phase_rcs[$i]}" = 0 ] || res="exit ${_phase_rcs[$i]}"
    printf '  %-44s %7s  %s\n' "${_phase_names[$i]}" "${_phase_secs[$i]}" "$res"
  done
  printf '  %-44s %7s\n' total "$total"
  [ "$rc" -eq 0 ] || echo "== CI failed (exit $rc)"
  if [ "$total" -gt "${CI_BUDGET_S:-1500}" ]; then
    echo "WARNING: CI took ${total} s, over its budget of ${CI_BUDGET_S:-1500} s ($(( ${CI_BUDGET_S:-1500} / 60 )) min)."
    echo "WARNING: the phases above say where the time went; the slowest tests and build steps are printed"
    echo "WARNING: after each phase. CI's hard limit is 90 minutes: past it nothing lands."
  fi
  return "$rc"
}
trap _phase_report EXIT
