/** @module Options shared by several commands, defined once (names, help, allowed values). */
import { type Command, Option } from 'commander';
import { LOG_FORMATS, LOG_LEVELS } from '../util/log-levels.ts';

export interface GatewayFlags {
  /** A gateway elsewhere: `http://host:port`. */
  url?: string;
  /** A gateway elsewhere, as its listen address `host:port`. */
  listen?: string;
}

/** `--config PATH`. */
export function addConfigOption(command: Command, help?: string): Command {
  return command.option(
    '--config <path>',
    help ?? 'MCP configuration file (default: $CODEMUX_CONFIG or ~/.codemux/mcp_config.json)',
  );
}

/** `--log-level` and `--log-format` (logs go to stderr). */
export function addLogOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--log-level <level>', 'log level (logs go to stderr; default info)').choices(
        LOG_LEVELS,
      ),
    )
    .addOption(
      new Option(
        '--log-format <format>',
        'text (default on a terminal) or json (default otherwise; also $CODEMUX_LOG_FORMAT)',
      ).choices(LOG_FORMATS),
    );
}

/** `--url` / `--listen`: talk to the gateway there instead of the config's `listen` address. */
export function addGatewayOptions(command: Command): Command {
  return command
    .option(
      '--url <url>',
      "a running gateway's URL, e.g. http://127.0.0.1:9090 (default: the config's listen)",
    )
    .option(
      '--listen <host:port>',
      "a running gateway's listen address (same as --url http://host:port)",
    );
}

/** `-o, --output` limited to `formats` (the first is the default); anything else exits 2. */
export function addOutputOption(command: Command, formats: readonly string[]): Command {
  return command.addOption(
    new Option(
      '-o, --output <format>',
      `${formats[0]} (default)${formats.length > 1 ? `, ${formats.slice(1).join(' or ')}` : ''}`,
    ).choices(formats),
  );
}
