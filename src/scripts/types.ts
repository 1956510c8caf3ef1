/** @module Stored scripts: what a listing and a resolution return. */
import type { Language } from '../sandbox/index.ts';

export type ScriptStatus = 'ok' | 'ambiguous' | 'invalid';
export type InvalidReason = 'empty' | 'oversized' | 'unreadable' | 'non-regular';

export interface ScriptEntry {
  name: string;
  paths: string[];
  status: ScriptStatus;
  reason?: InvalidReason;
}

export interface ScriptListing {
  dir: string;
  scripts: ScriptEntry[];
}

export type ScriptRefusalCode =
  | 'INVALID_SCRIPT_NAME'
  | 'SCRIPT_NOT_FOUND'
  | 'SCRIPT_UNUSABLE'
  | 'INVALID_LANGUAGE';

export type ResolvedScript =
  | { ok: true; name: string; path: string; language: Language; source: string }
  | { ok: false; code: ScriptRefusalCode; message: string };
