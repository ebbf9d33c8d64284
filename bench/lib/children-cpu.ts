// CPU seconds of this process's children that have exited and been waited for (Linux /proc):
// what the benches' spawned `trove` processes (relays, commands) cost.
import fs from 'node:fs';

export function childrenCpuSeconds(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}
