/**
 * @module The type checker's worker thread: one TypeScript language service, kept warm (the
 * ES2023 library parsed and bound once, each scope's declarations once), that checks one
 * program at a time against the declarations of its caller's scope. Settings are lenient
 * (not strict) so that only real mistakes show. A check past its time is cancelled through
 * the language service's cancellation token; the host terminates a worker that does not stop.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import type tsModule from 'typescript';
import { scopeDeclarations } from '../catalog/declarations.ts';
import { legalInJavascript } from './javascript.ts';
import { libraryFiles, libraryText } from './library.ts';
import { nameMessage, unknownBracketNames } from './names.ts';
import type {
  CheckMessage,
  HostToWorker,
  Scope,
  ScopeInput,
  TypeDiagnostic,
  WorkerToHost,
} from './protocol.ts';

const ts: typeof tsModule = createRequire(import.meta.url)('typescript');

/** Scopes kept in the worker; an evicted one is asked for again. */
const MAX_SCOPES = 16;
/** Diagnostics returned per program (the total is counted). */
const MAX_DIAGNOSTICS = 20;
/** Characters of one diagnostic's message. */
const MAX_MESSAGE_CHARS = 600;

/**
 * The program is checked inside an async function, as the engine runs it: top-level `await` and
 * `return` are legal, and its names shadow the globals instead of clashing with them. The head
 * is one line, so the caller's line N is the file's line N (0-based), its columns unchanged.
 */
const WRAP_HEAD = 'async function __codemux_program__() {\n';
const WRAP_TAIL = '\n}';

/**
 * Grammar codes that only the wrapper causes: a namespace (1235) or a `declare` (1184) is legal
 * at a program's top level, which the wrapper makes a function body.
 */
const WRAPPER_ONLY = new Set([1184, 1235]);

/**
 * ES2023, and the newer builtins the pinned QuickJS has (Object.groupBy, Promise.withResolvers,
 * Set methods, Promise.try; the iterator helpers are in the scope's declarations): flagging
 * code that runs would be a false positive. Loaded as one file (library.ts).
 */
const LIB = [
  'lib.es2023.d.ts',
  'lib.es2024.collection.d.ts',
  'lib.es2024.object.d.ts',
  'lib.es2024.promise.d.ts',
  'lib.es2024.string.d.ts',
  'lib.es2024.regexp.d.ts',
  'lib.esnext.collection.d.ts',
  'lib.esnext.promise.d.ts',
];

const OPTIONS: tsModule.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  // The library is LIB_FILE, a root of every program, instead of TypeScript's separate files.
  noLib: true,
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

const libDir = path.dirname(createRequire(import.meta.url).resolve('typescript'));
const LIB_FILE = '/lib.codemux.d.ts';
const LIB_TEXT = libraryText(libraryFiles(ts, libDir, LIB, ts.sys.readFile), ts.sys.readFile);

class CancelledCheck extends Error {}

/**
 * The 1-based line and column of `offset` in the program as sent, lines split at `\n` only
 * (as the engine counts them; TypeScript also breaks lines at U+2028 and a lone CR). An
 * offset in the wrapper's head or tail is clamped to the program's start or end.
 */
function positionIn(source: string, offset: number): { line: number; column: number } {
  const at = Math.min(Math.max(offset, 0), source.length);
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf('\n'); i !== -1 && i < at; i = source.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: at - lineStart + 1 };
}

/** The files of the check in progress, and the language service over them. */
class Checker {
  private readonly scopes = new Map<string, Scope & { file: string }>();
  private scopeSerial = 0;
  private scope: (Scope & { file: string }) | undefined;
  private programFile = '/program.ts';
  private programText = '';
  private programVersion = 0;
  private deadline = Number.POSITIVE_INFINITY;
  private readonly service: tsModule.LanguageService;

  constructor() {
    const host: tsModule.LanguageServiceHost = {
      getScriptFileNames: () =>
        this.scope ? [LIB_FILE, this.scope.file, this.programFile] : [LIB_FILE, this.programFile],
      getScriptVersion: (file) => (file === this.programFile ? String(this.programVersion) : '1'),
      getScriptSnapshot: (file) => {
        const text = this.read(file);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => '/',
      getCompilationSettings: () => OPTIONS,
      getDefaultLibFileName: (options) => path.join(libDir, ts.getDefaultLibFileName(options)),
      fileExists: (file) => this.read(file) !== undefined,
      readFile: (file) => this.read(file),
      getCancellationToken: () => ({
        isCancellationRequested: () => performance.now() > this.deadline,
      }),
    };
    this.service = ts.createLanguageService(host, ts.createDocumentRegistry());
  }

  private read(file: string): string | undefined {
    if (file === this.programFile) return this.programText;
    if (this.scope && file === this.scope.file) return this.scope.text;
    return file === LIB_FILE ? LIB_TEXT : undefined;
  }

  /** Writes the declarations of `input` and keeps them under `key`. */
  addScopeFrom(key: string, input: ScopeInput): void {
    this.addScope(key, scopeDeclarations(input));
  }

  /** Keeps `scope` under `key` (the least recently used one goes past MAX_SCOPES). */
  addScope(key: string, scope: Scope): void {
    this.scopes.delete(key);
    this.scopes.set(key, { ...scope, file: `/scope-${++this.scopeSerial}.d.ts` });
    while (this.scopes.size > MAX_SCOPES) this.scopes.delete(this.scopes.keys().next().value!);
  }

  hasScope(key: string): boolean {
    return this.scopes.has(key);
  }

  /** The diagnostics of `source` against the scope `key` (which the worker has). */
  check(message: CheckMessage): { diagnostics: TypeDiagnostic[]; total: number } {
    const scope = this.scopes.get(message.scopeKey)!;
    this.scopes.delete(message.scopeKey);
    this.scopes.set(message.scopeKey, scope);
    this.scope = scope;
    this.programFile =
      message.javascript || message.detectJavascript ? '/program.js' : '/program.ts';
    this.programText = WRAP_HEAD + message.source + WRAP_TAIL;
    this.programVersion++;
    this.deadline = performance.now() + message.timeoutMs;
    try {
      // A program of no stated language is JavaScript when it parses as such: TypeScript
      // syntax (a type annotation, `as`, an interface, generics...) is an error in a .js file.
      if (
        message.detectJavascript &&
        this.service.getSyntacticDiagnostics(this.programFile).length > 0
      ) {
        this.programFile = '/program.ts';
      }
      return this.diagnose(message.source);
    } catch (error) {
      if (error instanceof ts.OperationCanceledException) throw new CancelledCheck();
      throw error;
    } finally {
      this.deadline = Number.POSITIVE_INFINITY;
    }
  }

  private diagnose(source: string): { diagnostics: TypeDiagnostic[]; total: number } {
    // A program that does not parse is the engine's to report (SYNTAX_ERROR, TRANSPILE_ERROR).
    if (this.service.getSyntacticDiagnostics(this.programFile).length > 0) {
      return { diagnostics: [], total: 0 };
    }
    const sf = this.service.getProgram()!.getSourceFile(this.programFile)!;
    const scope = this.scope!;
    const javascript = this.programFile.endsWith('.js');
    const found: Array<{ start: number; code: number; message: string }> = [];
    for (const d of this.service.getSemanticDiagnostics(this.programFile)) {
      if (d.category !== ts.DiagnosticCategory.Error || d.start === undefined) continue;
      if (WRAPPER_ONLY.has(d.code)) continue;
      if (javascript && legalInJavascript(ts, sf, d)) continue;
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      const named = nameMessage(ts, sf, d, text, scope);
      found.push({ start: named?.start ?? d.start, code: d.code, message: named?.message ?? text });
    }
    for (const b of unknownBracketNames(ts, sf, scope)) {
      found.push({ start: b.start, code: 2339, message: b.message });
    }
    found.sort((a, b) => a.start - b.start);
    const diagnostics = found.slice(0, MAX_DIAGNOSTICS).map((f) => {
      const message =
        f.message.length > MAX_MESSAGE_CHARS
          ? `${f.message.slice(0, MAX_MESSAGE_CHARS - 1)}…`
          : f.message;
      return { ...positionIn(source, f.start - WRAP_HEAD.length), code: f.code, message };
    });
    return { diagnostics, total: found.length };
  }
}

const port = parentPort!;
const send = (message: WorkerToHost) => port.postMessage(message);
const checker = new Checker();

/** The library is parsed and bound before the first program comes. */
function warmUp(): void {
  checker.addScope('', { text: 'declare const input: any;', servers: {}, held: {} });
  checker.check({
    type: 'check',
    id: 0,
    scopeKey: '',
    source: 'const warm: number = [1].map((n) => n * 2)[0];',
    javascript: false,
    timeoutMs: Number.POSITIVE_INFINITY,
  });
}

port.on('message', (message: HostToWorker) => {
  const { id } = message;
  try {
    // A scope that cannot be written (whatever an upstream's schemas hold) fails this check only.
    if (message.scope) checker.addScopeFrom(message.scopeKey, message.scope);
    if (!checker.hasScope(message.scopeKey)) return send({ type: 'need-scope', id });
    send({ type: 'checked', id, ...checker.check(message) });
  } catch (error) {
    if (error instanceof CancelledCheck) return send({ type: 'cancelled', id });
    send({ type: 'failed', id, message: (error as Error).message });
  }
});

warmUp();
send({ type: 'ready' });
