/**
 * The implementation's process: spawned with piped stdio in a process group of its own, its stderr kept
 * as a short tail for error messages, its exit observed, and a bounded stop (end stdin, wait, then
 * SIGTERM and SIGKILL to the whole group) so dispose never hangs and nothing it started outlives it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { CommandLine } from './command-line.ts';
import { stretchedForLoad } from '../values/index.ts';
import { endGroup, groupAlive, signalGroup } from './process-group.ts';

/** How much of the implementation's stderr is kept for error messages. */
const TAIL_LINES = 20;
const TAIL_CHARS = 4000;
/**
 * Once the process has exited, how long its stdio may stay open before the kit stops reading it (idle
 * machine; stretched with the load). What the process wrote before it left is already in the pipes and
 * is read in far less; a pipe still open after this is held by something it started in a session of its
 * own (out of reach of its process group), and waiting for that would keep the run alive after its work.
 */
export const DRAIN_AFTER_EXIT_MS = 500;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (ENOENT, EACCES...). */
  spawnError?: Error;
  /** Set when it could not be started because its working directory does not exist (spawn then says only ENOENT). */
  missingCwd?: string;
}

/** Every implementation process whose group may still have members, so an exit path can end them all. */
const live = new Set<ImplementationProcess>();

export class ImplementationProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /**
   * Resolves once the process is gone and its stdio is closed (all its output has been read), or, when
   * something it left behind keeps its stdio open, once {@link DRAIN_AFTER_EXIT_MS} has passed since its
   * exit: the kit's ends of the pipes are then closed, so a stray holder never keeps the run waiting.
   */
  readonly exited: Promise<ExitInfo>;
  private tailText = '';
  private done = false;
  private stopping: Promise<void> | undefined;

  constructor(
    readonly commandLine: CommandLine,
    options: { cwd?: string; env?: NodeJS.ProcessEnv },
  ) {
    this.child = spawn(commandLine.command, commandLine.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group (the child leads it), so the group can be ended as a whole, and a Ctrl-C
      // in the terminal reaches the harness only, which then ends the group itself.
      detached: true,
    });
    if (this.child.pid !== undefined) live.add(this);
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.tailText = (this.tailText + chunk).slice(-TAIL_CHARS);
    });
    // A peer that died leaves stdin broken; the exit report says why, so the write error itself is noise.
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.once('error', (spawnError: NodeJS.ErrnoException) => {
        this.done = true;
        const cwd = options.cwd;
        const missingCwd = spawnError.code === 'ENOENT' && cwd !== undefined && !existsSync(cwd) ? cwd : undefined;
        resolve({ code: null, signal: null, spawnError, ...(missingCwd !== undefined && { missingCwd }) });
      });
      this.child.once('close', (code, signal) => {
        this.done = true;
        resolve({ code, signal });
      });
      // 'close' waits for every stdio stream to end; 'exit' is the process itself. After the exit, the
      // streams get a short bound to deliver what is left, then the kit lets go of them.
      this.child.once('exit', (code, signal) => {
        const drain = setTimeout(() => {
          if (this.done) return;
          this.done = true;
          for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) stream.destroy();
          resolve({ code, signal });
        }, stretchedForLoad(DRAIN_AFTER_EXIT_MS));
        drain.unref();
      });
    });
  }

  get running(): boolean {
    return !this.done;
  }

  /** The command as typed, for messages. */
  get label(): string {
    return [this.commandLine.command, ...this.commandLine.args].join(' ');
  }

  /** Forgets stderr so far, so a new session's errors show only its own lines. */
  clearStderrTail(): void {
    this.tailText = '';
  }

  /** The last lines the implementation wrote to stderr, or '' if none. */
  stderrTail(): string {
    const lines = this.tailText.trimEnd().split('\n').slice(-TAIL_LINES);
    return lines.join('\n').trim();
  }

  /** Whether this process keeps the harness's event loop alive (a parked, idle process must not). */
  setReferenced(on: boolean): void {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as { ref?: () => void; unref?: () => void }[]) {
      if (on) handle.ref?.();
      else handle.unref?.();
    }
  }

  write(line: string): void {
    if (this.child.stdin.writable) this.child.stdin.write(line);
  }

  /**
   * Ends stdin and waits up to `graceMs` for a clean exit; then ends the process group (SIGTERM, and
   * SIGKILL if anything is left after another `graceMs`), which also ends whatever the implementation
   * started and left behind. Never throws; bounded by about 3 x graceMs. Safe to call more than once.
   */
  stop(graceMs: number): Promise<void> {
    this.stopping ??= this.stopNow(graceMs);
    return this.stopping;
  }

  private async stopNow(graceMs: number): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return;
    if (!this.done) {
      this.child.stdin.end();
      if (!(await within(this.exited, graceMs))) {
        signalGroup(pid, 'SIGTERM');
        if (!(await within(this.exited, graceMs))) signalGroup(pid, 'SIGKILL');
        await within(this.exited, graceMs);
      }
    }
    await endGroup(pid, graceMs);
    live.delete(this);
  }

  /** SIGKILL to the group at once, for an exit path that cannot wait (the harness's own `exit`). */
  killNow(): void {
    if (this.child.pid !== undefined && (!this.done || groupAlive(this.child.pid))) signalGroup(this.child.pid, 'SIGKILL');
    live.delete(this);
  }
}

/** Stops every implementation process still alive (or whose group still has members), in parallel. */
export async function stopAllImplementations(graceMs: number): Promise<void> {
  await Promise.all([...live].map((p) => p.stop(graceMs)));
}

/** Kills every implementation's group at once; synchronous, for `process.on('exit')`. */
export function killAllImplementationsNow(): void {
  for (const p of [...live]) p.killNow();
}

/** Whether `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Describes an exit for a human: `exited with code 3`, `was killed by SIGKILL`, `could not start: ...`. */
export function describeExit(info: ExitInfo): string {
  if (info.missingCwd !== undefined) return `could not be started: its working directory ${info.missingCwd} does not exist`;
  if (info.spawnError) return `could not be started (${info.spawnError.message})`;
  if (info.signal) return `was killed by ${info.signal}`;
  return `exited with code ${info.code}`;
}
