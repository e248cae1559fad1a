# shellcheck shell=bash
# Sourced by scripts/test.sh: the CPU time of one step, all of its processes and every process they
# start counted (daemons included: orted, Slurm's), through a cgroup of its own. cgroup v1's cpuacct
# or cgroup v2's cpu.stat, whichever this machine has writable; without either, steps are not
# counted and step_cpu_seconds prints "-".
#   step_cpu_enter NAME       moves this shell ($BASHPID) into a new cgroup for NAME
#   step_cpu_seconds          prints that cgroup's CPU seconds so far
#   step_cpu_leave            moves this shell back to where it was
#   step_cpu_cleanup          removes the step cgroups no process is left in
if [ -w /sys/fs/cgroup/cpuacct/cgroup.procs ]; then
  step_cpu_root=/sys/fs/cgroup/cpuacct
  step_cpu_home="$step_cpu_root$(awk -F: '$2 ~ /(^|,)cpuacct(,|$)/ {print $3}' /proc/self/cgroup)"
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && [ -w /sys/fs/cgroup/cgroup.procs ]; then
  step_cpu_root=/sys/fs/cgroup
  step_cpu_home="$step_cpu_root$(awk -F: '$1 == 0 {print $3}' /proc/self/cgroup)"
else
  step_cpu_root=""
fi
step_cpu_dir=""

step_cpu_enter() {
  step_cpu_dir=""
  [ -n "$step_cpu_root" ] || return 0
  local dir="$step_cpu_root/collbench-step.$BASHPID.${1//[^A-Za-z0-9]/_}"
  mkdir -p "$dir" 2>/dev/null && echo "$BASHPID" >"$dir/cgroup.procs" 2>/dev/null && step_cpu_dir="$dir"
  return 0
}

step_cpu_seconds() {
  if [ -n "$step_cpu_dir" ] && [ -f "$step_cpu_dir/cpuacct.usage" ]; then
    awk '{printf "%d\n", $1 / 1e9}' "$step_cpu_dir/cpuacct.usage"
  elif [ -n "$step_cpu_dir" ] && [ -f "$step_cpu_dir/cpu.stat" ]; then
    awk '$1 == "usage_usec" {printf "%d\n", $2 / 1e6}' "$step_cpu_dir/cpu.stat"
  else
    echo -
  fi
}

step_cpu_leave() {
  [ -n "$step_cpu_dir" ] || return 0
  echo "$BASHPID" >"$step_cpu_home/cgroup.procs" 2>/dev/null || true
  rmdir "$step_cpu_dir" 2>/dev/null || true  # kept while a daemon it started lives on
  step_cpu_dir=""
}

# Removes the step cgroups that daemons kept until now (those still in use stay).
step_cpu_cleanup() {
  [ -n "$step_cpu_root" ] || return 0
  rmdir "$step_cpu_root"/collbench-step.* 2>/dev/null || true
}
