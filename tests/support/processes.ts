/** Process helpers for end-to-end tests (Linux /proc). */
import { readdirSync, readFileSync } from "node:fs";

/** Every descendant of `pid` (children first, then theirs). */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry), ...descendants(Number(entry)));
    } catch {
      // the process is gone
    }
  }
  return out;
}

export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}

/** True when the process is stopped (SIGSTOP), e.g. by a failpoint. */
export function isStopped(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
  } catch {
    return false;
  }
}

export function tryKill(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** True while the process exists and is not a zombie (a killed child nobody has reaped yet is dead). */
export function isRunning(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== "Z" && state !== "X";
}

/** The process group of `pid` (`/proc/<pid>/stat` field 5), or undefined when it is gone. */
export function processGroupOf(pid: number): number | undefined {
  const group = statFields(pid)?.[2];
  return group === undefined ? undefined : Number(group);
}

/** The live (not zombie) members of process group `pgid`, from /proc. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields !== undefined && Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") out.push(Number(entry));
  }
  return out;
}
