import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.ts';
import { loadSecretKey, parseSecretKey, SECRET_KEY_FILE } from './secret-key.ts';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-secret-key-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('loadSecretKey from CODEMUX_SECRET_KEY', () => {
  const key = randomBytes(32);
  it.each([
    ['hex', key.toString('hex')],
    ['upper-case hex', key.toString('hex').toUpperCase()],
    ['base64', key.toString('base64')],
    ['base64 without padding', key.toString('base64').replace(/=$/, '')],
    ['base64url', key.toString('base64url')],
    ['hex with a trailing newline', `${key.toString('hex')}\n`],
  ])('reads %s, writing no file', (_label, value) => {
    const dataDir = path.join(tmp, 'data');
    const loaded = loadSecretKey(dataDir, { CODEMUX_SECRET_KEY: value });
    expect(loaded).toEqual({ key, source: 'env' });
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it.each([
    ['a password', 'correct horse battery staple'],
    ['63 hex characters', 'a'.repeat(63)],
    ['65 hex characters', 'a'.repeat(65)],
    ['16 bytes of hex', randomBytes(16).toString('hex')],
    ['48 bytes of base64', randomBytes(48).toString('base64')],
    ['31 bytes of base64', randomBytes(31).toString('base64')],
    ['mixed base64 alphabets', `+_${randomBytes(32).toString('base64url').slice(2)}`],
  ])('refuses %s, naming the variable, what it needs and how to make one', (_label, value) => {
    const load = () => loadSecretKey(tmp, { CODEMUX_SECRET_KEY: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/^CODEMUX_SECRET_KEY is not a usable key: it needs 32 random bytes/);
    expect(load).toThrow('`openssl rand -hex 32`');
    try {
      load();
    } catch (error) {
      expect((error as Error).message).not.toContain(value);
    }
  });

  it('reads an empty variable as unset', () => {
    expect(loadSecretKey(tmp, { CODEMUX_SECRET_KEY: '' }).source).toBe('file');
  });
});

describe('loadSecretKey from data_dir/secret_key', () => {
  it('generates a key once (hex, mode 0600, its directory 0700) and reads it afterwards', () => {
    const dataDir = path.join(tmp, 'nested', 'data');
    const first = loadSecretKey(dataDir, {});
    const file = path.join(dataDir, SECRET_KEY_FILE);
    expect(first).toEqual({ key: expect.any(Buffer), source: 'file', file });
    expect(first.key).toHaveLength(32);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${first.key.toString('hex')}\n`);
    expect(mode(file)).toBe(0o600);
    expect(mode(dataDir)).toBe(0o700);
    expect(loadSecretKey(dataDir, {})).toEqual(first);
  });

  it('prefers the variable to an existing file', () => {
    const fromFile = loadSecretKey(tmp, {});
    const key = randomBytes(32);
    expect(loadSecretKey(tmp, { CODEMUX_SECRET_KEY: key.toString('hex') }).key).toEqual(key);
    expect(loadSecretKey(tmp, {}).key).toEqual(fromFile.key);
  });

  it('reads a key file a person wrote in base64', () => {
    const key = randomBytes(32);
    fs.writeFileSync(path.join(tmp, SECRET_KEY_FILE), key.toString('base64'));
    expect(loadSecretKey(tmp, {}).key).toEqual(key);
  });

  it.each([
    ['a password', 'hunter2\n'],
    ['a short hex key', `${'ab'.repeat(20)}\n`],
    ['an empty file', ''],
  ])('refuses a key file holding %s, naming the file', (_label, content) => {
    const file = path.join(tmp, SECRET_KEY_FILE);
    fs.writeFileSync(file, content);
    // Once: an empty or partly hex file is first awaited as one another process is writing.
    let thrown: unknown;
    try {
      loadSecretKey(tmp, {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toContain(`${file} does not hold a usable secret key`);
    // Never replaced: the sealed credentials may still be recovered with the old key.
    expect(fs.readFileSync(file, 'utf8')).toBe(content);
  });

  it('gives every process starting at once the same key', async () => {
    const dataDir = path.join(tmp, 'data');
    const start = Date.now() + 1_500;
    const probe = `import('${path.resolve('src/store/secret-key.ts')}').then((m) => {
      while (Date.now() < ${start});
      process.stdout.write(m.loadSecretKey(${JSON.stringify(dataDir)}, {}).key.toString('hex'));
    })`;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '-e', probe], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
        });
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
      });
    const keys = await Promise.all([run(), run(), run(), run()]);
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(keys).size).toBe(1);
    expect(loadSecretKey(dataDir, {}).key.toString('hex')).toBe(keys[0]);
  });
});

describe('parseSecretKey', () => {
  it('reads hex before base64 (64 hex characters are valid base64 too)', () => {
    const hex = randomBytes(32).toString('hex');
    expect(parseSecretKey(hex)?.toString('hex')).toBe(hex);
  });
});
