/** @module The dashboard's static assets (built by scripts/build-ui.js into dist/ui/assets/), served with long-cache headers. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AssetUrls } from './layout.tsx';

/** Asset URLs carry a content hash, so a year of caching never serves a stale file. */
export const ASSET_MAX_AGE_S = 365 * 24 * 60 * 60;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export interface Asset {
  body: Buffer;
  type: string;
}

/** dist/ui/assets beside the compiled module; from src/ui (tests importing sources), the built one. */
function assetsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const beside = path.join(here, 'assets');
  if (fs.existsSync(path.join(beside, 'app.js'))) return beside;
  return path.resolve(here, '..', '..', 'dist', 'ui', 'assets');
}

export class UiAssets {
  private readonly files = new Map<string, Asset>();
  readonly urls: AssetUrls;

  constructor(dir: string = assetsDir()) {
    const entries = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    for (const name of entries) {
      const type = TYPES[path.extname(name)];
      if (type) this.files.set(name, { body: fs.readFileSync(path.join(dir, name)), type });
    }
    const url = (name: string) => {
      const file = this.files.get(name);
      const version = file
        ? createHash('sha256').update(file.body).digest('hex').slice(0, 12)
        : 'missing';
      return `/ui/assets/${name}?v=${version}`;
    };
    this.urls = { script: url('app.js'), style: url('app.css') };
  }

  get(name: string): Asset | undefined {
    return this.files.get(name);
  }
}
