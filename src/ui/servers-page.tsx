/** @module The Servers pages' shells: the list with "Add server", and one server's page (actions, edit, history, stderr, tools). */
import { Crumb, DialogActions, RowsTable } from './shell-pieces.tsx';

function ServerFormDialog() {
  return (
    <dialog id="server-dialog" aria-labelledby="server-dialog-title">
      <form id="server-form" class="stack">
        <h2 id="server-dialog-title">Add server</h2>
        <label for="sf-name">Name</label>
        <input id="sf-name" name="name" required pattern="[A-Za-z0-9_\-]{1,64}" />
        <label for="sf-type">Type</label>
        <select id="sf-type" name="type">
          <option value="stdio">stdio (a command)</option>
          <option value="http">http (Streamable HTTP URL)</option>
          <option value="sse">sse (legacy SSE URL)</option>
        </select>
        <div data-for="stdio" class="stack">
          <label for="sf-command">Command</label>
          <input id="sf-command" name="command" placeholder="npx" />
          <label for="sf-args">Arguments, one per line</label>
          <textarea
            id="sf-args"
            name="args"
            class="mono"
            rows={3}
            placeholder={'-y\n@modelcontextprotocol/server-filesystem\n/tmp'}
            aria-describedby="sf-args-hint"
          />
          <p id="sf-args-hint" class="hint">
            Each line is one argument, passed as it is: a line is not split at spaces, and no shell
            reads it (no quotes, no <code>$VAR</code>).
          </p>
          <label for="sf-cwd">Working directory</label>
          <input id="sf-cwd" name="cwd" placeholder="empty: the config file's directory" />
          <label for="sf-env">Environment</label>
          <textarea
            id="sf-env"
            class="mono"
            name="env"
            rows={3}
            placeholder="KEY=value, one per line; [hidden] keeps the saved value"
          />
        </div>
        <div data-for="http" class="stack">
          <label for="sf-url">URL</label>
          <input id="sf-url" name="url" type="url" placeholder="https://example.com/mcp" />
          <label for="sf-headers">Headers</label>
          <textarea
            id="sf-headers"
            class="mono"
            name="headers"
            rows={2}
            placeholder="Name: value, one per line; [hidden] keeps the saved value"
          />
        </div>
        <p class="hint">
          Saved to the config file, which stays the source of truth; the gateway applies it at once.
        </p>
        <p class="error" role="alert" id="server-error" />
        <DialogActions submit="Add" submitId="server-submit" />
      </form>
    </dialog>
  );
}

export function ServersBody() {
  return (
    <>
      <h1>Servers</h1>
      <p>
        <button type="button" id="add-server">
          Add server
        </button>
      </p>
      <RowsTable
        label="Servers"
        columns={['Name', 'State', 'Protocol', 'Tools', 'Last error']}
        body="rows"
        hidden="Actions"
      />
      <ServerFormDialog />
    </>
  );
}

export function ServerBody({ name }: { name: string }) {
  return (
    <>
      <Crumb links={[{ href: '/ui/servers', label: 'Servers' }]} />
      <h1>{name}</h1>
      <p class="server-state" id="server-state" />
      <div class="actions" id="server-actions" />
      <ServerFormDialog />

      <h2>{`Tools of ${name}`}</h2>
      <RowsTable
        label={`Tools of ${name}`}
        columns={['Tool', 'Description', 'Annotations', 'Policy', 'Input schema', 'Status']}
        body="rows"
      />

      <section aria-labelledby="history-title">
        <h2 id="history-title">State history</h2>
        <RowsTable
          label="State history"
          columns={['Time', 'Event', 'Detail']}
          body="history-rows"
        />
      </section>

      <section aria-labelledby="stderr-title">
        <h2 id="stderr-title">Stderr</h2>
        <p class="hint">
          The last 200 lines the server wrote (stdio servers); values of its environment show as
          [redacted].{' '}
          <button type="button" id="stderr-refresh" class="secondary">
            Refresh
          </button>
        </p>
        <pre class="output" id="stderr" role="log" aria-label="Stderr" tabindex={0} />
      </section>
    </>
  );
}
