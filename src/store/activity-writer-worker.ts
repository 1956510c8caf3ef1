/**
 * @module The activity writer thread (activity-writer.ts): its own connection to the database
 * file, turning batches of records into rows and committing each batch in one transaction, so
 * the gateway thread spends nothing on SQLite for the history.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { ACTIVITY_COLUMNS, type ActivityRow, activityRow } from './activity-rows.ts';
import type { WriterReply, WriterRequest } from './activity-writer.ts';

const db = new Database((workerData as { file: string }).file);
db.pragma('busy_timeout = 5000');
// Under WAL, NORMAL skips the fsync of each commit: safe from corruption, and an application
// crash loses nothing committed; a power cut may take back the last batches (docs/activity.md).
db.pragma('synchronous = NORMAL');
const insertRow = db.prepare(
  `INSERT OR IGNORE INTO activity (${ACTIVITY_COLUMNS.join(', ')}) VALUES (${ACTIVITY_COLUMNS.map((c) => `@${c}`).join(', ')})`,
);
const insertAll = db.transaction((rows: ActivityRow[]) => {
  for (const row of rows) insertRow.run(row);
});

parentPort!.on('message', (request: WriterRequest) => {
  if (request.type === 'close') {
    db.close();
    parentPort!.postMessage({ type: 'closed' } satisfies WriterReply);
    return;
  }
  let reply: WriterReply;
  try {
    insertAll(request.records.map(activityRow));
    reply = { type: 'written', id: request.id };
  } catch (error) {
    reply = { type: 'written', id: request.id, error: (error as Error).message };
  }
  parentPort!.postMessage(reply);
});
