// fs.globSync for Node 20 (added in Node 22), enough for the MCP conformance suite, which
// looks for `**/checks.json` under a results folder: `**/` and `*` patterns, files only.
import fs from 'node:fs';
import path from 'node:path';

function toRegExp(pattern) {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (pattern.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const patterns = (Array.isArray(pattern) ? pattern : [pattern]).map(toRegExp);
  const entries = fs.readdirSync(cwd, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) =>
      path
        .relative(cwd, path.join(e.parentPath ?? e.path, e.name))
        .split(path.sep)
        .join('/'),
    )
    .filter((p) => patterns.some((re) => re.test(p)));
}
