import { ChunkStore } from '/work/main/src-main/engine/store/chunks.ts';
const proto = ChunkStore.prototype as any;
const orig = proto.replaceFor;
let tc = 0, tf = 0, n = 0, bytes = 0;
proto.replaceFor = function (id: number, chunks: any[], isNew: boolean) {
  const ins = this.insertStmt, fts = this.insertFtsStmt;
  for (const c of chunks) {
    let t = performance.now();
    const { id: cid } = ins.get(id, c.ordinal, c.charStart, c.charEnd, c.lineStart, c.lineEnd, c.headingPath.length ? JSON.stringify(c.headingPath) : '', c.tokens);
    tc += performance.now() - t; t = performance.now();
    fts.run(cid, c.ftsTitle, c.ftsHeadings, c.ftsBody);
    tf += performance.now() - t; n++; bytes += c.ftsBody.length;
  }
};
await import('/work/main/bench/prof.mts');
console.log({ tc, tf, n, bytes });
