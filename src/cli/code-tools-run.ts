/**
 * @module `codemux code-tools list|show|export|import` at work: code tools in the config's data_dir.
 * A running gateway notices the change within a second and tells its MCP clients.
 */
import fs from 'node:fs';
import type { CodeTools } from '../codetools/index.ts';
import { isListed } from '../codetools/index.ts';
import { EXIT_FAILED, EXIT_USAGE } from './exit-codes.ts';
import { loadConfigOrExit } from './load-config.ts';
import { printJson } from './output.ts';
import { renderTable } from './table.ts';

interface Flags {
  config?: string;
  output?: string;
  file?: string;
}

/** Runs `body` with the code tools of the config's data_dir. */
async function withCodeTools(
  flags: Flags,
  body: (tools: CodeTools) => Promise<void>,
): Promise<void> {
  const config = loadConfigOrExit(flags);
  if (!config) return;
  // The database loads only for these commands.
  const { openStoreOrExit } = await import('./open-store.ts');
  const { CodeTools } = await import('../codetools/code-tools.ts');
  const store = await openStoreOrExit(config);
  try {
    await body(new CodeTools(store.codeTools, () => config));
  } finally {
    await store.close();
  }
}

const fail = (message: string, exitCode: number) => {
  process.stderr.write(`codemux: ${message}\n`);
  process.exitCode = exitCode;
};

/** `code-tools list`. */
export const list = (flags: Flags) =>
  withCodeTools(flags, async (codeTools) => {
    const tools = await codeTools.all();
    if (flags.output === 'json') return printJson({ tools });
    process.stdout.write(
      renderTable(
        ['NAME', 'LISTED', 'PARAMS', 'VERSION', 'DESCRIPTION'],
        tools.map((t) => [
          t.name,
          isListed(t) ? 'yes' : t.enabled ? 'no (empty)' : 'no (disabled)',
          t.params.map((p) => `${p.name}:${p.type}${p.required ? '' : '?'}`).join(' '),
          String(t.version),
          t.description,
        ]),
      ),
    );
  });

/** `code-tools show <name>`. */
export const show = (name: string, flags: Flags) =>
  withCodeTools(flags, async (codeTools) => {
    const found = await codeTools.get(name);
    if (!found.ok) return fail(found.message, EXIT_FAILED);
    await printJson(found.value);
  });

/** `code-tools export`. */
export const exportAll = (flags: Flags) =>
  withCodeTools(flags, async (codeTools) => {
    const doc = await codeTools.exportDocument();
    if (!flags.file) return printJson(doc);
    fs.writeFileSync(flags.file, `${JSON.stringify(doc, null, 2)}\n`);
    process.stderr.write(`exported ${doc.tools.length} code tools to ${flags.file}\n`);
  });

/** `code-tools import <file>`. */
export const importFile = (file: string, flags: Flags) =>
  withCodeTools(flags, async (codeTools) => {
    let doc: unknown;
    try {
      doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      return fail(`cannot read ${file}: ${(error as Error).message}`, EXIT_USAGE);
    }
    const imported = await codeTools.importDocument(doc);
    if (!imported.ok) return fail(`${file}: ${imported.message}`, EXIT_USAGE);
    process.stdout.write(
      `imported ${imported.value.imported.length} code tools: ${imported.value.imported.join(', ')}\n`,
    );
  });
