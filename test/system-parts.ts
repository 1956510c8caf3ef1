/**
 * @module What the test suite needs from the system (README, "Testing"; `.ci/run` installs
 * the same): where each part is looked for, and a one-line failure saying how to install it.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The Chromium the dashboard tests drive (playwright-core downloads no browser). */
export const CHROMIUM = '/usr/bin/chromium';
/** The Prometheus the metrics tests start to scrape the gateway. */
export const PROMETHEUS = '/usr/bin/prometheus';
/** Where Debian's PostgreSQL packages put each version's binaries (`<version>/bin/initdb`). */
export const POSTGRES_ROOT = '/usr/lib/postgresql';

/** The one-line failure for a missing system part. */
export function missingPart(what: string, install: string): Error {
  const error = new Error(`${what}: install it with \`${install}\` (see README, Testing)`);
  // The message is the whole story: no stack to scroll past.
  error.stack = error.message;
  return error;
}

/** `file` when Chromium is there; else throws the one line saying how to install it. */
export function chromiumPath(file = CHROMIUM): string {
  if (!fs.existsSync(file))
    throw missingPart(`Chromium not found at ${file}`, 'apt-get install -y chromium');
  return file;
}

/** `file` when Prometheus is there; else throws the one line saying how to install it. */
export function prometheusPath(file = PROMETHEUS): string {
  if (!fs.existsSync(file))
    throw missingPart(`Prometheus not found at ${file}`, 'apt-get install -y prometheus');
  return file;
}

/** The newest installed PostgreSQL's bin directory under `root`; else throws the one line. */
export function postgresBinDir(root = POSTGRES_ROOT): string {
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw missingPart(
      `PostgreSQL's initdb not found under ${root}/*/bin`,
      'apt-get install -y postgresql',
    );
  return path.join(root, versions[0]!, 'bin');
}
