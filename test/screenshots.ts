/**
 * @module The dashboard's screenshots in docs/images/, taken by the test run so the docs show
 * the pages as they are (docs/dashboard.md links them).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from './helpers.ts';

export const DOC_IMAGES = path.join(ROOT, 'docs', 'images');

/** Writes docs/images/`name`.png of `page` at a fixed width (the whole page). */
export async function docShot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(DOC_IMAGES, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  // caret: 'initial': hiding the caret injects a <style>, which the CSP rightly refuses.
  await page.screenshot({
    path: path.join(DOC_IMAGES, `${name}.png`),
    fullPage: true,
    caret: 'initial',
  });
}
