# Sourced by the bench scripts: the programs they start in the background
# (one at a time, its pid in the caller's variable child) and the threads
# they read.
#
#   nap S                    sleep S seconds (fractions too) without a child
#                            process: `read -t` on a descriptor that never
#                            delivers data
#   proc_threads PID GLOB [first]
#                            the ids of PID's threads whose name (comm) matches
#                            GLOB, one a line; with "first", the first only
#   wait_for_text LOG TEXT PID SECONDS
#                            polls LOG every 0.1 s until it holds TEXT (a fixed
#                            string), PID has exited or SECONDS have passed;
#                            0 if LOG holds TEXT
#   child_stop [SIGNAL]      child, if it lives, sent SIGNAL (default TERM) and
#                            reaped; child emptied
#   child_end                child sent SIGINT, given 30 s to exit, then
#                            killed; reaped; child emptied
exec {nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$nap_fd" _ || true; }

proc_threads() {
  local t name
  for t in /proc/"$1"/task/*; do
    { read -r name <"$t/comm"; } 2>/dev/null || continue
    # shellcheck disable=SC2053  # GLOB is a pattern
    if [[ $name == $2 ]]; then
      echo "${t##*/}"
      [[ ${3:-} != first ]] || return 0
    fi
  done
  return 0
}

wait_for_text() {
  local i
  for ((i = 0; i < $4 * 10; i++)); do
    grep -qF -- "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || break
    nap 0.1
  done
  grep -qF -- "$2" "$1" 2>/dev/null
}

child_stop() {
  if [[ -n ${child:-} ]] && kill -0 "$child" 2>/dev/null; then
    kill -"${1:-TERM}" "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  child=""
}

child_end() {
  [[ -n ${child:-} ]] || return 0
  kill -INT "$child" 2>/dev/null || true
  local i
  for ((i = 0; i < 300; i++)); do kill -0 "$child" 2>/dev/null || break; nap 0.1; done
  kill -9 "$child" 2>/dev/null || true
  wait "$child" 2>/dev/null || true
  child=""
}
