/** @module Hono context variables of the gateway. */
import type { HttpBindings } from '@hono/node-server';
import type { Caller } from '../execution/index.ts';

export interface GatewayEnv {
  Bindings: HttpBindings;
  /**
   * secret: the key or token the caller presented ('' on the open loopback routes);
   * dashboard: the REST caller signed in through the dashboard (its session cookie).
   */
  Variables: { requestId: string; caller: Caller; secret: string; dashboard?: boolean };
}
