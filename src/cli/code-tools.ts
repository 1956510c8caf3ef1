/**
 * @module `codemux code-tools list|show|export|import`: code tools in the config's data_dir.
 * A running gateway notices the change within a second and tells its MCP clients.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import type { CodeTools } from '../codetools/index.ts';
import { isListed } from '../codetools/index.ts';
import { EXIT_FAILED, EXIT_USAGE } from './exit-codes.ts';
import { loadConfigOrExit } from './load-config.ts';
import { addOutputOption } from './options.ts';
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

export function registerCodeTools(program: Command): void {
  const group = program
    .command('code-tools')
    .description('Code tools: named MCP tools made of a JavaScript body and typed parameters');
  const configOption = [
    '--config <path>',
    'MCP configuration file (its data_dir holds the code tools)',
  ] as const;

  const list = group
    .command('list')
    .description('List the code tools')
    .option(...configOption);
  addOutputOption(list, ['table', 'json']).action((flags: Flags) =>
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
    }),
  );

  group
    .command('show <name>')
    .description('Show one code tool with its params, as JSON')
    .option(...configOption)
    .action((name: string, flags: Flags) =>
      withCodeTools(flags, async (codeTools) => {
        const found = await codeTools.get(name);
        if (!found.ok) return fail(found.message, EXIT_FAILED);
        await printJson(found.value);
      }),
    );

  group
    .command('export')
    .description('Write every code tool with its params as one JSON document')
    .option(...configOption)
    .option('--file <path>', 'write to this file instead of stdout')
    .action((flags: Flags) =>
      withCodeTools(flags, async (codeTools) => {
        const doc = await codeTools.exportDocument();
        if (!flags.file) return printJson(doc);
        fs.writeFileSync(flags.file, `${JSON.stringify(doc, null, 2)}\n`);
        process.stderr.write(`exported ${doc.tools.length} code tools to ${flags.file}\n`);
      }),
    );

  group
    .command('import <file>')
    .description('Create or replace the code tools of an exported document (all or nothing)')
    .option(...configOption)
    .action((file: string, flags: Flags) =>
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
      }),
    );
}
