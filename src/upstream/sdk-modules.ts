/**
 * @module The MCP SDK client modules, loaded on first use: importing them costs about
 * 200 ms, which a `code exec` that calls no tool should not pay. preloadSdk() starts the
 * load early, so it overlaps with starting the sandbox.
 */

const load = () =>
  Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/shared/stdio.js'),
  ]).then(([client, stdio, streamableHttp, sse, types, sharedStdio]) => ({
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    CallToolResultSchema: types.CallToolResultSchema,
    JSONRPCMessageSchema: types.JSONRPCMessageSchema,
    LoggingMessageNotificationSchema: types.LoggingMessageNotificationSchema,
    Client: client.Client,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    SSEClientTransport: sse.SSEClientTransport,
    serializeMessage: sharedStdio.serializeMessage,
    StreamableHTTPError: streamableHttp.StreamableHTTPError,
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
