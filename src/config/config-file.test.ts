import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigEditError, ConfigFile, HIDDEN_VALUE, shownEntry } from './config-file.ts';

function fileWith(text?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-config-file-'));
  const file = path.join(dir, 'mcp_config.json');
  if (text !== undefined) fs.writeFileSync(file, text);
  return file;
}

const read = (file: string) => fs.readFileSync(file, 'utf8');

describe('ConfigFile', () => {
  it('edits the object shape in place, keeping the other keys and the indentation', async () => {
    const file = fileWith(
      '{\n\t"mcpServers": {\n\t\t"gh": {"command": "gh-mcp"}\n\t},\n\t"mine": [1, 2]\n}\n',
    );
    const config = new ConfigFile(file);
    await config.update('gh', { enabled: false });
    await config.add({ name: 'web', url: 'https://example.com/mcp' });
    const doc = JSON.parse(read(file));
    expect(doc).toEqual({
      mcpServers: {
        gh: { command: 'gh-mcp', enabled: false },
        web: { url: 'https://example.com/mcp' },
      },
      mine: [1, 2],
    });
    expect(read(file)).toContain('\n\t"mine": [1, 2]\n');
    await config.remove('gh');
    expect(Object.keys(JSON.parse(read(file)).mcpServers)).toEqual(['web']);
  });

  it('creates a missing file, with the array shape', async () => {
    const file = fileWith();
    await new ConfigFile(file, { mayCreate: true }).add({ name: 'a', command: 'x' });
    expect(JSON.parse(read(file))).toEqual({ mcpServers: [{ name: 'a', command: 'x' }] });
  });

  it('refuses what the config would not accept and leaves the file as it was', async () => {
    const text = '{"mcpServers": [{"name": "a", "command": "x"}]}';
    const file = fileWith(text);
    const config = new ConfigFile(file);
    const refusal = await config.update('a', { queue_size: 'many' }).catch((e) => e);
    expect(refusal).toBeInstanceOf(ConfigEditError);
    expect(refusal).toMatchObject({ status: 400, field: 'mcpServers[0].queue_size' });
    expect(() => config.add({ command: 'x' })).toThrow(/"name" is required/);
    expect(read(file)).toBe(text);
  });

  it('runs one write at a time, each on the file as the last one left it', async () => {
    const file = fileWith('{"mcpServers": []}');
    const config = new ConfigFile(file);
    await Promise.all(['a', 'b', 'c'].map((name) => config.add({ name, command: 'x' })));
    const names = JSON.parse(read(file)).mcpServers.map((s: { name: string }) => s.name);
    expect(names.sort()).toEqual(['a', 'b', 'c']);
    expect(config.lastWritten).toBe(read(file));
  });

  it('never replaces a file gone since the start with one holding only the change', async () => {
    const file = fileWith();
    const refusal = await new ConfigFile(file).add({ name: 'a', command: 'x' }).catch((e) => e);
    expect(refusal).toMatchObject({ status: 409, message: expect.stringContaining('is gone') });
    expect(fs.existsSync(file)).toBe(false);
  });

  it('refuses to edit a server the object shape names twice', async () => {
    const text = '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}';
    const file = fileWith(text);
    const refusal = await new ConfigFile(file).update('a', { enabled: false }).catch((e) => e);
    expect(refusal).toMatchObject({ status: 409, message: expect.stringContaining('twice') });
    expect(read(file)).toBe(text);
  });

  it('hides secrets when shown and keeps them behind [hidden], refusing one it does not have', async () => {
    const entry = {
      name: 'w',
      url: 'https://example.com/mcp',
      headers: { Authorization: 'Bearer abc' },
      oauth: { client_id: 'c', client_secret: 's3cret' },
    };
    expect(shownEntry(entry)).toMatchObject({
      headers: { Authorization: HIDDEN_VALUE },
      oauth: { client_id: 'c', client_secret: HIDDEN_VALUE },
    });
    const file = fileWith(JSON.stringify({ mcpServers: [entry] }));
    const config = new ConfigFile(file);
    await config.update('w', { oauth: { client_id: 'd', client_secret: HIDDEN_VALUE } });
    expect(JSON.parse(read(file)).mcpServers[0].oauth).toEqual({
      client_id: 'd',
      client_secret: 's3cret',
    });
    const refusal = await config
      .update('w', { headers: { 'X-New': HIDDEN_VALUE } })
      .catch((e) => e);
    expect(refusal).toMatchObject({ status: 400, field: 'headers.X-New' });
  });
});
