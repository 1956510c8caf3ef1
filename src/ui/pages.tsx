/** @module The dashboard's pages, server-rendered shells whose data the client layer reads from /api/v1. */
import { CODE_TOOL_PARAM_TYPES } from '../store/index.ts';
import { ChartFigure, Crumb, DialogActions, RowsTable } from './shell-pieces.tsx';

export function SignInBody({ error }: { error?: string }) {
  return (
    <section class="sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to codemux</h1>
      <form method="post" action="/ui/login">
        <label for="apikey">API key</label>
        <input id="apikey" name="apikey" type="password" autocomplete="current-password" required />
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit">Sign in</button>
      </form>
      <p class="hint">
        The admin API key is in the config's <code>api_key</code>, or in{' '}
        <code id="api-key-path">data/api_key</code> next to it.{' '}
        <button
          type="button"
          class="secondary copy"
          data-copy="api-key-path"
          aria-label="Copy key file path"
          hidden
        >
          Copy
        </button>
      </p>
    </section>
  );
}

export function CodeToolsBody() {
  return (
    <>
      <h1>Code tools</h1>
      <p>
        <button type="button" id="new-tool">
          New code tool
        </button>
      </p>
      <RowsTable
        label="Code tools"
        columns={['Name', 'Description', 'Enabled', 'Parameters', 'Updated']}
        body="rows"
      />
      <dialog id="new-tool-dialog" aria-labelledby="new-tool-title">
        <form id="new-tool-form">
          <h2 id="new-tool-title">New code tool</h2>
          <label for="new-name">Name</label>
          <input id="new-name" name="name" required pattern="[A-Za-z0-9_\-]{1,64}" />
          <label for="new-description">Description</label>
          <textarea id="new-description" name="description" rows={3} />
          <p class="error" role="alert" id="new-tool-error" />
          <DialogActions submit="Create" />
        </form>
      </dialog>
    </>
  );
}

export function CodeToolBody({ name }: { name: string }) {
  return (
    <>
      <Crumb links={[{ href: '/ui/code-tools', label: 'Code tools' }]} />
      <h1>{name}</h1>
      <form id="tool-form" aria-label="Configure" class="stack">
        <label for="tool-description">Description</label>
        <textarea id="tool-description" name="description" rows={2} />
        <span class="label" id="code-label">
          Code
        </span>
        <div class="editor" id="code-editor" data-label="Code" />
        <div class="row">
          <div>
            <label for="timeout">Timeout (ms)</label>
            <input id="timeout" name="timeout_ms" type="number" min={1} step={1} required />
          </div>
          <div>
            <label for="memory">Memory limit (MB)</label>
            <input id="memory" name="memory_limit_mb" type="number" min={1} step={1} required />
          </div>
          <div>
            <label for="allowed">Allowed servers</label>
            <input id="allowed" name="allowed_servers" placeholder="comma-separated; empty: none" />
          </div>
          <div class="check">
            <input id="enabled" name="enabled" type="checkbox" />
            <label for="enabled">Enabled</label>
          </div>
        </div>
        <div class="actions">
          <button type="submit">Save</button>
          <span role="status" id="save-status" class="inline-status" />
        </div>
      </form>

      <section aria-labelledby="params-title">
        <h2 id="params-title">Parameters</h2>
        <RowsTable
          label="Parameters"
          columns={['Name', 'Type', 'Required', 'Default value', 'Description']}
          body="param-rows"
          hidden="Actions"
        />
        <p>
          <button type="button" id="add-param">
            Add parameter
          </button>
        </p>
      </section>

      <dialog id="param-dialog" aria-labelledby="param-title">
        <form id="param-form">
          <h2 id="param-title">Parameter</h2>
          <label for="param-name">Name</label>
          <input id="param-name" name="name" required />
          <label for="param-description">Description</label>
          <input id="param-description" name="description" />
          <label for="param-type">Type</label>
          <select id="param-type" name="type">
            {CODE_TOOL_PARAM_TYPES.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
          <div class="check">
            <input id="param-required" name="required" type="checkbox" />
            <label for="param-required">Required</label>
          </div>
          <label for="param-default">Default value</label>
          <input
            id="param-default"
            name="default_value"
            placeholder="empty: none; JSON for array and object"
          />
          <p class="error" role="alert" id="param-error" />
          <DialogActions submit="Save" />
        </form>
      </dialog>

      <section aria-labelledby="test-title">
        <h2 id="test-title">Test</h2>
        <form id="test-form" aria-label="Test" class="stack">
          <div id="test-fields" class="stack" />
          <div class="actions">
            <button type="submit">Run test</button>
          </div>
        </form>
        <section aria-label="Test result" id="test-result" class="result" />
      </section>

      <section aria-labelledby="versions-title">
        <h2 id="versions-title">Versions</h2>
        <RowsTable
          label="Versions"
          columns={['Version', 'Saved', 'Enabled', 'Code']}
          body="version-rows"
          hidden="Actions"
        />
      </section>
    </>
  );
}

export function PlaygroundBody() {
  return (
    <>
      <h1>Playground</h1>
      <form id="play-form" aria-label="Playground" class="stack">
        <span class="label" id="code-label">
          Code
        </span>
        <div class="editor" id="code-editor" data-label="Code" />
        <label for="input">Input</label>
        <textarea id="input" name="input" class="mono" rows={4} spellcheck={false}>
          {'{}'}
        </textarea>
        <div class="row">
          <div>
            <label for="language">Language</label>
            <select id="language" name="language">
              <option value="javascript">JavaScript</option>
              <option value="typescript">TypeScript</option>
            </select>
          </div>
          <div class="check">
            <input id="dry-run" name="dry_run" type="checkbox" role="switch" aria-checked="false" />
            <label for="dry-run">Dry run</label>
          </div>
        </div>
        <div class="actions">
          <button type="submit">Run</button>
        </div>
      </form>
      <section aria-label="Result" id="result" class="result" />
    </>
  );
}

/** A text filter of the Activity page: its label, its query parameter, a hint. */
function TextFilter({ name, label, hint }: { name: string; label: string; hint?: string }) {
  return (
    <div>
      <label for={`filter-${name}`}>{label}</label>
      <input id={`filter-${name}`} name={name} placeholder={hint} />
    </div>
  );
}

export function ActivityBody() {
  return (
    <>
      <h1>Activity</h1>
      <form id="filters" class="row" aria-label="Filters">
        <div>
          <label for="filter-status">Status</label>
          <select id="filter-status" name="status">
            <option value="">any</option>
            {['success', 'tool_error', 'error', 'blocked', 'rejected'].map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </div>
        <div>
          <label for="filter-surface">Surface</label>
          <select id="filter-surface" name="surface">
            <option value="">any</option>
            {['mcp', 'rest', 'cli', 'codemode', 'code_tool', 'ui'].map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </div>
        <TextFilter name="server" label="Server" />
        <TextFilter name="tool" label="Tool" />
        <TextFilter name="caller" label="Caller" hint="admin or token:name" />
        <TextFilter name="since" label="Since" hint="local: 2026-12-01T10:00" />
        <TextFilter name="until" label="Until" hint="2026-12-02 (or …Z for UTC)" />
        <TextFilter name="search" label="Search" hint="text in code or arguments" />
        <div class="actions">
          <button type="submit">Filter</button>
        </div>
      </form>
      <p class="hint" id="live">
        New records appear here as they are written.
      </p>
      <RowsTable
        label="Activity"
        columns={['Started', 'Kind', 'Surface', 'Caller', 'Server / tool', 'Status', 'Duration']}
        body="rows"
      />
      <nav class="row" aria-label="Pages">
        <button type="button" id="previous" disabled>
          Previous
        </button>
        <span id="page-info" />
        <button type="button" id="next" disabled>
          Next
        </button>
      </nav>
    </>
  );
}

export function ActivityRecordBody({ id }: { id: string }) {
  return (
    <>
      <Crumb links={[{ href: '/ui/activity', label: 'Activity' }]} />
      <h1>{`Record ${id}`}</h1>
      <dl id="fields" class="fields" />
      <section aria-labelledby="children-title">
        <h2 id="children-title">Calls</h2>
        <RowsTable
          label="Calls"
          columns={['Started', 'Server / tool', 'Status', 'Duration']}
          body="rows"
        />
      </section>
      <section aria-labelledby="waterfall-title" id="waterfall" hidden>
        <h2 id="waterfall-title">Waterfall</h2>
        <p class="hint">
          Each call is a bar from when it started to when it ended, on the execution's time axis.
        </p>
        <ChartFigure id="calls" caption="Each upstream call on a time axis" />
      </section>
      <section aria-labelledby="json-title">
        <h2 id="json-title">JSON</h2>
        <pre id="json" class="output" tabindex={0} />
      </section>
    </>
  );
}

export function TokensBody() {
  return (
    <>
      <h1>Tokens</h1>
      <form id="token-form" aria-label="New token" class="stack">
        <h2>New token</h2>
        <label for="token-name">Name</label>
        <input id="token-name" name="name" required />
        <fieldset id="token-servers">
          <legend>Servers</legend>
        </fieldset>
        <fieldset id="token-code-tools">
          <legend>Code tools</legend>
        </fieldset>
        <div class="actions">
          <button type="submit">Create token</button>
        </div>
      </form>
      <section aria-label="New token secret" id="secret" class="result" />
      <RowsTable
        label="Tokens"
        columns={['Name', 'Servers', 'Code tools', 'Created', 'Last used']}
        body="rows"
        hidden="Actions"
      />
    </>
  );
}
