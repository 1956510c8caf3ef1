// TypeScript 7 (the native compiler, `typescript7` = typescript@7.0.2) on bench/typecheck.js's
// program and declarations, measured side by side with the checker codemux ships (TypeScript
// 5.9): the same compiler options and library list, the declarations and the program as
// in-memory files (the API's virtual file system), the program wrapped as the worker wraps it.
// A check is what a warm checker would do per program: a new snapshot with the program file
// changed, then its syntactic and semantic diagnostics. The native process's RSS is read from
// /proc (Linux).
import fs from 'node:fs';
import { API } from 'typescript7/unstable/sync';

const DIR = '/codemux-check';
const TSCONFIG = `${DIR}/tsconfig.json`;
const SCOPE = `${DIR}/scope.d.ts`;
const PROGRAM = `${DIR}/program.ts`;
const WRAP_HEAD = 'async function __codemux_program__() {\n';
const WRAP_TAIL = '\n}';
/** Linux's clock ticks (USER_HZ), the unit of /proc/<pid>/stat's CPU times. */
const TICKS_PER_SECOND = 100;

const COMPILER_OPTIONS = {
  target: 'es2023',
  lib: [
    'es2023',
    'es2024.collection',
    'es2024.object',
    'es2024.promise',
    'es2024.string',
    'es2024.regexp',
    'esnext.collection',
    'esnext.promise',
  ],
  strict: false,
  noEmit: true,
  allowJs: true,
  checkJs: true,
  types: [],
  noResolve: true,
  skipLibCheck: true,
  allowUnreachableCode: true,
  allowUnusedLabels: true,
};

/** A native checker over one scope's declarations, checking one program text at a time. */
export class NativeChecker {
  constructor(declarations) {
    this.program = '';
    const files = {
      [TSCONFIG]: JSON.stringify({
        compilerOptions: COMPILER_OPTIONS,
        files: ['scope.d.ts', 'program.ts'],
      }),
      [SCOPE]: declarations,
    };
    const ours = (file) => file.startsWith(`${DIR}/`);
    this.api = new API({
      cwd: DIR,
      fs: {
        // null: not there (no fallback to the disk); undefined: the disk (TypeScript's library).
        readFile: (file) =>
          file === PROGRAM ? this.program : (files[file] ?? (ours(file) ? null : undefined)),
        fileExists: (file) =>
          file === PROGRAM || file in files ? true : ours(file) ? false : undefined,
        directoryExists: (dir) => (dir === DIR ? true : undefined),
      },
    });
    this.snapshot = undefined;
  }

  /** The diagnostics of `source` (codes and messages). */
  check(source) {
    this.program = WRAP_HEAD + source + WRAP_TAIL;
    const previous = this.snapshot;
    this.snapshot = previous
      ? this.api.updateSnapshot({ fileChanges: { changed: [PROGRAM] } })
      : this.api.updateSnapshot({ openProjects: [TSCONFIG] });
    previous?.dispose();
    const { program } = this.snapshot.getProject(TSCONFIG);
    return [
      ...program.getSyntacticDiagnostics(PROGRAM),
      ...program.getSemanticDiagnostics(PROGRAM),
    ].map((d) => `${d.code}: ${d.text}`);
  }

  /** The native process's resident set, in bytes (undefined off Linux). */
  rss() {
    const status = this.proc('status');
    const kb = status && /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  }

  /** The native process's CPU time so far (user + system), in ms (undefined off Linux). */
  cpuMs() {
    const stat = this.proc('stat');
    if (!stat) return undefined;
    // The fields after the command's name (in parentheses): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  }

  proc(file) {
    try {
      return fs.readFileSync(`/proc/${this.api.client?.channel?.child?.pid}/${file}`, 'utf8');
    } catch {
      return undefined;
    }
  }

  close() {
    this.snapshot?.dispose();
    this.api.close();
  }
}
