/** @module The messages between the type checker (host) and its worker thread. */
import type { ScopeInput } from '../catalog/declarations.ts';

/** One finding, at the caller's own position (1-based line and column of the program as sent). */
export interface TypeDiagnostic {
  line: number;
  column: number;
  /** TypeScript's diagnostic code (2339: a property that does not exist, ...); 0 for codemux's own. */
  code: number;
  message: string;
}

/** The names a program's diagnostics are told in terms of (ScopeDeclarations without the text). */
export interface ScopeNames {
  /** Tools per server; null for a server whose tools are not known yet. */
  servers: Record<string, string[] | null>;
  /** Held tools per server (tool pinning). */
  held: Record<string, string[]>;
}

/** A scope: its declarations file and its names. */
export interface Scope extends ScopeNames {
  text: string;
}

/** What a scope is written from (in the worker, off the gateway's thread): catalog/declarations.ts. */
export type { ScopeInput } from '../catalog/declarations.ts';

export interface CheckMessage {
  type: 'check';
  id: number;
  scopeKey: string;
  /** Sent when the host does not know that the worker has the scope. */
  scope?: ScopeInput;
  source: string;
  /** A JavaScript program (checked as JavaScript, with JSDoc types). */
  javascript: boolean;
  /** A program of no stated language (`execute`): checked as JavaScript when it has no TypeScript syntax. */
  detectJavascript?: boolean;
  /** How long the check may take, from when the worker takes it. */
  timeoutMs: number;
}

export type HostToWorker = CheckMessage;

export type WorkerToHost =
  | { type: 'ready' }
  | { type: 'checked'; id: number; diagnostics: TypeDiagnostic[]; total: number }
  /** The worker no longer has the scope (evicted): the host sends the check again with it. */
  | { type: 'need-scope'; id: number }
  /** The check ran past its time and was cancelled. */
  | { type: 'cancelled'; id: number }
  | { type: 'failed'; id: number; message: string };
