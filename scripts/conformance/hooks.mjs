// Module hook: where node:fs has no globSync (Node 20), the conformance suite's import of it
// is pointed at glob-sync.mjs. Nothing else is changed, and nothing on disk.
import fs from 'node:fs';

const SHIM = new URL('./glob-sync.mjs', import.meta.url).href;
const FS_IMPORT = /import\{([^}]*)\}from"(?:node:)?fs"/;
/** The suite's bundle: 0.1.x as itself, 0.2.x under its npm alias (mcp-conformance-2026). */
const SUITE_DIST = /\/(?:@modelcontextprotocol\/conformance|mcp-conformance-2026)\/dist\//;

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (typeof fs.globSync === 'function' || !SUITE_DIST.test(url)) return result;
  const source = String(result.source);
  const match = FS_IMPORT.exec(source);
  const names = match?.[1].split(',') ?? [];
  const glob = names.find((n) => /^globSync(\s+as\s+\w+)?$/.test(n.trim()));
  if (!match || !glob) return result;
  const rest = names.filter((n) => n !== glob).join(',');
  const patched = source.replace(
    match[0],
    `import{${rest}}from"fs";import{${glob}}from${JSON.stringify(SHIM)}`,
  );
  return { ...result, source: patched };
}
