# Sourced by the bench scripts and scripts/test: 2 MB hugepages reserved for a
# run and given back after it.
#   hugepages MB          at least MB of free 2 MB pages, reserving the
#                         missing ones as root; 1 with HP_WHY set if not
#   hugepages_give_back   what hugepages added, not more (others may have
#                         reserved pages meanwhile); for the EXIT trap
hp_added=0 HP_WHY=""
hugepages() {
  local need=$(($1 / 2)) total free
  total=$(awk '/^HugePages_Total:/{print $2}' /proc/meminfo)
  free=$(awk '/^HugePages_Free:/{print $2}' /proc/meminfo)
  ((free >= need)) && return 0
  if ((EUID != 0)); then HP_WHY="$free free 2 MB hugepages, $need needed, and not root to reserve them"; return 1; fi
  echo $((total + need - free)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
  hp_added=$((hp_added + $(cat /proc/sys/vm/nr_hugepages) - total))
  free=$(awk '/^HugePages_Free:/{print $2}' /proc/meminfo)
  ((free >= need)) && return 0
  HP_WHY="only $free of $need 2 MB hugepages could be reserved"
  return 1
}
hugepages_give_back() {
  if ((hp_added > 0)); then
    echo $(($(cat /proc/sys/vm/nr_hugepages) - hp_added)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
    hp_added=0
  fi
}

# hugetlbfs_mount: a hugetlbfs mount of 2 MB pages for DPDK to find, mounting
#   one at /dev/hugepages (as root) where there is none; 1 with HP_WHY set if
#   that cannot be done.  hugetlbfs_unmount: unmounts what hugetlbfs_mount
#   mounted, nothing else (for the EXIT trap; the pages in files left there
#   are freed with it).
hp_mounted=""
hugetlbfs_mount() {
  awk '$3 == "hugetlbfs" && $4 ~ /(^|,)pagesize=2M(,|$)/ { f = 1 } END { exit !f }' /proc/mounts &&
    return 0
  if ((EUID != 0)); then HP_WHY="no hugetlbfs of 2 MB pages mounted, and not root to mount one"; return 1; fi
  if mountpoint -q /dev/hugepages 2>/dev/null; then
    HP_WHY="/dev/hugepages holds a mount of another page size"; return 1
  fi
  mkdir -p /dev/hugepages
  mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages 2>/dev/null ||
    { HP_WHY="cannot mount hugetlbfs at /dev/hugepages"; return 1; }
  hp_mounted=/dev/hugepages
}
hugetlbfs_unmount() {
  if [[ -n $hp_mounted ]]; then
    umount "$hp_mounted" 2>/dev/null || true
    hp_mounted=""
  fi
}
