/** @module The Scripts pages' shells: the stored scripts listing, and one script's source with a Run form. */
import { Crumb, RowsTable } from './shell-pieces.tsx';

export function ScriptsBody() {
  return (
    <>
      <h1>Scripts</h1>
      <p class="hint">
        Stored scripts are files in scripts/ next to the config; this list is read only.
      </p>
      <RowsTable label="Scripts" columns={['Name', 'Status', 'Files', 'Problem']} body="rows" />
    </>
  );
}

export function ScriptBody({ name }: { name: string }) {
  return (
    <>
      <Crumb links={[{ href: '/ui/scripts', label: 'Scripts' }]} />
      <h1>{name}</h1>
      <p class="hint" id="script-file" />
      <span class="label" id="source-label">
        Source
      </span>
      <div class="editor" id="source-editor" data-label="Source" />
      <form id="run-form" aria-label="Run" class="stack">
        <label for="input">Input</label>
        <textarea id="input" name="input" class="mono" rows={4} spellcheck={false}>
          {'{}'}
        </textarea>
        <div class="actions">
          <button type="submit">Run</button>
        </div>
      </form>
      <section aria-label="Result" id="result" class="result" />
    </>
  );
}
