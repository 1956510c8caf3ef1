/** @module The few WebAssembly JS API members codemux uses (absent from @types/node 20). */
declare global {
  namespace WebAssembly {
    interface MemoryDescriptor {
      initial: number;
      maximum?: number;
    }
    class Memory {
      constructor(descriptor: MemoryDescriptor);
      readonly buffer: ArrayBuffer;
      grow(delta: number): number;
    }
    class Module {
      constructor(bytes: BufferSource);
    }
    function compile(bytes: BufferSource): Promise<Module>;
  }
}

export {};
