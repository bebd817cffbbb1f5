# Sourced by the bench scripts: the CPUs a run may use, and which of them
# forwards.  Each function sets the caller's variables named here; one that
# fails returns 1 with CPU_WHY set, for the caller's own error message.
#
#   cpu_allowed          allowed: the CPUs this process may run on, in
#                        increasing order (/proc/self/status); allowed_list:
#                        the same, comma-separated
#   cpu_split [WORKER]   worker_core: WORKER, or the last allowed CPU; main_core:
#                        the first allowed CPU other than it (where Sluice puts
#                        its control thread), or worker_core if it is the only one
#   cpu_confine CPU      this script's own work (polling, sleeping, parsing) on
#                        CPU alone; launch: the prefix that gives the programs it
#                        starts the whole allowed set back.  Nothing (and launch
#                        empty) where only one CPU is allowed
CPU_WHY=""
cpu_allowed() {
  local part c
  allowed=()
  while IFS= read -r part; do
    if [[ $part == *-* ]]; then
      for ((c = ${part%-*}; c <= ${part#*-}; c++)); do allowed+=("$c"); done
    elif [[ -n $part ]]; then
      allowed+=("$part")
    fi
  done < <(awk '/^Cpus_allowed_list:/{print $2}' /proc/self/status | tr ',' '\n')
  allowed_list=$(IFS=,; echo "${allowed[*]}")
  ((${#allowed[@]} > 0)) || { CPU_WHY="cannot read this process's CPU affinity"; return 1; }
}

cpu_split() {
  local c
  worker_core=${1:-${allowed[-1]}}
  if [[ " ${allowed[*]} " != *" $worker_core "* ]]; then
    CPU_WHY="--worker-core $worker_core is not in this process's CPU affinity (${allowed[*]})"
    return 1
  fi
  main_core=$worker_core
  for c in "${allowed[@]}"; do
    if [[ $c != "$worker_core" ]]; then main_core=$c; break; fi
  done
}

cpu_confine() {
  launch=()
  ((${#allowed[@]} > 1)) || return 0
  taskset -pc "$1" $$ >/dev/null || { CPU_WHY="cannot move this script to cpu $1"; return 1; }
  launch=(taskset -c "$allowed_list")
}
