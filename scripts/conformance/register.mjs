// `node --import ./scripts/conformance/register.mjs …/conformance/dist/index.js`: runs the MCP
// conformance suite on Node 20 (see hooks.mjs).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
