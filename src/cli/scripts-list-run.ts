/** @module `codemux code scripts list` at work: the stored scripts, from the gateway when one runs, else from scripts/ next to the config. */
import { listScripts, type ScriptListing, scriptsDir } from '../scripts/index.ts';
import { EXIT_FAILED } from './exit-codes.ts';
import { findGateway, gatewayRequest } from './gateway-client.ts';
import { loadConfigOrExit } from './load-config.ts';
import type { GatewayFlags } from './options.ts';
import { printJson } from './output.ts';

interface ListFlags extends GatewayFlags {
  config?: string;
  output?: string;
}

function renderText(listing: ScriptListing): string {
  const lines = [`Stored scripts in ${listing.dir} (${listing.scripts.length}):`];
  for (const s of listing.scripts) {
    const status = s.status === 'invalid' ? `invalid: ${s.reason}` : s.status;
    lines.push(`  ${s.name.padEnd(32)} ${status.padEnd(20)} ${s.paths.join(', ')}`);
  }
  lines.push('', 'Run one with: codemux code exec --script <name>');
  return `${lines.join('\n')}\n`;
}

export async function run(flags: ListFlags): Promise<void> {
  const config = loadConfigOrExit(flags);
  if (!config) return;
  // The process that resolves scripts describes them, so the listing never disagrees with what runs.
  const gateway = await findGateway(config, flags);
  let listing: ScriptListing;
  if (gateway) {
    const { status, body } = await gatewayRequest(gateway, 'GET', '/api/v1/code/scripts', {
      timeoutMs: 10_000,
    });
    if (status !== 200) {
      process.stderr.write(
        `codemux: the daemon refused the listing: ${JSON.stringify(body.error)}\n`,
      );
      process.exitCode = EXIT_FAILED;
      return;
    }
    listing = body.data as ScriptListing;
  } else {
    listing = listScripts(scriptsDir(config));
  }
  if (flags.output === 'json') await printJson(listing);
  else if (flags.output === 'yaml') {
    // Loaded here only: every command (serve too) would otherwise parse and keep the yaml package.
    const { stringify } = await import('yaml');
    process.stdout.write(stringify(listing));
  } else process.stdout.write(renderText(listing));
}
