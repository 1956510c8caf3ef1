/** @module Whether one execution may call a server at all: allowed_servers, then quarantine. */
import type { UpstreamRegistry } from '../upstream/index.ts';

/** The refusal of a call to `server`; undefined when the call may go out. */
export function serverRefusal(
  registry: UpstreamRegistry,
  allowed: ReadonlySet<string> | undefined,
  server: string,
): { code: 'SERVER_NOT_ALLOWED' | 'ACCESS_DENIED'; message: string } | undefined {
  if (allowed && !allowed.has(server)) {
    return {
      code: 'SERVER_NOT_ALLOWED',
      message: `Server '${server}' is not in the allowed servers list`,
    };
  }
  if (registry.server(server)?.quarantined) {
    return {
      code: 'ACCESS_DENIED',
      message: `Server '${server}' is quarantined for review; an administrator must set "quarantined": false in the config before its tools can be called`,
    };
  }
  return undefined;
}
