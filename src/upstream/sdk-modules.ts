/**
 * @module The MCP SDK client modules (the 2.x `@modelcontextprotocol/client`), loaded on
 * first use: importing them costs about 200 ms, which a `code exec` that calls no tool
 * should not pay. preloadSdk() starts the load early, so it overlaps with starting the
 * sandbox.
 */

const load = () =>
  Promise.all([
    import('@modelcontextprotocol/client'),
    import('@modelcontextprotocol/client/stdio'),
  ]).then(([client, stdio]) => ({
    Client: client.Client,
    LOG_LEVEL_META_KEY: client.LOG_LEVEL_META_KEY,
    CallToolResultSchema: client.specTypeSchemas.CallToolResult,
    parseJSONRPCMessage: client.parseJSONRPCMessage,
    serializeMessage: client.serializeMessage,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: client.StreamableHTTPClientTransport,
    SSEClientTransport: client.SSEClientTransport,
  }));

export type SdkModules = Awaited<ReturnType<typeof load>>;

let loading: Promise<SdkModules> | undefined;

/** The SDK client classes; the first call starts the import. */
export function sdkModules(): Promise<SdkModules> {
  loading ??= load();
  return loading;
}

/** Starts loading the SDK in the background (errors surface on first real use). */
export function preloadSdk(): void {
  sdkModules().catch(() => {});
}
