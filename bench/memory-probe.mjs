/**
 * Preloaded into the service by bench/memory.ts (`node --expose-gc --import ./bench/memory-probe.mjs
 * dist/server.js`, with an IPC channel) and by bench/soak.ts on PGlite (without --expose-gc):
 * answers the bench's messages from inside the process.
 *   {type: 'sample'}   -> two full GCs, then process.memoryUsage(), V8's heap spaces, and the size of
 *                          every live WebAssembly memory (PGlite's heap), in bytes; with `gc: false`
 *                          the same without the GCs (bench/soak.ts samples a loaded service so);
 *   {type: 'snapshot', file} -> v8.writeHeapSnapshot(file) after a GC.
 * WebAssembly memories are found by wrapping WebAssembly.instantiate before PGlite loads; nothing
 * else in the service changes. Not part of the service: a measuring aid only.
 */
import v8 from 'node:v8';

const OriginalMemory = WebAssembly.Memory;
// Weak: the probe must not keep alive a memory its module dropped (PGlite's initdb instance).
const memories = new Set();
const track = (memory) => memories.add(new WeakRef(memory));
const remember = (result) => {
  const instance = result?.instance ?? result;
  for (const value of Object.values(instance?.exports ?? {}))
    if (value instanceof OriginalMemory) track(value);
  return result;
};
for (const name of ['instantiate', 'instantiateStreaming']) {
  const original = WebAssembly[name];
  WebAssembly[name] = (...args) => original.apply(WebAssembly, args).then(remember);
}
// A memory the JS side creates and the module imports.
WebAssembly.Memory = class Memory extends OriginalMemory {
  constructor(...args) {
    super(...args);
    track(this);
  }
};

function collect() {
  globalThis.gc?.();
  globalThis.gc?.();
}

process.on('message', (msg) => {
  if (msg?.type === 'sample') {
    if (msg.gc !== false) collect();
    const spaces = Object.fromEntries(
      v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]),
    );
    process.send?.({
      type: 'sample',
      id: msg.id,
      usage: process.memoryUsage(),
      spaces,
      wasm: [...memories].map((ref) => ref.deref()?.buffer.byteLength ?? 0).filter((n) => n > 0),
    });
  } else if (msg?.type === 'snapshot') {
    collect();
    process.send?.({ type: 'snapshot', id: msg.id, file: v8.writeHeapSnapshot(msg.file) });
  }
});
// The channel must not keep the process alive after the server closes (SIGTERM).
process.channel?.unref();
