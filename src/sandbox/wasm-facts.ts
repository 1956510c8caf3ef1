/**
 * @module What the host must know of the QuickJS wasm binary before it instantiates it: its
 * mutable globals (imported and defined; the snapshot restore puts back exactly one, the stack
 * pointer, and a build with more would keep state it misses) and the largest memory its memory
 * import accepts (an instance's memory may not be declared larger).
 */

const SECTION_IMPORT = 2;
const SECTION_GLOBAL = 6;
const IMPORT_FUNC = 0;
const IMPORT_TABLE = 1;
const IMPORT_MEMORY = 2;
const WASM_HEADER_BYTES = 8;

class Reader {
  at = WASM_HEADER_BYTES;
  constructor(private readonly bytes: Uint8Array) {}
  byte(): number {
    const value = this.bytes[this.at++];
    if (value === undefined) throw new Error('the wasm binary ends early');
    return value;
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
  }
  skip(n: number): void {
    this.at += n;
  }
  /** Skips a limits entry; returns its maximum, undefined when it has none. */
  limits(): number | undefined {
    const flags = this.byte();
    this.u32();
    return flags & 1 ? this.u32() : undefined;
  }
  /** Skips a LEB128 number of any width. */
  leb(): void {
    while (this.byte() & 0x80) {}
  }
  /** A constant expression (i32/i64/f32/f64.const, global.get), up to its `end` opcode. */
  constExpr(): void {
    for (;;) {
      const op = this.byte();
      if (op === 0x0b) return;
      if (op === 0x41 || op === 0x42 || op === 0x23) this.leb();
      else if (op === 0x43) this.skip(4);
      else if (op === 0x44) this.skip(8);
      else throw new Error(`unexpected opcode ${op} in a global's initializer`);
    }
  }
}

/** The largest wasm32 memory, in 64 KiB pages (4 GiB): the bound of an import without a maximum. */
export const WASM32_MAX_PAGES = 65_536;

export interface WasmFacts {
  /** Mutable globals the module imports or defines. */
  mutableGlobals: number;
  /** The maximum of the module's memory import, in 64 KiB pages. */
  memoryMaxPages: number;
}

export function inspectWasm(bytes: Uint8Array): WasmFacts {
  const r = new Reader(bytes);
  let mutableGlobals = 0;
  let memoryMaxPages = WASM32_MAX_PAGES;
  while (r.at < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.at + size;
    if (id === SECTION_IMPORT) {
      for (let n = r.u32(); n > 0; n--) {
        r.skip(r.u32());
        r.skip(r.u32());
        const kind = r.byte();
        if (kind === IMPORT_FUNC) r.u32();
        else if (kind === IMPORT_TABLE) {
          r.byte();
          r.limits();
        } else if (kind === IMPORT_MEMORY) memoryMaxPages = r.limits() ?? WASM32_MAX_PAGES;
        else {
          r.byte();
          if (r.byte() === 1) mutableGlobals++;
        }
      }
    } else if (id === SECTION_GLOBAL) {
      for (let n = r.u32(); n > 0; n--) {
        r.byte();
        if (r.byte() === 1) mutableGlobals++;
        r.constExpr();
      }
    }
    r.at = end;
  }
  return { mutableGlobals, memoryMaxPages };
}
