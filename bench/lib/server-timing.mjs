// Preloaded into `trove serve` by bench:mcp-floor (node --import): the server's share of each
// HTTP exchange, from the moment node has parsed the request's headers (before its body is read)
// to the moment the response's last byte is handed to the socket ('finish'), read from node's own
// http diagnostics channels, so nothing in the server is changed. SIGUSR2 writes the durations
// taken since the last signal (ms, one request each) to TROVE_BENCH_TIMING_FILE and starts afresh.
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';

const started = new WeakMap();
let durations = [];
diagnostics.subscribe('http.server.request.start', ({ request }) => started.set(request, performance.now()));
diagnostics.subscribe('http.server.response.finish', ({ request }) => {
  const t0 = started.get(request);
  if (t0 !== undefined) durations.push(performance.now() - t0);
});
process.on('SIGUSR2', () => {
  const file = process.env.TROVE_BENCH_TIMING_FILE;
  if (file) fs.writeFileSync(`${file}.tmp`, JSON.stringify(durations));
  if (file) fs.renameSync(`${file}.tmp`, file);
  durations = [];
});
