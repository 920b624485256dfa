// CPU a process has used so far, from /proc (Linux), for the bench scripts' per-request figures.
import { readFileSync } from 'node:fs';

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** utime and stime of /proc/<pid>/stat in seconds, or NaN when the process is gone. */
function statTimes(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { user: Number(fields[11]) / CLOCK_TICKS, system: Number(fields[12]) / CLOCK_TICKS };
  } catch {
    return { user: NaN, system: NaN };
  }
}

/** CPU seconds a process has used so far (user + system). */
export function cpuSeconds(pid) {
  const { user, system } = statTimes(pid);
  return user + system;
}

/** The system (kernel) part of it. */
export function systemSeconds(pid) {
  return statTimes(pid).system;
}
