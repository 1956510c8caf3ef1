/** @module `codemux token create|list|revoke` at work: agent tokens limited to some servers, stored hashed in data_dir. */
import type { ResolvedConfig } from '../config/index.ts';
import { configLocation } from '../config/load.ts';
import { CodemuxError } from '../errors/index.ts';
import type { TokenStore } from '../store/index.ts';
import { didYouMean } from '../util/did-you-mean.ts';
import { EXIT_FAILED, EXIT_USAGE } from './exit-codes.ts';
import { loadConfigOrExit } from './load-config.ts';
import { printJson } from './output.ts';
import { renderTable } from './table.ts';

interface TokenFlags {
  config?: string;
  output?: string;
}

/** What a command's body reads and writes: the tokens, and a line to stderr naming the config. */
interface TokenContext {
  store: TokenStore;
  config: ResolvedConfig;
  /** ` (config: FILE)` when --config was not given (the file came from CODEMUX_CONFIG or the default place), else ''. */
  note: string;
}

/** The note every line carries when the user did not name the config: which file it was. */
function configNote(flags: TokenFlags, config: ResolvedConfig): string {
  if (flags.config !== undefined) return '';
  const { from } = configLocation(undefined);
  const named = from === 'CODEMUX_CONFIG' ? ', from CODEMUX_CONFIG' : '';
  return ` (config: ${config.path}${named}${config.missing ? ', which does not exist' : ''})`;
}

/** Tokens of a SQLite data_dir that has no database yet: none, and nothing is created to say so. */
const NO_TOKENS: TokenStore = {
  create: () => Promise.reject(new Error('a read-only command cannot create a token')),
  list: async () => [],
  revoke: async () => false,
  verify: () => undefined,
  close: async () => {},
};

/**
 * Runs `body` with the config and the token store, turning known failures into exit codes.
 * `readOnly`: a SQLite database that does not exist yet is not created (nothing is in it).
 */
async function withStore(
  flags: TokenFlags,
  body: (context: TokenContext) => Promise<void>,
  readOnly = false,
): Promise<void> {
  const config = loadConfigOrExit(flags);
  if (!config) return;
  const note = configNote(flags, config);
  // The database loads only for token commands.
  const opening = await import('./open-store.ts');
  const store = readOnly
    ? await opening.openExistingStoreOrExit(config)
    : await opening.openStoreOrExit(config);
  try {
    await body({ store: store?.tokens ?? NO_TOKENS, config, note });
  } catch (error) {
    if (!(error instanceof CodemuxError)) throw error;
    process.stderr.write(`codemux: ${error.message}${note}\n`);
    process.exitCode = EXIT_USAGE;
  } finally {
    await store?.close();
  }
}

/** `token create`. */
export const create = (
  flags: TokenFlags & { name: string; servers?: string; codeTools?: string },
) =>
  withStore(flags, async ({ store, config, note }) => {
    const list = (text: string | undefined) =>
      (text ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    const servers = list(flags.servers);
    const codeTools = list(flags.codeTools);
    const known = new Set(config.servers.map((s) => s.name));
    const unknown = servers.filter((s) => !known.has(s));
    if (unknown.length > 0) {
      throw new CodemuxError(
        'UNKNOWN_SERVER',
        `unknown server${unknown.length > 1 ? 's' : ''} ${unknown.map((s) => `'${s}'`).join(', ')}${didYouMean(unknown[0]!, known)}; the config has: ${[...known].join(', ') || 'none'}`,
      );
    }
    const created = await store.create(flags.name, servers, codeTools);
    if (flags.output === 'json') {
      await printJson({ token: created.token, ...created.record });
      return;
    }
    process.stdout.write(`${created.token}\n`);
    process.stderr.write(
      `agent token "${flags.name}" for ${[...servers, ...codeTools.map((t) => `code tool ${t}`)].join(', ')}; it is shown only now. Send it as X-API-Key or Authorization: Bearer.${note}\n`,
    );
  });

/** `token list`. */
export const list = (flags: TokenFlags) =>
  withStore(
    flags,
    async ({ store, note }) => {
      const tokens = await store.list();
      if (flags.output === 'json') {
        await printJson({ tokens });
        return;
      }
      const counted = `${tokens.length} agent token${tokens.length === 1 ? '' : 's'}`;
      if (note) process.stderr.write(`codemux: ${counted}${note}\n`);
      process.stdout.write(
        renderTable(
          ['NAME', 'SERVERS', 'CODE TOOLS', 'CREATED', 'LAST USED'],
          tokens.map((t) => [
            t.name,
            t.servers.join(','),
            t.code_tools.join(','),
            t.created_at,
            t.last_used_at ?? 'never',
          ]),
        ),
      );
    },
    true,
  );

/** `token revoke <name>`. */
export const revoke = (name: string, flags: TokenFlags) =>
  withStore(
    flags,
    async ({ store, note }) => {
      if (await store.revoke(name)) {
        process.stdout.write(`revoked "${name}"${note}\n`);
      } else {
        process.stderr.write(`codemux: no token named "${name}"${note}\n`);
        process.exitCode = EXIT_FAILED;
      }
    },
    true,
  );
