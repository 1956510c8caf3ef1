import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listScripts } from './listing.ts';
import { scriptNameProblem } from './name.ts';
import { resolveScript } from './resolve.ts';

let root: string;
let dir: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-scripts-'));
  dir = path.join(root, 'scripts');
  fs.mkdirSync(dir);
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const admin = (name: string, language?: 'javascript' | 'typescript') =>
  resolveScript(name, { dir, admin: true, language });
const agent = (name: string) => resolveScript(name, { dir, admin: false });
const write = (file: string, text: string) => fs.writeFileSync(path.join(dir, file), text);

describe('script names', () => {
  it.each([
    ['../etc/passwd', '"."'],
    ['a/b', '"/"'],
    ['a\\b', '"\\"'],
    ['/abs', '"/"'],
    ['fetch.prs', '"."'],
    ['fetch-prs.js', '"."'],
    ['..', '"."'],
    ['f\u0000x', '"\\u0000" (U+0000)'],
    ['pаypal', '"а" (U+0430)'],
    ['ﬁle', '"ﬁ" (U+FB01)'],
    ['a b', '" " (U+0020)'],
    ['x'.repeat(65), '65 characters long'],
  ])('refuses %j naming %s', (name, detail) => {
    expect(scriptNameProblem(name)).toContain(detail);
  });
  it.each(['a', 'fetch-prs', 'Daily_Report', 'x'.repeat(64), '0-9_-'])('accepts %j', (name) => {
    expect(scriptNameProblem(name)).toBeUndefined();
  });
  it('refuses an invalid name without touching the filesystem', () => {
    fs.rmSync(dir, { recursive: true });
    fs.writeFileSync(path.join(root, 'passwd.js'), '1');
    expect(admin('../passwd')).toMatchObject({ ok: false, code: 'INVALID_SCRIPT_NAME' });
    expect(admin('../passwd')).toMatchObject({
      message: expect.stringContaining('character "." is not allowed'),
    });
  });
});

describe('resolveScript', () => {
  it('reads a .js or .ts script and takes the language from the extension', () => {
    write('fetch-prs.ts', 'const n: number = 1; n');
    write('plain.js', '2');
    expect(admin('fetch-prs')).toMatchObject({
      ok: true,
      language: 'typescript',
      source: 'const n: number = 1; n',
    });
    expect(admin('plain')).toMatchObject({ ok: true, language: 'javascript' });
  });

  it('refuses a language that contradicts the extension', () => {
    write('t.ts', '1');
    expect(admin('t', 'javascript')).toMatchObject({
      ok: false,
      code: 'INVALID_LANGUAGE',
      message: expect.stringContaining(
        'stored script "t" is a .ts file (typescript) but language "javascript" was requested',
      ),
    });
    expect(admin('t', 'typescript').ok).toBe(true);
  });

  it('matches extensions exactly: .JS, .mjs and .jsx are not scripts', () => {
    write('backdoor.JS', '1');
    write('m.mjs', '1');
    write('x.jsx', '1');
    for (const name of ['backdoor', 'm', 'x'])
      expect(admin(name)).toMatchObject({ code: 'SCRIPT_NOT_FOUND' });
    expect(listScripts(dir).scripts).toEqual([]);
  });

  it('lists the first 20 ok names and the total to an administrator', () => {
    for (let i = 0; i < 25; i++) write(`s${String(i).padStart(2, '0')}.js`, '1');
    write('broken.js', '');
    const result = admin('missing');
    expect(result.ok).toBe(false);
    const message = (result as { message: string }).message;
    expect(message).toContain(
      `stored script "missing" not found in ${dir}. Available scripts (25): s00, s01,`,
    );
    expect(message).toContain('s19, …');
    expect(message).not.toContain('s20');
    expect(message).not.toContain('broken');
  });

  it('says how to create one when there are none, and never creates the directory', () => {
    fs.rmSync(dir, { recursive: true });
    expect(admin('x')).toMatchObject({
      code: 'SCRIPT_NOT_FOUND',
      message: `Cannot execute stored script: stored script "x" not found: no stored scripts in ${dir} (create x.js or x.ts there)`,
    });
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('tells an agent token nothing, whether the directory is empty or full', () => {
    const empty = agent('x');
    write('a.js', '1');
    write('b.js', '1');
    const full = agent('x');
    expect(empty).toEqual(full);
    expect(JSON.stringify(full)).not.toContain(dir);
    expect(JSON.stringify(full)).not.toContain('a, b');
  });

  it('refuses both extensions as ambiguous, naming both paths (admin) or none (agent)', () => {
    write('triage.js', '1');
    write('triage.ts', '1');
    expect(admin('triage')).toMatchObject({
      code: 'SCRIPT_UNUSABLE',
      message: `Cannot execute stored script: stored script "triage" is ambiguous: ${path.join(dir, 'triage.js')} and ${path.join(dir, 'triage.ts')} both exist — remove one`,
    });
    expect((agent('triage') as { message: string }).message).toBe(
      'Cannot execute stored script: stored script "triage" is ambiguous: both a .js and a .ts file exist — ask an administrator to remove one',
    );
  });

  it('accepts 262144 bytes and refuses 262145 and 0', () => {
    write('max.js', `/*${'x'.repeat(262_139)}*/1`);
    write('over.js', `/*${'x'.repeat(262_140)}*/1`);
    write('empty.js', '');
    expect(fs.statSync(path.join(dir, 'max.js')).size).toBe(262_144);
    expect(admin('max').ok).toBe(true);
    expect(admin('over')).toMatchObject({
      code: 'SCRIPT_UNUSABLE',
      message: `Cannot execute stored script: stored script "over" (${path.join(dir, 'over.js')}) is oversized: scripts are limited to 262144 bytes`,
    });
    expect((agent('over') as { message: string }).message).toBe(
      'Cannot execute stored script: stored script "over" is oversized: scripts are limited to 262144 bytes',
    );
    expect(admin('empty')).toMatchObject({
      code: 'SCRIPT_UNUSABLE',
      message: expect.stringContaining('is empty'),
    });
  });

  it('refuses a symlink at the script path, pointing in or out of the directory', () => {
    write('real.js', '1');
    fs.writeFileSync(path.join(root, 'outside.js'), '"secret"');
    fs.symlinkSync(path.join(dir, 'real.js'), path.join(dir, 'inside.js'));
    fs.symlinkSync(path.join(root, 'outside.js'), path.join(dir, 'escape.js'));
    for (const name of ['inside', 'escape']) {
      expect(admin(name)).toMatchObject({
        code: 'SCRIPT_UNUSABLE',
        message: expect.stringContaining('not a regular file'),
      });
    }
    expect(listScripts(dir).scripts.find((s) => s.name === 'escape')).toMatchObject({
      status: 'invalid',
      reason: 'non-regular',
    });
  });

  it('allows the scripts directory itself to be a symlink', () => {
    const real = path.join(root, 'real-scripts');
    fs.mkdirSync(real);
    fs.writeFileSync(path.join(real, 'ok.js'), '1');
    fs.rmSync(dir, { recursive: true });
    fs.symlinkSync(real, dir);
    expect(admin('ok').ok).toBe(true);
  });

  it('refuses a FIFO at once instead of blocking on it', () => {
    execFileSync('mkfifo', [path.join(dir, 'pipe.js')]);
    // Opening the FIFO would block this thread for good: the answer coming back at all is the check.
    expect(admin('pipe')).toMatchObject({
      code: 'SCRIPT_UNUSABLE',
      message: expect.stringContaining('not a regular file'),
    });
    expect(listScripts(dir).scripts).toEqual([
      {
        name: 'pipe',
        paths: [path.join(dir, 'pipe.js')],
        status: 'invalid',
        reason: 'non-regular',
      },
    ]);
  });

  it('refuses a directory named like a script', () => {
    fs.mkdirSync(path.join(dir, 'd.js'));
    expect(admin('d')).toMatchObject({
      code: 'SCRIPT_UNUSABLE',
      message: expect.stringContaining('not a regular file'),
    });
  });

  it('reports an unreadable file (chmod 000) without the OS error for agents', () => {
    write('locked.js', '1');
    fs.chmodSync(path.join(dir, 'locked.js'), 0o000);
    // Root reads anything: judge it without the capabilities that override file permissions.
    const probe = `import('${path.resolve('src/scripts/resolve.ts')}').then((m) => {
      const a = m.resolveScript('locked', { dir: ${JSON.stringify(dir)}, admin: true });
      const b = m.resolveScript('locked', { dir: ${JSON.stringify(dir)}, admin: false });
      process.stdout.write(JSON.stringify([a, b]));
    })`;
    const node = [process.execPath, '--import', 'tsx', '-e', probe];
    const [command, ...args] =
      process.getuid?.() === 0
        ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', ...node]
        : node;
    const out = execFileSync(command!, args, { cwd: process.cwd() });
    const [a, b] = JSON.parse(out.toString()) as Array<{ code: string; message: string }>;
    expect(a).toMatchObject({
      code: 'SCRIPT_UNUSABLE',
      message: expect.stringContaining('is unreadable (EACCES'),
    });
    expect(b!.message).toBe('Cannot execute stored script: stored script "locked" is unreadable');
  });

  it('sees an atomic replace on the next call (no cache)', () => {
    write('live.js', '"v1"');
    expect(admin('live')).toMatchObject({ source: '"v1"' });
    write('.live.tmp', '"v2"');
    fs.renameSync(path.join(dir, '.live.tmp'), path.join(dir, 'live.js'));
    expect(admin('live')).toMatchObject({ source: '"v2"' });
    fs.rmSync(path.join(dir, 'live.js'));
    expect(admin('live')).toMatchObject({ code: 'SCRIPT_NOT_FOUND' });
  });
});

describe('listScripts', () => {
  it('names the directory, sorts by name, and gives statuses with reasons', () => {
    write('daily-report.ts', '1');
    write('fetch-prs.js', '1');
    write('half-written.js', '');
    write('triage.js', '1');
    write('triage.ts', '1');
    write('not a script.js', '1');
    expect(listScripts(dir)).toEqual({
      dir,
      scripts: [
        { name: 'daily-report', paths: [path.join(dir, 'daily-report.ts')], status: 'ok' },
        { name: 'fetch-prs', paths: [path.join(dir, 'fetch-prs.js')], status: 'ok' },
        {
          name: 'half-written',
          paths: [path.join(dir, 'half-written.js')],
          status: 'invalid',
          reason: 'empty',
        },
        {
          name: 'triage',
          paths: [path.join(dir, 'triage.js'), path.join(dir, 'triage.ts')],
          status: 'ambiguous',
        },
      ],
    });
  });
  it('is empty for an absent directory', () => {
    expect(listScripts(path.join(root, 'nope'))).toEqual({
      dir: path.join(root, 'nope'),
      scripts: [],
    });
  });
});
