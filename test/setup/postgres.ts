/**
 * @module Vitest globalSetup of the `pg` tier: one throwaway PostgreSQL server for the whole run
 * (test/postgres.ts), its port provided to the test files, each of which makes its own
 * databases (`sharedPostgres()`). Stopped at teardown, also after a failed run.
 */
import type { TestProject } from 'vitest/node';
import { startPostgres } from '../postgres.ts';
import { startPart } from './provided.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let stop = async () => {};
  const part = await startPart(async () => {
    const server = await startPostgres();
    stop = () => server.stop();
    return server.port;
  });
  project.provide('postgres', part);
  return () => stop();
}
