/** @module The HTTP surface: MCP Streamable HTTP, legacy SSE, REST. */
export { createApp, VERSION } from './app.ts';
export { type GatewayOptions, HttpGateway } from './gateway.ts';
export { statusFor } from './status.ts';
