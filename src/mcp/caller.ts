/**
 * @module How a request's caller rides through the SDK: the HTTP surface puts it in
 * `authInfo.extra.caller`; the tool handlers read it back (no authInfo: stdio, the administrator).
 */
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { ADMIN, type Caller } from '../execution/index.ts';

/** The SDK auth info that carries `caller` to the tool handlers. */
export function toAuthInfo(caller: Caller, token: string): AuthInfo {
  return {
    token,
    clientId: caller.kind === 'agent' ? caller.name : 'admin',
    scopes: [],
    extra: { caller },
  };
}

/** The caller a transport attached to the request, else the administrator. */
export function callerOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): Caller {
  return (extra.authInfo?.extra?.caller as Caller | undefined) ?? ADMIN;
}
