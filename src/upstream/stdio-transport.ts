/**
 * @module The stdio client transport for upstream servers. Unlike the SDK's, it treats the
 * child's stdout ending as a disconnect even when the process keeps running (a wedged
 * server), and it ends the child's whole process group for sure (see process-reaper.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { LineDeadline } from './line-deadline.ts';
import { LineReader } from './line-reader.ts';
import { endProcess, type StopSchedule } from './process-reaper.ts';
import type { SdkModules } from './sdk-modules.ts';

/** How a start failure for a command that is not there begins (the registry adds the server's name). */
export const COMMAND_NOT_FOUND = 'command not found';

/** What a spawn error means to the person who configured `command`, instead of `spawn X ENOENT`. */
function spawnFailure(error: NodeJS.ErrnoException, params: StdioParams): Error {
  if (error.code === 'ENOENT' && fs.existsSync(params.cwd))
    return new Error(`${COMMAND_NOT_FOUND}: ${params.command}`);
  if (error.code === 'ENOENT') return new Error(`working directory not found: ${params.cwd}`);
  if (error.code === 'EACCES') return new Error(`command not executable: ${params.command}`);
  return error;
}

/** After the child exits, how long its last stdout bytes may take to arrive. */
const EXIT_DRAIN_MS = 100;

export interface StdioParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Why the connection ended, when the child ended it (for last_error). */
  closeReason: string | undefined;
  private child: ChildProcess | undefined;
  private closed = false;
  private ending: Promise<void> | undefined;
  private readonly buffer: LineReader;
  /** A line begun must go on and end (a wedged writer must not hold its calls until their timeout). */
  private readonly deadline = new LineDeadline((reason) => this.lineFailed(new Error(reason)));

  constructor(
    private readonly params: StdioParams,
    private readonly sdk: SdkModules,
    /** Receives the child's stderr. */
    private readonly onStderr: (stream: Readable) => void,
    /** The longest line (one message) the child may write (maxUpstreamMessageBytes). */
    maxMessageBytes: () => number,
    /** How long the child is given when it is ended (the registry's: hurried when it stops). */
    private readonly schedule?: StopSchedule,
  ) {
    this.buffer = new LineReader(maxMessageBytes, { parse: sdk.parseJSONRPCMessage });
  }

  /** With `stderr`, what makes the SDK treat this as a stdio transport (a silent version probe means a 2025 server). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The child's stderr (read by the stderr tail; the SDK only looks for the property). */
  get stderr(): Readable | null {
    return this.child?.stderr ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('StdioTransport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        env: this.params.env,
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        // Its own process group, so ending it also ends whatever it started.
        detached: true,
      });
      this.child = child;
      child.on('error', (raw) => {
        const error = spawnFailure(raw, this.params);
        reject(error);
        this.onerror?.(error);
        this.disconnect(`the process failed: ${error.message}`);
      });
      child.on('spawn', () => resolve());
      const exitedWith = (code: number | null, signal: NodeJS.Signals | null) =>
        `the process exited (${signal ? `signal ${signal}` : `code ${code ?? 'unknown'}`})`;
      // 'close' comes after stdout is drained; 'exit' alone also counts (a descendant may hold stdout).
      child.on('close', (code, signal) => this.disconnect(exitedWith(code, signal)));
      child.on('exit', (code, signal) => {
        setTimeout(() => this.disconnect(exitedWith(code, signal)), EXIT_DRAIN_MS).unref();
      });
      child.stdin!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
        } catch (error) {
          this.lineFailed(error as Error);
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage() as JSONRPCMessage | null;
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
        if (!this.closed) {
          this.deadline.read(chunk.length, this.buffer.partialBytes, chunk.includes(0x0a));
        }
      });
      // A child that closes stdout can never answer again, even if it keeps running.
      child.stdout!.on('end', () => {
        setTimeout(() => {
          if (child.exitCode === null && child.signalCode === null)
            this.disconnect('the process closed its stdout but kept running');
          else this.disconnect(exitedWith(child.exitCode, child.signalCode));
        }, EXIT_DRAIN_MS).unref();
      });
      child.stdout!.on('error', (error) => this.onerror?.(error));
      this.onStderr(child.stderr!);
    });
  }

  /** A line over the message bound, stalled or endless: the stream cannot be resynchronised. */
  private lineFailed(error: Error): void {
    if (this.closed) return;
    this.onerror?.(error);
    this.disconnect(error.message);
  }

  /** The child ended the conversation: report the close once and end the process. */
  private disconnect(reason: string): void {
    if (this.closed) return;
    this.closeReason = reason;
    void this.close();
  }

  /** Ends the child (stdin, SIGTERM, SIGKILL) and reports the close; resolves when it is gone. */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.deadline.stop();
      this.buffer.clear();
      this.onclose?.();
    }
    const child = this.child;
    this.ending ??= child ? endProcess(child, this.schedule) : Promise.resolve();
    return this.ending;
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (this.closed || !stdin || stdin.destroyed) {
        reject(new Error('Not connected'));
        return;
      }
      if (stdin.write(this.sdk.serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }
}
