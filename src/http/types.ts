/** @module Hono context variables of the gateway. */
import type { HttpBindings } from '@hono/node-server';
import type { Caller } from '../execution/index.ts';

export interface GatewayEnv {
  Bindings: HttpBindings;
  /** secret: the key or token the caller presented ('' on the open loopback routes). */
  Variables: { requestId: string; caller: Caller; secret: string };
}
