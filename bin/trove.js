#!/usr/bin/env node
// The `trove` command: compiled sources live in dist/ (npm run build:node).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err);
    process.exitCode = 1;
  },
);
