// Build step: bundles the dashboard's client (src/ui/client) with CodeMirror and Chart.js into
// dist/ui/assets/app.js and its stylesheets into app.css; the gateway serves both from /ui/assets/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const client = path.join(root, 'src', 'ui', 'client');
const out = path.join(root, 'dist', 'ui', 'assets');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
await build({
  entryPoints: [path.join(client, 'main.ts')],
  outfile: path.join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
// One stylesheet served: styles.css and the files it imports, in their order.
await build({
  entryPoints: [path.join(client, 'styles.css')],
  outfile: path.join(out, 'app.css'),
  bundle: true,
  logLevel: 'warning',
});
