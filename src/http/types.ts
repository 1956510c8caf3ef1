/** @module Hono context variables of the gateway. */
import type { HttpBindings } from '@hono/node-server';
import type { Caller } from '../execution/index.ts';

export interface GatewayEnv {
  Bindings: HttpBindings;
  Variables: { requestId: string; caller: Caller };
}
