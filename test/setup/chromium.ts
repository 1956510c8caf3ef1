/**
 * @module Vitest globalSetup of the `browser` tier: one headless Chromium for the whole run,
 * listening on 127.0.0.1; test files connect to it (test/dashboard-session.ts) and each opens
 * its own browser contexts. Closed at teardown, also after a failed run.
 */
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { chromiumPath } from '../system-parts.ts';
import { startPart } from './provided.ts';

/** Flags for a headless Chromium in a container (no sandbox: we may run as root), quiet on the network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let stop = async () => {};
  const part = await startPart(async () => {
    const server = await chromium.launchServer({
      executablePath: chromiumPath(),
      args: CHROMIUM_ARGS,
      host: '127.0.0.1',
    });
    stop = () => server.close();
    return server.wsEndpoint();
  });
  project.provide('chromium', part);
  return () => stop();
}
