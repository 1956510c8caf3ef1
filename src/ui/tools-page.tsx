/** @module The Tools pages' shells: a search over every tool, and one tool with its signature, schema and Try form. */
import { Crumb, RowsTable } from './shell-pieces.tsx';

export function ToolsBody() {
  return (
    <>
      <h1>Tools</h1>
      {/* A plain GET form: the query lands in the URL (?q=), so a view can be shared. */}
      <search aria-label="Search tools">
        <form class="row" method="get" action="/ui/tools">
          <div>
            <label for="q">Search</label>
            <input
              id="q"
              name="q"
              type="search"
              placeholder="words of a name, description or parameter"
            />
          </div>
          <div class="actions">
            <button type="submit">Search</button>
          </div>
        </form>
      </search>
      <RowsTable
        label="Tools"
        columns={['Server', 'Tool', 'Description', 'Annotations']}
        body="rows"
      />
    </>
  );
}

export function ToolBody({ server, tool }: { server: string; tool: string }) {
  return (
    <>
      <Crumb
        links={[
          { href: '/ui/tools', label: 'Tools' },
          { href: `/ui/servers/${encodeURIComponent(server)}`, label: server },
        ]}
      />
      <h1>{`${server}.${tool}`}</h1>
      <p id="description" />
      <dl id="facts" class="fields" />
      {/* The blocks are named by their own aria-label; a labelled section would share the name. */}
      <h2>Signature</h2>
      <div id="signature" />
      <h2>Input schema</h2>
      <div id="schema" />
      <section aria-labelledby="try-title">
        <h2 id="try-title">Try it</h2>
        <p class="hint">
          The call runs as a program's <code>call_tool</code> would: tool_policy, approvals, held
          tools and disabled servers apply, and it is recorded in Activity.
        </p>
        <form id="try-form" aria-label="Try" class="stack">
          <div id="try-fields" class="stack" />
          <div class="actions">
            <button type="submit">Try</button>
          </div>
        </form>
        <section aria-label="Result" id="result" class="result" />
      </section>
    </>
  );
}
