/**
 * @module The dashboard's screenshots in docs/images/ (docs/dashboard.md links them), written
 * only by `npm run screenshots` (CODEMUX_SCREENSHOTS=1): a plain test run leaves the tree as it
 * found it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from './helpers.ts';

export const DOC_IMAGES = path.join(ROOT, 'docs', 'images');

/** True when the run was asked to write the docs' screenshots (`npm run screenshots`). */
export const SCREENSHOTS = process.env.CODEMUX_SCREENSHOTS === '1';

/** Writes docs/images/`name`.png of `page` (the whole page), when SCREENSHOTS. */
export async function docImage(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  fs.mkdirSync(DOC_IMAGES, { recursive: true });
  // caret: 'initial': hiding the caret injects a <style>, which the CSP rightly refuses.
  await page.screenshot({
    path: path.join(DOC_IMAGES, `${name}.png`),
    fullPage: true,
    caret: 'initial',
  });
}

/** Writes docs/images/`name`.png of `page` at a fixed width (the whole page), when SCREENSHOTS. */
export async function docShot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  await page.setViewportSize({ width: 1280, height: 800 });
  await docImage(page, name);
}
